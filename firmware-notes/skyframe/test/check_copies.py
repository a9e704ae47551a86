#!/usr/bin/env python3
"""The library holds real files, its copies agree with their one source, and every archive made of
it carries those files.

    check_copies.py ZIP... [--pio PIO_TARBALL] [--idf IDF_TARBALL]

ZIP: package.py's zips, skyframe's first (each unpacks to its library's folder);
PIO_TARBALL what `pio pkg pack` makes of firmware-notes/skyframe; IDF_TARBALL what `compote
component pack` makes of it. Checks, one ok/FAIL line each, last line
"copies: N passed, M failed":
  - no link anywhere in the library folders (skyframe, skyframe-esp32), and none that git tracks
    under firmware-notes/ (a link to ../../ breaks when a folder is copied into a sketchbook or
    packed);
  - every file sync.py makes (the header's copy in skyframe/src/, show_frame.c/.h in
    skyframe-esp32/src/) equal to what its source gives (sync.py --check), and sync.py --check failing on a copy
    changed by one byte (so a check that passes everything fails here);
  - every archive: no link and no device or other special member, every member that is a file in
    the library a regular file with the library file's bytes, every file sync.py makes present
    (compote writes its own idf_component.yml into its archive: that one is not compared);
  - the zip unpacks to skyframe/, the ESP-IDF component's name (ESP-IDF takes it from the folder)
    that `REQUIRES skyframe` in the docs asks for;
  - no file git tracks, besides firmware-notes/skyframe_frame.h and the copies sync.py makes, has
    the header's content (a copy that no script keeps would drift the day the header changes).
"""

import argparse
import importlib.util
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

LIBRARY = Path(__file__).resolve().parent.parent
NOTES = LIBRARY.parent
LIBRARIES = {p.name: p for p in (LIBRARY, NOTES / "skyframe-esp32")}
REPO = NOTES.parent
HEADER = NOTES / "skyframe_frame.h"
COMPONENT = "skyframe"  # the ESP-IDF component's name (docs/devices/libraries.md, REQUIRES)

passed = failed = 0


def ok(text):
    global passed
    print(f"ok   {text}")
    passed += 1


def bad(text):
    global failed
    print(f"FAIL {text}")
    failed += 1


def load_sync():
    spec = importlib.util.spec_from_file_location("sync", LIBRARY / "sync.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def library_relative(made):
    """A made file's path inside firmware-notes/ (its library folder, then the path in it)."""
    return (REPO / made).relative_to(NOTES).as_posix()


def made_in(library, sync):
    """The made files of one library, as paths inside it."""
    return [(REPO / t).relative_to(library).as_posix() for t, _, _ in sync.made_files()
            if (REPO / t).is_relative_to(library)]


def check_links():
    links = sorted(p.relative_to(NOTES).as_posix() for library in LIBRARIES.values()
                   for p in library.rglob("*") if p.is_symlink())
    if links:
        bad(f"links in the library folders: {links}")
    else:
        ok(f"no link in the library folders ({', '.join(LIBRARIES)})")
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-s", "firmware-notes"],
                            text=True, capture_output=True, check=True).stdout.splitlines()
    tracked = [line.split("\t", 1)[1] for line in listed if line.startswith("120000 ")]
    if tracked:
        bad(f"git tracks links under firmware-notes/: {tracked}")
    elif not listed:
        bad("git lists no files under firmware-notes/")
    else:
        ok(f"git tracks no link under firmware-notes/ ({len(listed)} files)")


def check_made(sync):
    problems = sync.differences(REPO)
    if problems:
        bad("made files that differ from their source (run sync.py): " + "; ".join(problems))
    else:
        ok(f"the {len(sync.made_files())} files sync.py makes equal their sources: "
           + ", ".join(library_relative(t) for t, _, _ in sync.made_files()))
    # The same comparison on a copy where one made file has one byte changed must object.
    target = sync.made_files()[0][0]
    with tempfile.TemporaryDirectory() as tmp:
        for made, source, _ in sync.made_files():
            for name in (made, source):
                (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(REPO / name, Path(tmp) / name)
        spoiled = bytearray((Path(tmp) / target).read_bytes())
        spoiled[len(spoiled) // 2] ^= 0x01
        (Path(tmp) / target).write_bytes(bytes(spoiled))
        found = sync.differences(Path(tmp))
    if any(p.startswith(target) for p in found):
        ok(f"a copy of {library_relative(target)} with one byte changed is found out")
    else:
        bad(f"a copy of {library_relative(target)} with one byte changed passed sync.py's check")


def members(path):
    """(name inside the library, kind, bytes or None) of every member of a zip or tarball; kind
    is "file", "dir", "link" or "other". A zip (package.py's) holds one top folder, the library
    folder, which is dropped from the names; a tarball holds the folder's content ("./" dropped)."""
    out = []
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            tops = {info.filename.split("/", 1)[0] for info in z.infolist()}
            if len(tops) != 1:
                return [(f"top folders {sorted(tops)}", "other", None)]
            for info in z.infolist():
                mode = info.external_attr >> 16
                if info.is_dir():
                    kind = "dir"
                elif (mode & 0o170000) == 0o120000:
                    kind = "link"
                elif (mode & 0o170000) not in (0, 0o100000):
                    kind = "other"
                else:
                    kind = "file"
                name = info.filename.rstrip("/").split("/", 1)[1:]
                if name:
                    out.append((name[0], kind, z.read(info) if kind == "file" else None))
    else:
        with tarfile.open(path) as t:
            for info in t.getmembers():
                kind = ("file" if info.isreg() else "dir" if info.isdir() else
                        "link" if info.issym() or info.islnk() else "other")
                name = info.name[2:] if info.name.startswith("./") else info.name
                if name not in ("", "."):
                    out.append((name.rstrip("/"), kind,
                                t.extractfile(info).read() if kind == "file" else None))
    return out


def check_archive(label, path, library, made, not_compared=()):
    found = members(path)
    if not found:
        bad(f"{label}: {path.name} is empty")
        return
    problems = []
    for name, kind, data in found:
        source = library / name
        if kind in ("link", "other"):
            problems.append(f"{name} is a {kind}, not a file")
        elif kind == "dir":
            if not source.is_dir():
                problems.append(f"{name} is a folder entry, the library has no such folder")
        elif not source.is_file():
            problems.append(f"{name} is not a file of the library")
        elif name not in not_compared and data != source.read_bytes():
            problems.append(f"{name} differs from the library's file")
    files = {name for name, kind, _ in found if kind == "file"}
    missing = [m for m in made if m not in files]
    if missing:
        problems.append(f"made files missing: {missing}")
    if problems:
        bad(f"{label} {path.name}: " + "; ".join(problems))
    else:
        ok(f"{label} {path.name}: {len(files)} regular files, each the library's file byte for "
           f"byte{' (but ' + ', '.join(not_compared) + ')' if not_compared else ''}, "
           f"{len(made)} made files among them, no link")


def zip_folder(path):
    """The one folder a zip unpacks to, or None."""
    with zipfile.ZipFile(path) as z:
        tops = sorted({name.split("/", 1)[0] for name in z.namelist()})
    return tops[0] if len(tops) == 1 else None


def check_folder_name(path):
    """ESP-IDF names a component after its folder, so the folder the zip unpacks to is the name a
    project's REQUIRES must give; it is the name the docs give (`REQUIRES skyframe`), the name
    the component is packed under (compote --name skyframe) and the library folder's own."""
    with zipfile.ZipFile(path) as z:
        tops = sorted({name.split("/", 1)[0] for name in z.namelist()})
    if tops == [COMPONENT] and LIBRARY.name == COMPONENT:
        ok(f"the zip unpacks to {COMPONENT}/: in a project's components/ it is the component "
           f"`REQUIRES {COMPONENT}` names, as the library folder is")
    else:
        bad(f"the zip unpacks to {tops}, the library folder is {LIBRARY.name}/: ESP-IDF names a "
            f"component after its folder, and the docs say `REQUIRES {COMPONENT}`")


def check_no_stray_copies(sync):
    blob = subprocess.run(["git", "-C", str(REPO), "hash-object", str(HEADER)], text=True,
                          capture_output=True, check=True).stdout.strip()
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-s"], text=True,
                            capture_output=True, check=True).stdout.splitlines()
    allowed = {"firmware-notes/skyframe_frame.h"} | {t for t, _, _ in sync.made_files()}
    copies = [line.split("\t", 1)[1] for line in listed
              if line.split()[1] == blob and line.split("\t", 1)[1] not in allowed]
    if copies:
        bad(f"tracked copies of the header that sync.py does not make: {copies}")
    elif not listed:
        bad("git lists no files here")
    else:
        ok(f"no tracked file but the header and sync.py's copies has its content "
           f"({len(listed)} files looked at)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("zips", type=Path, nargs="+")
    parser.add_argument("--pio", type=Path)
    parser.add_argument("--idf", type=Path)
    args = parser.parse_args()
    sync = load_sync()
    check_links()
    check_made(sync)
    for path in args.zips:
        folder = zip_folder(path)
        if folder not in LIBRARIES:
            bad(f"{path.name} does not unpack to one library folder ({folder})")
            continue
        check_archive("package.py's zip", path, LIBRARIES[folder],
                      made_in(LIBRARIES[folder], sync))
    check_folder_name(args.zips[0])
    if sorted(zip_folder(p) for p in args.zips) != sorted(LIBRARIES):
        bad(f"the zips unpack to {[zip_folder(p) for p in args.zips]}, not one per library "
            f"folder {sorted(LIBRARIES)}")
    made = made_in(LIBRARY, sync)
    if args.pio:
        check_archive("pio pkg pack", args.pio, LIBRARY, made)
    if args.idf:
        # The component manager leaves out what idf_component.yml's files.exclude names (examples)
        # and writes its own idf_component.yml.
        check_archive("compote component pack", args.idf, LIBRARY,
                      [m for m in made if not m.startswith("examples/")], ("idf_component.yml",))
    check_no_stray_copies(sync)
    print(f"copies: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
