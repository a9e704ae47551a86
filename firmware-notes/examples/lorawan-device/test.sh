#!/usr/bin/env bash
# End-to-end test of a LoRaWAN display behind ChirpStack v4 and behind The Things Stack
# (lorawan_device.c), on 127.0.0.1 only:
#   1. builds the device twice into a temp dir: -O2 with -Werror (C99, pedantic), and with ASan +
#      UBSan for every run below;
#   2. starts mosquitto on a free port (it plays ChirpStack's MQTT integration and The Things
#      Stack's MQTT server), the Open-Meteo stand-in of the virtual display
#      (../virtual-display/open_meteo_stub.py and its fixtures) and the gateway ($SKYFRAME_BIN,
#      default .build/debug/skyframe of this repo) with a `lorawan` section: a chirpstack server
#      (cs) and a things-stack server (ttn: application weather-displays, tenant ttn) on that
#      mosquitto, both EU868, f-port 10; the devices 70B3D57ED0012345 (behind cs) and
#      70B3D57ED0012346 (behind ttn as device id hall-display), each with the places
#      ["Berlin,DE", "52.52,13.41"];
#   3. asks like the device, each uplink written with skyframe_uplink_*() and published in
#      ChirpStack's uplink JSON, each downlink's base64 data decoded with the C header: by
#      coordinates at DR0 (tiny with a temperature; the downlink JSON checked on the wire with
#      mosquitto_sub), by place index 0 and 1 (the same frame as the coordinates), refresh
#      (tiny), refresh with the check of the frame shown (unchanged), an index the device has no
#      place for (a tiny not_found error frame), and an uplink on another FPort (no answer: exit
#      status 2);
#   4. asks behind The Things Stack, each uplink in its v3 uplink JSON on
#      v3/weather-displays@ttn/devices/hall-display/up, each answer read from .../down/push: by
#      coordinates at DR0 (tiny; the down/push JSON checked on the wire), by place index 0
#      (tiny), refresh with the check of the frame shown (unchanged).
# Every process it starts is stopped on exit. Needs cc, pkg-config, libmosquitto-dev, mosquitto,
# mosquitto-clients and python3. Last line: "lorawan-device: N passed, M failed"; the exit status
# is non-zero on any failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
bin="${SKYFRAME_BIN:-$repo/.build/debug/skyframe}"
stub_dir="$repo/firmware-notes/examples/virtual-display"
CC="${CC:-cc}"
application="17c82e96-be03-4f38-aef3-f83d48582d97"
dev_eui="70b3d57ed0012345"
tts_application="weather-displays"
tts_tenant="ttn"
tts_device="hall-display"
tts_dev_eui="70b3d57ed0012346"

tmp="$(mktemp -d)"
pids=()
passed=0
failed=0

finish() {
    local status=$? pid
    for pid in "${pids[@]+"${pids[@]}"}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]+"${pids[@]}"}"; do wait "$pid" 2>/dev/null || true; done
    if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
        failed=$((failed + 1))
        echo "FAIL the test script stopped early (exit status $status)"
    fi
    if [ "$failed" -ne 0 ]; then
        for log in gateway.log stub.log mosquitto.log; do
            if [ -s "$tmp/$log" ]; then
                echo "--- last lines of $log"
                tail -n 15 "$tmp/$log"
            fi
        done
    fi
    rm -rf "$tmp"
    echo "lorawan-device: $passed passed, $failed failed"
    [ "$failed" -eq 0 ] || exit 1
}
trap finish EXIT
trap 'exit 130' INT TERM

pass() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

# ask NAME ARGS...: the device asks once, keeping its exit status, stdout and stderr.
ask() {
    local name="$1"
    shift
    set +e
    "$tmp/lorawan_device" --port "$mqtt_port" --application "$application" --dev-eui "$dev_eui" \
        "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    echo $? >"$tmp/$name.status"
    set -e
}
# ask_tts NAME ARGS...: the same, the device behind The Things Stack.
ask_tts() {
    local name="$1"
    shift
    set +e
    "$tmp/lorawan_device" --server things-stack --port "$mqtt_port" \
        --application "$tts_application" --tenant "$tts_tenant" --device-id "$tts_device" \
        --dev-eui "$tts_dev_eui" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    echo $? >"$tmp/$name.status"
    set -e
}
status_of() { cat "$tmp/$1.status"; }
stdout_of() { cat "$tmp/$1.out"; }
# check_of NAME: the content check a tiny answer's line ends with.
check_of() { sed -n 's/^tiny .* check \([0-9a-f]\{8\}\)$/\1/p' "$tmp/$1.out"; }
# expect NAME WHAT PATTERN: exit status 0, one line on stdout matching PATTERN, nothing on stderr.
expect() {
    if [ "$(status_of "$1")" = 0 ] && [ ! -s "$tmp/$1.err" ] &&
        [ "$(wc -l <"$tmp/$1.out")" = 1 ] && [[ "$(stdout_of "$1")" =~ $3 ]]; then
        pass "$2: $(stdout_of "$1")"
    else
        fail "$2: status $(status_of "$1"), '$(stdout_of "$1")', $(cat "$tmp/$1.err")"
    fi
}

# ---- 1. Build -------------------------------------------------------------------------------
flags=(-std=c99 -Wall -Wextra -Werror -pedantic -I"$here/../..")
read -r -a mosquitto_cflags <<<"$(pkg-config --cflags libmosquitto)"
read -r -a mosquitto_libs <<<"$(pkg-config --libs libmosquitto)"
if "$CC" "${flags[@]}" -O2 "${mosquitto_cflags[@]+"${mosquitto_cflags[@]}"}" \
    -o "$tmp/lorawan_device_O2" "$here/lorawan_device.c" "${mosquitto_libs[@]}"; then
    pass "builds with -std=c99 -Wall -Wextra -Werror -pedantic -O2"
else
    fail "builds with -std=c99 -Wall -Wextra -Werror -pedantic -O2"
fi
if "$CC" "${flags[@]}" -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
    "${mosquitto_cflags[@]+"${mosquitto_cflags[@]}"}" -o "$tmp/lorawan_device" \
    "$here/lorawan_device.c" "${mosquitto_libs[@]}"; then
    pass "builds with ASan and UBSan"
else
    fail "builds with ASan and UBSan"
    exit 1
fi

# ---- 2. mosquitto (ChirpStack's MQTT side), the Open-Meteo stand-in, the gateway --------------
# shellcheck source=../live-test-lib.sh
. "$here/../live-test-lib.sh"

if [ ! -x "$bin" ]; then
    fail "no gateway binary at $bin (build it, or set SKYFRAME_BIN)"
    exit 1
fi
start_mosquitto || exit 1
start_open_meteo_stub || exit 1

{
    gateway_config skyframe-lw-test 0
    cat <<END_OF_CONFIG
locations:
  names: []
lorawan:
  unknown-devices: refuse
  servers:
    names: [cs, ttn]
    cs:
      kind: chirpstack
      host: 127.0.0.1
      port: $mqtt_port
      application: $application
      f-port: 10
      band: eu868
    ttn:
      kind: things-stack
      host: 127.0.0.1
      port: $mqtt_port
      application: $tts_application
      tenant: $tts_tenant
      f-port: 10
      band: eu868
  devices:
    euis: ["70B3D57ED0012345", "70B3D57ED0012346"]
    70B3D57ED0012345:
      places: ["Berlin,DE", "52.52,13.41"]
    70B3D57ED0012346:
      places: ["Berlin,DE", "52.52,13.41"]
END_OF_CONFIG
} >"$tmp/gateway.yaml"

# No SKYFRAME_* variable of the caller's may override the file.
unset_skyframe=()
for name in $(compgen -e); do
    if [[ "$name" == SKYFRAME_* ]]; then unset_skyframe+=(-u "$name"); fi
done
env "${unset_skyframe[@]+"${unset_skyframe[@]}"}" "$bin" run --config "$tmp/gateway.yaml" \
    >"$tmp/gateway.log" 2>&1 &
pids+=($!)
gateway_pid=$!
for server in cs ttn; do
    for _ in $(seq 200); do
        grep -q "connected to network server $server" "$tmp/gateway.log" && break
        kill -0 "$gateway_pid" 2>/dev/null || break
        sleep 0.1
    done
    if grep -q "connected to network server $server" "$tmp/gateway.log"; then
        pass "the gateway is connected to network server $server"
    else
        fail "the gateway did not connect to network server $server within 20 s"
        exit 1
    fi
done

# ---- 3. The device asks -----------------------------------------------------------------------
# By coordinates at EU868 DR0, the downlink's JSON seen on the wire too.
mosquitto_sub -h 127.0.0.1 -p "$mqtt_port" -t "application/+/device/+/command/down" -v -C 1 \
    -W 15 >"$tmp/down.wire" 2>/dev/null &
wire_pid=$!
pids+=("$wire_pid")
sleep 0.5
ask coordinates --coordinates 52.52,13.41 --id 1 --dr 0
expect coordinates "by coordinates (52.52,13.41, DR0)" \
    '^tiny #1 status ok 21\.5C slot 1 of 1 check [0-9a-f]{8}$'
wait "$wire_pid" 2>/dev/null || true
if python3 - "$tmp/down.wire" "$application" "$dev_eui" <<'END_OF_PYTHON'; then
import base64, json, sys
topic, _, body = open(sys.argv[1]).read().strip().partition(" ")
down = json.loads(body)
assert topic == "application/%s/device/%s/command/down" % (sys.argv[2], sys.argv[3]), topic
assert down["devEui"] == sys.argv[3] and down["confirmed"] is False and down["fPort"] == 10, down
data = base64.b64decode(down["data"], validate=True)
assert len(data) == 48 and data[:3] == b"SF\x21", data.hex()
END_OF_PYTHON
    pass "the downlink on the wire: command/down, devEui, confirmed false, fPort 10, 48-byte tiny"
else
    fail "the downlink on the wire: '$(cat "$tmp/down.wire")'"
fi

ask place0 --place 0 --id 2
expect place0 "place index 0 (Berlin,DE)" \
    '^tiny #2 status ok -?[0-9]+\.[0-9]C slot 1 of 1 check [0-9a-f]{8}$'

ask place1 --place 1 --id 3
expect place1 "place index 1 (52.52,13.41)" \
    '^tiny #3 status ok -?[0-9]+\.[0-9]C slot 1 of 1 check [0-9a-f]{8}$'
if [ -n "$(check_of place1)" ] && [ "$(check_of place1)" = "$(check_of coordinates)" ]; then
    pass "place index 1 is the frame of the coordinates (check $(check_of place1))"
else
    fail "place index 1: check '$(check_of place1)', coordinates '$(check_of coordinates)'"
fi

ask refresh --refresh --id 4
expect refresh "refresh without a check (the last place again)" \
    '^tiny #4 status ok -?[0-9]+\.[0-9]C slot 1 of 1 check [0-9a-f]{8}$'

shown="$(check_of refresh)"
ask unchanged --refresh --id 5 --check "${shown:-00000000}"
expect unchanged "refresh with the check of the frame shown ($shown)" \
    '^unchanged #5 profile tiny slot 1 of 1$'

ask unknown-place --place 7 --id 6
expect unknown-place "place index 7, not configured" \
    '^tiny #6 status not_found no-temperature slot 1 of 1 check [0-9a-f]{8}$'

# Another FPort is no request: no downlink.
ask other-port --refresh --id 7 --f-port 99 --timeout 2
if [ "$(status_of other-port)" = 2 ] && grep -q "no answer" "$tmp/other-port.err" &&
    [ ! -s "$tmp/other-port.out" ]; then
    pass "an uplink on FPort 99: no answer, exit status 2 after --timeout"
else
    fail "an uplink on FPort 99: status $(status_of other-port), '$(stdout_of other-port)'," \
        "$(cat "$tmp/other-port.err")"
fi

# ---- 4. The device asks behind The Things Stack ----------------------------------------------
mosquitto_sub -h 127.0.0.1 -p "$mqtt_port" -t "v3/+/devices/+/down/push" -v -C 1 \
    -W 15 >"$tmp/tts-down.wire" 2>/dev/null &
wire_pid=$!
pids+=("$wire_pid")
sleep 0.5
ask_tts tts-coordinates --coordinates 52.52,13.41 --id 11 --dr 0
expect tts-coordinates "things-stack: by coordinates (52.52,13.41, SF12/125 kHz)" \
    '^tiny #11 status ok 21\.5C slot 1 of 1 check [0-9a-f]{8}$'
wait "$wire_pid" 2>/dev/null || true
tts_user="$tts_application@$tts_tenant"
if python3 - "$tmp/tts-down.wire" "$tts_user" "$tts_device" <<'END_OF_PYTHON'; then
import base64, json, sys
topic, _, body = open(sys.argv[1]).read().strip().partition(" ")
down = json.loads(body)
assert topic == "v3/%s/devices/%s/down/push" % (sys.argv[2], sys.argv[3]), topic
[one] = down["downlinks"]
assert one["f_port"] == 10 and one["priority"] == "NORMAL", one
data = base64.b64decode(one["frm_payload"], validate=True)
assert len(data) == 48 and data[:3] == b"SF\x21", data.hex()
END_OF_PYTHON
    pass "things-stack: the downlink on the wire: down/push, f_port 10, NORMAL, 48-byte tiny"
else
    fail "things-stack: the downlink on the wire: '$(cat "$tmp/tts-down.wire")'"
fi

ask_tts tts-place0 --place 0 --id 12
expect tts-place0 "things-stack: place index 0 (Berlin,DE)" \
    '^tiny #12 status ok -?[0-9]+\.[0-9]C slot 1 of 1 check [0-9a-f]{8}$'

tts_shown="$(check_of tts-place0)"
ask_tts tts-unchanged --refresh --id 13 --check "${tts_shown:-00000000}"
expect tts-unchanged "things-stack: refresh with the check of the frame shown ($tts_shown)" \
    '^unchanged #13 profile tiny slot 1 of 1$'

reports="$(grep -l -E "AddressSanitizer|LeakSanitizer|runtime error:" "$tmp"/*.err || true)"
if [ -n "$reports" ]; then
    fail "sanitizer reports in: $(xargs -n1 basename <<<"$reports" | tr '\n' ' ')"
else
    pass "no sanitizer reports in any run"
fi

exit 0
