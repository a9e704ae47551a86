#!/usr/bin/env bash
# Skyframe load benchmark: requests per second and p50/p99 latency at 16 and 256 concurrent
# devices on cache hits, through a real mosquitto on this machine (127.0.0.1 only), for
#   the ceiling: responder.c, a minimal libmosquitto client answering every request with a fixed
#                192-byte payload, and
#   the gateway: `skyframe run`, with Open-Meteo replaced by stub_open_meteo.py.
# The target: the gateway reaches at least 0.8 of the ceiling's throughput.
#
#   Benchmarks/load/run.sh
#
# Environment (all optional):
#   SKYFRAME_BIN       the gateway binary (default .build/release/skyframe; built with
#                      `swift build -c release --product skyframe` when that default is missing)
#   GATEWAY=0          measure the ceiling only
#   DEVICES="16 256"   device counts          WARMUP=2 DURATION=10   seconds per run
#   QOS=1              request QoS (the device subscription uses the same QoS)
#   PROTOCOL=5         5 or 311, for the devices, the responder and the gateway
#   THREADS=2          load generator threads
#   REQUEST=52.52,13.41  the request text every device sends ("{i}" = device index)
#   RESPONDER_NODELAY=1  TCP_NODELAY on the responder's socket (0 = libmosquitto's default, Nagle on)
#   BROKER_NODELAY=true  mosquitto's set_tcp_nodelay
#   CC=cc
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SKYFRAME_BIN=${SKYFRAME_BIN:-$ROOT/.build/release/skyframe}
GATEWAY=${GATEWAY:-1}
DEVICES=${DEVICES:-"16 256"}
WARMUP=${WARMUP:-2}
DURATION=${DURATION:-10}
QOS=${QOS:-1}
PROTOCOL=${PROTOCOL:-5}
THREADS=${THREADS:-2}
REQUEST=${REQUEST:-52.52,13.41}
RESPONDER_NODELAY=${RESPONDER_NODELAY:-1}
BROKER_NODELAY=${BROKER_NODELAY:-true}
CC=${CC:-cc}
case $PROTOCOL in 5) GATEWAY_PROTOCOL=5 ;; 311 | 3.1.1) PROTOCOL=311 GATEWAY_PROTOCOL=3.1.1 ;;
  *) echo "PROTOCOL must be 5 or 311" >&2; exit 2 ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/skyframe-load.XXXXXX")
PIDS=()

# Stops one process we started: SIGTERM, then SIGKILL after 10 s.
stop() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do stop "$pid"; done
  rm -rf "$TMP"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits (at most 5 s) until something accepts connections on 127.0.0.1:$1.
wait_port() {
  local i
  for ((i = 0; i < 50; i++)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on 127.0.0.1:$1" >&2
  return 1
}

# CPU time of a process in clock ticks (utime + stime).
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

field() { # field NAME LINE
  local value
  value=$(sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2")
  echo "${value:-n/a}"
}

us() { if [[ $1 == n/a ]]; then echo n/a; else echo "$1 µs"; fi; }

declare -A RESULT

# run_load LABEL N SERVER_PID: one loadgen run; its line goes to RESULT[LABEL,N].
run_load() {
  local label=$1 n=$2 server=$3 line status=0 start end b0 s0 b1 s1 hz wall
  hz=$(getconf CLK_TCK)
  b0=$(ticks "$BROKER_PID") s0=$(ticks "$server") start=$(date +%s%N)
  line=$("$TMP/loadgen" -p "$PORT" -n "$n" -t "$THREADS" -w "$WARMUP" -d "$DURATION" -q "$QOS" \
    -V "$PROTOCOL" -m "$REQUEST" -r "$label$n" 2>"$TMP/loadgen-$label-$n.log") || status=$?
  end=$(date +%s%N) b1=$(ticks "$BROKER_PID") s1=$(ticks "$server")
  wall=$(((end - start) / 1000000))
  echo "$label: ${line:-no result (exit $status)}"
  echo "    $(grep '^loadgen: threads' "$TMP/loadgen-$label-$n.log" | sed 's/^loadgen: //')"
  echo "    cpu over ${wall} ms (100% = one core): broker $(((b1 - b0) * 100000 / hz / wall))%," \
    "$label $(((s1 - s0) * 100000 / hz / wall))%, loadgen $(awk -v w="$wall" \
    '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "cpu_user_s" || kv[1] == "cpu_sys_s") s += kv[2] } }
     END { printf "%d%%", s * 100000 / w }' <"$TMP/loadgen-$label-$n.log")"
  if ((status != 0)); then
    sed 's/^/    /' "$TMP/loadgen-$label-$n.log" | tail -5
    RESULT[$label,$n]=""
    return 0
  fi
  RESULT[$label,$n]=$line
}

echo "== build: $CC -O2 -std=c11 -Wall -Wextra -Werror"
for program in responder loadgen; do
  "$CC" -O2 -std=c11 -Wall -Wextra -Werror -o "$TMP/$program" "$HERE/$program.c" -lmosquitto -lpthread
done

MOSQUITTO=$(command -v mosquitto || echo /usr/sbin/mosquitto)
PORT=$(free_port)
cat >"$TMP/mosquitto.conf" <<EOF
listener $PORT 127.0.0.1
allow_anonymous true
persistence false
# No per-client in-flight window from the broker (default 20) and room for every queued request:
# the gateway's one session receives all devices' requests.
max_inflight_messages 0
max_queued_messages 100000
max_queued_bytes 0
# Without it every answer waits for the device's delayed ACK of the broker's PUBACK (~40 ms).
set_tcp_nodelay $BROKER_NODELAY
log_dest stderr
log_type error
log_type warning
EOF
"$MOSQUITTO" -c "$TMP/mosquitto.conf" 2>"$TMP/mosquitto.log" &
BROKER_PID=$!
PIDS+=("$BROKER_PID")
wait_port "$PORT"
echo "== broker: $("$MOSQUITTO" -h 2>/dev/null | head -1 | sed 's/ is an MQTT.*//') on 127.0.0.1:$PORT," \
  "set_tcp_nodelay $BROKER_NODELAY; devices: MQTT $PROTOCOL, QoS $QOS, request '$REQUEST'," \
  "$THREADS threads; warm-up ${WARMUP} s, measured ${DURATION} s; $(nproc) cores"

echo "== ceiling: responder.c (TCP_NODELAY $RESPONDER_NODELAY)"
"$TMP/responder" -p "$PORT" -V "$PROTOCOL" -N "$RESPONDER_NODELAY" 2>"$TMP/responder.log" &
RESPONDER_PID=$!
PIDS+=("$RESPONDER_PID")
for ((i = 0; i < 50; i++)); do grep -q subscribed "$TMP/responder.log" && break; sleep 0.1; done
grep -q subscribed "$TMP/responder.log" || { cat "$TMP/responder.log" >&2; exit 1; }
for n in $DEVICES; do run_load ceiling "$n" "$RESPONDER_PID"; done
stop "$RESPONDER_PID"
echo "    $(tail -1 "$TMP/responder.log")"

GATEWAY_NOTE=""
if [[ $GATEWAY != 0 ]]; then
  if [[ ! -x $SKYFRAME_BIN && $SKYFRAME_BIN == "$ROOT/.build/release/skyframe" ]]; then
    echo "== building the gateway: swift build -c release --product skyframe"
    (cd "$ROOT" && swift build -c release --product skyframe) || true
  fi
  if [[ ! -x $SKYFRAME_BIN ]]; then
    GATEWAY_NOTE="the gateway was not measured: $SKYFRAME_BIN is missing or does not build"
  else
    STUB_PORT=$(free_port)
    python3 "$HERE/stub_open_meteo.py" "$STUB_PORT" 2>"$TMP/stub.log" &
    STUB_PID=$!
    PIDS+=("$STUB_PID")
    wait_port "$STUB_PORT"
    cat >"$TMP/skyframe.yaml" <<EOF
mqtt:
  client-id: skyframe-load
log:
  level: warning
cache:
  ttl-seconds: 3600
EOF
    echo "== gateway: $SKYFRAME_BIN (Open-Meteo: stub on 127.0.0.1:$STUB_PORT)"
    SKYFRAME_MQTT_HOST=127.0.0.1 SKYFRAME_MQTT_PORT=$PORT SKYFRAME_MQTT_PROTOCOL=$GATEWAY_PROTOCOL \
      SKYFRAME_OPEN_METEO_FORECAST_URL=http://127.0.0.1:$STUB_PORT/v1/forecast \
      SKYFRAME_OPEN_METEO_GEOCODING_URL=http://127.0.0.1:$STUB_PORT/v1/search \
      "$SKYFRAME_BIN" run --config "$TMP/skyframe.yaml" 2>"$TMP/gateway.log" &
    GATEWAY_PID=$!
    PIDS+=("$GATEWAY_PID")
    state=$(mosquitto_sub -h 127.0.0.1 -p "$PORT" -t skyframe/v1/gateway/state -C 1 -W 20 2>/dev/null || true)
    if [[ $state != '{"state":"online"}' ]]; then
      GATEWAY_NOTE="the gateway did not announce {\"state\":\"online\"} within 20 s (got '${state}')"
    else
      # Warm the cache: one request, its 192-byte frame back.
      size=$(mosquitto_rr -h 127.0.0.1 -p "$PORT" -t skyframe/v1/req/load-warm -e skyframe/v1/frame/load-warm \
        -m "$REQUEST" -W 10 -N 2>/dev/null | wc -c || true)
      if [[ $size != 192 ]]; then
        GATEWAY_NOTE="the gateway did not answer the warm-up request with a 192-byte frame (got $size bytes)"
      else
        for n in $DEVICES; do run_load gateway "$n" "$GATEWAY_PID"; done
      fi
    fi
    if ! kill -0 "$GATEWAY_PID" 2>/dev/null; then GATEWAY_NOTE="${GATEWAY_NOTE:-the gateway exited during the run}"; fi
    stop "$GATEWAY_PID"
    stop "$STUB_PID"
    echo "    upstream: $(tail -1 "$TMP/stub.log")"
    if [[ -s $TMP/gateway.log ]]; then
      echo "    gateway log (last 5 lines):"
      tail -5 "$TMP/gateway.log" | sed 's/^/      /'
    fi
  fi
fi
if [[ -s $TMP/mosquitto.log ]]; then
  echo "== broker warnings:"
  tail -5 "$TMP/mosquitto.log" | sed 's/^/    /'
fi

echo
echo "| devices | ceiling rps | ceiling p50 | ceiling p99 | gateway rps | gateway p50 | gateway p99 | gateway/ceiling |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|"
status=0
for n in $DEVICES; do
  c=${RESULT[ceiling,$n]:-} g=${RESULT[gateway,$n]:-}
  crps=$(field rps "$c") grps=$(field rps "$g")
  ratio=n/a
  if [[ $crps != n/a && $grps != n/a ]]; then ratio=$(awk -v g="$grps" -v c="$crps" 'BEGIN { printf "%.2f", (c > 0 ? g / c : 0) }'); fi
  echo "| $n | $crps | $(us "$(field p50_us "$c")") | $(us "$(field p99_us "$c")") | $grps |" \
    "$(us "$(field p50_us "$g")") | $(us "$(field p99_us "$g")") | $ratio |"
  [[ -n $c ]] || status=1
  if [[ $GATEWAY != 0 && -z $g ]]; then status=1; fi
done
echo
echo "Target: gateway/ceiling ≥ 0.80. Errors (timeouts, wrong sizes, lost connections): ceiling" \
  "$(for n in $DEVICES; do echo -n "$(field errors "${RESULT[ceiling,$n]:-}") "; done)gateway" \
  "$(for n in $DEVICES; do echo -n "$(field errors "${RESULT[gateway,$n]:-}") "; done)"
if [[ -n $GATEWAY_NOTE ]]; then
  echo "Note: $GATEWAY_NOTE"
  status=1
fi
exit "$status"
