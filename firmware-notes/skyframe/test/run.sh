#!/usr/bin/env bash
# Tests the Skyframe library (firmware-notes/skyframe: Arduino, PlatformIO, ESP-IDF), and the
# Skyframe ESP32 library beside it (firmware-notes/skyframe-esp32: Arduino), built for real:
#   1. the library holds real files, no links (a folder copied into a sketchbook or packed keeps
#      none of ../../): package.py makes the release zip, `pio pkg pack` and `compote component
#      pack` (PlatformIO's and the ESP-IDF component manager's own packers) pack the folder, and
#      check_copies.py checks that the copies sync.py makes equal their one source
#      (firmware-notes/skyframe_frame.h, firmware-notes/examples/show/) and that every archive
#      carries the library's files as regular files, byte for byte;
#   2. check_manifests.py: library.properties (both libraries), library.json, idf_component.yml
#      (+ CMakeLists.txt) against their specifications, with PlatformIO's and the component manager's own readers
#      (test/python-env.sh installs them into a venv);
#   3. installed the two ways a user installs it, the SerialBridge example built for the Uno by
#      Debian's arduino-builder and arduino-core-avr from each: the library folder copied into a
#      fresh sketchbook's libraries/ (cp -R, as from a checkout), and the zip unpacked into
#      another (what the Arduino IDE's "Add .ZIP Library" does); the same sketch with the header
#      included directly (copied next to it in a temporary folder, the implementation defined in
#      the sketch, no library) built too; flash and RAM from arduino-builder and avr-size;
#   4. the Uno image (from the zip) run in simavr (test/uart_feed.c on libsimavr): golden vectors
#      sent over its serial port, what it prints compared field by field (serial_bridge_check.py);
#   5. the Uno's File > Examples: with both zips installed, every example of every library whose
#      architectures name avr or "*" (test/examples_for.py: what the IDE lists for an Uno) builds
#      for the Uno; ESP32Display and ESP32HTTPDisplay live in the library Skyframe ESP32
#      (firmware-notes/skyframe-esp32, architectures=esp32) for that reason. EthernetHTTPDisplay
#      (an Uno with an Ethernet shield, over HTTP) builds against test/stand-ins/built-in/Ethernet,
#      given as the IDE's built-in libraries: Debian packages neither the IDE's Ethernet library nor
#      any other built-in one;
#   6. the ESP32Display example compiled and linked on the host against stand-in headers for the
#      ESP32 core and PubSubClient (test/stand-ins/; neither is packaged), with its library's
#      show_frame.c and the Skyframe library's compiled decoder;
#   7. ESP32HTTPDisplay compiled and linked the same way (stand-in HTTPClient and esp_sleep.h),
#      then run on the host: with no gateway (it must sleep 60 s), and for two wakes against the
#      gateway ($SKYFRAME_BIN, default .build/debug/skyframe; mosquitto and the Open-Meteo stand-in
#      from examples/live-test-lib.sh), the stand-in HTTPClient speaking HTTP/1.1 over a socket:
#      200 and a drawn frame, a sleep of max-age, then the ETag sent back and 304 without a redraw.
#      Without the gateway binary that part is SKIPPED, NOT CHECKED (a failure under make test).
# A missing tool is a failure, not a skip (`make test-deps` installs them).
# Last line: "skyframe-library: N passed, M failed"; exit status non-zero on any failure.
# SKYFRAME_LIBRARY_OUT=DIR keeps the build there (default: a temporary folder).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
library="$(cd "$here/.." && pwd)"
repo="$(cd "$library/../.." && pwd)"
vectors="${SKYFRAME_PROFILE_VECTORS:-$repo/schemas/vectors}"
pids=()  # what the ESP32HTTPDisplay part starts (mosquitto, the stand-in, the gateway)
stop_started() {
    local pid
    for pid in "${pids[@]+"${pids[@]}"}"; do kill "$pid" 2>/dev/null; done
    for pid in "${pids[@]+"${pids[@]}"}"; do wait "$pid" 2>/dev/null; done
}
if [[ -n "${SKYFRAME_LIBRARY_OUT:-}" ]]; then
    out="$SKYFRAME_LIBRARY_OUT"
    rm -rf "$out"
    mkdir -p "$out"
    trap stop_started EXIT
else
    out="$(mktemp -d)"
    trap 'stop_started; rm -rf "$out"' EXIT
fi

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
# Adds a Python check's "label: N passed, M failed" to the counts; no such line is a failure.
tally() {
    local text="$1" rc="$2" label="$3" summary
    summary="$(printf '%s\n' "$text" | sed -n "s/^$label: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p" | tail -n 1)"
    if [[ -z "$summary" ]]; then
        bad "$label: no summary line (exit $rc)"
        return
    fi
    passed=$((passed + ${summary% *}))
    failed=$((failed + ${summary#* }))
    if [[ "$rc" -ne 0 && "${summary#* }" -eq 0 ]]; then bad "$label: exit $rc"; fi
}

missing=()
for tool in python3 cc c++ arduino-builder avr-gcc avr-size; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[[ -d /usr/share/arduino/hardware/arduino/avr ]] || missing+=("arduino-core-avr")
[[ -f /usr/include/simavr/sim_avr.h ]] || missing+=("libsimavr-dev")
if [[ ${#missing[@]} -gt 0 ]]; then
    bad "missing tools: ${missing[*]} (make test-deps installs them)"
    echo "skyframe-library: $passed passed, $failed failed"
    exit 1
fi

python=""
if python="$("$here/python-env.sh" | tail -n 1)" && [[ -x "$python" ]]; then
    venv_bin="$(dirname "$python")"
else
    python=""
    bad "test/python-env.sh could not install PlatformIO and the component manager"
fi

echo "== real files: the release zip, PlatformIO's and the component manager's packs"
mapfile -t zips < <(python3 "$library/package.py" "$out")
zip="${zips[0]:-}"  # the Skyframe library's; any other is a library of its examples
pio_pack=""
idf_pack=""
if [[ -n "$python" ]]; then
    # Their own state in this run's folder, not in the home directory.
    mkdir -p "$out/pio-pack" "$out/idf-pack"
    if PLATFORMIO_CORE_DIR="$out/pio-core" "$venv_bin/pio" pkg pack "$library" -o "$out/pio-pack" \
        >"$out/pio-pack.log" 2>&1; then
        pio_pack="$(ls "$out"/pio-pack/*.tar.gz 2>/dev/null | head -n 1)"
    fi
    [[ -n "$pio_pack" ]] && ok "pio pkg pack made $(basename "$pio_pack")" ||
        { bad "pio pkg pack made nothing:"; tail -n 5 "$out/pio-pack.log"; }
    if IDF_COMPONENT_CACHE_PATH="$out/idf-cache" "$venv_bin/compote" component pack \
        --project-dir "$library" --name skyframe --dest-dir "$out/idf-pack" >"$out/idf-pack.log" 2>&1; then
        idf_pack="$(ls "$out"/idf-pack/*.tgz 2>/dev/null | head -n 1)"
    fi
    [[ -n "$idf_pack" ]] && ok "compote component pack made $(basename "$idf_pack")" ||
        { bad "compote component pack made nothing:"; tail -n 5 "$out/idf-pack.log"; }
fi
if [[ -f "$zip" ]]; then
    ok "package.py made $(for z in "${zips[@]}"; do basename "$z"; done | paste -sd' ')"
    rc=0
    text="$(python3 "$here/check_copies.py" "${zips[@]}" ${pio_pack:+--pio "$pio_pack"} \
        ${idf_pack:+--idf "$idf_pack"} 2>&1)" || rc=$?
    printf '%s\n' "$text"
    tally "$text" "$rc" "copies"
else
    bad "package.py made no zip"
fi

echo "== manifests"
if [[ -n "$python" ]]; then
    rc=0
    text="$("$python" "$here/check_manifests.py" "$library" 2>&1)" || rc=$?
    printf '%s\n' "$text"
    tally "$text" "$rc" "manifests"
fi

echo "== Uno: the SerialBridge example with the library installed in a sketchbook"
# arduino-builder: the second -hardware/-tools pair brings the ctags recipe; Debian's avr-gcc 5.4
# needs DECIMAL_DIG for the packaged core's WString.cpp. The IDE's built-in libraries are
# test/stand-ins/built-in: Debian packages none of them, and EthernetHTTPDisplay needs Ethernet
# (a stand-in with the real library's declarations; it links, it talks to no shield).
build_uno() { # SKETCH.ino LIBRARIES_DIR BUILD_DIR LOG
    mkdir -p "$3"
    arduino-builder -compile -hardware /usr/share/arduino/hardware -hardware /usr/share/arduino-builder \
        -tools /usr/bin -tools /usr/share/arduino-builder -built-in-libraries "$here/stand-ins/built-in" \
        -libraries "$2" -fqbn arduino:avr:uno \
        -prefs=compiler.cpp.extra_flags=-DDECIMAL_DIG=17 -build-path "$3" "$1" >"$4" 2>&1
}
# "flash RAM" of an image: avr-size's text+data and data+bss
avr_sizes() {
    avr-size "$1" | awk 'NR == 2 { print $1 + $2, $2 + $3 }'
}
builder_sizes() { # what arduino-builder printed: "flash RAM"
    sed -n 's/^Sketch uses \([0-9]*\) bytes.*/\1/p; s/^Global variables use \([0-9]*\) bytes.*/\1/p' "$1" |
        paste -sd' '
}
# The library folder copied as it is in a checkout (cp -R keeps a link a link), into a fresh
# sketchbook: what a user who does not make the zip does.
copied="$out/sketchbook-copied"
mkdir -p "$copied/libraries"
if cp -R "$library" "$copied/libraries/" &&
    build_uno "$copied/libraries/$(basename "$library")/examples/SerialBridge/SerialBridge.ino" \
        "$copied/libraries" "$out/uno-copied" "$out/uno-copied.log"; then
    copied_sizes="$(builder_sizes "$out/uno-copied.log")"
    ok "SerialBridge built for the Uno with the library folder copied into a fresh sketchbook:" \
        "flash ${copied_sizes% *} B, RAM ${copied_sizes#* } B"
else
    bad "SerialBridge did not build with the library folder copied into a sketchbook:"
    grep -m 3 -i 'error' "$out/uno-copied.log" || tail -n 20 "$out/uno-copied.log"
fi

sketchbook="$out/sketchbook"
mkdir -p "$sketchbook/libraries"
elf=""
unpacked=1
for z in "${zips[@]}"; do
    (cd "$sketchbook/libraries" && python3 -m zipfile -e "$z" .) || unpacked=0
done
if [[ -f "$zip" && "$unpacked" -eq 1 ]]; then
    sketch="$sketchbook/libraries/$(basename "$library")/examples/SerialBridge/SerialBridge.ino"
    if build_uno "$sketch" "$sketchbook/libraries" "$out/uno-library" "$out/uno-library.log"; then
        elf="$out/uno-library/SerialBridge.ino.elf"
        lib_sizes="$(builder_sizes "$out/uno-library.log")"
        lib_avr="$(avr_sizes "$elf")"
        ok "SerialBridge built for the Uno with the zip unpacked into a fresh sketchbook:" \
            "arduino-builder flash ${lib_sizes% *} B, RAM ${lib_sizes#* } B; avr-size flash ${lib_avr% *} B, RAM ${lib_avr#* } B"
    else
        bad "SerialBridge did not build with the library:"
        tail -n 20 "$out/uno-library.log"
    fi
else
    bad "the zips could not be unpacked into $sketchbook/libraries"
fi

echo "== the Uno's File > Examples: every example listed for avr builds for the Uno"
# With every zip installed, the IDE lists for an Uno the examples of each library whose
# architectures name avr or "*" (test/examples_for.py); each must build for it.
listed=0
while read -r lib_folder example; do
    [[ -n "$example" ]] || continue
    listed=$((listed + 1))
    name="$(basename "$example" .ino)"
    if [[ "$lib_folder/$name" == "$(basename "$library")/SerialBridge" ]]; then
        [[ -n "$elf" ]] && ok "$lib_folder: $name is listed for the Uno and builds (above)"
        continue
    fi
    if build_uno "$example" "$sketchbook/libraries" "$out/uno-example-$name" "$out/uno-example-$name.log"; then
        example_sizes="$(builder_sizes "$out/uno-example-$name.log")"
        ok "$lib_folder: $name is listed for the Uno and builds for it:" \
            "flash ${example_sizes% *} B, RAM ${example_sizes#* } B"
    else
        bad "$lib_folder: $name is listed in the Uno's examples but does not build for it:" \
            "$(grep -m 1 -i 'error' "$out/uno-example-$name.log")"
    fi
done < <(python3 "$here/examples_for.py" "$sketchbook/libraries" avr)
[[ "$listed" -gt 0 ]] || bad "no example listed for the Uno"

if [[ -n "$elf" ]] && ! ls "$out"/uno-library/libraries/*/skyframe_frame.c.o >/dev/null 2>&1; then
    bad "arduino-builder did not compile the library's src/skyframe_frame.c"
    elf=""
fi

# The raw header: the same sketch, the header copied next to it (a temporary folder of this run),
# the implementation defined in the sketch, and an empty libraries folder.
raw="$out/raw/SerialBridgeRaw"
mkdir -p "$raw" "$out/empty-libraries"
cp "$repo/firmware-notes/skyframe_frame.h" "$raw/skyframe_frame.h"
python3 - "$library/examples/SerialBridge/SerialBridge.ino" "$raw/SerialBridgeRaw.ino" <<'END_OF_PYTHON'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
line = "#include <skyframe_frame.h>\n"
if text.count(line) != 1:
    sys.exit("the example does not include <skyframe_frame.h> exactly once")
open(sys.argv[2], "w", encoding="utf-8").write(
    text.replace(line, '#define SKYFRAME_FRAME_IMPLEMENTATION\n#include "skyframe_frame.h"\n'))
END_OF_PYTHON
if [[ -f "$raw/SerialBridgeRaw.ino" ]] &&
    build_uno "$raw/SerialBridgeRaw.ino" "$out/empty-libraries" "$out/uno-raw" "$out/uno-raw.log"; then
    raw_sizes="$(builder_sizes "$out/uno-raw.log")"
    raw_avr="$(avr_sizes "$out/uno-raw/SerialBridgeRaw.ino.elf")"
    ok "the same sketch with the raw header next to it: arduino-builder flash ${raw_sizes% *} B," \
        "RAM ${raw_sizes#* } B; avr-size flash ${raw_avr% *} B, RAM ${raw_avr#* } B"
else
    bad "the raw-header sketch did not build:"
    tail -n 20 "$out/uno-raw.log" 2>/dev/null
fi

echo "== Uno in simavr: golden vectors over the serial port"
if cc -std=gnu99 -O2 -Wall -Wextra -Werror -o "$out/uart_feed" "$here/uart_feed.c" -lsimavr; then
    ok "uart_feed built on libsimavr"
    if [[ -n "$elf" ]]; then
        rc=0
        text="$(python3 "$here/serial_bridge_check.py" "$out/uart_feed" "$elf" "$vectors" 2>&1)" || rc=$?
        printf '%s\n' "$text" | grep -v '^ok ' || true
        printf '%s\n' "$text" | grep -c '^ok ' | sed 's/^/ok lines: /'
        tally "$text" "$rc" "serial-bridge"
    else
        bad "no Uno image to run"
    fi
else
    bad "uart_feed did not build (libsimavr-dev)"
fi

echo "== ESP32Display (the Skyframe ESP32 library) against stand-in headers (ESP32 core, PubSubClient)"
stand_ins="$here/stand-ins"
esp32="$repo/firmware-notes/skyframe-esp32"
if c++ -std=gnu++17 -Wall -Wextra -Werror -I"$stand_ins" -I"$library/src" -I"$esp32/src" \
        -include Arduino.h -x c++ -c "$esp32/examples/ESP32Display/ESP32Display.ino" -o "$out/esp32.o" &&
    cc -std=c99 -Wall -Wextra -Werror -I"$library/src" \
        -c "$esp32/src/show_frame.c" -o "$out/show_frame.o" &&
    cc -std=c99 -Wall -Wextra -Werror -pedantic -I"$library/src" \
        -c "$library/src/skyframe_frame.c" -o "$out/skyframe_frame.o" &&
    c++ -std=gnu++17 -Wall -Wextra -Werror -I"$stand_ins" -c "$stand_ins/stand_ins.cpp" \
        -o "$out/stand_ins.o" &&
    c++ -o "$out/esp32-display" "$out/esp32.o" "$out/show_frame.o" "$out/skyframe_frame.o" \
        "$out/stand_ins.o"; then
    ok "ESP32Display compiles (-Wall -Wextra -Werror) and links with show_frame.c of its library" \
        "and the Skyframe library's one decoder"
else
    bad "ESP32Display against the stand-ins"
fi

echo "== ESP32HTTPDisplay (the Skyframe ESP32 library) against stand-in headers (ESP32 core, HTTPClient), run against the gateway"
# The same stand-ins, linked the same way; they define HTTPClient over a TCP socket to
# 127.0.0.1:$SKYFRAME_STAND_IN_HTTP_PORT, and a deep sleep that wakes the sketch again in the same
# process (stand_ins.cpp), so the sketch's own logic runs: ETag kept in RTC memory, If-None-Match,
# 304 without a redraw, the sleep from max-age. What it does not check: the real HTTPClient, Wi-Fi
# and the RTC memory of a real chip.
http_display=""
if c++ -std=gnu++17 -Wall -Wextra -Werror -I"$stand_ins" -I"$library/src" -I"$esp32/src" \
        -include Arduino.h -x c++ -c "$esp32/examples/ESP32HTTPDisplay/ESP32HTTPDisplay.ino" \
        -o "$out/esp32-http.o" &&
    c++ -o "$out/esp32-http-display" "$out/esp32-http.o" "$out/show_frame.o" \
        "$out/skyframe_frame.o" "$out/stand_ins.o"; then
    http_display="$out/esp32-http-display"
    ok "ESP32HTTPDisplay compiles (-Wall -Wextra -Werror) and links with show_frame.c and the decoder"
else
    bad "ESP32HTTPDisplay against the stand-ins"
fi
bin="${SKYFRAME_BIN:-$repo/.build/debug/skyframe}"
# expect LABEL OUTPUT PATTERN: the sketch's output has a line matching the extended regex.
expect() {
    if grep -Eq "$3" <<<"$2"; then ok "ESP32HTTPDisplay: $1"; else bad "ESP32HTTPDisplay: $1 (no line /$3/)"; fi
}
if [[ -n "$http_display" ]]; then
    refused="$(env -u SKYFRAME_STAND_IN_HTTP_PORT SKYFRAME_STAND_IN_WAKES=1 "$http_display" 2>&1)"
    expect "no gateway: the request fails and it sleeps the shortest time" "$refused" \
        '^deep sleep 60 s$'
    if [[ ! -x "$bin" || ! -x "$(command -v mosquitto)" || ! -x "$(command -v curl)" ]]; then
        if [[ "${SKYFRAME_REQUIRE_ALL:-}" == 1 ]]; then
            bad "ESP32HTTPDisplay against the gateway: needs $bin (SKYFRAME_BIN), mosquitto and curl"
        else
            echo "SKIPPED, NOT CHECKED: ESP32HTTPDisplay against the gateway: needs $bin" \
                "(SKYFRAME_BIN), mosquitto and curl"
        fi
    else
        tmp="$out/live"
        mkdir -p "$tmp"
        fail() { bad "$@"; }
        # shellcheck source=../../examples/live-test-lib.sh
        . "$repo/firmware-notes/examples/live-test-lib.sh"
        if start_http_gateway skyframe-http-esp32; then
            text="$(SKYFRAME_STAND_IN_HTTP_PORT="$http_port" SKYFRAME_STAND_IN_WAKES=2 timeout 60 \
                "$http_display" 2>&1)"
            printf '%s\n' "$text" | sed 's/^/    /'
            first="$(sed -n '/^wake 1,/,/^wake 2,/p' <<<"$text")"
            second="$(sed -n '/^wake 2,/,$p' <<<"$text")"
            expect "wake 1 asks without an ETag" "$first" '^wake 1, ETag none$'
            expect "wake 1 gets 200 and one standard frame" "$first" '^HTTP 200, 192 bytes$'
            expect "wake 1 draws the frame (show_frame)" "$first" '^Berlin DE$'
            sleep1="$(sed -n 's/^deep sleep \([0-9]*\) s$/\1/p' <<<"$first")"
            max_age="$(curl -s -D - -o /dev/null "http://127.0.0.1:$http_port/v1/frame/kitchen?q=Berlin,DE" |
                sed -n 's/^Cache-Control: max-age=\([0-9]*\).*/\1/ip')"
            if [[ -n "$sleep1" && -n "$max_age" && "$sleep1" -ge 60 && "$sleep1" -ge $((max_age < 60 ? 60 : max_age)) &&
                "$sleep1" -le $((max_age < 60 ? 60 : max_age + 5)) ]]; then
                ok "ESP32HTTPDisplay: wake 1 sleeps max-age ($sleep1 s; the gateway now says $max_age)"
            else
                bad "ESP32HTTPDisplay: wake 1 sleeps ${sleep1:-?} s, not max-age (${max_age:-?}, at least 60)"
            fi
            etag="$(curl -s -D - -o /dev/null "http://127.0.0.1:$http_port/v1/frame/kitchen?q=Berlin,DE" |
                sed -n 's/^ETag: \("[0-9a-f]*"\).*/\1/ip')"
            expect "wake 2 sends the gateway's ETag ${etag:-?} back (kept in RTC_DATA_ATTR)" "$second" \
                "^wake 2, ETag ${etag:-none-from-curl}\$"
            expect "wake 2 gets 304" "$second" '^HTTP 304, '
            expect "wake 2 does not redraw" "$second" 'no redraw$'
            if grep -q '^Berlin DE$' <<<"$second"; then
                bad "ESP32HTTPDisplay: wake 2 drew the frame again after a 304"
            else
                ok "ESP32HTTPDisplay: wake 2 draws nothing"
            fi
        fi
        stop_started
        pids=()
    fi
fi

echo "skyframe-library: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
