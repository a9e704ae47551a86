#!/usr/bin/env python3
"""The library holds no copy of the decoder: it links to firmware-notes/skyframe_frame.h, and its
release zip carries the very bytes of that file.

    check_copies.py LIBRARY_ZIP

Checks, one ok/FAIL line each, last line "copies: N passed, M failed":
  - every link of the library folder, and where it must point: src/skyframe_frame.h to
    firmware-notes/skyframe_frame.h, examples/ESP32Display/show_frame.c/.h to
    firmware-notes/examples/show/ (a link replaced by a file, or pointing elsewhere, fails);
  - every file of LIBRARY_ZIP (package.py's) equal, byte for byte, to the library file it was
    made from, links followed, and the zip's header equal to firmware-notes/skyframe_frame.h;
  - no file git tracks, besides firmware-notes/skyframe_frame.h itself, has the header's content
    (a committed copy would drift the day the header changes).
"""

import subprocess
import sys
import zipfile
from pathlib import Path

LIBRARY = Path(__file__).resolve().parent.parent
NOTES = LIBRARY.parent
REPO = NOTES.parent
HEADER = NOTES / "skyframe_frame.h"
LINKS = {
    "src/skyframe_frame.h": HEADER,
    "examples/ESP32Display/show_frame.c": NOTES / "examples/show/show_frame.c",
    "examples/ESP32Display/show_frame.h": NOTES / "examples/show/show_frame.h",
}

passed = failed = 0


def ok(text):
    global passed
    print(f"ok   {text}")
    passed += 1


def bad(text):
    global failed
    print(f"FAIL {text}")
    failed += 1


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for inside, target in LINKS.items():
        path = LIBRARY / inside
        if not path.is_symlink():
            bad(f"{inside} is not a link to {target.relative_to(REPO)} (a copy would drift)")
        elif path.resolve() != target.resolve():
            bad(f"{inside} points to {path.resolve()}, not {target}")
        else:
            ok(f"{inside} -> {target.relative_to(REPO)}")
    others = [p for p in LIBRARY.rglob("*") if p.is_symlink()
              and p.relative_to(LIBRARY).as_posix() not in LINKS]
    if others:
        bad(f"links this check does not know: {[str(p.relative_to(LIBRARY)) for p in others]}")

    with zipfile.ZipFile(sys.argv[1]) as z:
        names = [n for n in z.namelist() if not n.endswith("/")]
        differ = []
        for name in names:
            source = LIBRARY / name.split("/", 1)[1]
            if not source.exists() or z.read(name) != source.read_bytes():
                differ.append(name)
        if differ or not names:
            bad(f"zip files that are not their library file: {differ or 'the zip is empty'}")
        else:
            ok(f"all {len(names)} files of the zip equal their library files")
        if z.read("Skyframe/src/skyframe_frame.h") == HEADER.read_bytes():
            ok("the zip's src/skyframe_frame.h is firmware-notes/skyframe_frame.h, byte for byte")
        else:
            bad("the zip's src/skyframe_frame.h differs from firmware-notes/skyframe_frame.h")

    blob = subprocess.run(["git", "-C", str(REPO), "hash-object", str(HEADER)], text=True,
                          capture_output=True, check=True).stdout.strip()
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-s"], text=True,
                            capture_output=True, check=True).stdout.splitlines()
    copies = [line.split("\t", 1)[1] for line in listed
              if line.split()[1] == blob
              and line.split("\t", 1)[1] != "firmware-notes/skyframe_frame.h"]
    if copies:
        bad(f"tracked copies of the header: {copies}")
    elif not listed:
        bad("git lists no files here")
    else:
        ok(f"no other tracked file has the header's content ({len(listed)} files looked at)")
    print(f"copies: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
