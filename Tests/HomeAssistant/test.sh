#!/usr/bin/env bash
# End-to-end test of Home Assistant MQTT discovery against a real Home Assistant core
# (homeassistant==2025.4.4, installed by install.sh into .build-ha/venv), on 127.0.0.1 only:
#   - a mosquitto on a free port, the Open-Meteo stand-in of the virtual display
#     (firmware-notes/examples/virtual-display/open_meteo_stub.py, its fixtures) and the gateway
#     ($SKYFRAME_BIN, default .build/debug/skyframe) with homeassistant.enabled, two named places
#     (berlin, lisbon) and a watch of two places (device hall_display.1: '_' and '.' in ids);
#   - Home Assistant (ha_harness.py: fresh config, onboarded, MQTT entry, birth message seen),
#     started once, beside the gateway;
#   - checks (checks.py reads Home Assistant's REST and websocket APIs): every sensor of each
#     place and of both watched places with the entity id of docs/integrations/home-assistant.md,
#     unit, device class, state class and the value of the retained frame (`skyframe decode
#     --json`); the gateway's device with its sensors; removing the watch removes its devices and
#     entities (and a birth message `online` then brings back every config but theirs); SIGTERM
#     makes everything `unavailable`, a restart available again, SIGKILL (the broker's will)
#     unavailable again; nothing in Home Assistant's log from MQTT, sensors or templates.
# Every process it starts is stopped on exit. Needs mosquitto, mosquitto-clients, python3 and
# Python 3.13 (install.sh finds it). Last line: "home-assistant: N passed, M failed"; the exit
# status is non-zero on any failure. HA_VENV=DIR uses another venv (default .build-ha/venv).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
bin="${SKYFRAME_BIN:-$repo/.build/debug/skyframe}"
venv="${HA_VENV:-$repo/.build-ha/venv}"
stub_dir="$repo/firmware-notes/examples/virtual-display"
started=$(date +%s)

tmp="$(mktemp -d)"
pids=()
passed=0
failed=0
gateway_pid=""

finish() {
    local status=$? pid
    if [ -d "$tmp/ha" ] && [ -x "$venv/bin/python" ]; then
        "$venv/bin/python" "$here/ha_harness.py" stop --dir "$tmp/ha" >/dev/null 2>&1 || true
    fi
    if [ -s "$tmp/ha/ha.pid" ]; then # in case the harness could not stop it
        kill -KILL -- "-$(cat "$tmp/ha/ha.pid")" 2>/dev/null || true
    fi
    for pid in "${pids[@]+"${pids[@]}"}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]+"${pids[@]}"}"; do wait "$pid" 2>/dev/null || true; done
    if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
        failed=$((failed + 1))
        echo "FAIL the test script stopped early (exit status $status)"
    fi
    if [ "$failed" -ne 0 ]; then
        for log in harness.log ha/ha.log gateway.log gateway2.log stub.log mosquitto.log; do
            if [ -s "$tmp/$log" ]; then
                echo "--- last lines of $log"
                tail -n 20 "$tmp/$log"
            fi
        done
    fi
    rm -rf "$tmp"
    echo "took $(($(date +%s) - started)) s"
    echo "home-assistant: $passed passed, $failed failed"
    [ "$failed" -eq 0 ] || exit 1
}
trap finish EXIT
trap 'exit 130' INT TERM

pass() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
# counted MIN COMMAND...: runs one checks.py command, shows and counts its ok/FAIL lines. Its own
# failure fails too: an exit status other than 0 (checks.py exits 1 on a FAIL line, and a crash
# before any line, an import or a missing file, exits non-zero with its traceback), or fewer than
# MIN ok lines (a check that printed nothing, or less than it checks, checked nothing).
counted() {
    local min="$1" line rc=0 oks=0 fails=0
    shift
    "$@" >"$tmp/checks.out" 2>&1 || rc=$?
    while IFS= read -r line; do
        echo "$line"
        case "$line" in
        "ok   "*) passed=$((passed + 1)) oks=$((oks + 1)) ;;
        "FAIL "*) failed=$((failed + 1)) fails=$((fails + 1)) ;;
        esac
    done <"$tmp/checks.out"
    if [ "$rc" -ne 0 ] && [ "$fails" -eq 0 ]; then
        fail "checks.py $2 exited with status $rc and no FAIL line (its output is above)"
    elif [ "$rc" -eq 0 ] && [ "$fails" -ne 0 ]; then
        fail "checks.py $2 printed FAIL lines but exited 0"
    fi
    if [ "$oks" -lt "$min" ]; then
        fail "checks.py $2: $oks ok lines, at least $min expected"
    fi
}
checks() { "$venv/bin/python" "$here/checks.py" "$@" --dir "$tmp/ha"; }

# ---- Home Assistant's venv (install.sh returns at once when it is there, waits for an install
# that is running) -------------------------------------------------------------------------
if "$here/install.sh" >"$tmp/install.log" 2>&1; then
    pass "Home Assistant installed: $(tail -n 1 "$tmp/install.log")"
else
    fail "Home Assistant could not be installed:"
    tail -n 20 "$tmp/install.log"
    exit 1
fi
if [ ! -x "$bin" ]; then
    fail "no gateway binary at $bin (build it, or set SKYFRAME_BIN)"
    exit 1
fi

# ---- mosquitto ----------------------------------------------------------------------------
# shellcheck source=../../firmware-notes/examples/live-test-lib.sh
. "$repo/firmware-notes/examples/live-test-lib.sh"
start_mosquitto || exit 1
port="$mqtt_port"
sub() { mosquitto_sub -h 127.0.0.1 -p "$port" "$@"; }
pub() { mosquitto_pub -h 127.0.0.1 -p "$port" "$@"; }

# ---- Home Assistant, in the background while the rest starts ---------------------------------
ha_started=$(date +%s)
"$venv/bin/python" "$here/ha_harness.py" start --dir "$tmp/ha" --mqtt-port "$port" \
    --timeout 180 >"$tmp/harness.log" 2>&1 &
ha_start=$!
pids+=("$ha_start")

# ---- the Open-Meteo stand-in and the gateway ---------------------------------------------------
start_open_meteo_stub || exit 1

# The client id has '-' and '_' (written '_5f' in ids); lisbon is not in the GeoNames fixture,
# so its frame names the place by itself.
client_id="sf-ha_test"
{
    gateway_config "$client_id" 2
    cat <<END_OF_CONFIG
homeassistant:
  enabled: true
locations:
  names: [berlin, lisbon]
  berlin:
    latitude: 52.52
    longitude: 13.405
  lisbon:
    latitude: 38.72
    longitude: -9.14
END_OF_CONFIG
} >"$tmp/gateway.yaml"

# No SKYFRAME_* variable of the caller's may override the file.
unset_skyframe=()
for name in $(compgen -e); do
    if [[ "$name" == SKYFRAME_* ]]; then unset_skyframe+=(-u "$name"); fi
done
# start_gateway LOG: starts it, waits until it says online on its state topic.
start_gateway() {
    env "${unset_skyframe[@]+"${unset_skyframe[@]}"}" "$bin" run --config "$tmp/gateway.yaml" \
        >"$tmp/$1" 2>&1 &
    gateway_pid=$!
    pids+=("$gateway_pid")
    for _ in $(seq 100); do
        if [ "$(sub -t skyframe/v1/gateway/state -C 1 -W 1 2>/dev/null)" = '{"state":"online"}' ]
        then
            return 0
        fi
        kill -0 "$gateway_pid" 2>/dev/null || return 1
        sleep 0.2
    done
    return 1
}
if start_gateway gateway.log; then
    pass "the gateway is online"
else
    fail "the gateway did not come online within 20 s"
    exit 1
fi
watch=hall_display.1
pub -r -q 1 -t "skyframe/v1/watch/$watch" -m 'Berlin,DE;48.857,2.352 @900'

gateway_id="skyframe_skyframe_gateway_sf-ha_5ftest"
berlin_id="skyframe_skyframe_loc_berlin"
lisbon_id="skyframe_skyframe_loc_lisbon"
watch0_id="skyframe_skyframe_watch_hall_5fdisplay_2e1_0"
watch1_id="skyframe_skyframe_watch_hall_5fdisplay_2e1_1"
# Their entity ids (docs/integrations/home-assistant.md): each part a-y and 0-9 as is, every other
# byte 'z' and two hex digits ('_' z5f, '.' z2e, '-' z2d).
gateway_entities="skyframe_skyframe_gateway_sfz2dhaz5ftest"
watch0_entities="skyframe_skyframe_watch_hallz5fdisplayz2e1_0"
watch1_entities="skyframe_skyframe_watch_hallz5fdisplayz2e1_1"

if wait "$ha_start"; then
    pass "Home Assistant started, onboarded, MQTT added, birth message seen" \
        "($(($(date +%s) - ha_started)) s after its start; $(tail -n 1 "$tmp/harness.log"))"
else
    fail "Home Assistant did not start: $(tail -n 1 "$tmp/harness.log")"
    exit 1
fi

# ---- every sensor equals the retained frame ----------------------------------------------------
# frame TOPIC: the retained frame on TOPIC as `skyframe decode --json` prints it.
frame() {
    local hex
    hex="$(sub -t "$1" -C 1 -W 20 -F %x 2>/dev/null || true)"
    if [ -z "$hex" ]; then
        echo "no retained frame on $1" >&2
        return 1
    fi
    "$bin" decode --json <<<"$hex"
}
displays=""
for entry in "$berlin_id:$berlin_id:named place:skyframe/v1/loc/berlin" \
    "$lisbon_id:$lisbon_id:named place:skyframe/v1/loc/lisbon" \
    "$watch0_id:$watch0_entities:watch:skyframe/v1/frame/$watch/0" \
    "$watch1_id:$watch1_entities:watch:skyframe/v1/frame/$watch/1"; do
    IFS=: read -r id entities model topic <<<"$entry"
    if json="$(frame "$topic")"; then
        pass "retained frame on $topic: $(python3 -c 'import json, sys; f = json.loads(sys.argv[1])
print("%s, status %s" % (f.get("name"), f.get("status")))' "$json")"
    else
        fail "no retained frame on $topic within 20 s"
        json='{}'
    fi
    displays="$displays${displays:+,}{\"object_id\":\"$id\",\"entity_prefix\":\"$entities\",\"model\":\"$model\",\"frame\":$json}"
done
cat >"$tmp/expect.json" <<END_OF_JSON
{"displays": [$displays],
 "gateway": {"object_id": "$gateway_id", "entity_prefix": "$gateway_entities",
             "stats_topic": "skyframe/v1/gateway/stats"}}
END_OF_JSON
# At least: per display its device (4 lines) and 18 sensors (2 lines each); the gateway's device
# (4), the services named, the broker and answers-per-minute sensors, a breaker.
min_present=$((4 * (4 + 2 * 18) + 4 + 4))
counted "$min_present" checks present --expect "$tmp/expect.json" --mqtt-port "$port" --timeout 30

# ---- the watch goes --------------------------------------------------------------------------
pub -r -q 1 -n -t "skyframe/v1/watch/$watch"
counted 8 checks gone --gone "$watch0_id,$watch1_id" --kept "$berlin_id,$lisbon_id" \
    --gone-entities "$watch0_entities,$watch1_entities" --timeout 30
for id in "$watch0_id" "$watch1_id"; do
    left="$(sub -t "homeassistant/device/$id/config" -t "skyframe/v1/state/watch/$watch/#" \
        -C 1 -W 2 -v 2>/dev/null || true)"
    if [ -z "$left" ]; then
        pass "$id: no retained discovery or state message left"
    else
        fail "$id: still retained: ${left:0:120}"
    fi
done

# Home Assistant's birth message (as after its restart): every config comes again, the gone
# watch's not.
sub -R -v -t 'homeassistant/device/+/config' -W 4 >"$tmp/republished" 2>/dev/null &
republish=$!
sleep 0.5
pub -t homeassistant/status -m online
wait "$republish" || true
again="$(cut -d' ' -f1 "$tmp/republished" | sort -u | tr '\n' ' ')"
want="homeassistant/device/$gateway_id/config homeassistant/device/$berlin_id/config"
want="$want homeassistant/device/$lisbon_id/config"
want="$(tr ' ' '\n' <<<"$want" | sort -u | tr '\n' ' ')"
if [ "$again" = "$want" ]; then
    pass "'online' on homeassistant/status: the gateway's and both places' configs again, no watch's"
else
    fail "'online' on homeassistant/status: configs sent: '$again', want '$want'"
fi

# ---- the gateway stops, comes back, dies -------------------------------------------------------
all_ids="$berlin_id,$lisbon_id,$gateway_id"
kill -TERM "$gateway_pid"
if wait "$gateway_pid"; then
    pass "the gateway stopped on SIGTERM (exit status 0)"
else
    fail "the gateway's exit status after SIGTERM: $?"
fi
counted 3 checks availability --ids "$all_ids" --want unavailable --timeout 20

# The first status document after the restart, as Home Assistant (subscribed) gets it.
sub -R -C 1 -W 30 -t skyframe/v1/gateway/stats >"$tmp/first-stats" 2>/dev/null &
first_stats=$!
pids+=("$first_stats")
sleep 0.3
if start_gateway gateway2.log; then
    pass "the gateway is online again"
    counted 3 checks availability --ids "$all_ids" --want available --timeout 20
    wait "$first_stats" || true
    if python3 -c 'import json, sys; sys.exit("answers_per_minute" not in json.load(sys.stdin))' \
        <"$tmp/first-stats" 2>/dev/null; then
        pass "the first status document after the start has answers_per_minute"
    else
        fail "the first status document after the start has no answers_per_minute (Home" \
            "Assistant's template warns): $(head -c 100 "$tmp/first-stats")"
    fi
    kill -KILL "$gateway_pid"
    wait "$gateway_pid" 2>/dev/null || true
    counted 3 checks availability --ids "$all_ids" --want unavailable --timeout 20
else
    fail "the gateway did not come online again within 20 s"
fi

counted 1 checks log
exit 0
