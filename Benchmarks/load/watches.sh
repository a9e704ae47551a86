#!/usr/bin/env bash
# Skyframe watches test: what N retained watches cost the gateway in memory, frames and upstream
# calls. Everything on 127.0.0.1: a tuned mosquitto (as in run.sh), stub_open_meteo.py answering
# every call and counting calls and cells, and `skyframe run` with default settings except the
# broker and stub addresses, metrics.port 0 and log.level warning (and watches.maximum, below).
#
# For each count N in WATCHES, with a fresh broker, stub and gateway:
#   1. The frame counter (abuse.c `watch`) subscribes to skyframe/v1/frame/# at QoS 0 and samples
#      the gateway's VmRSS every 100 ms.
#   2. N devices (watch-0 … watch-<N-1>) each publish one retained watch `LAT,LON @INTERVAL` to
#      skyframe/v1/watch/watch-<i>, QoS 1, as fast as the broker takes them (abuse.c `flood -r`):
#      N random positions in N distinct 0.01° cells between 60° S and 70° N (seeded by SEED).
#   3. DURATION seconds from the first watch published, every frame is counted by status; every
#      10 s a line says the RSS, the frames so far, how many devices had a frame (an `ok` one) and
#      the stub's forecast calls.
# A watch is pushed when it arrives and then every INTERVAL seconds, so each should get about
# ⌈DURATION / INTERVAL⌉ frames (3 with the defaults). A push that cannot get weather publishes
# nothing or `stale`: any other status is an error frame over a display's retained frame.
#
# Printed per count: RSS before the watches, peak (VmHWM, and VmRSS sampled every 100 ms), at the
# end; frames by status; devices that had a frame; upstream calls and cells the stub saw; the
# gateway's own stats message (skyframe/v1/gateway/stats, retained every 60 s). Then one summary
# table over every count. Goal: peak RSS ≤ 64 MB with 2,000 watches.
# Exits non-zero only when a part produced no result, not when a goal is missed.
#
#   Benchmarks/load/watches.sh
#   WATCHES=2000 DURATION=60 Benchmarks/load/watches.sh
#
# Environment (all optional):
#   SKYFRAME_BIN     the gateway binary (default .build/release/skyframe; `make watches-load`
#                    builds it)
#   WATCHES="2000 20000"  watch counts, one run each
#   DURATION=150     seconds from the first watch published to the last figures
#   INTERVAL=60      the watches' interval (`@INTERVAL`); below 60 (the default
#                    watches.minimum-seconds) the gateway gets watches.minimum-seconds=INTERVAL
#   WATCHES_MAXIMUM  watches.maximum for the gateway; unset: its default (10,000) when N is at
#                    most that, else N (so every watch is kept; the table says so). Set it to 10000
#                    to see the refusals (a `rate_limited` frame to each device over the maximum)
#   CELLS            how many distinct cells the N positions fall in (default N: one each);
#                    fewer, and watch i takes cell i mod CELLS (100,000 watches over a city's
#                    900 cells: WATCHES=100000 CELLS=900)
#   SEED=1           the random positions
#   CC=cc
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SKYFRAME_BIN=${SKYFRAME_BIN:-$ROOT/.build/release/skyframe}
# Not passed on: the gateway would warn about a SKYFRAME_* variable that is no setting.
export -n SKYFRAME_BIN
WATCHES=${WATCHES:-2000 20000}
DURATION=${DURATION:-150}
INTERVAL=${INTERVAL:-60}
WATCHES_MAXIMUM=${WATCHES_MAXIMUM:-}
SEED=${SEED:-1}
CC=${CC:-cc}
DEFAULT_MAXIMUM=10000
DEFAULT_MINIMUM_SECONDS=60

TMP=$(mktemp -d "${TMPDIR:-/tmp}/skyframe-watches.XXXXXX")
PIDS=()
MOSQUITTO=$(command -v mosquitto || echo /usr/sbin/mosquitto)
# shellcheck source=common.sh
. "$HERE/common.sh"
trap cleanup EXIT

fail() {
  echo "watches: $*" >&2
  exit 1
}

field() { # field NAME LINE
  local value
  value=$(sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2")
  echo "${value:-n/a}"
}

# What the stub counted between two of its stats lines.
stub_delta() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    n = split(a, x, " "); for (i = 1; i <= n; i++) { split(x[i], kv, "="); before[kv[1]] = kv[2] }
    n = split(b, y, " "); for (i = 1; i <= n; i++) { split(y[i], kv, "="); printf "%s%s=%d", (i > 1 ? " " : ""), kv[1], kv[2] - before[kv[1]] }
  }'
}

wait_subscribed() {
  local i
  for ((i = 0; i < 100; i++)); do grep -q subscribed "$1" && return 0; sleep 0.1; done
  return 1
}

after() { if [[ -n $1 ]]; then echo "$1 s"; else echo "not within the run"; fi; }

seconds_since() { awk -v s="$1" -v e="$(date +%s%N)" 'BEGIN { printf "%.1f", (e - s) / 1e9 }'; }

# The gateway's retained stats message, summed up: watches, upstream calls and failures, answers.
gateway_stats() {
  mosquitto_sub -h 127.0.0.1 -p "$PORT" -t skyframe/v1/gateway/stats -C 1 -W 3 2>/dev/null | python3 -c '
import json, sys, time
try:
    s = json.load(sys.stdin)
except Exception:
    print("no stats message")
    sys.exit(0)
u, c = s.get("upstream", {}), s.get("cache", {})
out = ["%ds old:" % (int(time.time()) - s.get("time", 0)), "watches=%s" % s.get("watches"),
       "upstream_calls=%s" % u.get("calls"), "failures=%s" % u.get("failures"), "paused=%s" % u.get("paused"),
       "cache_frames=%s" % c.get("frames"), "publish_failures=%s" % s.get("publish_failures")]
for v in s.get("services", []):
    out.append("%s: breaker=%s budget_left_minute=%s budget_left_day=%s last_error=%s" % (
        v.get("name"), v.get("breaker"), v.get("budget_left_minute"), v.get("budget_left_day"),
        json.dumps(v.get("last_error"))))
print(" ".join(out))
' 2>/dev/null || echo "no stats message"
}

[[ -x $SKYFRAME_BIN ]] || fail "$SKYFRAME_BIN is missing (make watches-load builds it; or set SKYFRAME_BIN)"
echo "== build: $CC -O2 -std=c11 -Wall -Wextra -Werror abuse.c"
"$CC" -O2 -std=c11 -Wall -Wextra -Werror -o "$TMP/abuse" "$HERE/abuse.c" -lmosquitto
raise_nofile 4096

SUMMARY=()
status=0
for N in $WATCHES; do
  dir=$TMP/n$N
  mkdir -p "$dir"
  maximum=$WATCHES_MAXIMUM
  if [[ -z $maximum ]] && ((N > DEFAULT_MAXIMUM)); then maximum=$N; fi
  start_broker tuned "$dir/broker"
  start_stub "$dir/stub.log"
  cat >"$dir/skyframe.yaml" <<EOF
log:
  level: warning
metrics:
  port: 0
EOF
  settings="defaults"
  # SKYFRAME_* settings given to the script reach the gateway too: they are named in the table
  # (values of secrets left out).
  given=$(env | grep '^SKYFRAME_' | grep -v '^SKYFRAME_WATCHES_MAXIMUM=\|^SKYFRAME_WATCHES_MINIMUM_SECONDS=' |
    sed 's/^\([^=]*\(PASSWORD\|KEY\|SECRET\|TOKEN\)[^=]*\)=.*/\1=…/' | sort | tr '\n' ' ' | sed 's/ $//' || true)
  [[ -z $given ]] || settings=$given
  unset SKYFRAME_WATCHES_MAXIMUM SKYFRAME_WATCHES_MINIMUM_SECONDS
  if [[ -n $maximum ]]; then
    export SKYFRAME_WATCHES_MAXIMUM=$maximum
    settings="$settings, watches.maximum $maximum"
  fi
  if ((INTERVAL < DEFAULT_MINIMUM_SECONDS)); then
    export SKYFRAME_WATCHES_MINIMUM_SECONDS=$INTERVAL
    settings="$settings, watches.minimum-seconds $INTERVAL"
  fi
  echo
  echo "== $N watches @$INTERVAL for ${DURATION} s: broker (tuned) on 127.0.0.1:$PORT, stub on 127.0.0.1:$STUB_PORT," \
    "gateway $SKYFRAME_BIN ($settings)"
  GATEWAY_NOTE=""
  start_gateway "$dir/skyframe.yaml" "$dir/gateway.log" || fail "$GATEWAY_NOTE"
  unset SKYFRAME_WATCHES_MAXIMUM SKYFRAME_WATCHES_MINIMUM_SECONDS
  GW=$GATEWAY_PID
  sleep 2
  rss_before=$(kb "$GW" VmRSS)
  hwm_before=$(kb "$GW" VmHWM)
  stub_before=$(stub_stats)

  "$TMP/abuse" watch -p "$PORT" -P "$GW" -d watch- -i "$N" >"$dir/watch.out" 2>"$dir/watch.err" &
  WATCH_PID=$!
  PIDS+=("$WATCH_PID")
  wait_subscribed "$dir/watch.err" || fail "the frame counter did not subscribe: $(tail -1 "$dir/watch.err")"

  start=$(date +%s%N)
  published=$("$TMP/abuse" flood -p "$PORT" -n "$N" -d watch- -i "$N" -c "${CELLS:-$N}" -s "$SEED" -q 1 -r \
    -t skyframe/v1/watch/ -a " @$INTERVAL" 2>"$dir/flood.err") || true
  echo "    watches published: ${published:-no result: $(tail -1 "$dir/flood.err")}"
  [[ -n $published ]] || status=1

  echo "    t (s) | VmRSS now / sampled max so far | frames | devices with a frame / an ok frame | stub forecast calls"
  all_seen="" all_ok="" next_line=0
  while :; do
    elapsed=$(seconds_since "$start")
    line=$(tail -1 "$dir/watch.out")
    if [[ -z $all_seen && $(field devices "$line") == "$N" ]]; then all_seen=$elapsed; fi
    if [[ -z $all_ok && $(field devices_ok "$line") == "$N" ]]; then all_ok=$elapsed; fi
    if awk -v e="$elapsed" -v n="$next_line" 'BEGIN { exit !(e >= n) }'; then
      printf '    %5s | %s / %s | %s | %s / %s | %s\n' "${elapsed%.*}" "$(mb "$(kb "$GW" VmRSS)")" \
        "$(mb "$(field rss_max_kb "$line" | grep -v n/a)")" "$(field frames "$line")" \
        "$(field devices "$line")" "$(field devices_ok "$line")" "$(field forecast "$(stub_stats)")"
      next_line=$((next_line + 10))
    fi
    awk -v e="$elapsed" -v d="$DURATION" 'BEGIN { exit !(e >= d) }' && break
    kill -0 "$GW" 2>/dev/null || break
    sleep 1
  done
  rss_end=$(kb "$GW" VmRSS)
  hwm=$(kb "$GW" VmHWM)
  threads=$(awk '$1 == "Threads:" { print $2 }' "/proc/$GW/status" 2>/dev/null || true)
  stub_end=$(stub_stats)
  stats=$(gateway_stats)
  stop "$WATCH_PID"
  final=$(tail -1 "$dir/watch.out")
  counts=$(grep '^watch-:' "$dir/watch.out" || true)
  sampled=$(field rss_max_kb "$final")
  [[ $sampled != n/a && $sampled -ge 0 ]] || sampled=""
  gateway_alive=1
  kill -0 "$GW" 2>/dev/null || gateway_alive=0
  stop "$GW"
  warnings=$(grep -c . "$dir/gateway.log" || true)
  if [[ -s $dir/gateway.log ]]; then
    echo "== gateway log: $warnings lines; the last 5:"
    tail -5 "$dir/gateway.log" | sed 's/^/    /'
  fi
  broker=$(broker_warnings "$dir/broker/mosquitto.log")
  [[ -z $broker ]] || printf '== broker warnings:\n%s\n' "$broker"
  for pid in "$BROKER_PID" "$STUB_PID"; do stop "$pid"; done

  peak=$hwm
  if [[ -n $sampled && (-z $peak || $sampled -gt $peak) ]]; then peak=$sampled; fi
  rss_goal=""
  if ((N <= 2000)) && [[ -n $peak ]]; then
    rss_goal=$(awk -v k="$peak" 'BEGIN { print "≤ 64 MB: " (k <= 64 * 1024 ? "met" : "**missed**") }')
  fi
  frames=$(field frames "$counts")
  [[ $frames != n/a ]] || frames=0
  ok=$(field ok "$counts")
  stale=$(field stale "$counts")
  [[ $ok != n/a ]] || ok=0
  [[ $stale != n/a ]] || stale=0
  errors=$((frames - ok - stale))
  error_detail=$(sed -e 's/^watch-: frames=[0-9]*//' -e 's/ \(ok\|stale\)=[0-9]*//g' <<<"$counts")
  expected=$((N * ((DURATION + INTERVAL - 1) / INTERVAL)))
  upstream=$(stub_delta "$stub_before" "$stub_end")

  echo
  echo "| $N watches @$INTERVAL, ${DURATION} s ($settings) | value |"
  echo "|---|---|"
  echo "| gateway RSS before the watches | $(mb "$rss_before") (VmHWM $(mb "$hwm_before")) |"
  echo "| gateway RSS peak | VmHWM $(mb "$hwm"), sampled VmRSS max $(mb "$sampled") ${rss_goal:+($rss_goal)} |"
  echo "| gateway RSS at the end | $(mb "$rss_end") ($threads threads) |"
  echo "| watch frames | $frames (about $expected if every watch is pushed on time): ok $ok, stale $stale, errors $errors${error_detail:+ (${error_detail# })} |"
  echo "| devices with a frame / an ok frame | $(field devices "$final") / $(field devices_ok "$final") of $N; frames per device $(field per_device_min "$final")–$(field per_device_max "$final") |"
  echo "| every watch had a frame / an ok frame after | $(after "$all_seen") / $(after "$all_ok") |"
  echo "| upstream (stub) | $upstream |"
  echo "| gateway stats message | $stats |"
  echo "| watches published | ${published:-none} |"
  SUMMARY+=("| $N | $settings | $(mb "$rss_before") | $(mb "$hwm") / $(mb "$sampled") | $(mb "$rss_end") | $ok | $stale | $errors | $(field devices_ok "$final") of $N (all: $(after "$all_ok")) | $(field forecast "$upstream") calls, $(field cells_distinct "$upstream") cells |")
  if ((gateway_alive == 0)); then
    echo "Note: the gateway exited during the test"
    status=1
  fi
  [[ -n $hwm ]] || status=1
done

echo
echo "Summary: watches @$INTERVAL, ${DURATION} s from the first watch published, random positions in ${CELLS:-as many} distinct cells (seed $SEED)"
echo
echo "| watches | settings | RSS before | peak: VmHWM / sampled max | RSS at the end | ok frames | stale | error frames | devices with an ok frame | upstream (stub) |"
echo "|--:|---|--:|--:|--:|--:|--:|--:|---|---|"
printf '%s\n' "${SUMMARY[@]}"
exit "$status"
