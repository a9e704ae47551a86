#!/usr/bin/env bash
# The HTTP way in under load, against its anchor in the same run: nginx (Debian's) serving a
# 192-byte static file, and the gateway answering GET /v1/frame/{device}?q=52.52,13.41 from its
# cache (a 192-byte frame), both to wrk (keep-alive, 64 connections, 2 threads) on this machine,
# 127.0.0.1 only. Rounds alternate nginx and the gateway; the medians of requests/s and p99 and
# their ratios are printed. The device limit is off for the run (requests.per-device-per-minute
# 0): wrk is one device asking as fast as it can.
# Goal (issue 42): requests/s ≥ 0.7× nginx, p99 ≤ 1.5× nginx. A third contender, Hummingbird
# alone answering 192 fixed bytes (Benchmarks/load/http-baseline, built by make load-http), shows what of
# the gap is the HTTP library's and what is the gateway's own.
#
#   Benchmarks/load/http.sh
#
# Environment: SKYFRAME_BIN (default .build/release/skyframe), BASELINE_BIN (default
# Benchmarks/load/http-baseline/.build/release/HTTPBaseline; missing: that contender is left out), ROUNDS=3, DURATION=10 (s),
# CONNECTIONS=64, THREADS=2.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SKYFRAME_BIN=${SKYFRAME_BIN:-$ROOT/.build/release/skyframe}
BASELINE_BIN=${BASELINE_BIN:-$ROOT/Benchmarks/load/http-baseline/.build/release/HTTPBaseline}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/skyframe-http.XXXXXX")
PIDS=()
MOSQUITTO=$(command -v mosquitto || echo /usr/sbin/mosquitto)
# shellcheck source=common.sh
. "$HERE/common.sh"
trap cleanup EXIT
raise_nofile 4096

for tool in nginx wrk curl; do
  command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] || {
    echo "$tool is missing (apt-get install nginx wrk curl)" >&2
    exit 2
  }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

# nginx: one static 192-byte file, no access log, its default worker count for the machine.
NGINX_PORT=$(free_port)
mkdir -p "$TMP/www" "$TMP/nginx"
head -c 192 /dev/urandom >"$TMP/www/frame"
cat >"$TMP/nginx/nginx.conf" <<EOF
worker_processes auto;
pid $TMP/nginx/nginx.pid;
error_log $TMP/nginx/error.log;
daemon off;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $TMP/nginx; proxy_temp_path $TMP/nginx; fastcgi_temp_path $TMP/nginx;
  uwsgi_temp_path $TMP/nginx; scgi_temp_path $TMP/nginx;
  default_type application/octet-stream;
  server { listen 127.0.0.1:$NGINX_PORT; root $TMP/www; }
}
EOF
"$NGINX" -c "$TMP/nginx/nginx.conf" -p "$TMP/nginx" &
PIDS+=($!)
wait_port "$NGINX_PORT"

# Hummingbird alone, when built.
BASELINE_PORT=""
if [[ -x $BASELINE_BIN ]]; then
  BASELINE_PORT=$(free_port)
  "$BASELINE_BIN" "$BASELINE_PORT" &
  PIDS+=($!)
  wait_port "$BASELINE_PORT"
fi

# The gateway: a broker, the Open-Meteo stand-in, the HTTP way in on a free port.
start_broker tuned "$TMP/broker"
start_stub "$TMP/stub.log"
HTTP_PORT=$(free_port)
cp "$ROOT/config/skyframe.example.yaml" "$TMP/skyframe.yaml"
export SKYFRAME_HTTP_PORT=$HTTP_PORT SKYFRAME_COAP_PORT=0 SKYFRAME_METRICS_PORT=0
export SKYFRAME_REQUESTS_PER_DEVICE_PER_MINUTE=0 SKYFRAME_ALERTS_NWS_ENABLED=false
start_gateway "$TMP/skyframe.yaml" "$TMP/gateway.log" || {
  echo "$GATEWAY_NOTE" >&2
  exit 1
}
wait_port "$HTTP_PORT"
URL="http://127.0.0.1:$HTTP_PORT/v1/frame/load-1?q=52.52,13.41"
size=$(curl -s "$URL" | wc -c)
[[ $size == 192 ]] || {
  echo "the warm-up GET got $size bytes, not a 192-byte frame" >&2
  exit 1
}

run() { # run NAME URL: one wrk round; prints "requests/s p99-ms"
  local out
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$2")
  local rps p99
  rps=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")
  p99=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 }
    else if (v ~ /ms$/) sub(/ms$/, "", v); else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 }
    print v }' <<<"$out")
  local errors
  errors=$(awk '/Non-2xx|Socket errors/ { print }' <<<"$out" | paste -sd ' ')
  echo "$1 round: $rps requests/s, p99 $p99 ms${errors:+ ($errors)}" >&2
  echo "$rps $p99"
}

nginx_rps=() nginx_p99=() gateway_rps=() gateway_p99=() hb_rps=() hb_p99=()
for ((round = 1; round <= ROUNDS; round++)); do
  read -r rps p99 < <(run nginx "http://127.0.0.1:$NGINX_PORT/frame")
  nginx_rps+=("$rps") nginx_p99+=("$p99")
  if [[ -n $BASELINE_PORT ]]; then
    read -r rps p99 < <(run hummingbird "http://127.0.0.1:$BASELINE_PORT/frame")
    hb_rps+=("$rps") hb_p99+=("$p99")
  fi
  read -r rps p99 < <(run gateway "$URL")
  gateway_rps+=("$rps") gateway_p99+=("$p99")
done
n_rps=$(printf '%s\n' "${nginx_rps[@]}" | median)
n_p99=$(printf '%s\n' "${nginx_p99[@]}" | median)
g_rps=$(printf '%s\n' "${gateway_rps[@]}" | median)
g_p99=$(printf '%s\n' "${gateway_p99[@]}" | median)
echo "== HTTP cache hits, wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, medians of $ROUNDS rounds ($(nproc) cores)"
printf '%-28s %12s %10s\n' "" "requests/s" "p99 ms"
printf '%-28s %12s %10s\n' "nginx, 192-byte static file" "$n_rps" "$n_p99"
if [[ -n $BASELINE_PORT ]]; then
  h_rps=$(printf '%s\n' "${hb_rps[@]}" | median)
  h_p99=$(printf '%s\n' "${hb_p99[@]}" | median)
  printf '%-28s %12s %10s\n' "Hummingbird, 192 bytes" "$h_rps" "$h_p99"
fi
printf '%-28s %12s %10s\n' "gateway, 192-byte frame" "$g_rps" "$g_p99"
awk -v g="$g_rps" -v n="$n_rps" -v gp="$g_p99" -v np="$n_p99" 'BEGIN {
  printf "ratio: %.2fx nginx requests/s (goal >= 0.7), p99 %.2fx (goal <= 1.5)\n", g / n, gp / np }'
if [[ -n $BASELINE_PORT ]]; then
  awk -v g="$g_rps" -v h="$h_rps" -v n="$n_rps" -v gp="$g_p99" -v hp="$h_p99" 'BEGIN {
    printf "Hummingbird alone: %.2fx nginx requests/s; the gateway %.2fx of Hummingbird alone, p99 %.2fx\n", h / n, g / h, gp / hp }'
fi
