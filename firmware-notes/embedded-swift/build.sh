#!/usr/bin/env bash
# Compiles the Swift frame codec (Sources/SkyframeCodec) with Embedded Swift for three
# microcontroller targets and prints the object sizes. CI runs it to keep the codec within what
# Embedded Swift allows (no Foundation, no existentials, typed throws only).
#
#   firmware-notes/embedded-swift/build.sh [output-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
swiftc=${SWIFTC:-swiftc}
status=0
printf '%-26s %8s %6s %6s\n' target text data bss
for target in armv6m-none-none-eabi armv7em-none-none-eabi riscv32-none-none-eabi; do
  object="$out/SkyframeCodec-$target.o"
  if ! "$swiftc" -target "$target" -enable-experimental-feature Embedded -wmo -parse-as-library \
    -Osize -warnings-as-errors -module-name SkyframeCodec -c "$root"/Sources/SkyframeCodec/*.swift \
    -o "$object"; then
    echo "embedded build failed for $target" >&2
    status=1
    continue
  fi
  size "$object" | awk -v t="$target" 'NR==2 { printf "%-26s %8s %6s %6s\n", t, $1, $2, $3 }'
done
exit $status
