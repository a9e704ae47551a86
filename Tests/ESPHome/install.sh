#!/usr/bin/env bash
# Installs ESPHome, pinned, into a virtual environment of its own (default .build-esphome/venv in
# the repository; ESPHOME_VENV=DIR for another), for Tests/ESPHome/check.sh: esphome==2026.6.5 on
# Debian's Python 3.11 (python3; ESPHome 2026.7 and later need 3.12). Only `esphome config` runs:
# it validates a configuration offline. Compiling one would need PlatformIO's toolchains, which
# come from PlatformIO's own registry (not reachable here).
#
# Idempotent and safe to run twice at once, as Tests/HomeAssistant/install.sh: a lock (flock)
# serialises installs into one venv, and a finished install writes a marker that a later call
# finds. `make test` starts it in the background at the start and waits for it before the check.
# The last line it prints says how long it took (measured: about 45 s from an empty pip cache).
set -euo pipefail

ESPHOME_VERSION=2026.6.5
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="${ESPHOME_VENV:-$repo/.build-esphome/venv}"
marker="$venv/.skyframe-esphome-install"
started=$(date +%s)
elapsed() { echo "$(($(date +%s) - started)) s"; }

installed() {
    [ -f "$marker" ] && grep -qx "esphome==$ESPHOME_VERSION" "$marker" && [ -x "$venv/bin/esphome" ]
}

if installed; then
    echo "ESPHome $ESPHOME_VERSION already installed in $venv ($(elapsed))"
    exit 0
fi
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
if ! flock -n 9; then
    echo "another install into $venv is running: waiting for it"
    flock 9
fi
if installed; then
    echo "ESPHome $ESPHOME_VERSION installed in $venv by another run (waited $(elapsed))"
    exit 0
fi

python="${ESPHOME_PYTHON:-python3}"
if ! "$python" -c 'import sys; sys.exit(sys.version_info[:2] < (3, 11))' 2>/dev/null; then
    echo "$python is not Python 3.11 or later (ESPHome $ESPHOME_VERSION needs it)" >&2
    exit 1
fi
rm -f "$marker"
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install --disable-pip-version-check --no-input --progress-bar off -q --no-compile \
    "esphome==$ESPHOME_VERSION"
echo "esphome==$ESPHOME_VERSION" >"$marker"
echo "ESPHome $ESPHOME_VERSION installed in $venv ($(du -sh "$venv" | cut -f1)) in $(elapsed)"
