#!/usr/bin/env bash
# Skyframe load benchmark: requests per second, p50/p99/max latency, CPU and context switches per
# answer on cache hits, through a real mosquitto on this machine (127.0.0.1 only), for
#   the ideal: responder.c, a minimal libmosquitto client answering every request with a fixed
#              192-byte payload at the request's QoS, and
#   the gateway: `skyframe run`, with Open-Meteo replaced by stub_open_meteo.py,
# behind two brokers, each a fresh process: "stock" (mosquitto as Debian ships it, only made to
# listen) and "tuned" (config/mosquitto.conf's TCP_NODELAY plus no in-flight window and a deep
# queue), at each request QoS and device count.
# Goals (issue 19): gateway throughput ≥ 0.95× ideal, p99 ≤ 1.2× ideal, CPU per answer ≤ 1.2× ideal.
# Exits non-zero only when a run produced no result, not when a goal is missed.
#
#   Benchmarks/load/run.sh
#
# Environment (all optional):
#   SKYFRAME_BIN       the gateway binary (default .build/release/skyframe; built with
#                      `swift build -c release --product skyframe` when that default is missing)
#   GATEWAY=0          measure the ideal responder only
#   SETUPS="stock tuned"  broker setups     QOSES="0 1"  request QoS (devices subscribe at it too)
#   DEVICES="16 256 1024" device counts     WARMUP=2 DURATION=8   seconds per run
#   PROTOCOL=5         5 or 311, for the devices, the responder and the gateway
#   THREADS=2          load generator threads
#   REQUEST=52.52,13.41  the request text every device sends ("{i}" = device index)
#   RESPONDER_NODELAY=1  TCP_NODELAY on the responder's socket (0 = libmosquitto's default, Nagle on)
#   CC=cc
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SKYFRAME_BIN=${SKYFRAME_BIN:-$ROOT/.build/release/skyframe}
GATEWAY=${GATEWAY:-1}
SETUPS=${SETUPS:-"stock tuned"}
QOSES=${QOSES:-"0 1"}
DEVICES=${DEVICES:-"16 256 1024"}
WARMUP=${WARMUP:-2}
DURATION=${DURATION:-8}
PROTOCOL=${PROTOCOL:-5}
THREADS=${THREADS:-2}
REQUEST=${REQUEST:-52.52,13.41}
RESPONDER_NODELAY=${RESPONDER_NODELAY:-1}
CC=${CC:-cc}
case $PROTOCOL in 5) GATEWAY_PROTOCOL=5 ;; 311 | 3.1.1) PROTOCOL=311 GATEWAY_PROTOCOL=3.1.1 ;;
  *) echo "PROTOCOL must be 5 or 311" >&2; exit 2 ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/skyframe-load.XXXXXX")
PIDS=()
MOSQUITTO=$(command -v mosquitto || echo /usr/sbin/mosquitto)
# shellcheck source=common.sh
. "$HERE/common.sh"
trap cleanup EXIT

# One socket per device in the load generator and again in the broker.
max_devices=0
for n in $DEVICES; do if ((n > max_devices)); then max_devices=$n; fi; done
raise_nofile $((max_devices + 512))

field() { # field NAME LINE
  local value
  value=$(sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2")
  echo "${value:-n/a}"
}

# Microseconds as milliseconds with two decimals.
ms() { if [[ $1 == n/a ]]; then echo n/a; else awk -v u="$1" 'BEGIN { printf "%.2f", u / 1000 }'; fi; }

# ratio A B: A / B with two decimals, n/a when either is missing.
ratio() {
  if [[ $1 == n/a || $2 == n/a ]]; then echo n/a; return; fi
  awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'
}

# goal NAME RATIO OP LIMIT: "NAME 0.95 met" or "NAME 1.80 missed".
goal() {
  if [[ $2 == n/a ]]; then echo "$1 n/a"; return; fi
  awk -v n="$1" -v r="$2" -v op="$3" -v l="$4" \
    'BEGIN { ok = (op == ">=") ? r >= l : r <= l; printf "%s %s %s", n, r, ok ? "met" : "missed" }'
}

declare -A RESULT

# run_load LABEL SETUP QOS N SERVER_PID: one loadgen run; its line goes to RESULT[LABEL,SETUP,QOS,N].
run_load() {
  local label=$1 setup=$2 qos=$3 n=$4 server=$5 line status=0 log
  log="$TMP/loadgen-$label-$setup-q$qos-$n.log"
  line=$("$TMP/loadgen" -p "$PORT" -n "$n" -t "$THREADS" -w "$WARMUP" -d "$DURATION" -q "$qos" \
    -V "$PROTOCOL" -m "$REQUEST" -r "${label}q${qos}n$n" -P "server:$server" -P "broker:$BROKER_PID" \
    2>"$log") || status=$?
  echo "$label, QoS $qos, $n devices: ${line:-no result (exit $status)}"
  echo "    $(grep '^loadgen: threads' "$log" | sed 's/^loadgen: //')"
  grep '^loadgen: not ok' "$log" | sed 's/^loadgen: /    /' || true
  if [[ -n $line ]]; then
    echo "    cpu over the measured ${DURATION} s (100% = one core): broker $(field broker_cpu_pct "$line")%," \
      "$label $(field server_cpu_pct "$line")%, loadgen $(field loadgen_cpu_pct "$line")%"
  fi
  if ((status != 0)); then
    grep -v '^loadgen: threads' "$log" | tail -5 | sed 's/^/    /'
    RESULT[$label,$setup,$qos,$n]=""
    return 0
  fi
  RESULT[$label,$setup,$qos,$n]=$line
}

echo "== build: $CC -O2 -std=c11 -Wall -Wextra -Werror"
for program in responder loadgen; do
  "$CC" -O2 -std=c11 -Wall -Wextra -Werror -o "$TMP/$program" "$HERE/$program.c" -lmosquitto -lpthread
done

NOTES=()
if [[ $GATEWAY != 0 ]]; then
  if [[ ! -x $SKYFRAME_BIN && $SKYFRAME_BIN == "$ROOT/.build/release/skyframe" ]]; then
    echo "== building the gateway: swift build -c release --product skyframe"
    (cd "$ROOT" && swift build -c release --product skyframe) || true
  fi
  if [[ ! -x $SKYFRAME_BIN ]]; then
    NOTES+=("the gateway was not measured: $SKYFRAME_BIN is missing or does not build")
    GATEWAY=0
  else
    start_stub "$TMP/stub.log"
    # No per-device limit (every device asks far more than 30 a minute), no metrics listener,
    # and every answer a cache hit after the warm-up request.
    cat >"$TMP/skyframe.yaml" <<EOF
mqtt:
  client-id: skyframe-load
log:
  level: warning
cache:
  ttl-seconds: 3600
requests:
  per-device-per-minute: 0
metrics:
  port: 0
EOF
  fi
fi

echo "== $("$MOSQUITTO" -h 2>/dev/null | head -1 | sed 's/ is an MQTT.*//'), setups: $SETUPS;" \
  "devices: MQTT $PROTOCOL, QoS $QOSES, request '$REQUEST', $THREADS threads; warm-up ${WARMUP} s," \
  "measured ${DURATION} s; $(nproc) cores; ulimit -n $(ulimit -n)"
for setup in $SETUPS; do
  start_broker "$setup" "$TMP/broker-$setup"
  echo "== broker $setup on 127.0.0.1:$PORT: $(grep -v '^#' "$TMP/broker-$setup/mosquitto.conf" |
    grep -v -e '^listener' -e '^log_' -e '^persistence_location' | paste -sd ';' | sed 's/;/; /g')"

  echo "== ideal: responder.c (TCP_NODELAY $RESPONDER_NODELAY)"
  "$TMP/responder" -p "$PORT" -V "$PROTOCOL" -N "$RESPONDER_NODELAY" 2>"$TMP/responder-$setup.log" &
  RESPONDER_PID=$!
  PIDS+=("$RESPONDER_PID")
  for ((i = 0; i < 50; i++)); do grep -q subscribed "$TMP/responder-$setup.log" && break; sleep 0.1; done
  if grep -q subscribed "$TMP/responder-$setup.log"; then
    for qos in $QOSES; do
      for n in $DEVICES; do run_load ideal "$setup" "$qos" "$n" "$RESPONDER_PID"; done
    done
  else
    NOTES+=("$setup: the responder did not subscribe: $(tail -1 "$TMP/responder-$setup.log")")
  fi
  stop "$RESPONDER_PID"
  echo "    $(tail -1 "$TMP/responder-$setup.log")"

  if [[ $GATEWAY != 0 ]]; then
    echo "== gateway: $SKYFRAME_BIN (Open-Meteo: stub on 127.0.0.1:$STUB_PORT)"
    GATEWAY_NOTE=""
    if start_gateway "$TMP/skyframe.yaml" "$TMP/gateway-$setup.log"; then
      # Warm the cache: one request, its 192-byte ok frame back.
      answer=$(ask load-warm "$REQUEST")
      if [[ $answer != "192 0" ]]; then
        GATEWAY_NOTE="the warm-up request got no 192-byte ok frame (size, status: $answer)"
      else
        for qos in $QOSES; do
          for n in $DEVICES; do run_load gateway "$setup" "$qos" "$n" "$GATEWAY_PID"; done
        done
      fi
    fi
    if ! kill -0 "$GATEWAY_PID" 2>/dev/null; then GATEWAY_NOTE="${GATEWAY_NOTE:-the gateway exited during the run}"; fi
    stop "$GATEWAY_PID"
    [[ -z $GATEWAY_NOTE ]] || NOTES+=("$setup: $GATEWAY_NOTE")
    if [[ -s $TMP/gateway-$setup.log ]]; then
      echo "    gateway log (last 5 lines):"
      tail -5 "$TMP/gateway-$setup.log" | sed 's/^/      /'
    fi
  fi
  stop "$BROKER_PID"
  warnings=$(broker_warnings "$TMP/broker-$setup/mosquitto.log")
  [[ -z $warnings ]] || printf '== broker %s warnings:\n%s\n' "$setup" "$warnings"
done
if [[ $GATEWAY != 0 ]]; then
  stop "$STUB_PID"
  echo "== upstream: $(tail -1 "$TMP/stub.log")"
fi

echo
echo "| setup | QoS | devices | ideal rps | p50 ms | p99 ms | max ms | µs/req | ctx/req" \
  "| gateway rps | p50 ms | p99 ms | max ms | µs/req | ctx/req | rps g/i | p99 g/i | cpu g/i |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
status=0
GOALS=()
for setup in $SETUPS; do
  for qos in $QOSES; do
    for n in $DEVICES; do
      row="| $setup | $qos | $n"
      for label in ideal gateway; do
        r=${RESULT[$label,$setup,$qos,$n]:-}
        row+=" | $(field rps "$r") | $(ms "$(field p50_us "$r")") | $(ms "$(field p99_us "$r")")"
        row+=" | $(ms "$(field max_us "$r")") | $(field server_cpu_us_req "$r") | $(field server_ctx_req "$r")"
      done
      i=${RESULT[ideal,$setup,$qos,$n]:-} g=${RESULT[gateway,$setup,$qos,$n]:-}
      rps=$(ratio "$(field rps "$g")" "$(field rps "$i")")
      p99=$(ratio "$(field p99_us "$g")" "$(field p99_us "$i")")
      cpu=$(ratio "$(field server_cpu_us_req "$g")" "$(field server_cpu_us_req "$i")")
      echo "$row | $rps | $p99 | $cpu |"
      line="- $setup, QoS $qos, $n devices: $(goal throughput "$rps" '>=' 0.95); $(goal p99 "$p99" '<=' 1.2);"
      GOALS+=("$line $(goal cpu "$cpu" '<=' 1.2); errors: ideal $(field errors "$i"), gateway $(field errors "$g")")
      [[ -n $i ]] || status=1
      if [[ $GATEWAY != 0 && -z $g ]]; then status=1; fi
    done
  done
done
echo
echo "Goals (gateway against ideal, same broker, QoS and devices): throughput ≥ 0.95×, p99 ≤ 1.2×," \
  "CPU per answer ≤ 1.2×. Errors are timeouts, wrong sizes, frames not ok, lost connections."
printf '%s\n' "${GOALS[@]}"
for note in "${NOTES[@]}"; do echo "Note: $note"; done
if [[ ${#NOTES[@]} -gt 0 ]]; then status=1; fi
exit "$status"
