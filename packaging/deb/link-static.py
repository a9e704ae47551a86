#!/usr/bin/env python3
"""Links the release build's skyframe again with the Swift runtime linked in.

    packaging/deb/link-static.py SCRATCH      -> prints SCRATCH/release/skyframe-static

`swift build -c release --static-swift-stdlib` passes -static-stdlib to every Swift compile
as well as to the link, so it compiles every module again beside a plain release build, though
only the link and the libraries a Foundation import names differ: a static compile's object asks
for the static Foundation's own parts too (CoreFoundation, _FoundationICU, ...), the code is the
same. This runs SwiftPM's own link command for the skyframe product from the build's manifest
(SCRATCH/release.yaml) with -static-stdlib added, the $ORIGIN run path left out and one more
object: an empty file that imports Foundation, compiled with -static-stdlib, so that the
toolchain itself names the libraries its static Foundation needs. It writes skyframe-static
beside skyframe: the benchmarks' release build, `make run`'s and the package's share one compile.
"""

import json
import pathlib
import re
import subprocess
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    scratch = pathlib.Path(sys.argv[1]).resolve()
    manifest = scratch / "release.yaml"
    if not manifest.is_file():
        print(f"link-static.py: no {manifest}: build with swift build -c release first",
              file=sys.stderr)
        return 1
    text = manifest.read_text()
    # One command of the manifest: its key, then indented "name: value" lines.
    found = re.search(r'^  "C\.skyframe-[^"]*-release\.exe":\n((?:    .*\n)+)', text, re.M)
    if found is None:
        print(f"link-static.py: {manifest} has no link command for skyframe:"
              " build --product skyframe first", file=sys.stderr)
        return 1
    args_line = re.search(r"^    args: (\[.*\])$", found.group(1), re.M)
    if args_line is None:
        print(f"link-static.py: the skyframe link command in {manifest} has no args line",
              file=sys.stderr)
        return 1
    args = json.loads(args_line.group(1))

    linked = []
    output = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-Xlinker" and i + 1 < len(args) and args[i + 1].startswith("-rpath="):
            i += 2  # the $ORIGIN run path (what --disable-local-rpath leaves out)
            continue
        if arg == "-o":
            output = pathlib.Path(args[i + 1]).with_name("skyframe-static")
            linked += ["-o", str(output)]
            i += 2
            continue
        linked.append(arg)
        i += 1
    if output is None or "-emit-executable" not in linked:
        print("link-static.py: the skyframe link command has no -o or -emit-executable",
              file=sys.stderr)
        return 1
    if "-static-stdlib" not in linked:
        linked.insert(linked.index("-emit-executable"), "-static-stdlib")
    # The imports every static Swift build of the gateway links (the sources' and NIO's).
    stub_dir = output.with_name("skyframe-static.build")
    stub_dir.mkdir(exist_ok=True)
    stub = stub_dir / "imports.swift"
    stub.write_text("import Dispatch\nimport Foundation\nimport FoundationEssentials\n"
                    "import Synchronization\n")
    target = linked[linked.index("-target") + 1] if "-target" in linked else None
    subprocess.run([linked[0], "-static-stdlib", "-parse-as-library", "-c", str(stub),
                    "-o", str(stub_dir / "imports.o")]
                   + (["-target", target] if target else []), check=True)
    linked.insert(linked.index("-emit-executable") + 1, str(stub_dir / "imports.o"))
    subprocess.run(linked, check=True)
    print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
