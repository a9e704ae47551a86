#!/usr/bin/env bash
# Every check of `make test`, in order, each one timed. A failed check does not stop the ones
# after it (but nothing runs after a failed build); the last lines list every check with its
# time and result, then the total, and the exit status is non-zero when any failed.
#
# Home Assistant's virtual environment (Tests/HomeAssistant/install.sh, a few minutes of
# downloading and unpacking) and ESPHome's (Tests/ESPHome/install.sh, about 45 s) are made in the
# background from the start, beside the Swift build, and waited for just before their checks.
#
# SKYFRAME_REQUIRE_ALL=1 (exported here) tells every check that what `make test` promises must
# run: a missing tool or emulator (make test-deps installs them all) fails the check instead of
# the "SKIPPED, NOT CHECKED" a script run by hand prints. Under each check in the table, a line
# says what ran: its ok and FAIL lines, its parts ("== ..." headings), anything not checked.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
mkdir -p .build/checks
export SKYFRAME_REQUIRE_ALL=1

names=()
times=()
results=()
details=()
failed=0
started_all=$(date +%s)

# step NAME COMMAND...: runs and times one check.
step() {
  local name="$1"
  shift
  local start=$(date +%s) log=".build/checks/${#names[@]}.log" rc=0
  echo "=== $name"
  # Not a pipe: the command runs in this shell (bench_thresholds and home_assistant wait for
  # jobs of it). Its output goes to the log and is shown when it ends (a process substitution
  # would leave `$!` unset under `set -u` where no job ran before it).
  "$@" >"$log" 2>&1 || rc=$?
  cat "$log"
  if [[ "$rc" -eq 0 ]]; then
    results+=("passed")
  else
    results+=("FAILED")
    failed=$((failed + 1))
  fi
  names+=("$name")
  times+=($(($(date +%s) - start)))
  details+=("$(what_ran "$log")")
}

# what_ran LOG: one line of what a check's output shows it ran: its ok/FAIL lines, its parts
# (lines "== PART"), swift test's own count, and whatever was not checked.
what_ran() {
  local log="$1" oks fails parts swift skipped
  oks="$(grep -c '^ok ' "$log")"
  fails="$(grep -c '^FAIL' "$log")"
  parts="$(sed -n 's/^== \([^(]*[^ (]\).*/\1/p' "$log" | awk '!seen[$0]++' | paste -sd ',' - |
    sed 's/,/, /g')"
  swift="$(grep -E '^(✔|✘|􁁛|􀢄)? ?Test run with [0-9]+ tests' "$log" | tail -n 1 |
    sed 's/^[^T]*//')"
  skipped="$(grep -c -i 'SKIPPED, NOT CHECKED\|^skip ' "$log")"
  printf 'ran: %s ok, %s FAIL lines' "$oks" "$fails"
  [[ -n "$swift" ]] && printf '; %s' "$swift"
  [[ -n "$parts" ]] && printf '; parts: %s' "$parts"
  [[ "$skipped" -gt 0 ]] && printf '; %s lines NOT CHECKED (see its output)' "$skipped"
  return 0
}

build_tests() {
  swift build --build-tests 2>&1 | tee .build/build-tests.log || return 1
  # A warning from our own sources or tests fails the build (dependencies' do not count); a
  # fresh clone compiles every file, so every warning is seen.
  if grep -E "^$repo/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" .build/build-tests.log; then
    echo "warnings in our own code (above): fix them"
    return 1
  fi
}

# The Swift tests, stopped after 15 minutes (they take under one): a test that hangs fails the
# check with the names of the tests that started and never finished, instead of using up CI.
swift_tests() {
  local rc=0
  timeout 900 swift test --skip-build 2>&1 | tee .build/swift-test.log || rc=$?
  if [[ "$rc" -eq 124 ]]; then
    echo "swift test did not finish in 15 minutes; started and never finished:"
    comm -23 \
      <(sed -n 's/.*Test \(.*\) started\.$/\1/p' .build/swift-test.log | sort -u) \
      <(sed -n 's/.*Test \(.*\) \(passed\|failed\) after.*/\1/p' .build/swift-test.log | sort -u)
  fi
  return "$rc"
}

# The benchmark malloc check (a release build of the bench suite, the plugin's own tool, then a
# short run of every benchmark) is the longest single step. It runs in the background from right
# after the main build (after the package's build, below), at the lowest priority (nice 19), so
# it takes only the CPU the other checks leave idle (their waits on brokers, Chromium and Home
# Assistant, the fuzzers' second core); its step at the end waits for it and shows its output. Malloc counts do not depend on
# the CPU it gets; the times it prints do, and are not gated.
#
# The same background job first makes the Debian package (`make deb`) in the benchmarks' build
# folder: its release build of the gateway is the benchmarks' (the same modules, the same flags),
# and link-static.py links the package's binary again from it with the Swift runtime linked in,
# so the Swift modules and the C objects (BoringSSL's among them) are compiled once for both. The
# benchmarks' own executable keeps the shared runtime: their malloc counter needs it. The
# package's step waits for its status (.build/deb-build.status), not for the benchmarks.
release_builds() {
  deb_build
  bench_check
}

deb_build() {
  local start=$(date +%s) rc=0
  nice -n 19 make --no-print-directory deb DEB_PACKAGE_PATH=Benchmarks \
    DEB_SCRATCH=Benchmarks/.build >.build/deb-build.log 2>&1 || rc=$?
  echo "make deb: $(($(date +%s) - start)) s in the background" >>.build/deb-build.log
  echo "$rc" >.build/deb-build.status
}

bench_check() {
  (cd Benchmarks && nice -n 19 swift build -c release --product SkyframeBenchmarks &&
    nice -n 19 swift package benchmark thresholds check --no-progress) >.build/bench-check.log 2>&1
}

bench_thresholds() {
  local rc=0
  wait "$release_pid" || rc=$?
  grep -v '^\[[0-9]*/[0-9]*\]' .build/bench-check.log | tail -n 40
  return "$rc"
}

esphome_config() {
  if ! wait "$esphome_install"; then
    echo "ESPHome's install failed:"
    tail -n 30 .build/esphome-install.log
    return 1
  fi
  Tests/ESPHome/check.sh
}

coap_aiocoap() {
  if ! wait "$coap_install"; then
    echo "aiocoap's install failed:"
    tail -n 30 .build/coap-install.log
    return 1
  fi
  .build-coap/venv/bin/python Tests/CoAP/aiocoap_check.py
}

# The fuzzers (Tests/Fuzz/run.sh: their build, then 15 s a target on one core) run in the
# background from right after the Swift tests, at nice 10 (below the checks in the foreground,
# above the release builds), in the CPU the other checks leave idle while they wait on emulators,
# brokers and browsers; their step waits for them and shows their output.
fuzzing() {
  local rc=0
  wait "$fuzz_pid" || rc=$?
  cat .build/fuzz.log
  return "$rc"
}

# Tests/DebianPackage/test.sh on the package once release_builds has made it.
debian_package() {
  while [[ ! -s .build/deb-build.status ]] && kill -0 "$release_pid" 2>/dev/null; do sleep 1; done
  grep -v '^\[[0-9]*/[0-9]*\]' .build/deb-build.log | tail -n 8
  [[ "$(cat .build/deb-build.status 2>/dev/null)" == 0 ]] || return 1
  Tests/DebianPackage/test.sh "$(tail -n 2 .build/deb-build.log | head -n 1)"
}

home_assistant() {
  if ! wait "$ha_install"; then
    echo "Home Assistant's install failed:"
    tail -n 30 .build/ha-install.log
    return 1
  fi
  tail -n 1 .build/ha-install.log
  Tests/HomeAssistant/test.sh
}

step "packages (make test-deps)" make --no-print-directory test-deps
Tests/HomeAssistant/install.sh >.build/ha-install.log 2>&1 &
ha_install=$!
Tests/ESPHome/install.sh >.build/esphome-install.log 2>&1 &
esphome_install=$!
Tests/CoAP/install.sh >.build/coap-install.log 2>&1 &
coap_install=$!
step "build with tests, no warnings" build_tests
if [[ "${results[-1]}" == "passed" ]]; then
  rm -f .build/deb-build.status
  release_builds &
  release_pid=$!
  step "swift test" swift_tests
  # Not beside the Swift tests: their timing-bound integration tests want what CPU there is.
  # Unoptimized (-Onone): a short run's executions matter less than the minutes an optimized
  # build of every target takes on a busy machine (make fuzz builds them with -O).
  SKYFRAME_FUZZ_OPTIMIZE=-Onone nice -n 10 Tests/Fuzz/run.sh 15 >.build/fuzz.log 2>&1 &
  fuzz_pid=$!
  step "C decoder on host and boards" firmware-notes/test/run.sh
  step "Arduino libraries: Uno, simavr, ESP32 over HTTP" firmware-notes/skyframe/test/run.sh
  step "MicroPython: CPython, wasm, unix port over HTTP" firmware-notes/micropython/test/run.sh
  step "Embedded Swift decoder" firmware-notes/embedded-swift/build.sh
  step "virtual display" firmware-notes/examples/virtual-display/test.sh
  step "README and docs/ commands, as written" python3 Tests/Docs/commands.py
  step "CoAP with aiocoap" coap_aiocoap
  step "garbage at the HTTP and CoAP ways in" python3 Tests/WaysIn/garbage.py
  step "LoRaWAN device behind ChirpStack" firmware-notes/examples/lorawan-device/test.sh
  step "status page in Chromium" Tests/StatusPage/test.sh
  step "Home Assistant" home_assistant
  step "ESPHome configuration (esphome config)" esphome_config
  step "fuzzing, 15 s a target, -Onone (run in the background)" fuzzing
  step "Debian package (made in the background)" debian_package
  step "benchmark malloc thresholds (built in the background)" bench_thresholds
else
  wait "$ha_install"
  wait "$esphome_install"
  wait "$coap_install"
fi

echo
echo "=== make test: each check"
for i in "${!names[@]}"; do
  printf '%-54s %6s s  %s\n' "${names[$i]}" "${times[$i]}" "${results[$i]}"
  printf '    %s\n' "${details[$i]}"
done
total=$(($(date +%s) - started_all))
printf '%-54s %6s s\n' "total ($(nproc) cores)" "$total"
echo "checks: $((${#names[@]} - failed)) passed, $failed failed"
[[ "$failed" -eq 0 ]]
