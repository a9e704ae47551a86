#!/usr/bin/env python3
"""Self-check of chromium.py on a tiny page that `python3 -m http.server` serves on 127.0.0.1.

Checks: an inline (data:) PNG and a served PNG load (naturalWidth > 0; a missing one is
"complete" but 0 wide), a text, a JSON value, a JavaScript error, wait_for an element that a
timer adds and its timeout, a full-page screenshot (taller than the viewport; its pixels
decoded: white at the top, the red block at the bottom), localhost as well as 127.0.0.1, and
that nothing leaves loopback (an outside name and an outside address do not load); after
close, no process of the browser's group and no profile left. Prints "ok"/"FAIL" lines, the
times (start, start to the first result, screenshot, close) and, last,
"chromium: N passed, M failed"; the exit status is non-zero on any failure.

    python3 Tests/StatusPage/chromium_selfcheck.py [--keep-screenshot FILE]
"""

import argparse
import base64
import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import Chromium, JavaScriptError, NavigationError, WaitTimeout  # noqa: E402

VIEWPORT = (640, 480)
PAGE_HEIGHT = 1500  # taller than the viewport: the screenshot must hold all of it


def png_bytes(width, height, rgb):
    """A small truecolour PNG, every pixel rgb."""
    def chunk(kind, body):
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc
    row = b"\0" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(row * height)) + chunk(b"IEND", b""))


def png_pixels(data):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG (what Chromium writes)."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6) or body[12] != 0:
                raise ValueError("a PNG this check does not read")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, bpp = zlib.decompress(idat), 3 if colour == 2 else 4
    stride, prev, rows = width * bpp, bytearray(width * bpp), []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Skyframe self-check</title>
<style>body { margin: 0; background: #fff; font-family: "DejaVu Sans"; } p { margin: 0; }
#bottom { position: absolute; top: %(bottom_top)dpx; left: 0; width: 100%%; height: 60px;
          background: #f00; }</style></head>
<body style="height: %(height)dpx">
<p id="text">Skyframe status</p>
<img id="inline" src="data:image/png;base64,%(inline)s" alt="inline">
<img id="served" src="/pixel.png" alt="served">
<img id="missing" src="/missing.png" alt="missing">
<div id="bottom"></div>
<script>setTimeout(function () {
  var p = document.createElement("p"); p.id = "late"; p.textContent = "arrived";
  document.body.appendChild(p);
}, 300);</script>
</body></html>
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep-screenshot", metavar="FILE")
    args = parser.parse_args()
    passed, failed = [0], [0]

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        (passed if ok else failed)[0] += 1

    site = tempfile.mkdtemp(prefix="skyframe-selfcheck-")
    with open(os.path.join(site, "index.html"), "w") as f:
        f.write(PAGE % {"inline": base64.b64encode(png_bytes(3, 2, (0, 0, 255))).decode(),
                        "height": PAGE_HEIGHT, "bottom_top": PAGE_HEIGHT - 60})
    with open(os.path.join(site, "pixel.png"), "wb") as f:
        f.write(png_bytes(5, 4, (0, 128, 0)))
    server = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", site,
         "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    browser = None
    try:
        line = server.stdout.readline()  # "Serving HTTP on 127.0.0.1 port N (http://...) ..."
        port = int(line.split(" port ")[1].split()[0])
        url = "http://127.0.0.1:%d/" % port

        started = time.monotonic()
        browser = Chromium(timeout=20, viewport=VIEWPORT)
        browser.start()
        check(True, "started in %.2f s (pid %d)" % (browser.startup_seconds, browser.pid))
        browser.navigate(url)
        title = browser.evaluate("document.title")
        first_result = time.monotonic() - started
        check(title == "Skyframe self-check", "navigate and evaluate: title %r, %.2f s from start "
              "to the result" % (title, first_result))

        size = browser.evaluate("[document.getElementById('inline').naturalWidth, "
                                "document.getElementById('inline').naturalHeight]")
        check(size == [3, 2],
              "the inline data: PNG loaded: naturalWidth x naturalHeight %r" % (size,))
        served = browser.evaluate("document.getElementById('served').naturalWidth")
        check(served == 5, "the PNG from the server loaded: naturalWidth %r" % served)
        missing = browser.evaluate("[document.getElementById('missing').complete, "
                                   "document.getElementById('missing').naturalWidth]")
        check(missing == [True, 0],
              "a missing PNG: complete but naturalWidth 0 %r" % (missing,))
        text = browser.evaluate("document.getElementById('text').textContent")
        check(text == "Skyframe status", "a text: %r" % text)
        value = browser.evaluate("({a: [1, 'x', null], b: true, c: 0.5})")
        check(value == {"a": [1, "x", None], "b": True, "c": 0.5}, "a JSON value: %r" % (value,))
        check(browser.evaluate("undefined") is None and browser.evaluate("Promise.resolve(7)") == 7,
              "undefined is None, a promise is awaited")
        try:
            browser.evaluate("nosuchname.x")
            check(False, "a JavaScript error raises JavaScriptError")
        except JavaScriptError as error:
            check("ReferenceError" in str(error), "a JavaScript error raises JavaScriptError (%s)"
                  % str(error).splitlines()[0])

        browser.navigate(url)  # again, so that the timer's element is not there yet
        waited = time.monotonic()
        late = browser.wait_for("document.getElementById('late') && "
                                "document.getElementById('late').textContent", timeout=5)
        check(late == "arrived", "wait_for: %r after %.2f s (a 0.3 s timer)"
              % (late, time.monotonic() - waited))
        waited = time.monotonic()
        try:
            browser.wait_for("false", timeout=0.3)
            check(False, "wait_for a false expression raises WaitTimeout")
        except WaitTimeout:
            check(0.3 <= time.monotonic() - waited < 2, "wait_for a false expression raises "
                  "WaitTimeout after %.2f s" % (time.monotonic() - waited))

        shot_started = time.monotonic()
        shot = browser.screenshot(args.keep_screenshot)
        shot_seconds = time.monotonic() - shot_started
        width, height, rows = png_pixels(shot)
        page = browser.evaluate("[document.documentElement.scrollWidth, "
                                "document.documentElement.scrollHeight]")
        check((width, height) == (VIEWPORT[0], PAGE_HEIGHT) and page == [width, height],
              "full-page screenshot: %dx%d PNG of a %dx%d page (viewport %dx%d), %d bytes, %.2f s"
              % (width, height, page[0], page[1], VIEWPORT[0], VIEWPORT[1], len(shot),
                 shot_seconds))
        check(rows[height - 30][width // 2] == (255, 0, 0) and rows[height - 70][width // 2] ==
              (255, 255, 255), "the screenshot holds the red block at the page's bottom, below the "
              "viewport")
        dark = sum(1 for y in range(40) for x in range(200) if sum(rows[y][x]) < 300)
        check(dark > 30, "the screenshot shows the text at the top (%d dark pixels)" % dark)

        browser.navigate("http://localhost:%d/" % port)
        check(browser.evaluate("document.title") == "Skyframe self-check", "localhost loads too")
        for outside, what in (("http://example.com/", "an outside name"),
                              ("http://192.0.2.1/", "an outside address")):
            try:
                browser.navigate(outside, timeout=10)
                check(False, "%s does not load (%s)" % (what, outside))
            except NavigationError as error:
                check(True, "%s does not load: %s" % (what, error))
        reached = browser.evaluate(
            "fetch('http://example.com/').then(() => 'reached', e => 'refused: ' + e.message)")
        check(reached.startswith("refused"), "a page's fetch() of an outside name: %s" % reached)

        pid, profile_dir = browser.pid, browser._dir
        closing = time.monotonic()
        browser.close()
        closed = time.monotonic() - closing
        try:
            os.killpg(pid, 0)
            group_left = True
        except ProcessLookupError:
            group_left = False
        check(not group_left and not os.path.exists(profile_dir),
              "closed in %.2f s: no process of its group, no profile left" % closed)
        print("timing: start %.2f s, start to the first result %.2f s, screenshot %.2f s, "
              "close %.2f s" % (browser.startup_seconds, first_result, shot_seconds, closed))
    except Exception as error:  # a check that could not run
        check(False, "stopped early: %s: %s" % (type(error).__name__, error))
        if browser is not None and browser.log_tail():
            print("--- the browser's last lines\n" + browser.log_tail())
    finally:
        if browser is not None:
            browser.close()
        server.terminate()
        server.wait()
        for name in ("index.html", "pixel.png"):
            os.remove(os.path.join(site, name))
        os.rmdir(site)
    print("chromium: %d passed, %d failed" % (passed[0], failed[0]))
    return 1 if failed[0] else 0


if __name__ == "__main__":
    sys.exit(main())
