#!/usr/bin/env python3
"""Writes the libraries' files that are made from another file of this repository, or checks them.

    firmware-notes/skyframe/sync.py            rewrite every made file from its source
    firmware-notes/skyframe/sync.py --check    write nothing; list the made files that differ from
                                               what their source gives, exit 1 if any does
    ... [--root DIR]                           DIR holds firmware-notes/ (default: this repository)

The libraries are firmware-notes/skyframe (the decoder: Arduino, PlatformIO, ESP-IDF) and
firmware-notes/skyframe-esp32 (Arduino on the ESP32: show_frame() and the ESP32Display example).
A library folder must hold real files: it is copied into a sketchbook, zipped, packed by
PlatformIO and by the ESP-IDF component manager, and a link to ../../ breaks in every one of them.
So the decoder keeps one source, firmware-notes/skyframe_frame.h, and the library carries a copy
of it that this script makes (the ESP32 library's show_frame.c/.h likewise, from
firmware-notes/examples/show/, which the ESP-IDF example uses in place). Each library's
keywords.txt is made from its header's declarations the same way. Change the source, run this script, commit both; the library's
test (test/run.sh, through test/check_copies.py) runs --check and fails on a copy that drifted.
"""

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def made_files():
    """(made file, source, how the source becomes it), paths relative to the repository."""
    return [
        ("firmware-notes/skyframe/src/skyframe_frame.h", "firmware-notes/skyframe_frame.h", copy),
        ("firmware-notes/skyframe/keywords.txt", "firmware-notes/skyframe_frame.h", keywords),
        ("firmware-notes/skyframe-esp32/keywords.txt", "firmware-notes/examples/show/show_frame.h",
         keywords),
        ("firmware-notes/skyframe-esp32/src/show_frame.c",
         "firmware-notes/examples/show/show_frame.c", copy),
        ("firmware-notes/skyframe-esp32/src/show_frame.h",
         "firmware-notes/examples/show/show_frame.h", copy),
    ]


def copy(source_bytes):
    return source_bytes


def keywords(header_bytes):
    """keywords.txt (the Arduino IDE's syntax colouring, library specification 1.5) of a header's
    public part (what comes before its implementation): its struct types as KEYWORD1, its
    functions and function-like macros as KEYWORD2, its other macros as LITERAL1; one
    "name<TAB>TYPE" line each. Include guards (NAME_H) and the header's private macros (*_DONE)
    are left out; SKYFRAME_FRAME_IMPLEMENTATION, the macro a program defines, is in."""
    text = header_bytes.decode("utf-8").split("#ifdef SKYFRAME_FRAME_IMPLEMENTATION", 1)[0]
    found = {}
    for name in re.findall(r"^}\s*(\w+);", text, re.M):
        found[name] = "KEYWORD1"
    for name in re.findall(r"^(?:const\s+)?\w+\s*\*?\s*(\w+)\s*\(", text, re.M):
        found.setdefault(name, "KEYWORD2")
    for name, arguments in re.findall(r"^#\s*define\s+(\w+)(\()?", text, re.M):
        if not (name.endswith("_H") or name.endswith("_DONE")):
            found.setdefault(name, "KEYWORD2" if arguments else "LITERAL1")
    if "SKYFRAME_FRAME_IMPLEMENTATION" in text:
        found.setdefault("SKYFRAME_FRAME_IMPLEMENTATION", "LITERAL1")
    order = {"KEYWORD1": 0, "KEYWORD2": 1, "LITERAL1": 2}
    lines = ["# Syntax colouring for the Arduino IDE. Made by firmware-notes/skyframe/sync.py from",
             "# the header's declarations: do not edit, run sync.py."]
    for name, kind in sorted(found.items(), key=lambda item: (order[item[1]], item[0])):
        lines.append(f"{name}\t{kind}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def expected(root):
    """(made file, its expected bytes or None when its source is missing) for every made file."""
    out = []
    for target, source, make in made_files():
        path = root / source
        out.append((target, make(path.read_bytes()) if path.is_file() else None))
    return out


def differences(root):
    """The made files that are not what their source gives, each with why."""
    problems = []
    for target, want in expected(root):
        path = root / target
        if want is None:
            problems.append(f"{target}: its source is missing")
        elif path.is_symlink():
            problems.append(f"{target}: a link, not a file")
        elif not path.is_file():
            problems.append(f"{target}: missing")
        elif path.read_bytes() != want:
            problems.append(f"{target}: differs from what its source gives")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only, write nothing")
    parser.add_argument("--root", type=Path, default=REPO)
    args = parser.parse_args()
    root = args.root.resolve()
    if args.check:
        problems = differences(root)
        for problem in problems:
            print(f"differs: {problem}")
        if problems:
            print("run firmware-notes/skyframe/sync.py to rewrite them")
            return 1
        print(f"all {len(made_files())} made files equal what their sources give")
        return 0
    for target, want in expected(root):
        if want is None:
            sys.exit(f"sync.py: the source of {target} is missing")
        path = root / target
        if path.is_symlink() or not path.is_file() or path.read_bytes() != want:
            if path.is_symlink():
                path.unlink()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(want)
            print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
