#!/usr/bin/env bash
# Builds test/decode_vectors.c (the host test driver, unchanged) as a Cortex-M image for QEMU:
#
#   boards/build-arm.sh BOARD OFFSET OUT.elf
#
#   BOARD   microbit    BBC micro:bit (nRF51822): Cortex-M0, 256 KB flash, 16 KB RAM,
#                       -mcpu=cortex-m0, soft float
#           mps2-an386  Arm MPS2 AN386: Cortex-M4F, -mcpu=cortex-m4 -mfloat-abi=hard
#                       -mfpu=fpv4-sp-d16 -mno-unaligned-access, and the startup sets
#                       SCB->CCR.UNALIGN_TRP (an unaligned word/halfword access faults)
#   OFFSET  SKYFRAME_TEST_BUFFER_OFFSET: 0 decodes the vectors from an aligned buffer, 1 from an
#           odd address
#
# The image is decode_vectors.c + boards/arm/startup.c (vector table, reset, fault report) +
# newlib with semihosting (--specs=rdimon.specs -nostartfiles), linked with boards/arm/BOARD.ld
# (which includes boards/arm/sections.ld), -Os -mthumb. The micro:bit uses newlib-nano
# (--specs=nano.specs). The M4 uses the full newlib and boards/arm/memcpy.c, because with
# UNALIGN_TRP set newlib's prebuilt memcpy (misaligned copies) and newlib-nano's printf (an
# unaligned halfword store in nano-vfprintf.c) fault; the full newlib's printf does not. Run it with
# boards/qemu-run.sh BOARD OUT.elf [ARGS]: stdin, stdout and the exit status are the host's, so
# it is a drop-in DECODER for compare.py (and --self-test, --request work as on the host).
# Prints one line: "BOARD offset OFFSET: text=N data=N bss=N (OUT.elf)".
#
# LINKING ANOTHER DECODER (e.g. Embedded Swift) into the image, environment variables:
#   EXTRA_OBJECTS  object files or archives, space-separated, linked before the libraries
#   EXTRA_CFLAGS   added when compiling decode_vectors.c and startup.c, e.g.
#                  -DSKYFRAME_TEST_DECODE=skyframe_swift_frame_decode : the vector path then calls
#                  int skyframe_swift_frame_decode(const uint8_t *, size_t, skyframe_frame *)
#                  (same return codes as skyframe_frame_decode; the self-test still tests the C
#                  header's decoder, which stays linked in)
#   EXTRA_LDFLAGS  added to the link (e.g. -Wl,--defsym=__stack_size=0x2000, -Wl,-Map=out.map)
#   FLOAT_ABI      mps2-an386 only: hard (default, FPv4-SP) or soft; the extra objects must use
#                  the same float ABI (the linker refuses to mix them)
#   ARM_CC         the compiler (default arm-none-eabi-gcc)
# Example, Swift objects built for armv6m / armv7em:
#   EXTRA_OBJECTS=/tmp/swift-m0.o EXTRA_CFLAGS=-DSKYFRAME_TEST_DECODE=skyframe_swift_frame_decode \
#     firmware-notes/test/boards/build-arm.sh microbit 1 /tmp/m0-swift.elf
# run.sh passes SKYFRAME_ARM_M0_OBJECTS (microbit), SKYFRAME_ARM_M4_OBJECTS (mps2-an386) and
# SKYFRAME_ARM_CFLAGS (both) on as EXTRA_OBJECTS / EXTRA_CFLAGS, so the whole board run can test
# the other decoder.
#
# Stack: the linker script puts a 4 KB stack at the top of RAM, [__stack_bottom, __stack_top);
# the startup paints it and, given --stack as the first argument, prints its high water mark
# after main ("stack: N of M bytes used").
set -euo pipefail

if [[ $# -ne 3 ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
board="$1" offset="$2" out="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
test_dir="$(cd "$here/.." && pwd)"
cc="${ARM_CC:-arm-none-eabi-gcc}"

case "$board" in
  microbit)
    cpu=(-mcpu=cortex-m0 -mfloat-abi=soft)
    board_sources=()
    libc=(--specs=nano.specs) # 16 KB of RAM
    ;;
  mps2-an386)
    case "${FLOAT_ABI:-hard}" in
      hard) cpu=(-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16) ;;
      soft) cpu=(-mcpu=cortex-m4 -mfloat-abi=soft) ;;
      *) echo "FLOAT_ABI: hard or soft, not ${FLOAT_ABI}" >&2; exit 2 ;;
    esac
    cpu+=(-mno-unaligned-access -DBOARD_TRAP_UNALIGNED)
    board_sources=("$here/arm/memcpy.c") # newlib's memcpy would fault: see memcpy.c
    libc=() # full newlib: newlib-nano's printf itself does an unaligned store (faults)
    ;;
  *)
    echo "unknown board $board (microbit, mps2-an386)" >&2
    exit 2
    ;;
esac
case "$offset" in
  0 | 1) ;;
  *) echo "OFFSET: 0 (aligned) or 1 (odd), not $offset" >&2; exit 2 ;;
esac

# shellcheck disable=SC2206 # word splitting of the EXTRA_* variables is intended
extra_cflags=(${EXTRA_CFLAGS:-})
# shellcheck disable=SC2206
extra_objects=(${EXTRA_OBJECTS:-})
# shellcheck disable=SC2206
extra_ldflags=(${EXTRA_LDFLAGS:-})

"$cc" "${cpu[@]}" -mthumb -Os -g -std=c99 -Wall -Wextra -Werror -pedantic \
  -ffunction-sections -fdata-sections -fno-tree-loop-distribute-patterns \
  -DSKYFRAME_TEST_BUFFER_OFFSET="$offset" \
  "${extra_cflags[@]}" \
  "${libc[@]}" --specs=rdimon.specs -nostartfiles \
  -T "$here/arm/$board.ld" -L "$here/arm" -Wl,--gc-sections \
  -o "$out" "$test_dir/decode_vectors.c" "$here/arm/startup.c" \
  "${board_sources[@]}" \
  "${extra_objects[@]}" "${extra_ldflags[@]}" -lm

size_of() { arm-none-eabi-size -A "$out" | awk -v s="$1" '$1 == s { print $2 }'; }
echo "$board offset $offset: text=$(size_of .text) data=$(size_of .data) bss=$(size_of .bss) ($out)"
