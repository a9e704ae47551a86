#!/usr/bin/env bash
# Runs a test image (boards/build-arm.sh, boards/build-riscv.sh) in QEMU with semihosting:
#
#   boards/qemu-run.sh BOARD IMAGE.elf [ARGS...]
#   BOARD: microbit | mps2-an386 (qemu-system-arm -M BOARD) | riscv32-virt (qemu-system-riscv32
#          -M virt -bios none)
#
# The program's stdin and stdout are this script's (semihosting SYS_READ/SYS_WRITE on ":tt"),
# ARGS reach its argv (qemu -append, semihosting SYS_GET_CMDLINE), and this script exits with
# the program's exit status (SYS_EXIT_EXTENDED; an Arm fault exits 1). No serial port, monitor or
# display, so QEMU itself prints nothing. SKYFRAME_QEMU_TIMEOUT (default 60 s) stops a hung image
# (exit status 124).
set -euo pipefail
if [[ $# -lt 2 ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
board="$1" image="$2"
shift 2
case "$board" in
  microbit | mps2-an386) qemu=(qemu-system-arm -M "$board") ;;
  riscv32-virt) qemu=(qemu-system-riscv32 -M virt -bios none) ;;
  *) echo "unknown board $board (microbit, mps2-an386, riscv32-virt)" >&2; exit 2 ;;
esac
append=()
if [[ $# -gt 0 ]]; then
  append=(-append "$*")
fi
exec timeout "${SKYFRAME_QEMU_TIMEOUT:-60}" "${qemu[@]}" -display none -serial none -monitor none \
  -semihosting-config enable=on,target=native -kernel "$image" "${append[@]}"
