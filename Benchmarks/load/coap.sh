#!/usr/bin/env bash
# The CoAP way in under load, against its anchor in the same run: libcoap's own server
# (coap-server-notls, Debian's libcoap3-bin) answering GET /example_data with a 192-byte resource,
# and the gateway answering GET /v1/frame/{device}?q=52.52,13.41 from its cache (a 192-byte
# frame), both to the same load generator (Benchmarks/load/coap_load.c: confirmable GETs, 64 in
# flight, each on a source port of its own) on this machine, 127.0.0.1 only. Rounds alternate;
# the medians of requests/s and p99 and their ratios are printed. The device limit is off for the
# run: the generator is one device asking as fast as it can.
# Goal (issue 42): requests/s ≥ 0.9× libcoap's server.
#
#   Benchmarks/load/coap.sh
#
# Environment: SKYFRAME_BIN (default .build/release/skyframe), ROUNDS=3, DURATION=10 (s),
# CONCURRENCY=64.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SKYFRAME_BIN=${SKYFRAME_BIN:-$ROOT/.build/release/skyframe}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
CONCURRENCY=${CONCURRENCY:-64}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/skyframe-coap.XXXXXX")
PIDS=()
MOSQUITTO=$(command -v mosquitto || echo /usr/sbin/mosquitto)
# shellcheck source=common.sh
. "$HERE/common.sh"
trap cleanup EXIT
raise_nofile 4096

for tool in coap-server-notls coap-client-notls gcc; do
  command -v "$tool" >/dev/null || {
    echo "$tool is missing (apt-get install libcoap3-bin gcc)" >&2
    exit 2
  }
done
gcc -O2 -Wall -Wextra -o "$TMP/coap_load" "$HERE/coap_load.c"

# libcoap's server with a 192-byte resource (its example_data, set by a PUT).
LIBCOAP_PORT=$(free_udp_port)
coap-server-notls -A 127.0.0.1 -p "$LIBCOAP_PORT" &
PIDS+=($!)
head -c 192 /dev/urandom >"$TMP/frame"
for _ in $(seq 50); do
  coap-client-notls -B 1 -m put -f "$TMP/frame" "coap://127.0.0.1:$LIBCOAP_PORT/example_data" &&
    break
  sleep 0.1
done
coap-client-notls -m get -o "$TMP/got" "coap://127.0.0.1:$LIBCOAP_PORT/example_data"
[[ $(wc -c <"$TMP/got") == 192 ]] || {
  echo "libcoap's server did not keep the 192-byte resource" >&2
  exit 1
}

# The gateway: a broker, the Open-Meteo stand-in, the CoAP way in on a free port.
start_broker tuned "$TMP/broker"
start_stub "$TMP/stub.log"
COAP_PORT=$(free_udp_port)
cp "$ROOT/config/skyframe.example.yaml" "$TMP/skyframe.yaml"
export SKYFRAME_COAP_PORT=$COAP_PORT SKYFRAME_HTTP_PORT=0 SKYFRAME_METRICS_PORT=0
export SKYFRAME_REQUESTS_PER_DEVICE_PER_MINUTE=0 SKYFRAME_ALERTS_NWS_ENABLED=false
start_gateway "$TMP/skyframe.yaml" "$TMP/gateway.log" || {
  echo "$GATEWAY_NOTE" >&2
  exit 1
}
TARGET="/v1/frame/load-1?q=52.52,13.41"
for _ in $(seq 100); do
  coap-client-notls -B 2 -m get -o "$TMP/frame-got" "coap://127.0.0.1:$COAP_PORT$TARGET" \
    2>/dev/null || true
  [[ -s $TMP/frame-got && $(wc -c <"$TMP/frame-got") == 192 ]] && break
  sleep 0.1
done
[[ $(wc -c <"$TMP/frame-got") == 192 ]] || {
  echo "the warm-up GET did not get a 192-byte frame" >&2
  exit 1
}

run() { # run NAME PORT TARGET: one round; prints "requests/s p99-ms"
  local rps p99 answered lost other
  read -r rps p99 answered lost other < <("$TMP/coap_load" 127.0.0.1 "$2" "$3" "$DURATION" "$CONCURRENCY")
  echo "$1 round: $rps requests/s, p99 $p99 ms ($answered answered, $lost lost, $other not 2.xx)" >&2
  echo "$rps $p99"
}

libcoap_rps=() libcoap_p99=() gateway_rps=() gateway_p99=()
for ((round = 1; round <= ROUNDS; round++)); do
  read -r rps p99 < <(run libcoap "$LIBCOAP_PORT" /example_data)
  libcoap_rps+=("$rps") libcoap_p99+=("$p99")
  read -r rps p99 < <(run gateway "$COAP_PORT" "$TARGET")
  gateway_rps+=("$rps") gateway_p99+=("$p99")
done
l_rps=$(printf '%s\n' "${libcoap_rps[@]}" | median)
l_p99=$(printf '%s\n' "${libcoap_p99[@]}" | median)
g_rps=$(printf '%s\n' "${gateway_rps[@]}" | median)
g_p99=$(printf '%s\n' "${gateway_p99[@]}" | median)
echo "== CoAP cache hits, $CONCURRENCY confirmable GETs in flight, ${DURATION}s, medians of $ROUNDS rounds ($(nproc) cores)"
printf '%-34s %12s %10s\n' "" "requests/s" "p99 ms"
printf '%-34s %12s %10s\n' "libcoap's server, 192-byte resource" "$l_rps" "$l_p99"
printf '%-34s %12s %10s\n' "gateway, 192-byte frame" "$g_rps" "$g_p99"
awk -v g="$g_rps" -v l="$l_rps" -v gp="$g_p99" -v lp="$l_p99" 'BEGIN {
  printf "ratio: %.2fx libcoap requests/s (goal >= 0.9), p99 %.2fx\n", g / l, gp / lp }'
