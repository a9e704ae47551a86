#!/usr/bin/env bash
# Builds test/decode_vectors.c (unchanged) for a 32-bit RISC-V microcontroller profile and QEMU's
# virt board (qemu-system-riscv32 -M virt -bios none):
#
#   boards/build-riscv.sh OFFSET OUT.elf
#
#   OFFSET  SKYFRAME_TEST_BUFFER_OFFSET: 0 aligned buffer, 1 odd address
#
# riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32 -Os with picolibc (--specs=picolibc.specs,
# --crt0=semihost, -lsemihost) and boards/riscv/semihost_stdio.c for stdin/stdout (see there why);
# flash image at 0x80000000 (1 MB), RAM at 0x80100000 (256 KB). Run it with
# boards/qemu-run.sh riscv32-virt OUT.elf [ARGS]. EXTRA_CFLAGS and EXTRA_OBJECTS as in
# build-arm.sh. Prints "riscv32-virt offset N: text=... data=... bss=... (OUT.elf)".
set -euo pipefail
if [[ $# -ne 2 ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
offset="$1" out="$2"
case "$offset" in
  0 | 1) ;;
  *) echo "OFFSET: 0 (aligned) or 1 (odd), not $offset" >&2; exit 2 ;;
esac
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
test_dir="$(cd "$here/.." && pwd)"
cc="${RISCV_CC:-riscv64-unknown-elf-gcc}"
# shellcheck disable=SC2206 # word splitting of the EXTRA_* variables is intended
extra_cflags=(${EXTRA_CFLAGS:-})
# shellcheck disable=SC2206
extra_objects=(${EXTRA_OBJECTS:-})
flags=(-march=rv32imac -mabi=ilp32 -Os -g -std=c99 -Wall -Wextra -Werror -pedantic
  -ffunction-sections -fdata-sections --specs=picolibc.specs)

obj="$(mktemp -d)"
trap 'rm -rf "$obj"' EXIT
"$cc" "${flags[@]}" -DSKYFRAME_TEST_BUFFER_OFFSET="$offset" -Dmain=decode_vectors_main \
  "${extra_cflags[@]}" -c -o "$obj/decode_vectors.o" "$test_dir/decode_vectors.c"
"$cc" "${flags[@]}" "${extra_cflags[@]}" -c -o "$obj/semihost_stdio.o" \
  "$here/riscv/semihost_stdio.c"
"$cc" "${flags[@]}" --crt0=semihost -Wl,--gc-sections \
  -Wl,--defsym=__flash=0x80000000 -Wl,--defsym=__flash_size=0x100000 \
  -Wl,--defsym=__ram=0x80100000 -Wl,--defsym=__ram_size=0x40000 \
  -o "$out" "$obj/decode_vectors.o" "$obj/semihost_stdio.o" "${extra_objects[@]}" -lsemihost -lm

size_of() { riscv64-unknown-elf-size -A "$out" | awk -v s="$1" '$1 == s { print $2 }'; }
echo "riscv32-virt offset $offset: text=$(size_of .text) data=$(size_of .data)" \
  "bss=$(size_of .bss) ($out)"
