#!/usr/bin/env bash
# End-to-end test of the virtual display (virtual_display.c with the renderer it draws with,
# Sources/CSkyframeRender/render.c), on 127.0.0.1 only:
#   1. builds it twice into a temp dir: -O2 with -Werror (C99, pedantic), and with ASan + UBSan
#      for every run below;
#   2. offline: draws golden vectors with --frame-hex (PNG and PBM, checked byte by byte), every
#      golden vector once (standard 296x128, large 800x480, tiny 128x64; `unchanged` messages
#      are reported, exit status 4), and refuses corrupted standard, large and tiny frames and a
#      truncated frame with exit status 3; render_check.c calls the renderer's API directly;
#   3. live: starts mosquitto on a free port, the Open-Meteo stand-in (open_meteo_stub.py, answers
#      from fixtures/) and the gateway ($SKYFRAME_BIN, default .build/debug/skyframe of this repo)
#      with a configuration pointing at both, then asks like a device: by coordinates (named by
#      fixtures/cities.txt, a GeoNames file), by name (fixtures/search-berlin.json), a name the
#      geocoding fixture does not know (not_found), with the text options ~large and ~tiny and
#      with binary requests whose byte 6 names the profile (the answer's kind checked by the
#      display and, for the text requests, on the wire with mosquitto_sub), and from a device id
#      the gateway drops (no answer: exit status 2).
# berlin-large.png and berlin-tiny.png are this program's drawings of the golden vectors
# large/01-ok-berlin-48h and tiny/01-ok-berlin, checked byte by byte; after a drawing change,
# VD_WRITE_PICTURES=1 test.sh writes them anew (berlin.png: see the command in its check). Being
# the program's own output, all three are also pinned by picture_check.py: texts made from the
# vectors' values at fixed places, drawn by its own loop with render.c's font table; that check
# runs on the files and on the new drawings, so a rewrite does not hide a broken drawing.
# Each vector loop has a minimum count: an empty vector directory fails.
# Every process it starts is stopped on exit. Needs cc, pkg-config, libmosquitto-dev, mosquitto,
# mosquitto-clients and python3. Last line: "virtual-display: N passed, M failed"; the exit status
# is non-zero on any failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
bin="${SKYFRAME_BIN:-$repo/.build/debug/skyframe}"
CC="${CC:-cc}"

tmp="$(mktemp -d)"
pids=()
passed=0
failed=0

finish() {
    local status=$? pid
    for pid in "${pids[@]+"${pids[@]}"}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]+"${pids[@]}"}"; do wait "$pid" 2>/dev/null || true; done
    if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
        failed=$((failed + 1))
        echo "FAIL the test script stopped early (exit status $status)"
    fi
    if [ "$failed" -ne 0 ]; then
        for log in gateway.log stub.log mosquitto.log; do
            if [ -s "$tmp/$log" ]; then
                echo "--- last lines of $log"
                tail -n 15 "$tmp/$log"
            fi
        done
    fi
    rm -rf "$tmp"
    echo "virtual-display: $passed passed, $failed failed"
    [ "$failed" -eq 0 ] || exit 1
}
trap finish EXIT
trap 'exit 130' INT TERM

pass() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

# "WIDTHxHEIGHT ink=N digest=HEX" of a PNG or PBM file, after checking its structure: PNG
# signature, chunk CRCs, IHDR (1-bit greyscale), the zlib stream (Adler-32), filter bytes; PBM
# header and length. Exit status 1 with the reason on stderr when anything is off.
image_info() {
    python3 - "$1" <<'END_OF_PYTHON'
import hashlib, struct, sys, zlib
data = open(sys.argv[1], "rb").read()
def bad(why):
    sys.exit("%s: %s" % (sys.argv[1], why))
if data.startswith(b"\x89PNG\r\n\x1a\n"):
    pos, chunks = 8, []
    while pos < len(data):
        if pos + 12 > len(data): bad("cut chunk")
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        if zlib.crc32(kind + body) != crc: bad("CRC of %r" % kind)
        chunks.append((kind, body))
        pos += 12 + n
    if [k for k, _ in chunks][0] != b"IHDR" or chunks[-1][0] != b"IEND": bad("chunk order")
    w, h, depth, colour, comp, filt, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if (depth, colour, comp, filt, interlace) != (1, 0, 0, 0, 0): bad("not 1-bit greyscale")
    raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))  # checks Adler-32
    stride = (w + 7) // 8 + 1
    if len(raw) != stride * h: bad("image data length")
    rows = []
    for y in range(h):
        if raw[y * stride] != 0: bad("filter byte")
        rows.append(bytes(~b & 0xFF for b in raw[y * stride + 1:(y + 1) * stride]))  # 1 = ink
elif data.startswith(b"P4\n"):
    head, rest = data.split(b"\n", 2)[1], data.split(b"\n", 2)[2]
    w, h = map(int, head.split())
    stride = (w + 7) // 8
    if len(rest) != stride * h: bad("PBM length")
    rows = [rest[y * stride:(y + 1) * stride] for y in range(h)]
else:
    bad("neither PNG nor PBM")
ink = sum(bin(b).count("1") for row in rows for b in row)
print("%dx%d ink=%d digest=%s" % (w, h, ink, hashlib.sha256(b"".join(rows)).hexdigest()[:16]))
END_OF_PYTHON
}

# A drawn screen is not blank: between 2 % and 60 % of its pixels are ink (of image_info's line).
looks_drawn() {
    local ink w h
    ink="$(sed -n 's/.* ink=\([0-9]*\) .*/\1/p' <<<"$1")"
    w="$(sed -n 's/^\([0-9]*\)x.*/\1/p' <<<"$1")"
    h="$(sed -n 's/^[0-9]*x\([0-9]*\) .*/\1/p' <<<"$1")"
    [ -n "$ink" ] && [ -n "$w" ] && [ -n "$h" ] &&
        [ "$((ink * 50))" -gt "$((w * h))" ] && [ "$((ink * 5))" -lt "$((w * h * 3))" ]
}

# run NAME ARGS...: runs the display, keeping its exit status, stdout and stderr.
run() {
    local name="$1"
    shift
    set +e
    "$tmp/virtual_display" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    echo $? >"$tmp/$name.status"
    set -e
}
status_of() { cat "$tmp/$1.status"; }
stdout_of() { cat "$tmp/$1.out"; }

# ---- 1. Build -------------------------------------------------------------------------------
render="$repo/Sources/CSkyframeRender"
flags=(-std=c99 -Wall -Wextra -Werror -pedantic -I"$here/../.." -I"$render/include")
read -r -a mosquitto_cflags <<<"$(pkg-config --cflags libmosquitto)"
read -r -a mosquitto_libs <<<"$(pkg-config --libs libmosquitto)"
if "$CC" "${flags[@]}" -O2 "${mosquitto_cflags[@]+"${mosquitto_cflags[@]}"}" \
    -o "$tmp/virtual_display_O2" "$here/virtual_display.c" "$render/render.c" \
    "${mosquitto_libs[@]}"; then
    pass "builds with -std=c99 -Wall -Wextra -Werror -pedantic -O2"
else
    fail "builds with -std=c99 -Wall -Wextra -Werror -pedantic -O2"
fi
if "$CC" "${flags[@]}" -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
    "${mosquitto_cflags[@]+"${mosquitto_cflags[@]}"}" -o "$tmp/virtual_display" \
    "$here/virtual_display.c" "$render/render.c" "${mosquitto_libs[@]}"; then
    pass "builds with ASan and UBSan"
else
    fail "builds with ASan and UBSan"
    exit 1
fi

# ---- 2. Offline: --frame-hex ----------------------------------------------------------------
vectors="$repo/schemas/vectors/frames"
# The fewest vectors each loop below must draw (the counts when this was written): an empty or
# missing directory, or a glob that matches nothing, fails instead of checking nothing.
declare -A min_vectors=([frames]=25 [large]=14 [tiny]=19 [unchanged]=6)
berlin="$vectors/20-ok-v1-1-berlin-all-fields.json"

run offline-png --frame-hex "$berlin" --now 1717236600 --out "$tmp/offline.png"
png_info="$(image_info "$tmp/offline.png" || true)"
if [ "$(status_of offline-png)" = 0 ] &&
    [ "$(stdout_of offline-png)" = "drew Berlin DE 18.4C status ok -> $tmp/offline.png" ] &&
    [[ "$png_info" == "296x128 "* ]] && looks_drawn "$png_info"; then
    pass "golden vector 20 drawn as PNG ($png_info)"
else
    fail "golden vector 20 drawn as PNG: status $(status_of offline-png)," \
        "'$(stdout_of offline-png)', '$png_info'"
fi

run offline-pbm --frame-hex "$berlin" --now 1717236600 --out "$tmp/offline.pbm"
pbm_info="$(image_info "$tmp/offline.pbm" || true)"
if [ "$(status_of offline-pbm)" = 0 ] && [ "$(head -c 11 "$tmp/offline.pbm")" = $'P4\n296 128' ] &&
    [ "$(stat -c %s "$tmp/offline.pbm")" = $((11 + 37 * 128)) ] &&
    [ "$pbm_info" = "$png_info" ]; then
    pass "the same frame as PBM: P4 296x128, the same pixels as the PNG"
else
    fail "the same frame as PBM: status $(status_of offline-pbm), '$pbm_info' vs '$png_info'"
fi

# berlin.png in the docs is this program's drawing of golden vector 20, byte for byte.
run offline-scaled --frame-hex "$berlin" --now 1717236600 --scale 2 --out "$tmp/berlin.png"
if [ "$(status_of offline-scaled)" = 0 ] &&
    [[ "$(image_info "$tmp/berlin.png" || true)" == "592x256 "* ]] &&
    cmp -s "$tmp/berlin.png" "$here/berlin.png"; then
    pass "--scale 2 draws 592x256, equal to berlin.png"
else
    fail "--scale 2 draws 592x256, equal to berlin.png (after a drawing change:" \
        "virtual_display --frame-hex $berlin --now 1717236600 --scale 2" \
        "--out $here/berlin.png)"
fi

bad_vectors=""
count=0
for vector in "$vectors"/*.json; do
    count=$((count + 1))
    name="$(basename "$vector" .json)"
    run "vector-$name" --frame-hex "$vector" --out "$tmp/vector.pbm"
    if [ "$(status_of "vector-$name")" != 0 ] || [ -s "$tmp/vector-$name.err" ] ||
        ! looks_drawn "$(image_info "$tmp/vector.pbm" || true)"; then
        bad_vectors="$bad_vectors $name"
    fi
done
if [ "$count" -ge "${min_vectors[frames]}" ] && [ -z "$bad_vectors" ]; then
    pass "all $count golden vectors drawn, no sanitizer reports"
else
    fail "golden vectors not drawn cleanly ($count in all, at least ${min_vectors[frames]}" \
        "expected):$bad_vectors"
fi

# The profiles: every large and tiny golden vector drawn on its own screen, error frames too.
for profile in large:800x480 tiny:128x64; do
    size="${profile#*:}"
    profile="${profile%:*}"
    bad_vectors=""
    count=0
    for vector in "$repo/schemas/vectors/$profile"/*.json; do
        count=$((count + 1))
        name="$(basename "$vector" .json)"
        run "$profile-$name" --frame-hex "$vector" --out "$tmp/vector.png"
        info="$(image_info "$tmp/vector.png" || true)"
        if [ "$(status_of "$profile-$name")" != 0 ] || [ -s "$tmp/$profile-$name.err" ] ||
            [[ "$(stdout_of "$profile-$name")" != "drew $profile frame "* ]] ||
            [[ "$info" != "$size "* ]] || ! looks_drawn "$info"; then
            bad_vectors="$bad_vectors $name ($(stdout_of "$profile-$name"), $info)"
        fi
        rm -f "$tmp/vector.png"
    done
    if [ "$count" -ge "${min_vectors[$profile]}" ] && [ -z "$bad_vectors" ]; then
        pass "all $count $profile golden vectors drawn as $size PNG, no sanitizer reports"
    else
        fail "$profile golden vectors not drawn cleanly ($count in all, at least" \
            "${min_vectors[$profile]} expected):$bad_vectors"
    fi
done

# `unchanged` says that what the display shows is still right: reported, nothing drawn.
bad_vectors=""
count=0
for vector in "$repo/schemas/vectors/unchanged"/*.json; do
    count=$((count + 1))
    name="$(basename "$vector" .json)"
    run "unchanged-$name" --frame-hex "$vector" --out "$tmp/unchanged.png"
    expected="$(python3 -c 'import json, sys; f = json.load(open(sys.argv[1]))["frame"]
print("unchanged %s frame for request #%d, place %d of %d" % (f["of"], f["request_id"],
      f["slot_index"] + 1, f["slot_count"]))' "$vector")"
    if [ "$(status_of "unchanged-$name")" != 4 ] || [ -s "$tmp/unchanged-$name.err" ] ||
        [[ "$(stdout_of "unchanged-$name")" != "$expected, "*": nothing drawn" ]] ||
        [ -e "$tmp/unchanged.png" ]; then
        bad_vectors="$bad_vectors $name ('$(stdout_of "unchanged-$name")')"
    fi
done
if [ "$count" -ge "${min_vectors[unchanged]}" ] && [ -z "$bad_vectors" ]; then
    pass "all $count unchanged vectors reported with exit status 4, nothing drawn"
else
    fail "unchanged vectors ($count in all, at least ${min_vectors[unchanged]} expected):" \
        "$bad_vectors"
fi

# The pictures next to berlin.png: large/01 and tiny/01 (fetched 5 minutes before --now).
for picture in large:large/01-ok-berlin-48h tiny:tiny/01-ok-berlin; do
    vector="$repo/schemas/vectors/${picture#*:}.json"
    picture="${picture%%:*}"
    run "picture-$picture" --frame-hex "$vector" --now 1736936700 --out "$tmp/berlin-$picture.png"
    if [ -n "${VD_WRITE_PICTURES:-}" ] && [ "$(status_of "picture-$picture")" = 0 ]; then
        cp "$tmp/berlin-$picture.png" "$here/berlin-$picture.png"
        echo "wrote $here/berlin-$picture.png"
    fi
    if [ "$(status_of "picture-$picture")" = 0 ] &&
        cmp -s "$tmp/berlin-$picture.png" "$here/berlin-$picture.png"; then
        pass "${picture#*:} drawn equal to berlin-$picture.png"
    else
        fail "${picture#*:} drawn equal to berlin-$picture.png (after a drawing change:" \
            "VD_WRITE_PICTURES=1 $0)"
    fi
done

# The pictures pinned to something other than themselves (picture_check.py: texts made from the
# golden vectors' values, drawn with render.c's font table by its own loop at fixed places,
# scales and colours), the golden files and the drawings just made alike: a drawing change that
# breaks them fails here even after VD_WRITE_PICTURES=1 has rewritten the files.
for picture in standard2:berlin.png large:berlin-large.png tiny:berlin-tiny.png; do
    name="${picture%%:*}"
    file="${picture#*:}"
    for path in "$here/$file" "$tmp/$file"; do
        if [ ! -s "$path" ]; then
            fail "picture_check: no picture $path"
            continue
        fi
        set +e
        python3 "$here/picture_check.py" "$name" "$path" >"$tmp/picture_check.out" 2>&1
        status=$?
        set -e
        oks=0
        while IFS= read -r line; do
            case "$line" in
            "ok   "*) oks=$((oks + 1)) ;;
            *) fail "picture_check: ${line#FAIL }" ;;
            esac
        done <"$tmp/picture_check.out"
        if [ "$status" -eq 0 ] && [ "$oks" -ge 2 ]; then
            pass "picture_check: $oks texts of $path where they belong"
        elif [ "$status" -eq 0 ]; then
            fail "picture_check $name $path: only $oks texts checked"
        else
            fail "picture_check $name $path: exit status $status"
        fi
    done
done

# corrupt NAME VECTOR: one bit of byte 20 (standard and large: observed_at; tiny: the
# temperature) flipped: exit status 3, crc_mismatch, no picture.
corrupt() {
    local hex
    hex="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["hex"])' "$2")"
    python3 -c 'import sys; h = sys.argv[1]; print(h[:41] + "%x" % (int(h[41], 16) ^ 1) + h[42:])' \
        "$hex" >"$tmp/$1.hex"
    run "$1" --frame-hex "$tmp/$1.hex" --out "$tmp/$1.png"
    if [ "$(status_of "$1")" = 3 ] && grep -q crc_mismatch "$tmp/$1.err" &&
        [ ! -e "$tmp/$1.png" ]; then
        pass "a corrupted $1: exit status 3, crc_mismatch"
    else
        fail "a corrupted $1: status $(status_of "$1"), '$(cat "$tmp/$1.err")'"
    fi
}
corrupt frame "$berlin"
corrupt large-frame "$repo/schemas/vectors/large/01-ok-berlin-48h.json"
corrupt tiny-frame "$repo/schemas/vectors/tiny/01-ok-berlin.json"
hex="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["hex"])' "$berlin")"
printf '%s\n' "${hex:0:200}" >"$tmp/short.hex"
run short --frame-hex "$tmp/short.hex" --out "$tmp/short.png"
if [ "$(status_of short)" = 3 ] && grep -q truncated "$tmp/short.err"; then
    pass "a truncated frame: exit status 3, truncated"
else
    fail "a truncated frame: status $(status_of short), '$(cat "$tmp/short.err")'"
fi

# The renderer's API as the gateway calls it (render_check.c): many drawings in one process,
# each the same as the virtual display's; refusals return 0 and NULL. ASan and UBSan.
hex_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["hex"])' "$1"; }
if "$CC" -std=c99 -Wall -Wextra -Werror -pedantic -I"$render/include" -I"$here/../.." -g -O1 \
    -fsanitize=address,undefined -fno-omit-frame-pointer -o "$tmp/render_check" \
    "$here/render_check.c" "$render/render.c"; then
    set +e
    "$tmp/render_check" "$(hex_of "$berlin")" \
        "$(hex_of "$repo/schemas/vectors/large/01-ok-berlin-48h.json")" \
        "$(hex_of "$repo/schemas/vectors/tiny/01-ok-berlin.json")" \
        "$(hex_of "$repo/schemas/vectors/unchanged/01-standard.json")" \
        "$here/berlin.png" >"$tmp/render_check.out" 2>"$tmp/render_check.err"
    status=$?
    set -e
    while read -r word what; do
        if [ "$word" = ok ]; then pass "renderer API: $what"; else fail "renderer API: $what"; fi
    done <"$tmp/render_check.out"
    if [ "$status" -ne 0 ] && ! grep -q '^FAIL' "$tmp/render_check.out"; then
        fail "renderer API: render_check stopped with status $status: $(head -c 600 \
            "$tmp/render_check.err")"
    fi
else
    fail "render_check.c builds with ASan and UBSan"
fi

# ---- 3. Live: mosquitto, the Open-Meteo stand-in, the gateway ---------------------------------
# shellcheck source=../live-test-lib.sh
. "$here/../live-test-lib.sh"

if [ ! -x "$bin" ]; then
    fail "no gateway binary at $bin (build it, or set SKYFRAME_BIN)"
    exit 1
fi
start_mosquitto || exit 1
start_open_meteo_stub || exit 1

{
    gateway_config skyframe-vd-test 0
    printf 'locations:\n  names: []\n'
} >"$tmp/gateway.yaml"

# No SKYFRAME_* variable of the caller's may override the file.
unset_skyframe=()
for name in $(compgen -e); do
    if [[ "$name" == SKYFRAME_* ]]; then unset_skyframe+=(-u "$name"); fi
done
env "${unset_skyframe[@]+"${unset_skyframe[@]}"}" "$bin" run --config "$tmp/gateway.yaml" \
    >"$tmp/gateway.log" 2>&1 &
pids+=($!)
state="$(mosquitto_sub -h 127.0.0.1 -p "$mqtt_port" -t skyframe/v1/gateway/state -C 1 -W 20 \
    2>/dev/null || true)"
if [ "$state" = '{"state":"online"}' ]; then
    pass "the gateway is online"
else
    fail "the gateway did not come online within 20 s"
    exit 1
fi

live() { # live NAME OUT ARGS...: asks the gateway; the summary must be the expected one
    local name="$1" out="$2"
    shift 2
    run "$name" --port "$mqtt_port" --timeout 10 --out "$tmp/$out" "$@"
}

live coords coords.png --device vd-test --place 52.52,13.41
coords_info="$(image_info "$tmp/coords.png" || true)"
if [ "$(status_of coords)" = 0 ] &&
    [ "$(stdout_of coords)" = "drew Berlin DE 21.5C status ok -> $tmp/coords.png" ] &&
    [[ "$coords_info" == "296x128 "* ]] && looks_drawn "$coords_info"; then
    pass "by coordinates: $(stdout_of coords | sed "s|$tmp/||")"
else
    fail "by coordinates: status $(status_of coords), '$(stdout_of coords)', '$coords_info'," \
        "$(cat "$tmp/coords.err")"
fi

live name name.pbm --device vd-test --place Berlin,DE
name_info="$(image_info "$tmp/name.pbm" || true)"
if [ "$(status_of name)" = 0 ] &&
    [ "$(stdout_of name)" = "drew Berlin DE 21.5C status ok -> $tmp/name.pbm" ] &&
    [ "$(head -c 11 "$tmp/name.pbm")" = $'P4\n296 128' ] && looks_drawn "$name_info"; then
    pass "by name: $(stdout_of name | sed "s|$tmp/||")"
else
    fail "by name: status $(status_of name), '$(stdout_of name)', '$name_info'," \
        "$(cat "$tmp/name.err")"
fi

live unknown unknown.png --device vd-test --place 'Atlantis'
unknown_info="$(image_info "$tmp/unknown.png" || true)"
if [ "$(status_of unknown)" = 0 ] &&
    [ "$(stdout_of unknown)" = "drew Atlantis status not_found -> $tmp/unknown.png" ] &&
    looks_drawn "$unknown_info" &&
    [ "${unknown_info#* digest=}" != "${coords_info#* digest=}" ]; then
    pass "an unknown place: $(stdout_of unknown | sed "s|$tmp/||")"
else
    fail "an unknown place: status $(status_of unknown), '$(stdout_of unknown)', '$unknown_info'"
fi

# The profiles. wire NAME DEVICE: the first message on DEVICE's frame topic, as hex, into
# NAME.wire (mosquitto_sub in the background, subscribed before the display asks).
wire() {
    mosquitto_sub -h 127.0.0.1 -p "$mqtt_port" -t "skyframe/v1/frame/$2" -C 1 -W 15 -F '%x' \
        >"$tmp/$1.wire" 2>/dev/null &
    wire_pid=$!
    pids+=("$wire_pid")
    sleep 0.5
}
# kind_on_wire NAME: "BYTES kind 0xKK" of the message wire NAME saw.
kind_on_wire() {
    wait "$wire_pid" 2>/dev/null || true
    python3 -c 'import sys; h = open(sys.argv[1]).read().strip()
print("%d kind 0x%s" % (len(h) // 2, h[4:6]) if len(h) >= 6 else "nothing")' "$tmp/$1.wire"
}
# profile_check NAME WHAT SIZE PREFIX: the display's answer to NAME drawn at SIZE, its line
# starting with PREFIX, and nothing on stderr (the display warns when the kind is not the one
# asked for).
profile_check() {
    local info
    info="$(image_info "$tmp/$1.png" || true)"
    if [ "$(status_of "$1")" = 0 ] && [ ! -s "$tmp/$1.err" ] &&
        [[ "$(stdout_of "$1")" == "$4 -> $tmp/$1.png" ]] && [[ "$info" == "$3 "* ]] &&
        looks_drawn "$info"; then
        pass "$2: $(stdout_of "$1" | sed "s|$tmp/||"), $3"
    else
        fail "$2: status $(status_of "$1"), '$(stdout_of "$1")', '$info', $(cat "$tmp/$1.err")"
    fi
}
wire large-text vd-large
live large-text large-text.png --device vd-large --profile large --place Berlin,DE
profile_check large-text "~large Berlin,DE" 800x480 "drew large frame Berlin DE 21.5C status ok"
if [ "$(kind_on_wire large-text)" = "960 kind 0x11" ]; then
    pass "~large on the wire: 960 bytes, kind 0x11"
else
    fail "~large on the wire: $(kind_on_wire large-text)"
fi
wire tiny-text vd-tiny
live tiny-text tiny-text.png --device vd-tiny --profile tiny --place 52.52,13.41
profile_check tiny-text "~tiny 52.52,13.41" 128x64 "drew tiny frame 21.5C status ok"
if [ "$(kind_on_wire tiny-text)" = "48 kind 0x21" ]; then
    pass "~tiny on the wire: 48 bytes, kind 0x21"
else
    fail "~tiny on the wire: $(kind_on_wire tiny-text)"
fi
live large-binary large-binary.png --device vd-test --binary --profile large --place 52.52,13.41
profile_check large-binary "binary request, byte 6 = 1 (large), coordinates" 800x480 \
    "drew large frame Berlin DE 21.5C status ok"
live tiny-binary tiny-binary.png --device vd-test --binary --profile tiny --place Berlin,DE
profile_check tiny-binary "binary request, byte 6 = 2 (tiny), a name" 128x64 \
    "drew tiny frame 21.5C status ok"
live standard-binary standard-binary.png --device vd-test --binary --place Berlin,DE
profile_check standard-binary "binary request, byte 6 = 0 (standard)" 296x128 \
    "drew Berlin DE 21.5C status ok"
live large-unknown large-unknown.png --device vd-test --profile large --place Atlantis
profile_check large-unknown "~large for an unknown place" 800x480 \
    "drew large frame Atlantis status not_found"

# The gateway drops requests from invalid device ids ('!' is not allowed): nobody answers.
run silent --port "$mqtt_port" --timeout 2 --device 'no!answer' --place Berlin \
    --out "$tmp/silent.png"
if [ "$(status_of silent)" = 2 ] && grep -q "no answer" "$tmp/silent.err" &&
    [ ! -e "$tmp/silent.png" ]; then
    pass "no answer: exit status 2 after --timeout"
else
    fail "no answer: status $(status_of silent), '$(cat "$tmp/silent.err")'"
fi

reports="$(grep -l -E "AddressSanitizer|LeakSanitizer|runtime error:" "$tmp"/*.err || true)"
if [ -n "$reports" ]; then
    fail "sanitizer reports in: $(xargs -n1 basename <<<"$reports" | tr '\n' ' ')"
else
    pass "no sanitizer reports in any run"
fi

exit 0
