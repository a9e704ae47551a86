#!/usr/bin/env python3
"""Makes the release archives of the Skyframe libraries, one zip per library folder:

  skyframe/        an Arduino library (the Arduino IDE's "Add .ZIP Library", arduino-cli lib
                   install --zip-path), a PlatformIO library (lib_deps = file://...zip) and an
                   ESP-IDF component (unzipped into a project's components/): the decoder;
  skyframe-esp32/  an Arduino library for the esp32 architecture only: show_frame() and the
                   ESP32Display and ESP32HTTPDisplay examples, apart so that an Uno's Examples
                   menu does not list them.

    firmware-notes/skyframe/package.py OUT_DIR   -> OUT_DIR/skyframe-VERSION.zip
                                                    OUT_DIR/skyframe-esp32-VERSION.zip

Each zip unpacks to one folder named as the library folder is. ESP-IDF names a component after
its folder, so skyframe/ unpacked into a project's components/ is the component `skyframe` that a
CMakeLists.txt's REQUIRES names. (The Arduino IDE and PlatformIO show a library under the name
its library.properties or library.json gives, Skyframe, whatever its folder.)

A library folder holds real files only (sync.py makes the copies of the decoder's one source,
firmware-notes/skyframe_frame.h, and of show_frame.c/.h); a link in it is refused here, since
neither a zip nor a sketchbook it is copied into can carry it. The folder test/ (this
repository's checks) and the two scripts package.py and sync.py are left out. VERSION is the
library.properties' version. Prints each archive's path, skyframe's first.
"""

import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIBRARIES = (HERE, HERE.parent / "skyframe-esp32")
LEAVE_OUT = {"test", "package.py", "sync.py"}


def version(library):
    for line in (library / "library.properties").read_text(encoding="utf-8").splitlines():
        if line.startswith("version="):
            return line.split("=", 1)[1].strip()
    sys.exit(f"package.py: {library.name}/library.properties has no version")


def files(library):
    """(path inside the library, path on disk) of every file, sorted."""
    found = []
    for path in sorted(library.rglob("*")):
        relative = path.relative_to(library)
        if relative.parts[0] in LEAVE_OUT or "__pycache__" in relative.parts:
            continue
        if path.is_symlink():
            sys.exit(f"package.py: {library.name}/{relative} is a link: a library holds real "
                     "files (sync.py)")
        if path.is_dir():
            continue
        found.append((relative.as_posix(), path))
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    for library in LIBRARIES:
        folder = library.name
        archive = out_dir / f"{folder}-{version(library)}.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
            for inside, source in files(library):
                info = zipfile.ZipInfo(f"{folder}/{inside}", date_time=(2024, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, source.read_bytes())
        print(archive)


if __name__ == "__main__":
    main()
