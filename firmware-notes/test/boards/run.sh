#!/usr/bin/env bash
# The golden frame vectors on emulated microcontrollers. test/run.sh runs it; it also runs alone:
#
#   firmware-notes/test/boards/run.sh
#
# Every board decodes every golden vector (schemas/vectors/frames) plus its nine corrupted
# copies (compare.py --corrupt: each must be rejected with the exact error name), from an
# aligned and from an odd buffer address, and compare.py checks every field; the same for the
# frame profiles (schemas/vectors/large, tiny, unchanged and the standard vectors' content
# checks: compare.py --profiles --corrupt), large not on the AVR (SKYFRAME_LARGE is 0 there):
#   microbit      Cortex-M0 (qemu-system-arm -M microbit, nRF51: 256 KB flash, 16 KB RAM):
#                 decode_vectors.c itself (build-arm.sh, newlib-nano, semihosting); also the
#                 binary request and LoRaWAN uplink vectors (--request, --uplink), the self-test (--self-test), the stack's
#                 high water mark (also decoding and printing the large vectors), and that an
#                 unaligned word load faults (ARMv6-M always does).
#   mps2-an386    Cortex-M4F (qemu-system-arm -M mps2-an386), hard float, -mno-unaligned-access,
#                 UNALIGN_TRP set at reset: the same, and the probe proves the trap is on.
#   atmega328p    AVR, 16-bit int, 2 KB RAM (simavr): the header compiles without a warning
#                 (avr-gcc -Wall -Wextra -Werror -std=c99 -pedantic); avr/decode_flash.c decodes
#                 the frames from flash (avr/simavr_decoder.py is compare.py's DECODER); RAM use;
#                 the profiles with decode_flash.c -DSKYFRAME_TEST_PROFILES (tiny, unchanged).
#   riscv32-virt  RV32IMAC (qemu-system-riscv32 -M virt, picolibc): decode_vectors.c, the request
#                 vectors and the self-test.
# A board whose tools are missing: with SKYFRAME_REQUIRE_ALL=1 (Tests/run-all.sh sets it; `make
# test-deps` installs them all) a FAIL naming the tools and their Debian packages; run by hand
# without it, a loud "SKIPPED, NOT CHECKED: ..." line, repeated at the end.
# Prints ok/FAIL lines (compare.py's passing lines are left out) and last
# "boards: N passed, M failed"; exit status non-zero on any failure.
#
# Another decoder (e.g. Embedded Swift, int skyframe_swift_frame_decode(const uint8_t *, size_t,
# skyframe_frame *)) replaces the header's in every vector run with
#   SKYFRAME_ARM_M0_OBJECTS=m0.o SKYFRAME_ARM_M4_OBJECTS=m4.o \
#   SKYFRAME_ARM_CFLAGS=-DSKYFRAME_TEST_DECODE=skyframe_swift_frame_decode   (Arm boards)
#   SKYFRAME_RISCV_OBJECTS=rv32.o SKYFRAME_RISCV_CFLAGS=...                   (RISC-V)
#   SKYFRAME_AVR_OBJECTS=avr.o SKYFRAME_AVR_CFLAGS=...                        (AVR)
# (see build-arm.sh; FLOAT_ABI=soft builds the M4 image soft-float, for a soft-float object).
# The profile runs always test the header's own profile decoders (linked into every image).
# SKYFRAME_BOARDS="microbit riscv32-virt" runs only the boards named (default: all four).
# SKYFRAME_VECTORS, SKYFRAME_REQUEST_VECTORS, SKYFRAME_UPLINK_VECTORS and
# SKYFRAME_PROFILE_VECTORS as in test/run.sh.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
test_dir="$(cd "$here/.." && pwd)"
repo="$(cd "$test_dir/../.." && pwd)"
vectors="${SKYFRAME_VECTORS:-$repo/schemas/vectors/frames}"
requests="${SKYFRAME_REQUEST_VECTORS:-$repo/schemas/vectors/requests}"
uplinks="${SKYFRAME_UPLINK_VECTORS:-$repo/schemas/vectors/lorawan}"
profiles="${SKYFRAME_PROFILE_VECTORS:-$repo/schemas/vectors}"
compare="$test_dir/compare.py"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
ok() {
  echo "ok   $*"
  passed=$((passed + 1))
}
bad() {
  echo "FAIL $*"
  failed=$((failed + 1))
}
have() { command -v "$1" >/dev/null 2>&1; }
skipped=()
# not_checked BOARD WHY: a board whose tools are missing. Under SKYFRAME_REQUIRE_ALL=1 a failure.
not_checked() {
  local what="$1"
  shift
  set -- "$what" "$*"
  if [[ "${SKYFRAME_REQUIRE_ALL:-}" == 1 ]]; then
    bad "$1: $2 (SKYFRAME_REQUIRE_ALL=1: make test must check it; make test-deps installs it)"
  else
    echo "SKIPPED, NOT CHECKED: $1: $2"
    skipped+=("$1: $2")
  fi
}
boards="${SKYFRAME_BOARDS:-microbit mps2-an386 atmega328p riscv32-virt}"
selected() { [[ " $boards " == *" $1 "* ]]; }
indent() { sed 's/^/     /'; }
where() { if [[ "$1" -eq 0 ]]; then echo aligned; else echo odd; fi; }

# A DECODER for compare.py: an executable that runs "$@" with its own arguments appended.
wrapper() {
  local path="$1"
  shift
  {
    echo '#!/usr/bin/env bash'
    printf 'exec'
    printf ' %q' "$@"
    echo ' "$@"'
  } >"$path"
  chmod +x "$path"
}

# Adds "<label>: P passed, F failed" of a step's output to the totals; a step that ended without
# it (crash, fault, timeout) or exited non-zero with no failure counted is one more failure.
tally() {
  local name="$1" out="$2" rc="$3" label="$4" summary
  summary="$(printf '%s\n' "$out" |
    sed -n "s/^$label: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p" | tail -n 1)"
  printf '%s\n' "$out" | grep -v -e '^ok ' -e '^stack: ' -e "^$label: [0-9]* passed" || true
  if [[ -z "$summary" ]]; then
    bad "$name: no \"$label:\" summary (exit $rc)"
    return
  fi
  passed=$((passed + ${summary% *}))
  failed=$((failed + ${summary#* }))
  if [[ "${summary#* }" -eq 0 && "$rc" -eq 0 ]]; then
    echo "ok   $name: $label: ${summary% *} passed"
  else
    echo "FAIL $name: $label: ${summary% *} passed, ${summary#* } failed (exit $rc)"
    [[ "${summary#* }" -eq 0 ]] && failed=$((failed + 1))
  fi
}

# compare.py --corrupt through DECODER; with a third argument, the request and uplink vectors too.
vectors_on() {
  local name="$1" decoder="$2" out rc=0
  if [[ $# -ge 3 ]]; then
    out="$(python3 "$compare" --corrupt "$decoder" "$vectors" "$requests" "$uplinks" 2>&1)" ||
      rc=$?
  else
    out="$(python3 "$compare" --corrupt "$decoder" "$vectors" 2>&1)" || rc=$?
  fi
  tally "$name" "$out" "$rc" vectors
}

# compare.py --profiles --corrupt through DECODER (any further arguments: its options, e.g.
# --without-large, before the directories): the profile vectors and the standard ones' checks.
profiles_on() {
  local name="$1" decoder="$2" out rc=0 large=("$profiles/large")
  shift 2
  [[ " $* " == *" --without-large "* ]] && large=()
  out="$(python3 "$compare" --profiles --corrupt "$@" "$decoder" "$vectors" "${large[@]}" \
    "$profiles/tiny" "$profiles/unchanged" 2>&1)" || rc=$?
  tally "$name profiles" "$out" "$rc" profile-vectors
}

# "stack: N of M bytes used" (startup.c --stack) must leave some of the painted stack unused.
stack_check() {
  local name="$1" out="$2" used size
  used="$(printf '%s\n' "$out" | sed -n 's/^stack: \([0-9]*\) of \([0-9]*\) bytes used$/\1/p')"
  size="$(printf '%s\n' "$out" | sed -n 's/^stack: \([0-9]*\) of \([0-9]*\) bytes used$/\2/p')"
  if [[ -n "$used" && "$used" -lt "$size" ]]; then
    ok "$name: stack high water mark $used of $size bytes"
  else
    bad "$name: stack use not measured or the whole stack used (${used:-?} of ${size:-?})"
  fi
}

count="$(find "$vectors" -maxdepth 1 -name '*.json' 2>/dev/null | wc -l | tr -d ' ')"
if [[ "$count" -eq 0 ]]; then
  bad "no golden vectors: $vectors/*.json"
  echo "boards: $passed passed, $failed failed"
  exit 1
fi

# ---- Cortex-M0 and Cortex-M4 -------------------------------------------------------------------
for board in microbit mps2-an386; do
  selected "$board" || continue
  echo "== $board"
  if ! have arm-none-eabi-gcc || ! have qemu-system-arm; then
    not_checked "$board" "needs arm-none-eabi-gcc, qemu-system-arm (Debian packages" \
      "gcc-arm-none-eabi, libnewlib-arm-none-eabi, qemu-system-arm)"
    continue
  fi
  if [[ "$board" == microbit ]]; then
    objects="${SKYFRAME_ARM_M0_OBJECTS:-}"
  else
    objects="${SKYFRAME_ARM_M4_OBJECTS:-}"
  fi
  for offset in 0 1; do
    image="$tmp/$board-$offset.elf"
    if ! EXTRA_OBJECTS="$objects" EXTRA_CFLAGS="${SKYFRAME_ARM_CFLAGS:-}" \
        "$here/build-arm.sh" "$board" "$offset" "$image" 2>&1 | indent; then
      bad "$board $(where "$offset"): build"
      continue
    fi
    wrapper "$tmp/$board-$offset" "$here/qemu-run.sh" "$board" "$image"
    if [[ "$offset" -eq 0 ]]; then
      vectors_on "$board $(where "$offset")" "$tmp/$board-$offset" with-requests
    else
      vectors_on "$board $(where "$offset")" "$tmp/$board-$offset"
    fi
    profiles_on "$board $(where "$offset")" "$tmp/$board-$offset"
  done
  image="$tmp/$board-1.elf"
  [[ -f "$image" ]] || continue

  rc=0
  out="$("$here/qemu-run.sh" "$board" "$image" --stack --self-test 2>&1)" || rc=$?
  tally "$board" "$out" "$rc" self-test
  stack_check "$board self-test" "$out"
  rc=0
  out="$(python3 -c 'import json, pathlib, sys
for p in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    print("".join(json.loads(p.read_text())["hex"].split()))' "$vectors" |
    "$here/qemu-run.sh" "$board" "$image" --stack 2>&1)" || rc=$?
  stack_check "$board decoding and printing the vectors (odd)" "$out"
  rc=0
  out="$(python3 -c 'import json, pathlib, sys
for p in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    print("any", "".join(json.loads(p.read_text())["hex"].split()))' "$profiles/large" |
    "$here/qemu-run.sh" "$board" "$image" --stack --profiles 2>&1)" || rc=$?
  stack_check "$board decoding and printing the large vectors (odd)" "$out"

  rc=0
  out="$("$here/qemu-run.sh" "$board" "$image" --unaligned-probe 2>&1)" || rc=$?
  want=HardFault
  [[ "$board" == mps2-an386 ]] && want="UNALIGNED"
  if [[ "$rc" -eq 1 ]] && grep -q "$want" <<<"$out"; then
    ok "$board: a word load from an odd address faults: $out"
  else
    bad "$board: the unaligned-access probe did not fault as expected (exit $rc): $out"
  fi
done

# ---- ATmega328P --------------------------------------------------------------------------------
echo "== atmega328p"
if ! selected atmega328p; then
  echo "not selected: atmega328p"
elif ! have avr-gcc || ! have simavr; then
  not_checked atmega328p "needs avr-gcc, simavr (Debian packages gcc-avr, avr-libc, simavr)"
else
  printf '#define SKYFRAME_FRAME_IMPLEMENTATION\n#include "skyframe_frame.h"\n' >"$tmp/avr_header.c"
  if avr-gcc -mmcu=atmega328p -Os -std=c99 -Wall -Wextra -Werror -pedantic \
      -I"$test_dir/.." -c -o "$tmp/avr_header.o" "$tmp/avr_header.c"; then
    ok "atmega328p: the header compiles with avr-gcc -Wall -Wextra -Werror -std=c99 -pedantic" \
      "(16-bit int)"
  else
    bad "atmega328p: the header does not compile cleanly with avr-gcc"
  fi
  for offset in 0 1; do
    work="$tmp/avr-$offset.d"
    wrapper "$tmp/avr-$offset" python3 "$here/avr/simavr_decoder.py" --work "$work" \
      --offset "$offset"
    vectors_on "atmega328p $(where "$offset")" "$tmp/avr-$offset"
    wrapper "$tmp/avr-profiles-$offset" python3 "$here/avr/simavr_decoder.py" --profiles \
      --work "$tmp/avr-profiles-$offset.d" --offset "$offset"
    profiles_on "atmega328p $(where "$offset")" "$tmp/avr-profiles-$offset" --without-large
  done
  image="$tmp/avr-1.d/image-0.elf"
  if [[ -f "$image" && -f "$tmp/avr-1.d/stack.txt" ]]; then
    read -r text data bss < <(avr-size "$image" | awk 'NR == 2 { print $1, $2, $3 }')
    stack="$(cat "$tmp/avr-1.d/stack.txt")"
    ram=$((data + bss + stack))
    if [[ "$ram" -lt 2048 && "$stack" -gt 0 ]]; then
      images="$(find "$tmp/avr-1.d" -name 'image-*.elf' | wc -l | tr -d ' ')"
      ok "atmega328p: RAM $ram of 2048 bytes (data $data + bss $bss + stack $stack); flash" \
        "$text of 32768 bytes in the first of $images images (the frames are in flash)"
    else
      bad "atmega328p: RAM data $data + bss $bss + stack $stack = $ram bytes"
    fi
  fi
  image="$tmp/avr-profiles-1.d/image-0.elf"
  if [[ -f "$image" && -f "$tmp/avr-profiles-1.d/stack.txt" ]]; then
    read -r text data bss < <(avr-size "$image" | awk 'NR == 2 { print $1, $2, $3 }')
    stack="$(cat "$tmp/avr-profiles-1.d/stack.txt")"
    ram=$((data + bss + stack))
    if [[ "$ram" -lt 2048 && "$stack" -gt 0 ]]; then
      ok "atmega328p profiles: RAM $ram of 2048 bytes (data $data + bss $bss + stack $stack);" \
        "flash $text of 32768 bytes"
    else
      bad "atmega328p profiles: RAM data $data + bss $bss + stack $stack = $ram bytes"
    fi
  fi
fi

# ---- RISC-V ------------------------------------------------------------------------------------
echo "== riscv32-virt"
if ! selected riscv32-virt; then
  echo "not selected: riscv32-virt"
elif ! have riscv64-unknown-elf-gcc || ! have qemu-system-riscv32 ||
    [[ ! -f /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs ]]; then
  not_checked riscv32-virt "needs riscv64-unknown-elf-gcc, picolibc, qemu-system-riscv32 (Debian" \
    "packages gcc-riscv64-unknown-elf, picolibc-riscv64-unknown-elf, qemu-system-misc)"
else
  for offset in 0 1; do
    image="$tmp/riscv-$offset.elf"
    if ! EXTRA_OBJECTS="${SKYFRAME_RISCV_OBJECTS:-}" EXTRA_CFLAGS="${SKYFRAME_RISCV_CFLAGS:-}" \
        "$here/build-riscv.sh" "$offset" "$image" 2>&1 | indent; then
      bad "riscv32-virt $(where "$offset"): build"
      continue
    fi
    wrapper "$tmp/riscv-$offset" "$here/qemu-run.sh" riscv32-virt "$image"
    if [[ "$offset" -eq 0 ]]; then
      vectors_on "riscv32-virt $(where "$offset")" "$tmp/riscv-$offset" with-requests
    else
      vectors_on "riscv32-virt $(where "$offset")" "$tmp/riscv-$offset"
    fi
    profiles_on "riscv32-virt $(where "$offset")" "$tmp/riscv-$offset"
  done
  if [[ -f "$tmp/riscv-1.elf" ]]; then
    rc=0
    out="$("$here/qemu-run.sh" riscv32-virt "$tmp/riscv-1.elf" --self-test 2>&1)" || rc=$?
    tally riscv32-virt "$out" "$rc" self-test
  fi
fi

if [[ ${#skipped[@]} -gt 0 ]]; then
  echo "NOT CHECKED, tools missing (make test installs them, and fails without them):"
  printf '  %s\n' "${skipped[@]}"
fi
echo "boards: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
