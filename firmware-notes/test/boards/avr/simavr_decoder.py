#!/usr/bin/env python3
"""A compare.py DECODER that decodes on an emulated ATmega328P (simavr).

    simavr_decoder.py --work DIR [--offset 0|1] [--chunk N] [--profiles]  < hex lines > JSON lines

Reads one hex frame per line on stdin, like decode_vectors, and prints what the AVR printed for
each. The AVR has no stdin and 2 KB of RAM, so the frames go into flash: for every N frames
(default 90; 32 KB of flash) it writes DIR/frames-K.c (PROGMEM arrays), links it with
boards/avr/decode_flash.c (compiled once into DIR, avr-gcc -mmcu=atmega328p -Os, C99, -Wall
-Wextra -Werror -pedantic) and runs the image in simavr. simavr prints USART0 output on stderr
in chunks of at most 256 characters, green, with control characters shown as '.' (the newline
too); the JSON holds neither '.' nor control characters, so the lines are put back together by
joining the chunks and splitting at '.'. Every image must end with "#end N" for its N frames, or
this exits 1 with the reason on stderr (so compare.py reports the decoder as failed).

--profiles: the DECODER of compare.py --profiles (decode_vectors --profiles): lines are
"DECODER HEX" (any, standard, tiny, unchanged; large is not compiled on the AVR and prints
{"ok":false,"error":"large_not_compiled"}), the driver is built with -DSKYFRAME_TEST_PROFILES and
frames.c also holds each frame's decoder letter (frame_decoder[]). Use another DIR than without it.

--offset sets SKYFRAME_TEST_BUFFER_OFFSET (the RAM buffer's address: 1 odd, 0 even; an AVR reads
bytes only, so both must give the same). SKYFRAME_AVR_CFLAGS adds compiler flags (e.g.
-DSKYFRAME_TEST_DECODE=...), SKYFRAME_AVR_OBJECTS objects to link. DIR/stack.txt gets the
largest "#stack N" (bytes of stack used). --request and --self-test are not available on the
AVR: exit 2.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MCU = "atmega328p"
CFLAGS = ["-mmcu=" + MCU, "-Os", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
          "-ffunction-sections", "-fdata-sections"]
BAD_HEX = 0xFFFF
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
GREEN, RESET = "\x1b[32m", "\x1b[0m"
HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")


def fail(text):
    print(f"simavr_decoder: {text}", file=sys.stderr)
    sys.exit(1)


def run(command, timeout=60):
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        fail(f"{' '.join(command)}: exit {done.returncode}\n{done.stdout}{done.stderr}")
    return done


def frames_c(frames, decoders=None):
    """The generated C file: the frames' bytes and lengths in flash (and with --profiles each
    frame's decoder letter)."""
    data, lengths = [], []
    for frame in frames:
        if frame is None:
            lengths.append(BAD_HEX)
        else:
            lengths.append(len(frame))
            data.extend(frame)
    rows = [", ".join(str(b) for b in data[i:i + 24]) for i in range(0, len(data), 24)]
    return ("#include <avr/pgmspace.h>\n#include <stdint.h>\n"
            f"const uint8_t frame_bytes[{max(len(data), 1)}] PROGMEM = {{\n    "
            + (",\n    ".join(rows) if rows else "0") + "\n};\n"
            f"const uint16_t frame_length[{max(len(lengths), 1)}] PROGMEM = {{"
            + (", ".join(str(n) for n in lengths) if lengths else "0") + "};\n"
            f"const uint16_t frame_count = {len(lengths)};\n"
            + ("" if decoders is None else
               f"const uint8_t frame_decoder[{max(len(decoders), 1)}] PROGMEM = {{"
               + (", ".join(str(ord(d)) for d in decoders) if decoders else "0") + "};\n"))


def uart_lines(stderr):
    """simavr's USART0 log (its green lines) -> the lines the AVR printed."""
    chunks = []
    for line in stderr.splitlines():
        if line.startswith(RESET):
            line = line[len(RESET):]
        if line.startswith(GREEN):
            chunks.append(ESCAPE.sub("", line))
    text = "".join(chunks)
    if not text.endswith("."):
        fail(f"simavr output does not end with a newline: ...{text[-200:]!r}")
    return text[:-1].split(".")


def main():
    args = sys.argv[1:]
    work, offset, chunk, profiles = None, "1", 90, False
    rest = []
    while args:
        if args[0] == "--profiles":
            profiles, args = True, args[1:]
        elif args[0] == "--work" and len(args) > 1:
            work, args = Path(args[1]), args[2:]
        elif args[0] == "--offset" and len(args) > 1:
            offset, args = args[1], args[2:]
        elif args[0] == "--chunk" and len(args) > 1:
            chunk, args = int(args[1]), args[2:]
        else:
            rest, args = rest + [args[0]], args[1:]
    if work is None or rest:
        print(__doc__ if work is None else f"not on the AVR: {' '.join(rest)}", file=sys.stderr)
        return 2
    work.mkdir(parents=True, exist_ok=True)
    cflags = CFLAGS + [f"-DSKYFRAME_TEST_BUFFER_OFFSET={offset}"]
    cflags += os.environ.get("SKYFRAME_AVR_CFLAGS", "").split()
    if profiles:
        cflags.append("-DSKYFRAME_TEST_PROFILES=1")
    objects = os.environ.get("SKYFRAME_AVR_OBJECTS", "").split()

    driver = work / "decode_flash.o"
    if not driver.exists():
        run(["avr-gcc", *cflags, "-c", "-o", str(driver), str(HERE / "decode_flash.c")])

    frames, decoders = [], []
    for line in sys.stdin.read().splitlines():
        text = line.rstrip("\r ")  # as decode_vectors: anything but hex pairs is bad_hex
        if profiles:  # "DECODER HEX": the driver gets the decoder's first letter
            word, _, text = text.partition(" ")
            known = word in ("any", "standard", "large", "tiny", "unchanged")
            decoders.append(word[0] if known else "?")
        good = HEX.fullmatch(text) is not None and len(text) <= 2048
        frames.append(bytes.fromhex(text) if good else None)

    out, stack = [], 0
    for k, start in enumerate(range(0, len(frames), chunk)):
        part = frames[start:start + chunk]
        source, image = work / f"frames-{k}.c", work / f"image-{k}.elf"
        source.write_text(frames_c(part, decoders[start:start + chunk] if profiles else None),
                          encoding="ascii")
        run(["avr-gcc", *cflags, "-Wl,--gc-sections", "-o", str(image), str(driver),
             str(source), *objects])
        done = run(["simavr", "-m", MCU, "-f", "16000000", str(image)])
        lines = uart_lines(done.stderr)
        if lines[-1:] != [f"#end {len(part)}"]:
            fail(f"{image.name}: no \"#end {len(part)}\" at the end: {lines[-3:]!r}")
        for line in lines[:-1]:
            if line.startswith("#stack "):
                stack = max(stack, int(line.split()[1]))
            else:
                out.append(line)
    (work / "stack.txt").write_text(f"{stack}\n", encoding="ascii")
    sys.stdout.write("".join(line + "\n" for line in out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
