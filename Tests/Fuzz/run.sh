#!/usr/bin/env bash
# Builds the libFuzzer targets of the frame codec and the C decoder header, then runs each for a
# while:
#
#   Tests/Fuzz/run.sh [seconds-per-target] [target ...]      (default 600 s, every target)
#
# Targets: every Tests/Fuzz/*.swift (Swift, -sanitize=fuzzer,address, the codec imported as a
# module built from Sources/SkyframeCodec/**/*.swift) and every Tests/Fuzz/*.c (C, clang
# -fsanitize=fuzzer,address,undefined). The first lines of a target name its seed directories
# ("// Seeds: frames") and its longest input ("// Max length: 400"). Seeds are made from the golden
# vectors (seeds.py); what a run finds is kept in the target's corpus for the next run.
#
# Everything goes to .build-fuzz/ (SKYFRAME_FUZZ_BUILD): corpus/<target>/ and crashes/, shared by
# all runs, and run-*/ (bin/, logs/, seeds/) for one run, removed when it passes. One line per target with its executions, then "fuzz: N passed, M failed". Exit
# status non-zero when a target did not build, crashed, leaked, failed a check or tripped a
# sanitizer; its input is kept in crashes/ and shown in hex.
#
# SKYFRAME_CODEC_SOURCES overrides the codec directory; SWIFTC and FUZZ_CLANG the compilers (clang
# must be the Swift toolchain's: it has the libFuzzer runtime). Compiles wait for the lock
# /tmp/skyframe-build.lock (SKYFRAME_BUILD_LOCK) so that they do not run beside other builds.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
seconds="${1:-600}"
shift $(($# > 0 ? 1 : 0))
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [[ "$seconds" -eq 0 ]]; then
  echo "usage: $0 [seconds-per-target] [target ...]" >&2
  exit 2
fi

build="${SKYFRAME_FUZZ_BUILD:-$repo/.build-fuzz}"
codec="${SKYFRAME_CODEC_SOURCES:-$repo/Sources/SkyframeCodec}"
swiftc="${SWIFTC:-$(command -v swiftc || true)}"
clang="${FUZZ_CLANG:-$(dirname "${swiftc:-/nonexistent}")/clang}"
lock="${SKYFRAME_BUILD_LOCK:-/tmp/skyframe-build.lock}"
# -O (the default) for long runs; -Onone compiles the Swift targets about ten times faster and
# runs them several times slower, which suits make test's short runs on a busy machine.
optimize="${SKYFRAME_FUZZ_OPTIMIZE:--O}"

if [[ -z "$swiftc" || ! -x "$clang" ]]; then
  echo "fuzz: needs swiftc and the Swift toolchain's clang (swiftc: ${swiftc:-none}, clang: $clang)"
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi

locked() {
  if command -v flock >/dev/null 2>&1; then flock "$lock" "$@"; else "$@"; fi
}

# Sanitizers: stop at the first report; libFuzzer, not Swift's backtracer, handles a crash.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export SWIFT_BACKTRACE="enable=no"

# What this run builds and prints goes to its own directory, so that two runs (make test beside
# make fuzz) do not overwrite each other's; the corpus and the crashes are shared. The directory
# is removed when every target passed, else kept (its logs and binaries reproduce the failure).
mkdir -p "$build"/{corpus,crashes}
run="$(mktemp -d "$build/run-XXXXXX")"
mkdir -p "$run"/{bin,obj,modules,logs}
passed=0
failed=0
finish() {
  if [[ "$failed" -eq 0 ]]; then rm -rf "$run"; else echo "fuzz: this run's logs and binaries: $run"; fi
}
trap finish EXIT

all_targets=()
for file in "$here"/*.swift "$here"/*.c; do
  [[ -e "$file" ]] && all_targets+=("$(basename "${file%.*}")")
done
targets=("${@:-${all_targets[@]}}")

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- Seeds -----------------------------------------------------------------------------------
if ! python3 "$here/seeds.py" "$run/seeds" "$repo"; then
  echo "FAIL seeds from schemas/vectors"
  failed=$((failed + 1))
fi

# ---- Build -----------------------------------------------------------------------------------
# The codec as a module, compiled once for every Swift target: the targets see its public API
# only. -assert-config Debug keeps its assert()s in the optimized build.
swift_flags=(-sanitize=fuzzer,address -parse-as-library "$optimize" -assert-config Debug -g
  -swift-version 6)
codec_ok=1
start="$(now)"
mapfile -t codec_sources < <(find "$codec" -name '*.swift' | LC_ALL=C sort)
if [[ "${#codec_sources[@]}" -eq 0 ]] ||
  ! locked "$swiftc" "${swift_flags[@]}" -wmo -enable-upcoming-feature ExistentialAny \
    -enable-upcoming-feature MemberImportVisibility -module-name SkyframeCodec -emit-module \
    -emit-module-path "$run/modules/SkyframeCodec.swiftmodule" -c "${codec_sources[@]}" \
    -o "$run/obj/SkyframeCodec.o" >"$run/logs/build-SkyframeCodec.log" 2>&1; then
  codec_ok=0
  echo "FAIL build SkyframeCodec (${#codec_sources[@]} files in $codec)"
  tail -n 30 "$run/logs/build-SkyframeCodec.log"
fi
# The C header's implementation, for the Swift targets that compare with it (module CSkyframeFrame).
c_flags=(-std=c99 -g -O1 -Wall -Wextra -Werror -I"$repo/firmware-notes")
if ! locked "$clang" "${c_flags[@]}" -fsanitize=fuzzer-no-link,address,undefined \
  -c "$here/Support/skyframe_frame_impl.c" -o "$run/obj/skyframe_frame_impl.o" \
  >"$run/logs/build-skyframe_frame_impl.log" 2>&1; then
  codec_ok=0
  echo "FAIL build Support/skyframe_frame_impl.c"
  tail -n 30 "$run/logs/build-skyframe_frame_impl.log"
fi
if [[ "$codec_ok" -eq 1 ]]; then
  echo "built SkyframeCodec (${#codec_sources[@]} files) in $(elapsed "$start") s"
fi

built=()
for target in "${targets[@]}"; do
  start="$(now)"
  log="$run/logs/build-$target.log"
  if [[ -f "$here/$target.swift" ]]; then
    # The target itself gets ASan but no coverage: the fuzzer steers by the code under test.
    if [[ "$codec_ok" -eq 1 ]] && locked "$swiftc" "${swift_flags[@]/fuzzer,/}" -wmo \
      -module-name "$target" -I "$run/modules" -I "$here/Support" -c "$here"/Support/*.swift \
      "$here/$target.swift" -o "$run/obj/$target.o" >"$log" 2>&1 &&
      locked "$swiftc" -sanitize=fuzzer,address "$run/obj/$target.o" \
        "$run/obj/SkyframeCodec.o" "$run/obj/skyframe_frame_impl.o" -use-ld=lld \
        -o "$run/bin/$target" >>"$log" 2>&1; then
      built+=("$target")
    else
      echo "FAIL build $target"
      [[ -f "$log" ]] && tail -n 30 "$log"
      failed=$((failed + 1))
      continue
    fi
  elif [[ -f "$here/$target.c" ]]; then
    if locked "$clang" "${c_flags[@]}" -fsanitize=fuzzer,address,undefined \
      -fno-sanitize-recover=all "$here/$target.c" -lm -o "$run/bin/$target" >"$log" 2>&1; then
      built+=("$target")
    else
      echo "FAIL build $target"
      tail -n 30 "$log"
      failed=$((failed + 1))
      continue
    fi
  else
    echo "FAIL no target $target (Tests/Fuzz/$target.swift or .c)"
    failed=$((failed + 1))
    continue
  fi
  echo "built $target in $(elapsed "$start") s"
done

# ---- Run -------------------------------------------------------------------------------------
# A target's header line "// Seeds: a b" or "// Max length: n" (first 30 lines).
header() {
  sed -n "1,30s|^// $2: *||p" "$1" | head -n 1
}

# What a sanitizer, libFuzzer or a failed check prints.
report_pattern='ERROR: (Address|Leak|Undefined)Sanitizer|runtime error:|FUZZ CHECK FAILED'
report_pattern+='|deadly signal|ERROR: libFuzzer'

for target in "${built[@]}"; do
  source_file="$here/$target.swift"
  [[ -f "$source_file" ]] || source_file="$here/$target.c"
  seed_dirs=()
  for kind in $(header "$source_file" Seeds); do seed_dirs+=("$run/seeds/$kind"); done
  max_len="$(header "$source_file" "Max length")"
  dict="$here/$target.dict"
  corpus="$build/corpus/$target"
  log="$run/logs/$target.log"
  mkdir -p "$corpus"
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
    -use_value_profile=1 -artifact_prefix="$build/crashes/$target-" -max_len="${max_len:-512}")
  [[ -f "$dict" ]] && options+=(-dict="$dict")
  marker="$run/.start-$target"
  touch "$marker"
  rc=0
  "$run/bin/$target" "${options[@]}" "$corpus" "${seed_dirs[@]}" >"$log" 2>&1 || rc=$?

  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
  files="$(find "$corpus" -type f | wc -l | tr -d ' ')"
  reports="$(grep -a -E -c "$report_pattern" "$log")"
  if [[ "$rc" -eq 0 && "$reports" -eq 0 && -n "$runs" ]]; then
    printf 'ok   %-16s %10s runs in %s s (%s/s), corpus %s\n' "$target" "$runs" "$seconds" \
      "${rate:-?}" "$files"
    passed=$((passed + 1))
  else
    printf 'FAIL %-16s exit %s after %s runs; log %s\n' "$target" "$rc" "${runs:-?}" "$log"
    grep -a -E -m 12 -A 3 "$report_pattern|SUMMARY|Test unit written" "$log" | sed 's/^/     /'
    while IFS= read -r crash; do
      echo "     input kept in $crash ($(wc -c <"$crash" | tr -d ' ') bytes):"
      od -A d -t x1z -v "$crash" | head -n 40 | sed 's/^/       /'
      echo "     reproduce: $run/bin/$target $crash"
    done < <(find "$build/crashes" -maxdepth 1 -type f -name "$target-*" -newer "$marker")
    failed=$((failed + 1))
  fi
done

echo "fuzz: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
