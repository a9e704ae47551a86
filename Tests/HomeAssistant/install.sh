#!/usr/bin/env bash
# Installs the Home Assistant core that Tests/HomeAssistant/test.sh runs against into a virtual
# environment of its own (default .build-ha/venv in the repository; HA_VENV=DIR for another):
# homeassistant==$HA_VERSION on Python 3.13, plus the requirements of every integration that
# such a core sets up by itself with our configuration (frontend, backup, hardware, network, …)
# and of MQTT. Those versions are read from the installed package's own manifests, installed
# under its package_constraints.txt, so that Home Assistant can then start with --skip-pip
# (it never installs anything at run time; only Debian's packages and PyPI are reachable).
#
# Idempotent and safe to run twice at once: a lock (flock) serialises installs into one venv,
# a finished install writes the marker file $HA_VENV/.skyframe-ha-install, and a later call
# (or one that waited for the lock) that finds the marker for the same version does nothing.
# `make test` starts it in the background beside the Swift build and waits for it later.
#
# Python 3.13: $HA_PYTHON if set, else the newest 3.13.x that pyenv has ($PYENV_ROOT, or
# ~/.pyenv), else a python3.13 on PATH. Fails with a message saying what to install otherwise.
# The last line it prints says how long it took.
set -euo pipefail

HA_VERSION=2025.4.4
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="${HA_VENV:-$repo/.build-ha/venv}"
marker="$venv/.skyframe-ha-install"
started=$(date +%s)

elapsed() { echo "$(($(date +%s) - started)) s"; }

# True when $1 runs and is CPython 3.13.
is_python313() {
    [ -n "$1" ] && "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))' 2>/dev/null
}

find_python() {
    if [ -n "${HA_PYTHON:-}" ]; then
        if is_python313 "$HA_PYTHON"; then echo "$HA_PYTHON"; return 0; fi
        echo "HA_PYTHON=$HA_PYTHON is not a working Python 3.13" >&2
        return 1
    fi
    local pyenv="" root="" candidate
    if command -v pyenv >/dev/null 2>&1; then
        pyenv="$(command -v pyenv)"
    elif [ -x "${PYENV_ROOT:-$HOME/.pyenv}/bin/pyenv" ]; then
        pyenv="${PYENV_ROOT:-$HOME/.pyenv}/bin/pyenv"
    fi
    if [ -n "$pyenv" ]; then
        root="$("$pyenv" root 2>/dev/null || true)"
    fi
    root="${root:-${PYENV_ROOT:-$HOME/.pyenv}}"
    # pyenv's installed versions, newest 3.13.x first (not its shims: a shim only runs the
    # version selected in the current directory).
    if [ -d "$root/versions" ]; then
        for candidate in $(ls -1 "$root/versions" | grep -E '^3\.13\.[0-9]+$' | sort -t. -k3,3nr); do
            if is_python313 "$root/versions/$candidate/bin/python3.13"; then
                echo "$root/versions/$candidate/bin/python3.13"
                return 0
            fi
        done
    fi
    candidate="$(command -v python3.13 2>/dev/null || true)"
    if is_python313 "$candidate"; then echo "$candidate"; return 0; fi
    echo "no Python 3.13 found (Home Assistant $HA_VERSION needs it): looked for \$HA_PYTHON," \
        "pyenv's versions in $root/versions and python3.13 on PATH. Install one with" \
        "'pyenv install 3.13' (or point HA_PYTHON at a python3.13)" >&2
    return 1
}

installed() {
    [ -f "$marker" ] && grep -qx "homeassistant==$HA_VERSION" "$marker" &&
        [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import homeassistant' 2>/dev/null
}

if installed; then
    echo "Home Assistant $HA_VERSION already installed in $venv ($(elapsed))"
    exit 0
fi

mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
if ! flock -n 9; then
    echo "another install into $venv is running: waiting for it"
    flock 9
fi
if installed; then # the install we waited for finished it
    echo "Home Assistant $HA_VERSION installed in $venv by another run (waited $(elapsed))"
    exit 0
fi

python="$(find_python)"
echo "Python: $python ($("$python" --version 2>&1))"
rm -f "$marker"
# A venv of another Python (or a broken one) is made anew; an unfinished install of ours is
# completed in place (pip skips what is already there).
if [ -d "$venv" ] && ! is_python313 "$venv/bin/python"; then
    echo "removing $venv: not a Python 3.13 venv"
    rm -rf "$venv"
fi
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
# --no-compile: Home Assistant's thousands of modules are not byte-compiled at install (minutes
# of CPU beside the Swift build); the few a start imports are compiled when first imported.
pip=("$venv/bin/python" -m pip install --disable-pip-version-check --no-input
    --progress-bar off -q --no-compile)

echo "installing homeassistant==$HA_VERSION into $venv"
"${pip[@]}" "homeassistant==$HA_VERSION"
echo "homeassistant installed after $(elapsed)"

# The requirements of the integrations a core with our configuration sets up: the bootstrap's
# core and default integrations, those our configuration names (http, api), mqtt, and all
# their dependencies, each as pinned in its manifest.json.
"$venv/bin/python" - "$venv/requirements-integrations.txt" <<'END_OF_PYTHON'
import json
import pathlib
import sys

import homeassistant
import homeassistant.bootstrap as bootstrap

components = pathlib.Path(homeassistant.__file__).parent / "components"
wanted = set(bootstrap.CORE_INTEGRATIONS) | set(bootstrap.DEFAULT_INTEGRATIONS)
wanted |= {"http", "api", "mqtt"}
seen, requirements = set(), {}
while wanted:
    domain = wanted.pop()
    if domain in seen:
        continue
    seen.add(domain)
    manifest = json.loads((components / domain / "manifest.json").read_text())
    for requirement in manifest.get("requirements", []):
        requirements.setdefault(requirement, set()).add(domain)
    wanted |= set(manifest.get("dependencies", []))
with open(sys.argv[1], "w") as out:
    for requirement in sorted(requirements):
        out.write(requirement + "\n")
        print("  %s (%s)" % (requirement, ", ".join(sorted(requirements[requirement]))))
END_OF_PYTHON
constraints="$("$venv/bin/python" -c 'import homeassistant, os
print(os.path.join(os.path.dirname(homeassistant.__file__), "package_constraints.txt"))')"
echo "installing the integrations' requirements (above)"
"${pip[@]}" -c "$constraints" -r "$venv/requirements-integrations.txt"

# The two that matter most, checked against their manifests once more.
"$venv/bin/python" - <<'END_OF_PYTHON'
import importlib.metadata as metadata
import json
import pathlib

import homeassistant

components = pathlib.Path(homeassistant.__file__).parent / "components"
for domain in ("frontend", "mqtt"):
    for requirement in json.loads((components / domain / "manifest.json").read_text())["requirements"]:
        name, version = requirement.split("==")
        if metadata.version(name) != version:
            raise SystemExit("%s: %s installed, %s wanted" % (name, metadata.version(name), version))
        print("  %s %s for %s: installed" % (name, version, domain))
END_OF_PYTHON

{
    echo "homeassistant==$HA_VERSION"
    cat "$venv/requirements-integrations.txt"
} >"$marker.tmp"
mv "$marker.tmp" "$marker"
echo "Home Assistant $HA_VERSION installed in $venv ($(du -sh "$venv" | cut -f1)) in $(elapsed)"
