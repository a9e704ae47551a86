#!/usr/bin/env python3
"""The examples the Arduino IDE lists for a board of one architecture.

    examples_for.py LIBRARIES_DIR ARCH      e.g. examples_for.py sketchbook/libraries avr

The IDE's File > Examples menu lists every example of every installed library that declares the
board's architecture compatible (library.properties' architectures: "*" or a list naming it); it
cannot hide one example of a library, so an example that cannot build for a board must live in a
library that does not claim that board. Prints one line per listed example, "LIBRARY_FOLDER
SKETCH_PATH" (every examples/**/NAME/NAME.ino), sorted; a library without library.properties is
taken as compatible with every architecture (as the IDE takes a 1.0 library).
"""

import sys
from pathlib import Path


def architectures(library):
    path = library / "library.properties"
    if not path.is_file():
        return ["*"]
    for line in path.read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "architectures":
            return [a.strip() for a in value.split(",") if a.strip()] or ["*"]
    return ["*"]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    libraries, arch = Path(sys.argv[1]), sys.argv[2]
    for library in sorted(p for p in libraries.iterdir() if p.is_dir()):
        archs = architectures(library)
        if "*" not in archs and arch not in archs:
            continue
        for sketch in sorted((library / "examples").rglob("*.ino")):
            if sketch.stem == sketch.parent.name:
                print(library.name, sketch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
