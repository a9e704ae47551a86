#!/usr/bin/env bash
# What a flood through the HTTP and the CoAP ways in does to MQTT devices beside it: well-behaved
# MQTT devices (abuse.c `well`, as in abuse.sh) ask for a cached cell at a steady pace while
# FLOOD_REQUESTS GETs from random device ids come over HTTP (wrk with a script that picks an id a
# request), then as many over CoAP (coap_load.c with `{id}`), each for one of FLOOD_CELLS cells.
# Printed: the MQTT devices' p99 before and during each flood, and what each flood got.
# Goal (issue 42): the MQTT devices' p99 stays under 50 ms, as in `make abuse`.
# Exits non-zero only when a part produced no result, not when a goal is missed.
#
#   Benchmarks/load/flood-ways.sh
#
# Environment: SKYFRAME_BIN (default .build/release/skyframe), FLOOD_REQUESTS=50000,
# FLOOD_CELLS=100, CONNECTIONS=64, WELL_DEVICES=50, WELL_RATE=20, CC=cc.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SKYFRAME_BIN=${SKYFRAME_BIN:-$ROOT/.build/release/skyframe}
FLOOD_REQUESTS=${FLOOD_REQUESTS:-50000}
FLOOD_CELLS=${FLOOD_CELLS:-100}
CONNECTIONS=${CONNECTIONS:-64}
WELL_DEVICES=${WELL_DEVICES:-50}
WELL_RATE=${WELL_RATE:-20}
CC=${CC:-cc}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/skyframe-flood-ways.XXXXXX")
PIDS=()
MOSQUITTO=$(command -v mosquitto || echo /usr/sbin/mosquitto)
# shellcheck source=common.sh
. "$HERE/common.sh"
trap cleanup EXIT
raise_nofile 4096

fail() {
  echo "flood-ways: $*" >&2
  exit 1
}
field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }
command -v wrk >/dev/null || fail "wrk is missing (apt-get install wrk)"
[[ -x $SKYFRAME_BIN ]] || fail "$SKYFRAME_BIN is missing (make flood-ways builds it)"
"$CC" -O2 -std=c11 -Wall -Wextra -Werror -o "$TMP/abuse" "$HERE/abuse.c" -lmosquitto
"$CC" -O2 -Wall -Wextra -o "$TMP/coap_load" "$HERE/coap_load.c"

start_broker tuned "$TMP/broker"
start_stub "$TMP/stub.log"
HTTP_PORT=$(free_port)
COAP_PORT=$(free_udp_port)
printf 'log:\n  level: warning\nmetrics:\n  port: 0\nhttp:\n  port: %s\n  host: 127.0.0.1\ncoap:\n  port: %s\n  host: 127.0.0.1\n' \
  "$HTTP_PORT" "$COAP_PORT" >"$TMP/skyframe.yaml"
start_gateway "$TMP/skyframe.yaml" "$TMP/gateway.log" || fail "$GATEWAY_NOTE"
wait_port "$HTTP_PORT"
warm=$(ask well-warm 52.52,13.41)
[[ $warm == "192 0" ]] || fail "the warm-up request got no 192-byte ok frame ($warm)"

# The well-behaved MQTT devices for one phase (`well`, then `well_end` prints their summary).
well() {
  "$TMP/abuse" well -p "$PORT" -n "$WELL_DEVICES" -R "$WELL_RATE" -q 1 -m 52.52,13.41 \
    >"$TMP/well.out" 2>"$TMP/well.err" &
  WELL_PID=$!
  PIDS+=("$WELL_PID")
  for _ in $(seq 100); do
    grep -q subscribed "$TMP/well.err" && break
    sleep 0.1
  done
}
well_end() {
  stop "$WELL_PID"
  tail -1 "$TMP/well.out"
}

# wrk: each request a random device id and one of FLOOD_CELLS cells; each of its two threads
# stops after half of FLOOD_REQUESTS answers.
{
  echo "local share = math.floor($FLOOD_REQUESTS / 2)"
  echo "local done = 0"
  echo "math.randomseed(os.time() + math.floor(os.clock() * 1e6))"
  echo "request = function()"
  echo "  local cell = math.random(0, $FLOOD_CELLS - 1)"
  echo "  return wrk.format(\"GET\", string.format(\"/v1/frame/h%d?q=%.2f,10.00\", math.random(1, 1e9), 40 + cell / 100))"
  echo "end"
  echo "response = function(status, headers, body)"
  echo "  done = done + 1"
  echo "  if done >= share then wrk.thread:stop() end"
  echo "end"
} >"$TMP/flood.lua"

echo "== MQTT: $WELL_DEVICES devices, $WELL_RATE requests/s in all, QoS 1, a cached cell"
well
sleep 5
quiet=$(well_end)
echo "    without a flood: $quiet"

well
sleep 1
echo "== HTTP flood: $FLOOD_REQUESTS GETs from random device ids for $FLOOD_CELLS cells (wrk -t2 -c$CONNECTIONS)"
wrk -t2 -c"$CONNECTIONS" -d120s -s "$TMP/flood.lua" "http://127.0.0.1:$HTTP_PORT/" >"$TMP/wrk.out" 2>&1 || true
sleep 1
during_http=$(well_end)
echo "    wrk: $(awk '/requests in/ { print $1, "requests in", $4 }' "$TMP/wrk.out") $(awk '/Non-2xx/ { print "(" $0 ")" }' "$TMP/wrk.out")"
echo "    MQTT during it: $during_http"

well
sleep 1
echo "== CoAP flood: $FLOOD_REQUESTS GETs from random device ids for one cell (64 in flight)"
coap=$("$TMP/coap_load" 127.0.0.1 "$COAP_PORT" "/v1/frame/c{id}?q=40.00,10.00" 120 64 "$FLOOD_REQUESTS")
sleep 1
during_coap=$(well_end)
echo "    coap_load (requests/s p99-ms answered lost other): $coap"
echo "    MQTT during it: $during_coap"

kill -0 "$GATEWAY_PID" 2>/dev/null || fail "the gateway exited"
echo
echo "| MQTT devices beside | p99 | requests | not ok | timeouts | goal p99 < 50 ms |"
echo "|---|---|---|---|---|---|"
for row in "no flood|$quiet" "the HTTP flood|$during_http" "the CoAP flood|$during_coap"; do
  name=${row%%|*} line=${row#*|}
  p99=$(field p99_us "$line")
  goal=$(awk -v u="${p99:-999999999}" 'BEGIN { print (u < 50000 ? "met" : "missed") }')
  printf '| %s | %s ms | %s | %s | %s | %s |\n' "$name" \
    "$(awk -v u="${p99:-0}" 'BEGIN { printf "%.2f", u / 1000 }')" "$(field requests "$line")" \
    "$(field not_ok "$line")" "$(field timeouts "$line")" "$goal"
done
