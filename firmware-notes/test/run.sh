#!/usr/bin/env bash
# Tests firmware-notes/skyframe_frame.h:
#   1. compiles test/decode_vectors.c (C99, -Werror, ASan + UBSan) into a temp dir;
#   2. runs its self-test (error codes, CRC, every single-bit error, helpers, requests);
#   3. checks the header also compiles as C++ (Arduino sketches are C++), if c++ exists;
#   4. decodes every golden vector schemas/vectors/frames/*.json and compares every field
#      (test/compare.py). Zero vectors is a failure. The valid binary request vectors in
#      schemas/vectors/requests/ are rebuilt with the skyframe_request_* helpers.
# Last line: "N passed, M failed". Exit status non-zero on any failure.
# SKYFRAME_VECTORS=/dir and SKYFRAME_REQUEST_VECTORS=/dir override the vector directories.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
vectors="${SKYFRAME_VECTORS:-$repo/schemas/vectors/frames}"
requests="${SKYFRAME_REQUEST_VECTORS:-$repo/schemas/vectors/requests}"
CC="${CC:-cc}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

passed=0
failed=0

echo "== compile"
if ! "$CC" -std=c99 -Wall -Wextra -Werror -pedantic -fsanitize=address,undefined -g \
    -o "$tmp/decode_vectors" "$here/decode_vectors.c"; then
  echo "FAIL compile"
  echo "0 passed, 1 failed"
  exit 1
fi

# Reads "<label>: P passed, F failed" from a step's output; a step that died without it
# (crash, sanitizer) counts as one more failure.
tally() {
  local out="$1" rc="$2" label="$3" summary
  summary="$(printf '%s\n' "$out" | sed -n "s/^$label: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p" | tail -n 1)"
  if [[ -z "$summary" ]]; then
    echo "FAIL $label: no summary line (exit $rc)"
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + ${summary% *}))
  failed=$((failed + ${summary#* }))
  if [[ "$rc" -ne 0 && "${summary#* }" -eq 0 ]]; then
    echo "FAIL $label: exit $rc"
    failed=$((failed + 1))
  fi
}

echo "== self-test"
rc=0
out="$("$tmp/decode_vectors" --self-test 2>&1)" || rc=$?
printf '%s\n' "$out" | grep -v '^ok ' || true
tally "$out" "$rc" "self-test"

echo "== C++"
if command -v "${CXX:-c++}" >/dev/null 2>&1; then
  printf '#define SKYFRAME_FRAME_IMPLEMENTATION\n#include "skyframe_frame.h"\n#include "skyframe_frame.h"\nint main() { skyframe_frame f; static const uint8_t b[SKYFRAME_FRAME_SIZE] = {0}; return skyframe_frame_decode(b, sizeof b, &f) == SKYFRAME_ERR_BAD_MAGIC ? 0 : 1; }\n' >"$tmp/cxx.cpp"
  if "${CXX:-c++}" -std=c++11 -Wall -Wextra -Werror -pedantic -I"$here/.." \
      -o "$tmp/cxx" "$tmp/cxx.cpp" && "$tmp/cxx"; then
    echo "ok   header compiles and runs as C++11"
    passed=$((passed + 1))
  else
    echo "FAIL header as C++11"
    failed=$((failed + 1))
  fi
else
  echo "skip (no C++ compiler)"
fi

echo "== vectors ($vectors)"
count=0
if [[ -d "$vectors" ]]; then
  count="$(find "$vectors" -maxdepth 1 -name '*.json' | wc -l | tr -d ' ')"
fi
if [[ "$count" -eq 0 ]]; then
  echo "FAIL no golden vectors: $vectors/*.json"
  failed=$((failed + 1))
else
  rc=0
  out="$(python3 "$here/compare.py" "$tmp/decode_vectors" "$vectors" "$requests" 2>&1)" || rc=$?
  printf '%s\n' "$out"
  tally "$out" "$rc" "vectors"
fi

echo "$passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
