#!/usr/bin/env bash
# Tests firmware-notes/skyframe_frame.h (frame v1.1):
#   1. compiles test/decode_vectors.c (C99, -Werror, ASan + UBSan) into a temp dir, and a small
#      program using the v1.1 helpers as C99 without libm (the header must not need it);
#   2. runs its self-test (error codes, CRC, every single-bit error, helpers, the v1.1 fields,
#      requests);
#   3. checks the header also compiles as C++ (Arduino sketches are C++); without a C++ compiler
#      see "missing tools" below;
#   3a. the layout tables against the header (test/layout_check.py writes the C program from
#      schemas/frame-v1.json, frame-large.json and frame-tiny.json; C99, host only): every field
#      and array element of each profile written at its table offset, type and byte order into a
#      valid frame, decoded by the header's decoder and compared with its struct member, then its
#      sentinel, which the header must report missing; magic, kind byte, CRC and length refused
#      when wrong; every size/count constant equal to the table's. One line per profile;
#      SKYFRAME_SCHEMAS=/dir overrides the folder of the tables (as for compare.py);
#   4. decodes every golden vector schemas/vectors/frames/*.json and compares every field, the
#      v1.1 ones included (test/compare.py), and nine corrupted copies of each, which must be
#      rejected with the exact error (compare.py --corrupt). Zero vectors is a failure. The valid
#      binary request vectors in schemas/vectors/requests/ are rebuilt with the skyframe_request_*
#      helpers, the valid LoRaWAN uplink vectors in schemas/vectors/lorawan/ with skyframe_uplink_*;
#   4a. the frame profiles (schemas/frame-profiles.md): every vector in schemas/vectors/large/,
#      tiny/ and unchanged/ decodes through skyframe_message_kind() and through its own decoder
#      with every field equal to the vector's "frame" (read back with frame-large.json and
#      frame-tiny.json) and skyframe_content_check() equal to "content_check", as do the content
#      checks of the standard vectors; corrupted copies of each (a flipped body or CRC bit, one
#      byte short or long, a wrong kind byte with and without a new CRC, a wrong magic) and the
#      message given to the other kinds' decoders are rejected with the exact error
#      (compare.py --profiles --corrupt). Zero profile vectors is a failure;
#   5. backward compatibility: test/v1.0/skyframe_frame.h is the v1.0 header of git commit
#      03b84e1, unchanged but for a first comment line: below that line its git blob id must be
#      f7fe492578810cc5a987510f54c48988c116f2fa (the id git gives that commit's
#      firmware-notes/skyframe_frame.h; a content hash, so this holds on a shallow clone with no
#      history too), and where git has the commit, that id is checked against it as well.
#      decode_vectors.c built against it (-DSKYFRAME_TEST_V1_0) runs the v1.0 part of the
#      self-test and must decode EVERY golden vector, v1.1 ones included, with every v1.0 field
#      equal to the vector's (compare.py --v1.0);
#   6. the same on emulated microcontrollers (test/boards/run.sh): Cortex-M0 (qemu -M microbit),
#      Cortex-M4F with unaligned-access trapping (qemu -M mps2-an386), ATmega328P (simavr) and
#      RV32IMAC (qemu-system-riscv32 -M virt), each from an aligned and an odd buffer address,
#      corrupted copies included.
# Missing tools (a C++ compiler here, a board's emulator or cross compiler in boards/run.sh):
# with SKYFRAME_REQUIRE_ALL=1 (Tests/run-all.sh sets it: `make test` installs them all) a FAIL
# naming the tool and its Debian package; run by hand without it, a loud "SKIPPED, NOT CHECKED"
# line, and the last lines say what was not checked.
# Last line: "N passed, M failed". Exit status non-zero on any failure.
# SKYFRAME_VECTORS=/dir, SKYFRAME_REQUEST_VECTORS=/dir and SKYFRAME_UPLINK_VECTORS=/dir override
# the vector directories,
# SKYFRAME_PROFILE_VECTORS=/dir the one holding large/, tiny/ and unchanged/.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
vectors="${SKYFRAME_VECTORS:-$repo/schemas/vectors/frames}"
requests="${SKYFRAME_REQUEST_VECTORS:-$repo/schemas/vectors/requests}"
uplinks="${SKYFRAME_UPLINK_VECTORS:-$repo/schemas/vectors/lorawan}"
profiles="${SKYFRAME_PROFILE_VECTORS:-$repo/schemas/vectors}"
CC="${CC:-cc}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

passed=0
failed=0
skipped=()
# not_checked WHAT WHY: a check whose tool is missing. Under SKYFRAME_REQUIRE_ALL=1 a failure.
not_checked() {
  local what="$1"
  shift
  set -- "$what" "$*"
  if [[ "${SKYFRAME_REQUIRE_ALL:-}" == 1 ]]; then
    echo "FAIL $1: $2 (SKYFRAME_REQUIRE_ALL=1: make test must check it; make test-deps installs it)"
    failed=$((failed + 1))
  else
    echo "SKIPPED, NOT CHECKED: $1: $2"
    skipped+=("$1")
  fi
}

# A program that uses the header alone, v1.1 helpers and profiles included; valid C99 and C++11.
cat >"$tmp/header_only.c" <<'END_OF_PROGRAM'
#define SKYFRAME_FRAME_IMPLEMENTATION
#include "skyframe_frame.h"
#include "skyframe_frame.h"
#include <string.h>
int main(void) {
    static const uint8_t b[SKYFRAME_FRAME_SIZE] = {0};
    skyframe_frame f;
    int ok;
    memset(&f, 0, sizeof f);
    ok = skyframe_frame_decode(b, sizeof b, &f) == SKYFRAME_ERR_BAD_MAGIC;
    ok = ok && skyframe_moon_illumination_pct(&f) == -1 && !skyframe_has_air_quality(&f) &&
         skyframe_alert_count(&f) == -1 && skyframe_precip_now(&f) == -1 &&
         skyframe_next_update_seconds(&f) == -1;
    f.moon = 128;
    f.air_quality = 0x802B;
    f.alerts = 0x15;
    f.precip_next_hour = 0x7F;
    f.next_update = 65535u;
    ok = ok && skyframe_moon_illumination_pct(&f) == 100 &&
         skyframe_moon_phase_icon(&f) == SKYFRAME_MOON_FULL &&
         skyframe_air_quality_index(&f) == 42 &&
         skyframe_air_quality_scale(&f) == SKYFRAME_AQI_US &&
         skyframe_alert_severity(&f) == SKYFRAME_ALERT_SEVERE &&
         strcmp(skyframe_alert_severity_name(skyframe_alert_severity(&f)), "severe") == 0 &&
         skyframe_precip_change_in_min(&f) == SKYFRAME_PRECIP_NO_CHANGE &&
         skyframe_next_update_seconds(&f) == 65535L;
    {   /* the profiles */
        static skyframe_large large;
        static const uint8_t big[SKYFRAME_LARGE_SIZE] = {0x53, 0x46, 0x11};
        skyframe_tiny tiny;
        skyframe_unchanged unchanged;
        uint32_t check = 1;
        uint8_t r[SKYFRAME_REQUEST_SIZE];
        ok = ok && skyframe_message_kind(big, sizeof big) == SKYFRAME_KIND_LARGE &&
             skyframe_large_decode(big, sizeof big, &large) == SKYFRAME_ERR_CRC &&
             skyframe_tiny_decode(b, 48, &tiny) == SKYFRAME_ERR_BAD_MAGIC &&
             skyframe_unchanged_decode(b, 16, &unchanged) == SKYFRAME_ERR_BAD_MAGIC &&
             skyframe_content_check(big, sizeof big, &check) == SKYFRAME_OK && check != 1 &&
             skyframe_request_refresh(r, 1) == SKYFRAME_OK &&
             skyframe_request_set_profile(r, SKYFRAME_PROFILE_TINY) == SKYFRAME_OK &&
             skyframe_request_set_check(r, check) == SKYFRAME_OK;
    }
    return ok ? 0 : 1;
}
END_OF_PROGRAM

echo "== compile"
if ! "$CC" -std=c99 -Wall -Wextra -Werror -pedantic -fsanitize=address,undefined -g \
    -o "$tmp/decode_vectors" "$here/decode_vectors.c" -lm; then
  echo "FAIL compile"
  echo "0 passed, 1 failed"
  exit 1
fi
if "$CC" -std=c99 -Wall -Wextra -Werror -pedantic -I"$here/.." \
    -o "$tmp/header_only" "$tmp/header_only.c" && "$tmp/header_only"; then
  echo "ok   header with the v1.1 helpers and the profiles compiles, links and runs as C99 without libm"
  passed=$((passed + 1))
else
  echo "FAIL header as C99 without libm"
  failed=$((failed + 1))
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
  cp "$tmp/header_only.c" "$tmp/cxx.cpp"
  if "${CXX:-c++}" -std=c++11 -Wall -Wextra -Werror -pedantic -I"$here/.." \
      -o "$tmp/cxx" "$tmp/cxx.cpp" && "$tmp/cxx"; then
    echo "ok   header compiles and runs as C++11"
    passed=$((passed + 1))
  else
    echo "FAIL header as C++11"
    failed=$((failed + 1))
  fi
else
  not_checked "header as C++11" "no C++ compiler ${CXX:-c++} (Debian package g++)"
fi

echo "== layout tables against the header (test/layout_check.py)"
rc=0
if python3 "$here/layout_check.py" --schemas "${SKYFRAME_SCHEMAS:-$repo/schemas}" \
    --header "$here/../skyframe_frame.h" "$tmp/layout_check.c" &&
    "$CC" -std=c99 -Wall -Wextra -Werror -pedantic -o "$tmp/layout_check" "$tmp/layout_check.c"
then
  out="$("$tmp/layout_check" 2>&1)" || rc=$?
  printf '%s\n' "$out"
  tally "$out" "$rc" "layout"
else
  echo "FAIL layout: test/layout_check.py's program could not be generated or compiled"
  failed=$((failed + 1))
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
  out="$(python3 "$here/compare.py" --corrupt "$tmp/decode_vectors" "$vectors" "$requests" \
    "$uplinks" 2>&1)" ||
    rc=$?
  printf '%s\n' "$out"
  tally "$out" "$rc" "vectors"
fi

echo "== profile vectors ($profiles/{large,tiny,unchanged}, content checks of $vectors)"
pcount=0
for dir in large tiny unchanged; do
  if [[ -d "$profiles/$dir" ]]; then
    pcount=$((pcount + $(find "$profiles/$dir" -maxdepth 1 -name '*.json' | wc -l | tr -d ' ')))
  fi
done
if [[ "$pcount" -eq 0 ]]; then
  echo "FAIL no profile vectors: $profiles/{large,tiny,unchanged}/*.json"
  failed=$((failed + 1))
else
  rc=0
  out="$(python3 "$here/compare.py" --profiles --corrupt "$tmp/decode_vectors" "$vectors" \
    "$profiles/large" "$profiles/tiny" "$profiles/unchanged" 2>&1)" || rc=$?
  printf '%s\n' "$out"
  tally "$out" "$rc" "profile-vectors"
fi

v10="$here/v1.0/skyframe_frame.h"
echo "== v1.0 header ($v10)"
if [[ ! -f "$v10" ]]; then
  echo "FAIL missing: $v10"
  failed=$((failed + 1))
else
  v10_blob=f7fe492578810cc5a987510f54c48988c116f2fa
  if [[ "$(tail -n +2 "$v10" | git hash-object --stdin)" == "$v10_blob" ]]; then
    echo "ok   below its first line it is blob $v10_blob, commit 03b84e1's header"
    passed=$((passed + 1))
  else
    echo "FAIL it differs from commit 03b84e1's firmware-notes/skyframe_frame.h" \
      "(blob $v10_blob) below its first line"
    failed=$((failed + 1))
  fi
  if git -C "$repo" cat-file -e 03b84e1:firmware-notes/skyframe_frame.h 2>/dev/null; then
    if [[ "$(git -C "$repo" rev-parse 03b84e1:firmware-notes/skyframe_frame.h)" == "$v10_blob" ]]
    then
      echo "ok   git's history agrees: commit 03b84e1's header is blob $v10_blob"
      passed=$((passed + 1))
    else
      echo "FAIL commit 03b84e1's firmware-notes/skyframe_frame.h is not blob $v10_blob"
      failed=$((failed + 1))
    fi
  else
    echo "     (no history here, a shallow clone: the blob id above stands for commit 03b84e1)"
  fi
  if "$CC" -std=c99 -Wall -Wextra -Werror -pedantic -fsanitize=address,undefined -g \
      -DSKYFRAME_TEST_V1_0 -o "$tmp/decode_vectors_v1_0" "$here/decode_vectors.c" -lm; then
    echo "ok   decode_vectors.c compiles against the v1.0 header"
    passed=$((passed + 1))

    echo "== v1.0 header: self-test"
    rc=0
    out="$("$tmp/decode_vectors_v1_0" --self-test 2>&1)" || rc=$?
    printf '%s\n' "$out" | grep -v '^ok ' || true
    tally "$out" "$rc" "self-test"

    echo "== v1.0 header: every golden vector ($vectors)"
    if [[ "$count" -eq 0 ]]; then
      echo "FAIL no golden vectors: $vectors/*.json"
      failed=$((failed + 1))
    else
      rc=0
      out="$(python3 "$here/compare.py" --v1.0 "$tmp/decode_vectors_v1_0" "$vectors" 2>&1)" ||
        rc=$?
      printf '%s\n' "$out"
      tally "$out" "$rc" "v1.0-vectors"
      summary="$(printf '%s\n' "$out" |
        sed -n 's/^v1\.0-vectors: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' | tail -n 1)"
      if [[ -n "$summary" && $((${summary% *} + ${summary#* })) -eq "$count" ]]; then
        echo "ok   the v1.0 header was given all $count vectors"
        passed=$((passed + 1))
      else
        echo "FAIL the v1.0 run did not cover all $count vectors (${summary:-no summary})"
        failed=$((failed + 1))
      fi
    fi
  else
    echo "FAIL decode_vectors.c against the v1.0 header"
    failed=$((failed + 1))
  fi
fi

echo "== emulated boards (test/boards/run.sh)"
rc=0
"$here/boards/run.sh" 2>&1 | tee "$tmp/boards.txt" || rc=$?
tally "$(cat "$tmp/boards.txt")" "$rc" "boards"

while IFS= read -r line; do skipped+=("$line"); done < <(
  sed -n 's/^SKIPPED, NOT CHECKED: //p' "$tmp/boards.txt")
if [[ ${#skipped[@]} -gt 0 ]]; then
  echo "SKIPPED, NOT CHECKED (tools missing; make test installs them, and fails without them):"
  printf '  %s\n' "${skipped[@]}"
fi
echo "$passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
