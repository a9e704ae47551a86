#!/usr/bin/env bash
# Several gateways on one broker: requests per second, errors (a request answered twice counts as
# an "unexpected" answer, so errors=0 means every request was answered exactly once) and upstream
# calls, for 1, 2 and 3 `skyframe run` instances in one cluster.group with a shared cache, behind
# a fresh mosquitto per run, stock (as Debian ships it) and tuned (config/mosquitto.conf).
#
#   Benchmarks/load/cluster.sh          (make cluster-load)
#
# Every device asks for its own cell ("52.{i},13.41": 91 distinct 0.01° cells for 256 devices),
# again and again in a closed loop: the first ask of a cell goes upstream, the rest are cache hits.
# Open-Meteo takes up to 50 points a call, so "forecast calls" counts batches and "cells asked
# upstream" the points in them: with the shared cache the fleet should ask each cell about once
# however many instances there are (two members that miss the same cell at the same moment, before
# either has shared it, both ask).
#
# The per-device request and new-cell limits are off: 256 devices start at once on cold caches, and
# a device refused while the fleet was busy would otherwise stay locked out for the minute.
#
# Environment (all optional): SKYFRAME_BIN (default .build/release/skyframe), INSTANCES="1 2 3",
# SETUPS="stock tuned", DEVICES=256, QOS=1, WARMUP=2, DURATION=8, THREADS=2, CC=cc.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SKYFRAME_BIN=${SKYFRAME_BIN:-$ROOT/.build/release/skyframe}
INSTANCES=${INSTANCES:-"1 2 3"}
SETUPS=${SETUPS:-"stock tuned"}
DEVICES=${DEVICES:-256}
QOS=${QOS:-1}
WARMUP=${WARMUP:-2}
DURATION=${DURATION:-8}
THREADS=${THREADS:-2}
CC=${CC:-cc}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/skyframe-cluster.XXXXXX")
PIDS=()
MOSQUITTO=$(command -v mosquitto || echo /usr/sbin/mosquitto)
# shellcheck source=common.sh
. "$HERE/common.sh"
trap cleanup EXIT
raise_nofile $((DEVICES + 512))

if [[ ! -x $SKYFRAME_BIN ]]; then
  (cd "$ROOT" && swift build -c release --product skyframe)
fi
"$CC" -O2 -std=c11 -Wall -Wextra -Werror -o "$TMP/loadgen" "$HERE/loadgen.c" -lmosquitto -lpthread

cat >"$TMP/skyframe.yaml" <<'YAML'
cluster:
  group: load
  key: "the load benchmark's cluster key"
  session-expiry-seconds: 5
log:
  level: warning
cache:
  ttl-seconds: 3600
requests:
  per-device-per-minute: 0
upstream:
  new-cells-per-minute: 0
  new-cells-per-device-per-minute: 0
metrics:
  port: 0
YAML

field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }

ROWS=()
for setup in $SETUPS; do
  for count in $INSTANCES; do
    start_broker "$setup" "$TMP/broker-$setup-$count"
    start_stub "$TMP/stub-$setup-$count.log"
    gateways=()
    for ((i = 1; i <= count; i++)); do
      SKYFRAME_MQTT_HOST=127.0.0.1 SKYFRAME_MQTT_PORT=$PORT SKYFRAME_CLUSTER_INSTANCE_ID=load-$i \
        SKYFRAME_OPEN_METEO_FORECAST_URL=http://127.0.0.1:$STUB_PORT/v1/forecast \
        SKYFRAME_OPEN_METEO_GEOCODING_URL=http://127.0.0.1:$STUB_PORT/v1/search \
        SKYFRAME_AIR_QUALITY_SERVICE=none \
        "$SKYFRAME_BIN" run --config "$TMP/skyframe.yaml" 2>"$TMP/gateway-$setup-$count-$i.log" &
      gateways+=($!)
      PIDS+=($!)
    done
    # Until every instance has announced itself.
    for ((tries = 0; tries < 100; tries++)); do
      online=$(timeout 2 mosquitto_sub -h 127.0.0.1 -p "$PORT" -t 'skyframe/v1/gateway/instances/+' \
        -W 1 2>/dev/null | grep -c online || true)
      ((online >= count)) && break
      sleep 0.1
    done
    watch=()
    for pid in "${gateways[@]}"; do watch+=(-P "gateway:$pid"); done
    line=$("$TMP/loadgen" -p "$PORT" -n "$DEVICES" -t "$THREADS" -w "$WARMUP" -d "$DURATION" \
      -q "$QOS" -V 5 -m '52.{i},13.41' -r "c${count}$setup" "${watch[@]:0:2}" \
      2>"$TMP/loadgen-$setup-$count.log") || true
    stats=$(stub_stats)
    details=$(grep '^loadgen: threads' "$TMP/loadgen-$setup-$count.log" | sed 's/^loadgen: //')
    echo "== $setup, $count instance(s), $DEVICES devices, QoS $QOS: ${line:-no result}"
    echo "   $details"
    grep '^loadgen: not ok' "$TMP/loadgen-$setup-$count.log" | sed 's/^loadgen: /   /' || true
    echo "   upstream: $stats"
    ROWS+=("| $setup | $count | $(field rps "$line") | $(field p99_us "$line") | $(field errors "$line") | $(field unexpected "$details") | $(field forecast "$stats") | $(field cells_asked "$stats") | $(field cells_distinct "$stats") |")
    for pid in "${gateways[@]}"; do stop "$pid"; done
    stop "$STUB_PID"
    stop "$BROKER_PID"
  done
done
echo
echo "| broker | instances | rps | p99 µs | errors | answered twice | forecast calls | cells asked upstream | distinct cells |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|"
printf '%s\n' "${ROWS[@]}"
