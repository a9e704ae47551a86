#!/usr/bin/env bash
# Checks docs/devices/esphome-skyframe.yaml, the ESPHome configuration of docs/devices/http.md,
# as far as ESPHome runs here (Tests/ESPHome/install.sh installs it, pinned, into its venv):
#   1. `esphome config` validates it (every component's schema: http_request's request_headers,
#      collect_headers, capture_response, globals, deep_sleep.enter's templated duration);
#   2. the same file with `request_headers:` written as the old `headers:` is refused, so the
#      validator does read http_request's schema (a pass is not a validator that accepts all);
#   3. the JSON keys its lambda reads (root["..."]) are keys of the gateway's JSON mirror of a
#      standard frame (schemas/vectors/frames/01-ok-berlin.json), and its url asks for that
#      mirror of one place (format=json).
# Not checked: the lambdas' C++ (`esphome config` does not compile it; compiling needs
# PlatformIO's toolchains, not reachable here) and a run on a board.
# Last line "esphome: N passed, M failed"; exit status non-zero on any failure.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
config="$repo/docs/devices/esphome-skyframe.yaml"
venv="${ESPHOME_VENV:-$repo/.build-esphome/venv}"
passed=0
failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

if ! "$here/install.sh" >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"
    bad "Tests/ESPHome/install.sh could not install ESPHome"
    echo "esphome: $passed passed, $failed failed"
    exit 1
fi
tail -n 1 "$tmp/install.log"
esphome="$venv/bin/esphome"

echo "== esphome config"
start=$(date +%s)
# Its own state and caches in this run's folder, not in the home directory or the docs.
if (cd "$tmp" && "$esphome" config "$config") >"$tmp/valid.log" 2>&1 &&
    grep -q 'Configuration is valid' "$tmp/valid.log"; then
    ok "esphome config accepts docs/devices/esphome-skyframe.yaml ($(($(date +%s) - start)) s;" \
        "$(grep -m 1 -o 'ESPHome [0-9.]*' "$tmp/valid.log"))"
else
    grep -v '^  ' "$tmp/valid.log" | tail -n 20
    grep -B 3 -A 3 -i 'invalid\|error' "$tmp/valid.log" | head -n 40
    bad "esphome config refuses docs/devices/esphome-skyframe.yaml"
fi
sed 's/^\( *\)request_headers:/\1headers:/' "$config" >"$tmp/old-headers.yaml"
if (cd "$tmp" && "$esphome" config "$tmp/old-headers.yaml") >"$tmp/refused.log" 2>&1; then
    bad "esphome config accepted the old 'headers:' key: it does not validate http_request"
elif grep -q "renamed to 'request_headers'" "$tmp/refused.log"; then
    ok "esphome config refuses the same file with 'headers:' (renamed to 'request_headers')"
else
    tail -n 10 "$tmp/refused.log"
    bad "esphome config refused the 'headers:' variant, but not for that key"
fi

echo "== the JSON the lambda reads is the gateway's mirror"
if python3 - "$config" "$repo/schemas/vectors/frames/01-ok-berlin.json" <<'END_OF_PYTHON'; then
import json
import re
import sys
text = open(sys.argv[1], encoding="utf-8").read()
mirror = json.load(open(sys.argv[2], encoding="utf-8"))["frame"]
keys = re.findall(r'root\["([^"]+)"\]', text)
missing = sorted(set(k for k in keys if k not in mirror))
urls = re.findall(r'url:\s*"([^"]+)"', text)
print(f"keys read: {', '.join(sorted(set(keys)))}")
problems = []
if not keys:
    problems.append("no root[...] key found")
if missing:
    problems.append(f"not in the JSON mirror: {', '.join(missing)}")
if len(urls) != 1 or "format=json" not in urls[0] or ";" in urls[0]:
    problems.append(f"the url must ask for one place's JSON mirror (format=json): {urls}")
for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
END_OF_PYTHON
    ok "every root[\"...\"] key is a key of the standard JSON mirror; the url asks format=json"
else
    bad "the lambda's JSON keys or the url do not match the gateway's JSON mirror"
fi
echo "esphome: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
