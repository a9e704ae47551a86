# Sourced by the end-to-end tests that run the gateway for real (virtual-display/test.sh,
# lorawan-device/test.sh, Tests/HomeAssistant/test.sh, and the HTTP examples' parts of
# skyframe/test/run.sh and micropython/test/run.sh): a mosquitto on a free loopback port, the
# Open-Meteo stand-in (virtual-display/open_meteo_stub.py and its fixtures), the head of a
# gateway configuration that points at both, and a gateway with its HTTP way in. The caller has `tmp` (a scratch directory), `pids`
# (an array its exit trap stops) and `fail` (reports a failed check).

live_examples="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stub_dir="$live_examples/virtual-display"

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# start_mosquitto: a mosquitto on 127.0.0.1 and a free port, anonymous, no persistence; sets
# mqtt_port. Fails (after "mosquitto did not start") when three ports in a row would not do.
start_mosquitto() {
    mqtt_port=""
    local candidate
    for _attempt in 1 2 3; do # the free port may be taken between the check and the bind
        candidate="$(free_port)"
        printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$candidate" \
            >"$tmp/mosquitto.conf"
        mosquitto -c "$tmp/mosquitto.conf" >"$tmp/mosquitto.log" 2>&1 &
        pids+=($!)
        for _ in $(seq 50); do
            if listening "$candidate"; then
                mqtt_port="$candidate"
                return 0
            fi
            kill -0 "${pids[-1]}" 2>/dev/null || break
            sleep 0.1
        done
    done
    fail "mosquitto did not start"
    return 1
}

# start_open_meteo_stub: the stand-in on a free port; sets http to its base URL.
start_open_meteo_stub() {
    python3 "$stub_dir/open_meteo_stub.py" "$tmp/stub.port" 2>"$tmp/stub.log" &
    pids+=($!)
    for _ in $(seq 50); do
        [ -s "$tmp/stub.port" ] && break
        sleep 0.1
    done
    if [ ! -s "$tmp/stub.port" ]; then
        fail "the Open-Meteo stand-in did not start"
        return 1
    fi
    http="http://127.0.0.1:$(cat "$tmp/stub.port")"
}

# gateway_config CLIENT_ID STATS_SECONDS: the configuration's head for mosquitto and the
# stand-in (GeoNames names from the fixture, no NWS, no metrics listener); the caller appends
# its own sections.
gateway_config() {
    cat <<END_OF_CONFIG
mqtt:
  host: 127.0.0.1
  port: $mqtt_port
  client-id: $1
weather:
  service: open-meteo
open-meteo:
  forecast-url: $http/v1/forecast
  geocoding-url: $http/v1/search
  timeout-seconds: 5
air-quality:
  url: $http/v1/air-quality
alerts:
  nws:
    enabled: false
places:
  reverse-geocoding: geonames
  geonames-file: $stub_dir/fixtures/cities.txt
metrics:
  port: 0
  stats-seconds: $2
log:
  level: info
END_OF_CONFIG
}

# start_http_gateway CLIENT_ID: mosquitto, the stand-in and the gateway ($bin) with its HTTP way in
# on 127.0.0.1 and a free port (no named places, no metrics listener); sets http_port. No
# SKYFRAME_* variable of the caller's overrides the file. Fails when the HTTP port does not answer
# within 20 s (the gateway's last log lines are printed).
start_http_gateway() {
    start_mosquitto || return 1
    start_open_meteo_stub || return 1
    http_port="$(free_port)"
    {
        gateway_config "$1" 0
        printf 'locations:\n  names: []\nhttp:\n  port: %s\n  host: 127.0.0.1\n' "$http_port"
    } >"$tmp/gateway.yaml"
    local unset_skyframe=() name
    for name in $(compgen -e); do
        if [[ "$name" == SKYFRAME_* ]]; then unset_skyframe+=(-u "$name"); fi
    done
    env "${unset_skyframe[@]+"${unset_skyframe[@]}"}" "$bin" run --config "$tmp/gateway.yaml" \
        >"$tmp/gateway.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 200); do
        listening "$http_port" && return 0
        kill -0 "${pids[-1]}" 2>/dev/null || break
        sleep 0.1
    done
    fail "the gateway's HTTP way in did not answer on 127.0.0.1:$http_port within 20 s"
    tail -n 15 "$tmp/gateway.log"
    return 1
}
