#!/usr/bin/env python3
"""Makes the release archive of the Skyframe library: one zip that is an Arduino library (the
Arduino IDE's "Add .ZIP Library", arduino-cli lib install --zip-path), a PlatformIO library
(lib_deps = file://...zip) and an ESP-IDF component (unzipped into a project's components/).

    firmware-notes/skyframe/package.py OUT_DIR        -> OUT_DIR/skyframe-VERSION.zip

The zip unpacks to one folder, skyframe/, named as the library folder is: ESP-IDF names a
component after its folder, so unpacked into a project's components/ it is the component
`skyframe` that a CMakeLists.txt's REQUIRES names. (The Arduino IDE and PlatformIO show the
library under the name library.properties and library.json give, Skyframe, whatever its folder.)

The library folder holds real files only (sync.py makes the copies of the decoder's one source,
firmware-notes/skyframe_frame.h); a link in it is refused here, since neither a zip nor a
sketchbook it is copied into can carry it. The folder test/ (this repository's checks) and the
two scripts package.py and sync.py are left out. VERSION is library.properties' version. Prints
the archive's path.
"""

import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FOLDER = HERE.name  # "skyframe": the ESP-IDF component's name
LEAVE_OUT = {"test", "package.py", "sync.py"}


def version():
    for line in (HERE / "library.properties").read_text(encoding="utf-8").splitlines():
        if line.startswith("version="):
            return line.split("=", 1)[1].strip()
    sys.exit("package.py: library.properties has no version")


def files():
    """(path inside the library, path on disk) of every file, sorted."""
    found = []
    for path in sorted(HERE.rglob("*")):
        relative = path.relative_to(HERE)
        if relative.parts[0] in LEAVE_OUT or "__pycache__" in relative.parts:
            continue
        if path.is_symlink():
            sys.exit(f"package.py: {relative} is a link: the library holds real files (sync.py)")
        if path.is_dir():
            continue
        found.append((relative.as_posix(), path))
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    archive = out_dir / f"{FOLDER}-{version()}.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for inside, source in files():
            info = zipfile.ZipInfo(f"{FOLDER}/{inside}", date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, source.read_bytes())
    print(archive)


if __name__ == "__main__":
    main()
