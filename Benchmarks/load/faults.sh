#!/usr/bin/env bash
# The fleet under faults (Benchmarks/load/faults.py says what it does and prints):
#   Benchmarks/load/faults.sh          (make faults)
# Installs paho-mqtt into .build/faults-venv (PyPI) and builds the release binary if missing.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VENV="$ROOT/.build/faults-venv"
if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q 'paho-mqtt==2.1.0'
fi
if [[ ! -x ${SKYFRAME_BIN:-$ROOT/.build/release/skyframe} ]]; then
  (cd "$ROOT" && swift build -c release --product skyframe)
fi
exec "$VENV/bin/python" "$HERE/faults.py"
