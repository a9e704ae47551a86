"""Pins the virtual display's pictures to something other than themselves (test.sh runs it on the
golden pictures berlin.png, berlin-large.png and berlin-tiny.png and on the ones it draws anew).

The golden pictures are the program's own output: compared byte by byte with a new drawing they
only say that nothing changed, and `VD_WRITE_PICTURES=1 test.sh` rewrites them after any change,
a broken one too. This check does not read the drawing code. For each picture it names texts
that must be on it, made here from the golden vector's own values (the place and country, the
temperature with one decimal, the local date and time of fetched_at, humidity), and the place,
the scale and the colour (ink on paper, or paper on an ink bar) of each. It draws each text with
the 5 x 8 font table of Sources/CSkyframeRender/render.c (the font's data, read from the C
source; not the code that draws with it) and its own loop: every pixel of every character
cell (6 x 8, the sixth column the gap; the gap after the last character is not checked) scaled
by the text's scale must equal the picture's. A drawing change that moves, scales, inverts,
reformats or garbles one of these texts fails; so does a picture of another size.

  picture_check.py NAME PICTURE [NAME PICTURE ...]    NAME: standard2 (berlin.png: --scale 2),
                                                      large, tiny
  picture_check.py --find PICTURE TEXT                 where TEXT is drawn (to pin a new text)

One line "ok   ..." or "FAIL ..." per text; exit status 1 on any failure.
"""

import datetime
import json
import re
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
VECTORS = REPO / "schemas" / "vectors"


def font():
    """char -> 8 row bytes (bit 4 the leftmost pixel), from render.c's FONT table: ASCII 32-126
    in order, then the degree sign."""
    source = (REPO / "Sources" / "CSkyframeRender" / "render.c").read_text(encoding="utf-8")
    table = source[source.index("static const unsigned char FONT[GLYPH_COUNT][8] = {"):]
    table = table[:table.index("};")]
    rows = [[int(b, 16) for b in re.findall(r"0x([0-9A-Fa-f]{2})", m)]
            for m in re.findall(r"\{(0x[^}]*)\}", table)]
    glyphs = {chr(32 + i): rows[i] for i in range(95)}
    glyphs["\u00b0"] = rows[95]
    return glyphs


def pixels(path):
    """(width, height, rows of 0/1 with 1 = ink) of a 1-bit PNG or a PBM."""
    data = Path(path).read_bytes()
    if data.startswith(b"P4\n"):
        _, size, body = data.split(b"\n", 2)
        w, h = map(int, size.split())
        stride = (w + 7) // 8
        return w, h, [[(body[y * stride + x // 8] >> (7 - x % 8)) & 1 for x in range(w)]
                      for y in range(h)]
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError("%s: neither PNG nor PBM" % path)
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h = int.from_bytes(body[0:4], "big"), int.from_bytes(body[4:8], "big")
            if body[8:13] != bytes([1, 0, 0, 0, 0]):
                raise ValueError("%s: not 1-bit greyscale, no filter, no interlace" % path)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = (w + 7) // 8 + 1
    rows = []
    for y in range(h):
        line = raw[y * stride:(y + 1) * stride]
        if line[0] != 0:
            raise ValueError("%s: filter type %d" % (path, line[0]))
        rows.append([1 - ((line[1 + x // 8] >> (7 - x % 8)) & 1) for x in range(w)])  # 0 = black
    return w, h, rows


def wrong_pixels(picture, glyphs, text, x0, y0, scale, ink, first=False):
    """How many pixels of TEXT drawn at (x0, y0) differ from the picture (None: off the picture
    or a character the font lacks)."""
    w, h, rows = picture
    wrong = 0
    for i, char in enumerate(text):
        if char not in glyphs:
            return None
        columns = 6 if i < len(text) - 1 else 5
        for row in range(8):
            for col in range(columns):
                want = ink if glyphs[char][row] & (0x10 >> col) else 1 - ink
                for dy in range(scale):
                    for dx in range(scale):
                        x, y = x0 + (i * 6 + col) * scale + dx, y0 + row * scale + dy
                        if not (0 <= x < w and 0 <= y < h):
                            return None
                        if rows[y][x] != want:
                            wrong += 1
                            if first:
                                return wrong
    return wrong


def local(vector, offset_key, when_key="fetched_at"):
    frame = vector["frame"]
    offset = frame[offset_key]  # utc_offset_min: minutes, one key in every profile
    return datetime.datetime.fromtimestamp(frame[when_key], datetime.timezone.utc) + \
        datetime.timedelta(minutes=offset)


def day_month_time(when):
    return "%s %d %s %s" % (when.strftime("%a"), when.day, when.strftime("%b"),
                            when.strftime("%H:%M"))


def expectations(name):
    """(picture width, height, [(what, text, x, y, scale, ink)]) for a picture NAME. The texts
    come from the golden vector; the places, scales and colours are this file's."""
    if name == "standard2":  # berlin.png: golden vector 20 drawn with --scale 2
        v = json.loads((VECTORS / "frames" / "20-ok-v1-1-berlin-all-fields.json").read_text())
        f = v["frame"]
        return 592, 256, [
            ("place in the title bar", "%s, %s" % (f["name"], f["country"]), 6, 4, 2, 0),
            ("local date and time of fetched_at in the title bar",
             day_month_time(local(v, "utc_offset_min")), 408, 4, 2, 0),
            ("temperature", "%.1f\u00b0C" % f["temperature"], 88, 28, 4, 1),
            ("humidity", "Humidity %d%%" % f["humidity"], 304, 46, 2, 1),
        ]
    if name == "large":
        v = json.loads((VECTORS / "large" / "01-ok-berlin-48h.json").read_text())
        f = v["frame"]
        return 800, 480, [
            ("place in the title bar", "%s, %s" % (f["name"], f["country"]), 6, 4, 2, 0),
            ("local date and time of fetched_at in the title bar",
             day_month_time(local(v, "utc_offset_min")), 604, 4, 2, 0),
            ("temperature", "%.1f\u00b0C" % f["temperature"], 110, 34, 4, 1),
            ("humidity", "%d%%" % f["humidity"], 8, 214, 2, 1),
            ("pressure", "%d hPa" % round(f["pressure"]), 8, 248, 2, 1),
        ]
    if name == "tiny":
        v = json.loads((VECTORS / "tiny" / "01-ok-berlin.json").read_text())
        f = v["frame"]
        return 128, 64, [
            ("temperature", "%.1f" % f["temperature"], 27, 0, 2, 1),
            ("local time of fetched_at", local(v, "utc_offset_min").strftime("%H:%M"),
             99, 28, 1, 1),
        ]
    raise ValueError("unknown picture name %r (standard2, large, tiny)" % name)


def check(name, path, glyphs):
    width, height, texts = expectations(name)
    picture = pixels(path)
    ok = True
    if picture[:2] != (width, height):
        print("FAIL %s: %dx%d, want %dx%d" % (path, picture[0], picture[1], width, height))
        return False
    for what, text, x, y, scale, ink in texts:
        wrong = wrong_pixels(picture, glyphs, text, x, y, scale, ink)
        colour = "ink" if ink else "paper on ink"
        if wrong == 0:
            print("ok   %s: %s %r at (%d, %d), scale %d, %s" % (
                Path(path).name, what, text, x, y, scale, colour))
        else:
            ok = False
            print("FAIL %s: %s %r at (%d, %d), scale %d, %s: %s" % (
                Path(path).name, what, text, x, y, scale, colour,
                "off the picture" if wrong is None else "%d pixels differ" % wrong))
    return ok


def find(path, text, glyphs):
    picture = pixels(path)
    w, h, _ = picture
    for scale in range(1, 8):
        for ink in (1, 0):
            for y in range(h):
                for x in range(w):
                    if wrong_pixels(picture, glyphs, text, x, y, scale, ink, first=True) == 0:
                        print("%r at (%d, %d), scale %d, ink %d" % (text, x, y, scale, ink))


def main(argv):
    glyphs = font()
    if len(glyphs) != 96 or any(len(rows) != 8 for rows in glyphs.values()):
        print("FAIL render.c's FONT table could not be read")
        return 1
    if argv[:1] == ["--find"] and len(argv) == 3:
        find(argv[1], argv[2], glyphs)
        return 0
    if not argv or len(argv) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    ok = True
    for name, path in zip(argv[0::2], argv[1::2]):
        try:
            ok = check(name, path, glyphs) and ok
        except (OSError, ValueError, KeyError, zlib.error) as error:
            print("FAIL %s: %s" % (path, error))
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
