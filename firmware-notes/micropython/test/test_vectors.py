#!/usr/bin/env python3
"""skyframe.py (the MicroPython/CircuitPython module) in CPython, on every golden vector.

    python3 firmware-notes/micropython/test/test_vectors.py [VECTORS_DIR]

  - every vector of frames/, large/, tiny/ and unchanged/: decode(hex).mirror() equal to the
    vector's "frame" EXACTLY (json.dumps of both, keys sorted: the same keys, values, types, int
    or float, and float digits) and content_check() equal to its "content_check";
  - corrupted copies of each (a CRC bit flipped, one byte short, one byte more, a wrong magic, a
    wrong kind byte) refused with the C header's error name; the message given to another
    kind's decoder refused;
  - the module's layout tables against schemas/frame-v1.json, frame-large.json, frame-tiny.json
    (every field: offset, type, count, scale, sentinel; none missing, none extra) and the
    mirror's key order (_ORDER) against the table's order (frame-profiles.md 8);
  - the binary request vectors of requests/ (the valid ones) rebuilt byte for byte by
    request_coordinates/place/refresh, and the spec's text examples by request_text;
  - names and alert events with bytes that are not UTF-8 (utf8_cases.py; frame-v1.md 6.1:
    tolerate them): decoded, no exception, text() and mirror() give U+FFFD for each ill-formed
    part as bytes.decode("utf-8", "replace") does; and 3,000 random names the same.
One ok/FAIL line per check group with its count; last line "micropython-cpython: N passed,
M failed". Zero vectors is a failure.
"""

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import skyframe  # noqa: E402
import utf8_cases  # noqa: E402

REPO = HERE.parents[2]
KINDS = {"frames": skyframe.KIND_STANDARD, "large": skyframe.KIND_LARGE,
         "tiny": skyframe.KIND_TINY, "unchanged": skyframe.KIND_UNCHANGED}
TYPES = {"u8": skyframe.U8, "i8": skyframe.I8, "u16": skyframe.U16, "i16": skyframe.I16,
         "u32": skyframe.U32, "i32": skyframe.I32, "char": skyframe.CHAR, "utf8": skyframe.UTF8}

passed = failed = 0


def ok(text):
    global passed
    print(f"ok   {text}")
    passed += 1


def bad(text):
    global failed
    print(f"FAIL {text}")
    failed += 1


def canonical(value):
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def reseal(raw):
    raw[-4:] = skyframe.crc32(bytes(raw[:-4])).to_bytes(4, "little")
    return raw


def refused(raw, error, kind=None):
    try:
        skyframe.decode(bytes(raw), kind)
    except skyframe.FrameError as e:
        return e.error == error, e.error
    return False, "accepted"


def check_vectors(vectors):
    count = 0
    for folder, kind in KINDS.items():
        for path in sorted((vectors / folder).glob("*.json")):
            count += 1
            v = json.loads(path.read_text(encoding="utf-8"))
            raw = bytes.fromhex(v["hex"])
            label = f"{folder}/{path.name}"
            try:
                m = skyframe.decode(raw)
            except skyframe.FrameError as e:
                bad(f"{label}: refused ({e.error})")
                continue
            if m.kind != kind:
                bad(f"{label}: kind 0x{m.kind:02x}")
                continue
            got, want = canonical(m.mirror()), canonical(v["frame"])
            if got != want:
                diff = [k for k in v["frame"] if canonical(v["frame"][k])
                        != canonical(m.mirror().get(k, "<missing>"))]
                bad(f"{label}: mirror differs in {diff or 'its keys'}: "
                    f"{[(k, m.mirror().get(k), v['frame'][k]) for k in diff[:3]]}")
                continue
            if "content_check" in v and f"{skyframe.content_check(raw):08x}" != v["content_check"]:
                bad(f"{label}: content check {skyframe.content_check(raw):08x}, "
                    f"vector {v['content_check']}")
                continue
            problems = []
            copies = [("a CRC bit flipped", bytes(raw[:-1]) + bytes([raw[-1] ^ 0x80]),
                       "crc_mismatch"),
                      ("one byte short", raw[:-1], "truncated"),
                      ("one byte more", raw + b"\0", "too_long"),
                      ("a wrong magic", b"sF" + raw[2:], "bad_magic")]
            wrong_kind = bytearray(raw)
            wrong_kind[2] = 0x02 if kind != 0x02 else 0x03
            copies.append(("kind byte 0x02 (resealed)", bytes(reseal(wrong_kind)),
                           "unsupported_version"))
            for what, data, error in copies:
                good, got_error = refused(data, error)
                if not good:
                    problems.append(f"{what}: {got_error}, not {error}")
            other = skyframe.KIND_TINY if kind != skyframe.KIND_TINY else skyframe.KIND_STANDARD
            good, got_error = refused(raw, "truncated" if len(raw) < skyframe.SIZES[other]
                                      else "too_long", other)
            if not good:
                problems.append(f"given to the {skyframe.KIND_NAMES[other]} decoder: {got_error}")
            if problems:
                bad(f"{label}: " + "; ".join(problems))
            else:
                ok(f"{label}: mirror equal, content check equal, 6 corrupted copies refused")
    if count == 0:
        bad(f"no golden vectors in {vectors}")
    return count


def check_layouts():
    for name, kind in (("frame-v1.json", skyframe.KIND_STANDARD),
                       ("frame-large.json", skyframe.KIND_LARGE),
                       ("frame-tiny.json", skyframe.KIND_TINY)):
        layout = json.loads((REPO / "schemas" / name).read_text(encoding="utf-8"))
        table = skyframe.LAYOUTS[kind]
        problems, seen = [], set()
        for f in layout["fields"]:
            n = f["name"]
            if n in ("magic", "version", "kind", "crc32") or n.startswith("reserved_"):
                continue
            seen.add(n)
            if n not in table:
                problems.append(f"{n} missing")
                continue
            o, t, count, num, den, sentinel, length = table[n]
            want_count, want_length = f["count"], f.get("length", 0)
            if f["type"] == "utf8" and "length" not in f:  # frame-v1.json: count is the bytes
                want_count, want_length = 1, f["count"]
            if f["type"] == "char":
                want_length = f["count"]
            if (o, t, count, sentinel, length) != (f["offset"], TYPES[f["type"]], want_count,
                                                   f["sentinel"], want_length):
                problems.append(f"{n}: {(o, t, count, sentinel, length)}")
            if abs(num / den - f["scale"]) > 1e-12:
                problems.append(f"{n}: scale {num}/{den}, table {f['scale']}")
        extra = set(table) - seen
        if extra:
            problems.append(f"not in the table: {sorted(extra)}")
        order = [f["name"] for f in layout["fields"] if f["name"] in seen]
        if list(skyframe._ORDER[kind]) != order:
            problems.append("mirror order (_ORDER) is not the table's")
        if problems:
            bad(f"{name}: " + "; ".join(problems))
        else:
            ok(f"{name}: all {len(seen)} fields equal to the module's table")


def check_requests(vectors):
    rebuilt = 0
    for path in sorted((vectors / "requests").glob("*.json")):
        v = json.loads(path.read_text(encoding="utf-8"))
        raw = bytes.fromhex(v["hex"])
        e = v.get("expect")
        if len(raw) != 64 or raw[:2] != b"SQ" or not e or "error" in v or "locations" not in e:
            continue
        check = int(e["checks"][0], 16) if e.get("checks") else None
        if e["refresh"]:
            r = skyframe.request_refresh(e["id"], e["profile"], check)
        elif "latitude" in e["locations"][0]:
            loc = e["locations"][0]
            r = skyframe.request_coordinates(round(loc["latitude"] * 100000),
                                             round(loc["longitude"] * 100000), e["id"],
                                             e["profile"], check)
        else:
            loc = e["locations"][0]
            r = skyframe.request_place(loc["name"], loc["country"], e["id"], e["profile"], check)
        rebuilt += 1
        if bytes(r) == raw:
            ok(f"requests/{path.name}: rebuilt byte for byte")
        else:
            bad(f"requests/{path.name}: {bytes(r).hex()} != {v['hex']}")
    if rebuilt == 0:
        bad("no binary request vectors rebuilt")
    into = bytearray(64)
    if skyframe.request_refresh(77, out=into) is into and into[4] == 77:
        ok("request_refresh(out=...) writes into the caller's buffer")
    else:
        bad("request_refresh(out=...) did not write into the caller's buffer")
    for args, kwargs, want in (
            (("Berlin,DE",), {"request_id": 42, "profile": "large"}, "#42 ~large Berlin,DE"),
            (("52.52,13.405",), {"profile": "tiny"}, "~tiny 52.52,13.405"),
            (("refresh",), {"profile": "tiny", "checks": [0x0c1f22aa]}, "~tiny ~check=0c1f22aa refresh"),
            ((["Oslo", "Bergen"],), {"checks": [None, 0x9f3a0c11]}, "~check=-,9f3a0c11 Oslo;Bergen")):
        got = skyframe.request_text(*args, **kwargs)
        if got == want:
            ok(f"request_text gives {want!r} (request-v1.md 2.4)")
        else:
            bad(f"request_text gives {got!r}, not {want!r}")


def read_text(raw, field):
    """text(FIELD) of the message RAW and its mirror's FIELD, or the exception decoding raised."""
    try:
        m = skyframe.decode(raw)
        mirrored = m.mirror()[field]
        return m.text(field), mirrored[0] if isinstance(mirrored, list) else mirrored
    except Exception as error:  # noqa: BLE001 - any exception is the failure being looked for
        return f"{type(error).__name__}: {error}", None


def check_invalid_utf8(vectors):
    sources = {"name": json.loads((vectors / "frames" / "01-ok-berlin.json").read_text())["hex"],
               "alert_event": json.loads((vectors / "large" / "05-ok-garmisch-alerts-german.json")
                                         .read_text())["hex"]}
    for label, field, data in utf8_cases.CASES:
        raw = utf8_cases.message(sources[field], field, data)
        want = utf8_cases.expected(data)
        got, mirrored = read_text(raw, field)
        if got == want and mirrored == want:
            ok(f"{field} with {label}: text() and mirror() give {want!r}")
        else:
            bad(f"{field} with {label}: text() {got!r}, mirror() {mirrored!r}, not {want!r}")
    rng = random.Random(61)  # frame-v1.md 6.1; fixed, so a failure repeats
    differ = []
    for _ in range(3000):
        data = bytes(rng.choice((rng.randrange(1, 128), rng.randrange(128, 256)))
                     for _ in range(rng.randrange(1, 25)))
        raw = utf8_cases.message(sources["name"], "name", data)
        got, _ = read_text(raw, "name")
        if got != utf8_cases.expected(data):
            differ.append(data)
    if differ:
        bad(f"{len(differ)} of 3,000 random names read otherwise than "
            f"decode('utf-8', 'replace'), e.g. {differ[0]!r}")
    else:
        ok("3,000 random names (half their bytes 0x80-0xFF) read as decode('utf-8', 'replace')")


def main():
    vectors = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "schemas" / "vectors"
    check_vectors(vectors)
    check_layouts()
    check_requests(vectors)
    check_invalid_utf8(vectors)
    print(f"micropython-cpython: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
