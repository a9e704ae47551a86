# Shared by run.sh and abuse.sh (sourced, not run): processes, ports, the two broker setups, the
# Open-Meteo stub and the gateway. Everything listens on 127.0.0.1 only.
#
# The sourcing script sets HERE, TMP, PIDS=() and MOSQUITTO, and calls cleanup on exit.

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

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A free UDP port on 127.0.0.1 (the CoAP listeners).
free_udp_port() {
  python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The median of the numbers on standard input, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

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

# Raises the soft open-file limit to at least $1 (the hard limit caps it).
raise_nofile() {
  local want=$1 hard
  (($(ulimit -n) >= want)) && return 0
  hard=$(ulimit -Hn)
  if [[ $hard != unlimited ]] && ((hard < want)); then want=$hard; fi
  ulimit -n "$want" || echo "warning: could not raise ulimit -n to $want" >&2
}

# start_broker SETUP DIR: a fresh mosquitto on a free port; sets PORT and BROKER_PID.
#   stock: what Debian's /etc/mosquitto/mosquitto.conf amounts to once it listens on a port
#          (Debian adds a pid file and a log file, nothing that changes how messages flow).
#   tuned: config/mosquitto.conf's TCP_NODELAY plus room for a gateway's one session, which
#          receives every device's requests.
start_broker() {
  local setup=$1 dir=$2
  mkdir -p "$dir/db"
  # Started as root, mosquitto runs as user mosquitto (as Debian's service does): let it reach
  # its database directory inside our private temporary directory.
  if [[ $(id -u) == 0 ]] && id mosquitto >/dev/null 2>&1; then
    chmod o+x "$TMP" "$dir"
    chown mosquitto "$dir/db"
  fi
  PORT=$(free_port)
  case $setup in
    stock)
      cat >"$dir/mosquitto.conf" <<EOF
listener $PORT 127.0.0.1
allow_anonymous true
persistence true
persistence_location $dir/db/
EOF
      ;;
    tuned)
      cat >"$dir/mosquitto.conf" <<EOF
listener $PORT 127.0.0.1
allow_anonymous true
persistence false
# No per-client in-flight window from the broker (default 20) and room for every queued request.
max_inflight_messages 0
max_queued_messages 100000
max_queued_bytes 0
# Without it every answer waits for the device's delayed ACK of the broker's PUBACK (~40 ms).
set_tcp_nodelay true
log_dest stderr
log_type error
log_type warning
EOF
      ;;
    *)
      echo "unknown broker setup '$setup' (stock or tuned)" >&2
      return 2
      ;;
  esac
  "$MOSQUITTO" -c "$dir/mosquitto.conf" 2>"$dir/mosquitto.log" &
  BROKER_PID=$!
  PIDS+=("$BROKER_PID")
  wait_port "$PORT"
}

# What the broker said that matters: errors, warnings and dropped messages (stock also logs
# every connection, at notice level).
broker_warnings() {
  grep -E 'Error|Warning|dropped|denied|[Oo]ut of memory' "$1" | tail -5 | sed 's/^/    /' || true
}

# start_stub LOG: the Open-Meteo stand-in on a free port; sets STUB_PORT and STUB_PID.
start_stub() {
  STUB_PORT=$(free_port)
  python3 "$HERE/stub_open_meteo.py" "$STUB_PORT" 2>"$1" &
  STUB_PID=$!
  PIDS+=("$STUB_PID")
  wait_port "$STUB_PORT"
}

# The stub's counters as one line of key=value pairs.
stub_stats() {
  python3 -c 'import sys, urllib.request
print(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/stats", timeout=5).read().decode().strip())' \
    "$STUB_PORT" 2>/dev/null || echo "stub did not answer"
}

# start_gateway CONFIG LOG: SKYFRAME_BIN against the broker on PORT and the stub on STUB_PORT;
# sets GATEWAY_PID and returns non-zero, with GATEWAY_NOTE saying why, unless it is online.
start_gateway() {
  local state sub
  SKYFRAME_MQTT_HOST=127.0.0.1 SKYFRAME_MQTT_PORT=$PORT SKYFRAME_MQTT_PROTOCOL=${GATEWAY_PROTOCOL:-5} \
    SKYFRAME_OPEN_METEO_FORECAST_URL=http://127.0.0.1:$STUB_PORT/v1/forecast \
    SKYFRAME_OPEN_METEO_GEOCODING_URL=http://127.0.0.1:$STUB_PORT/v1/search \
    SKYFRAME_AIR_QUALITY_SERVICE=none \
    "$SKYFRAME_BIN" run --config "$1" 2>"$2" &
  GATEWAY_PID=$!
  PIDS+=("$GATEWAY_PID")
  mosquitto_sub -h 127.0.0.1 -p "$PORT" -t skyframe/v1/gateway/state -C 1 -W 20 >"$TMP/state" 2>/dev/null &
  sub=$!
  # A gateway that refuses its configuration exits at once: no need to wait the 20 s.
  while kill -0 "$sub" 2>/dev/null; do
    if ! kill -0 "$GATEWAY_PID" 2>/dev/null; then
      stop "$sub"
      break
    fi
    sleep 0.1
  done
  wait "$sub" 2>/dev/null || true
  state=$(cat "$TMP/state")
  if [[ $state != '{"state":"online"}' ]]; then
    if ! kill -0 "$GATEWAY_PID" 2>/dev/null; then
      GATEWAY_NOTE="the gateway exited at start: $(tail -3 "$2" | tr '\n' ' ')"
    else
      GATEWAY_NOTE="the gateway did not announce {\"state\":\"online\"} within 20 s (got '${state}')"
    fi
    return 1
  fi
}

# ask DEVICE TEXT: one request through mosquitto_rr; prints the answer's size and status byte
# ("192 0" for a full ok frame).
ask() {
  local answer=$TMP/answer-$1
  mosquitto_rr -h 127.0.0.1 -p "$PORT" -t "skyframe/v1/req/$1" -e "skyframe/v1/resp/$1" -m "$2" \
    -W 10 -N >"$answer" 2>/dev/null || true
  echo "$(wc -c <"$answer") $(od -An -tu1 -j3 -N1 "$answer" | tr -d ' ')"
}

# VmRSS, VmHWM (kB) of a process: `kb PID VmRSS`.
kb() { awk -v key="$2:" '$1 == key { print $2 }' "/proc/$1/status" 2>/dev/null || true; }
mb() { if [[ -n $1 ]]; then awk -v k="$1" 'BEGIN { printf "%.1f MB", k / 1024 }'; else echo n/a; fi; }
