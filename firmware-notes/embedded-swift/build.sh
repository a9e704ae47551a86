#!/usr/bin/env bash
# What a firmware pays for a frame decoder, measured on linked images.
#
#   firmware-notes/embedded-swift/build.sh [output-dir]
#
# For armv6m (Cortex-M0), armv7em (Cortex-M4F, hard-float) and riscv32 (RV32IMAC), it
#   1. compiles the decode-only part of the Swift codec, Sources/SkyframeCodec/Decoder/, with
#      Embedded Swift (-Osize) together with ReadEveryField.swift, which checks a frame with
#      ProfileView (a `standard` frame) and reads every row of StandardLayout; and, as a
#      separate check that it stands alone, Decoder/ + RequestEncoder/ with a call to each
#      request writer (RequestWriters.swift);
#   2. compiles the C header the same way (read_every_field.c: skyframe_frame_decode into a struct
#      and every field read; GCC -Os);
#   3. links three minimal images with the target's GCC and C library (image/startup.c: vector
#      table or entry point, reset handler, one call to the decoder on golden vector 20 kept in
#      flash; image/image.ld), one without any decoder call as the baseline, and for the Swift
#      request writers one more;
#   4. runs each image on qemu (microbit, mps2-an386, virt) with semihosting: the image paints its
#      stack, calls the decoder once and reports the result and how many bytes of stack it used
#      (the lowest byte no longer holding the paint); every image must return the same hash, so
#      the two decoders provably read the same values;
#   5. counts the instructions of that one call on qemu (one instruction per translation block,
#      -d exec: the trace lines from the decoder's entry until control is back in the caller);
#   6. does the same for each message of schemas/frame-profiles.md: ReadEveryProfileField.swift
#      checks a `large`, `tiny` or `unchanged` message with ProfileView (MessageKind.check), makes
#      sure it is that kind and reads every field of LargeLayout / TinyLayout / UnchangedLayout;
#      read_every_profile_field.c decodes it with skyframe_large_decode / skyframe_tiny_decode /
#      skyframe_unchanged_decode and reads every field of the struct. Each image keeps its golden
#      vector in flash (large 01-ok-berlin-48h, tiny 01-ok-berlin, unchanged 04-large-next-update;
#      standard: vector 20 and the images of 1-4); both must return the same hash. The baseline
#      of these images keeps the same vector and makes the same call, to a decoder that reads
#      nothing (skyframe_empty_decoder in image/startup.c). On armv6m the Swift images also link
#      image/atomics_armv6m.c: the Swift `large` reads need three 32-bit atomics the Cortex-M0's C
#      library lacks (that file says why); --gc-sections drops them where they are not called.
#
# It prints, per target:
#   TARGET linked decoder: N bytes flash, M bytes stack (C header: N' bytes flash, M' bytes stack)
# where flash is text + data of the linked image minus the baseline image's (one without the
# call: the 192 bytes of golden vector 20 and the call count in N and N'), and stack is the
# painted measurement above. Then the instruction counts and the request writers' line. Then one
# line per message,
#   TARGET PROFILE decoder: N bytes flash, M bytes stack (C header: N' bytes flash, M' bytes stack)
# for PROFILE standard, large, tiny and unchanged, where flash is the image minus the baseline of
# step 6 (so the message itself and the call are not counted: N is the decoder and its reads
# alone; standard's line is the first line's images against that baseline), each but standard
# followed by
#   TARGET PROFILE instructions per decode and read: Swift I, C header I'
# (the Swift `large` count includes the first call's one-time initialization of two fields).
# Finally, the Swift decoder on the emulated boards: FrameToC.swift puts ProfileView's reading of a
# frame into the C header's struct (skyframe_swift_frame_decode), linked into the board images of
# firmware-notes/test/boards/run.sh in place of the header's decoder: every golden vector and its
# corrupted copies, aligned and at an odd address (the Cortex-M4 traps unaligned access), with
# every field compared with the vectors' JSON by compare.py, on the micro:bit (Cortex-M0),
# mps2-an386 (Cortex-M4F) and riscv32 virt.
# Exit status non-zero if a build or a run fails, the hashes differ, or a board check fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
swiftc=${SWIFTC:-swiftc}
status=0

# The golden vector of each message as a C array in flash, $out/vectors/PROFILE/frame_bytes.h:
# standard 20 (every v1.1 field set), large 01, tiny 01, unchanged 04 (every field at a value that
# is neither 0 nor a sentinel).
vector_file() {
  case $1 in
    standard) echo "$root/schemas/vectors/frames/20-ok-v1-1-berlin-all-fields.json" ;;
    large) echo "$root/schemas/vectors/large/01-ok-berlin-48h.json" ;;
    tiny) echo "$root/schemas/vectors/tiny/01-ok-berlin.json" ;;
    unchanged) echo "$root/schemas/vectors/unchanged/04-large-next-update.json" ;;
  esac
}
for profile in standard large tiny unchanged; do
  mkdir -p "$out/vectors/$profile"
  python3 - "$(vector_file "$profile")" "$profile" >"$out/vectors/$profile/frame_bytes.h" <<'PY'
import json, sys
data = bytes.fromhex(json.load(open(sys.argv[1]))["hex"])
assert len(data) == {"standard": 192, "large": 960, "tiny": 48, "unchanged": 16}[sys.argv[2]]
print("static const uint8_t skyframe_frame_bytes[%d] __attribute__((aligned(4))) = {" % len(data))
for i in range(0, len(data), 16):
    print("    " + ", ".join("0x%02x" % b for b in data[i:i + 16]) + ",")
print("};")
PY
done

swift_flags=(-enable-experimental-feature Embedded
  -wmo -parse-as-library -Osize
  -warnings-as-errors -Xfrontend -function-sections -Xfrontend -disable-stack-protector)

# Prints the text + data bytes of an ELF image.
flash_bytes() { "$1" "$2" | awk 'NR==2 { print $1 + $2 }'; }

# Runs an image on qemu; prints its report line ("result R stack S").
run_image() {
  local qemu=$1 machine=$2 image=$3
  timeout 20 "$qemu" -M "$machine" -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native ${extra_qemu:-} -kernel "$image" 2>&1 |
    tr -d '\r' | grep -E '^(result|fault)' || true
}

# Counts the instructions from the first entry into symbol $4 until control returns to the
# caller (the first instruction after that outside every function the call reached).
count_instructions() {
  local qemu=$1 machine=$2 image=$3 symbol=$4 nm=$5 log="$out/trace.log"
  timeout 60 "$qemu" -M "$machine" -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native ${extra_qemu:-} -singlestep \
    -d exec,nochain -D "$log" -kernel "$image" >/dev/null 2>&1 || true
  python3 - "$log" "$("$nm" "$image" | awk -v s="$symbol" '$3 == s { print $1 }')" \
    "$("$nm" "$image" | awk '$3 == "reset_handler" { print $1 }')" \
    "$("$nm" -S "$image" | awk '$4 == "reset_handler" { print $2 }')" <<'PY'
import re, sys
log, entry, caller, caller_size = sys.argv[1], int(sys.argv[2], 16) & ~1, int(sys.argv[3], 16) & ~1, int(sys.argv[4], 16)
count, inside = 0, False
for line in open(log, errors="replace"):
    m = re.search(r"Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/", line)
    if not m:
        continue
    pc = int(m.group(1), 16)
    if not inside:
        inside = pc == entry
    elif caller <= pc < caller + caller_size:
        break
    if inside:
        count += 1
print(count if inside else "?")
PY
  rm -f "$log"
}

printf '%s\n' "decoders on linked images (golden vectors; flash = image minus a baseline image)"
for target in armv6m armv7em riscv32; do
  case $target in
    armv6m)
      triple=armv6m-none-none-eabi swift_extra=()
      cc=arm-none-eabi-gcc size=arm-none-eabi-size nm=arm-none-eabi-nm
      cflags=(-mcpu=cortex-m0 -mthumb --specs=nano.specs -Wl,--no-enum-size-warning)
      qemu=qemu-system-arm machine=microbit extra_qemu=""
      atomics=("$here/image/atomics_armv6m.c")
      memory=(--defsym=FLASH_ORIGIN=0 --defsym=FLASH_LENGTH=256K
        --defsym=RAM_ORIGIN=0x20000000 --defsym=RAM_LENGTH=16K) ;;
    armv7em)
      triple=armv7em-none-none-eabi
      swift_extra=(-Xcc -mfloat-abi=hard -Xcc -mfpu=fpv4-sp-d16 -Xcc -mno-unaligned-access)
      cc=arm-none-eabi-gcc size=arm-none-eabi-size nm=arm-none-eabi-nm
      cflags=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -mno-unaligned-access
        --specs=nano.specs -Wl,--no-enum-size-warning)
      qemu=qemu-system-arm machine=mps2-an386 extra_qemu="" atomics=()
      memory=(--defsym=FLASH_ORIGIN=0 --defsym=FLASH_LENGTH=256K
        --defsym=RAM_ORIGIN=0x20000000 --defsym=RAM_LENGTH=64K) ;;
    riscv32)
      triple=riscv32-none-none-eabi swift_extra=(-Xcc -march=rv32imac -Xcc -mabi=ilp32)
      cc=riscv64-unknown-elf-gcc size=riscv64-unknown-elf-size nm=riscv64-unknown-elf-nm
      cflags=(-march=rv32imac -mabi=ilp32 -mcmodel=medany --specs=picolibc.specs)
      qemu=qemu-system-riscv32 machine=virt extra_qemu="-bios none" atomics=()
      memory=(--defsym=FLASH_ORIGIN=0x80000000 --defsym=FLASH_LENGTH=256K
        --defsym=RAM_ORIGIN=0x80040000 --defsym=RAM_LENGTH=64K) ;;
  esac
  if ! command -v "$cc" >/dev/null || ! command -v "$qemu" >/dev/null; then
    echo "FAIL $target: $cc or $qemu missing (make deps installs them)" >&2
    status=1
    continue
  fi
  dir="$out/$target"
  mkdir -p "$dir"
  link=("$cc" "${cflags[@]}" -Os -ffunction-sections -fdata-sections -nostartfiles
    -T "$here/image/image.ld" -Wl,--gc-sections -Wl,--no-warn-execstack "-Wl,${memory[0]}" "-Wl,${memory[1]}"
    "-Wl,${memory[2]}" "-Wl,${memory[3]}" -Wl,--defsym=STACK_SIZE=4096)
  standard=(-I"$out/vectors/standard")
  if ! "$swiftc" -target "$triple" "${swift_flags[@]}" "${swift_extra[@]}" \
      -module-name SkyframeCodec -c "$root"/Sources/SkyframeCodec/Decoder/*.swift \
      "$here/ReadEveryField.swift" -o "$dir/swift-decoder.o" ||
    ! "$swiftc" -target "$triple" "${swift_flags[@]}" "${swift_extra[@]}" \
      -module-name SkyframeCodec -c "$root"/Sources/SkyframeCodec/Decoder/*.swift \
      "$root"/Sources/SkyframeCodec/RequestEncoder/*.swift "$here/RequestWriters.swift" \
      -o "$dir/swift-requests.o" ||
    ! "${link[@]}" "${standard[@]}" -DSKYFRAME_NO_DECODER "$here/image/startup.c" \
      -o "$dir/baseline.elf" ||
    ! "${link[@]}" "${standard[@]}" -DDECODER=skyframe_read_every_field "$here/image/startup.c" \
      "$dir/swift-decoder.o" -o "$dir/swift.elf" ||
    ! "${link[@]}" "${standard[@]}" -DDECODER=skyframe_write_every_request "$here/image/startup.c" \
      "$dir/swift-requests.o" -o "$dir/swift-requests.elf" ||
    ! "${link[@]}" "${standard[@]}" -DDECODER=skyframe_c_read_every_field -I"$root/firmware-notes" \
      "$here/image/startup.c" "$here/read_every_field.c" -o "$dir/c.elf"; then
    echo "FAIL $target: build or link failed" >&2
    status=1
    continue
  fi
  base=$(flash_bytes "$size" "$dir/baseline.elf")
  swift_flash=$(($(flash_bytes "$size" "$dir/swift.elf") - base))
  c_flash=$(($(flash_bytes "$size" "$dir/c.elf") - base))
  requests_flash=$(($(flash_bytes "$size" "$dir/swift-requests.elf") - base))
  swift_run=$(run_image "$qemu" "$machine" "$dir/swift.elf")
  c_run=$(run_image "$qemu" "$machine" "$dir/c.elf")
  requests_run=$(run_image "$qemu" "$machine" "$dir/swift-requests.elf")
  swift_hash=$(awk '{ print $2 }' <<<"$swift_run")
  c_hash=$(awk '{ print $2 }' <<<"$c_run")
  if [[ -z "$swift_hash" || "$swift_hash" != "$c_hash" || "$swift_hash" -lt 0 ]]; then
    echo "FAIL $target: the decoders disagree or did not run (Swift: '$swift_run', C: '$c_run')" >&2
    status=1
    continue
  fi
  if [[ "$(awk '{ print $2 }' <<<"$requests_run")" != 0 ]]; then
    echo "FAIL $target: the request writers did not run cleanly: '$requests_run'" >&2
    status=1
  fi
  printf '%s linked decoder: %d bytes flash, %d bytes stack (C header: %d bytes flash, %d bytes stack)\n' \
    "$target" "$swift_flash" "$(awk '{ print $4 }' <<<"$swift_run")" \
    "$c_flash" "$(awk '{ print $4 }' <<<"$c_run")"
  swift_count=$(count_instructions "$qemu" "$machine" "$dir/swift.elf" skyframe_read_every_field "$nm")
  c_count=$(count_instructions "$qemu" "$machine" "$dir/c.elf" skyframe_c_read_every_field "$nm")
  printf '%s instructions per decode and read: Swift %s, C header %s\n' \
    "$target" "$swift_count" "$c_count"
  printf '%s linked request writers: %d bytes flash, %d bytes stack\n' \
    "$target" "$requests_flash" "$(awk '{ print $4 }' <<<"$requests_run")"

  # Each message on its own: the same call, measured against a baseline that keeps that message
  # in flash and makes the call to a decoder that reads nothing, so flash is the decoder and its
  # reads alone. standard reuses the images above.
  if ! "$swiftc" -target "$triple" "${swift_flags[@]}" "${swift_extra[@]}" \
    -module-name SkyframeCodec -c "$root"/Sources/SkyframeCodec/Decoder/*.swift \
    "$here/ReadEveryProfileField.swift" -o "$dir/swift-profiles.o"; then
    echo "FAIL $target: the Swift profile decoders did not build" >&2
    status=1
    continue
  fi
  for profile in standard large tiny unchanged; do
    vector=(-I"$out/vectors/$profile")
    if [[ $profile == standard ]]; then
      swift_symbol=skyframe_read_every_field c_symbol=skyframe_c_read_every_field
      swift_elf=$dir/swift.elf c_elf=$dir/c.elf
    else
      swift_symbol=skyframe_read_every_${profile}_field
      c_symbol=skyframe_c_read_every_${profile}_field
      swift_elf=$dir/swift-$profile.elf c_elf=$dir/c-$profile.elf
      if ! "${link[@]}" "${vector[@]}" -DDECODER="$swift_symbol" "$here/image/startup.c" \
        "${atomics[@]}" "$dir/swift-profiles.o" -o "$swift_elf" ||
        ! "${link[@]}" "${vector[@]}" -DDECODER="$c_symbol" -I"$root/firmware-notes" \
          "$here/image/startup.c" "$here/read_every_profile_field.c" -o "$c_elf"; then
        echo "FAIL $target $profile: build or link failed" >&2
        status=1
        continue
      fi
    fi
    if ! "${link[@]}" "${vector[@]}" -DDECODER=skyframe_empty_decoder -DSKYFRAME_EMPTY_DECODER \
      "$here/image/startup.c" -o "$dir/baseline-$profile.elf"; then
      echo "FAIL $target $profile: the baseline did not link" >&2
      status=1
      continue
    fi
    base=$(flash_bytes "$size" "$dir/baseline-$profile.elf")
    swift_flash=$(($(flash_bytes "$size" "$swift_elf") - base))
    c_flash=$(($(flash_bytes "$size" "$c_elf") - base))
    swift_run=$(run_image "$qemu" "$machine" "$swift_elf")
    c_run=$(run_image "$qemu" "$machine" "$c_elf")
    swift_hash=$(awk '{ print $2 }' <<<"$swift_run")
    c_hash=$(awk '{ print $2 }' <<<"$c_run")
    if [[ -z "$swift_hash" || "$swift_hash" != "$c_hash" || "$swift_hash" -lt 0 ]]; then
      echo "FAIL $target $profile: the decoders disagree or did not run" \
        "(Swift: '$swift_run', C: '$c_run')" >&2
      status=1
      continue
    fi
    printf '%s %s decoder: %d bytes flash, %d bytes stack (C header: %d bytes flash, %s)\n' \
      "$target" "$profile" "$swift_flash" "$(awk '{ print $4 }' <<<"$swift_run")" \
      "$c_flash" "$(awk '{ print $4 " bytes stack" }' <<<"$c_run")"
    if [[ $profile != standard ]]; then
      swift_count=$(count_instructions "$qemu" "$machine" "$swift_elf" "$swift_symbol" "$nm")
      c_count=$(count_instructions "$qemu" "$machine" "$c_elf" "$c_symbol" "$nm")
      printf '%s %s instructions per decode and read: Swift %s, C header %s\n' \
        "$target" "$profile" "$swift_count" "$c_count"
    fi
  done
done

echo "== the Swift decoder (ProfileView) on the emulated boards"
glue=(-module-name SkyframeCodec -import-bridging-header "$root/firmware-notes/skyframe_frame.h"
  -c "$root"/Sources/SkyframeCodec/Decoder/*.swift "$here/FrameToC.swift")
if "$swiftc" -target armv6m-none-none-eabi "${swift_flags[@]}" "${glue[@]}" -o "$out/m0.o" &&
  "$swiftc" -target armv7em-none-none-eabi "${swift_flags[@]}" -Xcc -mfloat-abi=hard \
    -Xcc -mfpu=fpv4-sp-d16 -Xcc -mno-unaligned-access "${glue[@]}" -o "$out/m4.o" &&
  "$swiftc" -target riscv32-none-none-eabi "${swift_flags[@]}" -Xcc -march=rv32imac \
    -Xcc -mabi=ilp32 "${glue[@]}" -o "$out/rv32.o"; then
  decode=-DSKYFRAME_TEST_DECODE=skyframe_swift_frame_decode
  if ! SKYFRAME_BOARDS="microbit mps2-an386 riscv32-virt" \
    SKYFRAME_ARM_M0_OBJECTS="$out/m0.o" SKYFRAME_ARM_M4_OBJECTS="$out/m4.o" \
    SKYFRAME_ARM_CFLAGS="$decode -Wl,--no-enum-size-warning" SKYFRAME_RISCV_OBJECTS="$out/rv32.o" \
    SKYFRAME_RISCV_CFLAGS="$decode" "$root/firmware-notes/test/boards/run.sh"; then
    status=1
  fi
else
  echo "FAIL the Swift decoder for the boards did not build" >&2
  status=1
fi
exit $status
