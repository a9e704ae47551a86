#!/usr/bin/env python3
"""Feeds golden vectors to the SerialBridge example running in simavr and compares what it prints
with the vectors' JSON, field by field, for every field the example prints.

    serial_bridge_check.py UART_FEED FIRMWARE.elf VECTORS_DIR

UART_FEED is test/uart_feed (built by run.sh), FIRMWARE.elf the Uno image arduino-builder made,
VECTORS_DIR holds frames/, tiny/, unchanged/ and large/. Sent over the emulated serial port, one
message at a time, each answered by a block of "key value" lines ending in "--":
  - every standard, tiny and unchanged vector: every printed field equal to the vector's, and
    exactly the keys the example prints for that kind and status (none missing, none extra);
  - every large vector: the "skipped" block (960 bytes do not fit the Uno);
  - a standard, a tiny and an unchanged vector with a CRC bit flipped: "error crc_mismatch";
  - a standard vector after noise bytes (the board finds "SF" again) and a message cut short
    (dropped after the example's 200 ms gap, then the next message still decodes);
  - a standard vector with service 9 (reserved for v1.x, frame-v1.md 5.2: "show the number")
    and its CRC made again: printed as "service 9", the rest as the vector's.
Before any message the board must print its request line "REQ #1 ...".
One ok/FAIL line per message; last line "serial-bridge: N passed, M failed".
"""

import json
import subprocess
import sys
import tempfile
import zlib
from decimal import Decimal
from pathlib import Path

STATUS = ["ok", "stale", "not_found", "bad_request", "upstream_unavailable", "rate_limited",
          "too_many_locations", "internal_error"]


def load(path):
    return json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)


def fixed(value, decimals):
    """What the sketch prints for a number: skyframe_format_fixed with DECIMALS places, or '-'."""
    if value is None:
        return "-"
    return f"{Decimal(value):.{decimals}f}"


def status_text(status):
    return status if isinstance(status, str) else str(status)


def local_hhmm(t, offset):
    if t is None or offset is None:
        return "-"
    minutes = ((t // 60) % 1440 + offset) % 1440
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def slot(f):
    return [("request_id", str(f["request_id"])),
            ("slot", f"{f['slot_index']} of {f['slot_count']}")]


def expected_standard(f):
    """The vector's "frame" (frame-profiles.md 8: wire x scale, the v1.1 fields by what they
    mean) as the sketch prints it: the v1.1 helpers' readings are the frame's objects (the index
    and scale, the count and worst severity, the moon's name and lit part in percent), not the
    header's."""
    lines = [("kind", "standard"), ("status", status_text(f["status"]))] + slot(f)
    lines += [("name", f["name"]), ("country", f["country"] or "-")]
    if f["status"] not in ("ok", "stale"):
        return lines
    lines += [("service", str(f["service"])),  # a name, or the number of one not known
              ("fetched_at", str(f["fetched_at"]) if f["fetched_at"] is not None else "-"),
              ("temperature_c", fixed(f["temperature"], 1)),
              ("feels_like_c", fixed(f["feels_like"], 1)),
              ("humidity_pct", fixed(f["humidity"], 0)),
              ("pressure_hpa", fixed(f["pressure"], 1)),
              ("wind_speed_ms", fixed(f["wind_speed"], 1)),
              ("wind_gust_ms", fixed(f["wind_gust"], 1)),
              ("wind_direction_deg", fixed(f["wind_direction"], 0)),
              ("weather_code", fixed(f["weather_code"], 0)),
              ("is_day", {1: "yes", 0: "no", None: "-"}[f["is_day"]]),
              ("sunrise_local", local_hhmm(f["sunrise"], f["utc_offset_min"])),
              ("sunset_local", local_hhmm(f["sunset"], f["utc_offset_min"]))]
    for i in range(7):
        lines += [("day", str(i)), ("min_c", fixed(f["daily_min"][i], 1)),
                  ("max_c", fixed(f["daily_max"][i], 1)),
                  ("weather_code", fixed(f["daily_weather_code"][i], 0)),
                  ("precip_probability_pct", fixed(f["daily_precip_probability"][i], 0))]
    aq, al, moon = f["air_quality"], f["alerts"], f["moon"]
    if aq is not None:  # {"index", "scale"}
        lines.append(("air_quality", f"{aq['index']} {aq['scale']}"))
    if al is not None:  # {"count", "worst"}
        lines.append(("alerts", f"{al['count']} {al['worst']}"))
    if moon is not None:  # {"phase", "name", "lit"}: lit to 2 decimals, whole percent
        lines.append(("moon", f"{moon['name']} {round(Decimal(moon['lit']) * 100)}"))
    if f["next_update"] is not None:
        lines.append(("next_update_s", str(f["next_update"])))
    return lines


def expected_tiny(f):
    lines = [("kind", "tiny"), ("status", status_text(f["status"]))] + slot(f)
    lines += [("fetched_at", str(f["fetched_at"]) if f["fetched_at"] is not None else "-"),
              ("temperature_c", fixed(f["temperature"], 1)),
              ("weather_code", fixed(f["weather_code"], 0)),
              ("is_day", {1: "yes", 0: "no", None: "-"}[f["is_day"]]),
              ("humidity_pct", fixed(f["humidity"], 0)),
              ("wind_speed_ms", fixed(f["wind_speed"], 1)),
              ("wind_direction_deg", fixed(f["wind_direction"], 0)),
              ("utc_offset_min", fixed(f["utc_offset_min"], 0))]
    for i in range(4):
        lines += [("day", str(i)), ("min_c", fixed(f["daily_min"][i], 0)),
                  ("max_c", fixed(f["daily_max"][i], 0)),
                  ("weather_code", fixed(f["daily_weather_code"][i], 0)),
                  ("precip_probability_pct", fixed(f["daily_precip_probability"][i], 0))]
    return lines


def expected_unchanged(f):
    return ([("kind", "unchanged"), ("of", f["of"])] + slot(f)
            + [("next_update_s", fixed(f["next_update"], 0))])


def parse_block(text_lines):
    pairs = []
    for line in text_lines:
        key, _, value = line.partition(" ")
        pairs.append((key, value))
    return pairs


def flip_crc_bit(hex_text):
    raw = bytearray(bytes.fromhex(hex_text))
    raw[-1] ^= 0x01
    return raw.hex()


def with_service(hex_text, service):
    """A standard frame with byte 8 (service) set to SERVICE and its CRC-32 made again."""
    raw = bytearray(bytes.fromhex(hex_text))
    raw[8] = service
    raw[188:192] = zlib.crc32(bytes(raw[:188])).to_bytes(4, "little")
    return raw.hex()


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    uart_feed, firmware, vectors = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    cases = []  # (label, hex, expected [(key, value)])
    for kind, expect in (("frames", expected_standard), ("tiny", expected_tiny),
                         ("unchanged", expected_unchanged)):
        for path in sorted((vectors / kind).glob("*.json")):
            v = load(path)
            cases.append((f"{kind}/{path.name}", v["hex"], expect(v["frame"])))
    for path in sorted((vectors / "large").glob("*.json")):
        cases.append((f"large/{path.name}", load(path)["hex"],
                      [("kind", "large"), ("skipped", "960 bytes: too large for this board")]))
    if len(cases) < 4:
        print(f"FAIL too few vectors in {vectors}")
        print("serial-bridge: 0 passed, 1 failed")
        return 1
    first = {kind: next(c for c in cases if c[0].startswith(kind + "/"))
             for kind in ("frames", "tiny", "unchanged")}
    for kind, (label, hex_text, lines) in first.items():
        cases.append((f"{label} with a CRC bit flipped", flip_crc_bit(hex_text),
                      [lines[0], ("error", "crc_mismatch")]))
    label, hex_text, lines = first["frames"]
    cases.append((f"{label} after noise bytes", "00ff5346ff53" + hex_text, lines))
    cases.append((f"{label} cut after 100 bytes", hex_text[:200],
                  [("partial", "message dropped")]))
    cases.append((f"{label} after the cut one", hex_text, lines))
    unknown = [(k, "9" if k == "service" else v) for k, v in lines]
    cases.append((f"{label} from service 9 (unknown to this header)",
                  with_service(hex_text, 9), unknown))

    with tempfile.TemporaryDirectory() as tmp:
        feed = Path(tmp) / "feed.hex"
        feed.write_text("".join(c[1] + "\n" for c in cases))
        done = subprocess.run([uart_feed, firmware, str(feed), "120"], capture_output=True,
                              text=True, timeout=300, check=False)
    out = done.stdout.splitlines()
    passed = failed = 0
    if done.returncode != 0:
        print(f"FAIL uart_feed exit {done.returncode}: {done.stderr.strip()[-400:]}")
        failed += 1
    request = [line for line in out if line.startswith("REQ ")]
    if request[:1] and request[0].startswith("REQ #1 ") and out.index(request[0]) == 0:
        print(f"ok   the board asked first: {request[0]!r}")
        passed += 1
    else:
        print(f"FAIL the board's first line is not its request \"REQ #1 ...\": {out[:1]!r}")
        failed += 1
    blocks, current = [], []
    for line in out[1:]:
        if line == "--":
            blocks.append(current)
            current = []
        else:
            current.append(line)
    for i, (label, _, want) in enumerate(cases):
        if i >= len(blocks):
            print(f"FAIL {label}: no answer printed")
            failed += 1
            continue
        got = parse_block(blocks[i])
        problems = []
        for n in range(max(len(want), len(got))):
            w = want[n] if n < len(want) else None
            g = got[n] if n < len(got) else None
            if w != g:
                problems.append(f"line {n + 1}: expected {w}, printed {g}")
        if problems:
            print(f"FAIL {label}: " + "; ".join(problems[:4]))
            failed += 1
        else:
            print(f"ok   {label}: {len(want)} lines equal")
            passed += 1
    if len(blocks) > len(cases):
        print(f"FAIL {len(blocks) - len(cases)} more answers than messages sent")
        failed += 1
    print(f"serial-bridge: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
