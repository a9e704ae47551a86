#!/usr/bin/env python3
"""The library's three manifests against their specifications.

    check_manifests.py [LIBRARY_DIR [ESP32_LIBRARY_DIR]]
                          (default: firmware-notes/skyframe and firmware-notes/skyframe-esp32)

Run with a Python that has the PyPI packages `platformio` and `idf-component-manager`
(test/python-env.sh makes one): their own manifest readers are the reference for two of them.

  library.properties  Arduino library specification 1.5 (arduino.github.io/arduino-cli/latest/
                      library-specification): key=value lines in UTF-8; the fields name,
                      version, author, maintainer, sentence, paragraph, category, architectures
                      present (the specification lists url too, and the Library Manager's
                      indexer wants it; Skyframe has no public address yet, so it is left out
                      rather than invented, and checked only when given); depends a
                      comma-separated list of library names; name of letters, digits, spaces,
                      _ . - starting with a letter or digit, at most 63 characters; version in
                      semver (MAJOR.MINOR.PATCH); a category of the spec's list; url, when
                      given, http(s); architectures "*" or a
                      comma-separated list; every name in includes= a header of src/; the 1.5
                      layout (sources in src/, none at the root, no utility/ beside src/); every
                      example as examples/NAME/NAME.ino. PlatformIO's Arduino reader must read it.
  library.json        PlatformIO's own parser and schema (platformio.package.manifest), and the
                      fields PlatformIO's library manifest documents as required (name, version,
                      description, keywords, authors) plus frameworks and platforms; build.srcDir
                      and build.includeDir folders, every "headers" file, every example's files
                      exist.
  idf_component.yml   the ESP-IDF component manager's own validation (idf_component_tools'
                      ManifestManager in upload mode, as `compote component upload` checks), a
                      version and description present (url only when there is one);
                      CMakeLists.txt calls
                      idf_component_register with SRCS and INCLUDE_DIRS that exist.
  Skyframe ESP32      the second library (Arduino only): the Arduino 1.5 checks above and
                      PlatformIO's reader of its library.properties.
  addresses           every address a manifest gives (library.properties url, library.json
                      homepage and repository, idf_component.yml url and repository) is http(s)
                      and not on a name reserved never to resolve (RFC 2606 and 6761: .invalid,
                      .example, .test, .localhost, example.com/.net/.org): none at all rather
                      than a made-up one. library.json's license only with a LICENSE file.
  README, keywords    each library folder has a README.md and a keywords.txt of
                      "name<TAB>KEYWORD1|KEYWORD2|KEYWORD3|LITERAL1|LITERAL2" lines (library
                      specification 1.5; sync.py makes them from the headers, check_copies.py
                      compares), each name declared in the library's src/.
  the versions        one version for the device libraries: equal in the four manifests, in the
                      C header (SKYFRAME_LIBRARY_VERSION and its _MAJOR/_MINOR/_PATCH, read by
                      compiling and running a program that prints them) and in
                      firmware-notes/micropython/skyframe.py (VERSION, read by importing it).

Each check must also reject a known-bad manifest (a field removed or malformed), so a checker
that accepts anything fails. One ok/FAIL line per check; last "manifests: N passed, M failed".
"""

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REQUIRED_PROPERTIES = ["name", "version", "author", "maintainer", "sentence", "paragraph",
                       "category", "architectures"]
CATEGORIES = {"Display", "Communication", "Signal Input/Output", "Sensors", "Device Control",
              "Timing", "Data Storage", "Data Processing", "Other"}
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                    r"(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.\-]{0,62}$")
SOURCE_SUFFIXES = {".c", ".cpp", ".h", ".hpp", ".S"}

passed = failed = 0


def ok(text):
    global passed
    print(f"ok   {text}")
    passed += 1


def bad(text):
    global failed
    print(f"FAIL {text}")
    failed += 1


def read_properties(path):
    """key=value lines (the Arduino IDE's reader: '#' comments, blank lines skipped)."""
    props, problems = {}, []
    for number, line in enumerate(path.read_bytes().decode("utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if "=" not in line:
            problems.append(f"line {number} is not key=value: {line!r}")
            continue
        key, value = line.split("=", 1)
        if key.strip() in props:
            problems.append(f"line {number}: {key.strip()} given twice")
        props[key.strip()] = value.strip()
    return props, problems


def arduino_problems(library):
    """What breaks the Arduino 1.5 specification in LIBRARY's library.properties and layout."""
    try:
        props, problems = read_properties(library / "library.properties")
    except (OSError, UnicodeDecodeError) as error:
        return [f"library.properties unreadable: {error}"]
    for key in REQUIRED_PROPERTIES:
        if not props.get(key):
            problems.append(f"required field {key} missing or empty")
    if props.get("name") and not NAME.match(props["name"]):
        problems.append(f"name {props['name']!r}: letters, digits, space _ . -, <= 63 characters")
    if props.get("version") and not SEMVER.match(props["version"]):
        problems.append(f"version {props['version']!r} is not semver MAJOR.MINOR.PATCH")
    if props.get("category") and props["category"] not in CATEGORIES:
        problems.append(f"category {props['category']!r} is not one of {sorted(CATEGORIES)}")
    if props.get("url") and not re.match(r"^https?://[^\s/]+\.[^\s/]+\S*$", props["url"]):
        problems.append(f"url {props['url']!r} is not an http(s) address")
    arch = props.get("architectures", "")
    if arch and arch != "*" and not all(re.match(r"^[a-z0-9_]+$", a.strip())
                                        for a in arch.split(",")):
        problems.append(f"architectures {arch!r}: '*' or a comma-separated list")
    for dependency in (d.strip() for d in props.get("depends", "").split(",")):
        if props.get("depends") and not NAME.match(re.sub(r"\s*\(.*\)$", "", dependency)):
            problems.append(f"depends names {dependency!r}, not a library name")
    for header in filter(None, (h.strip() for h in props.get("includes", "").split(","))):
        if not (library / "src" / header).is_file():
            problems.append(f"includes names {header}, not a file of src/")
    if not (library / "src").is_dir():
        problems.append("no src/ folder (the 1.5 layout)")
    if (library / "utility").exists():
        problems.append("utility/ is the 1.0 layout: sources go in src/")
    root_sources = [p.name for p in library.iterdir() if p.suffix in SOURCE_SUFFIXES]
    if root_sources:
        problems.append(f"sources at the root are not compiled in the 1.5 layout: {root_sources}")
    examples = library / "examples"
    if examples.is_dir():
        for folder in sorted(p for p in examples.iterdir() if p.is_dir()):
            if not (folder / f"{folder.name}.ino").is_file():
                problems.append(f"examples/{folder.name}/ has no {folder.name}.ino")
    return problems


def platformio_problems(library):
    from platformio.package.manifest.parser import ManifestParserFactory
    from platformio.package.manifest.schema import ManifestSchema

    problems = []
    try:
        raw = json.loads((library / "library.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return [f"library.json unreadable: {error}"]
    for key in ("name", "version", "description", "keywords", "authors", "frameworks",
                "platforms"):
        if not raw.get(key):
            problems.append(f"field {key} missing or empty")
    try:
        data = ManifestParserFactory.new_from_file(str(library / "library.json")).as_dict()
        ManifestSchema().load_manifest(data)
    except Exception as error:  # PlatformIO's ManifestValidationError and parser errors
        problems.append(f"PlatformIO rejects it: {error}")
    if raw.get("version") and not SEMVER.match(str(raw["version"])):
        problems.append(f"version {raw['version']!r} is not semver")
    build = raw.get("build", {})
    for key in ("srcDir", "includeDir"):
        if key in build and not (library / build[key]).is_dir():
            problems.append(f"build.{key} {build[key]!r} is not a folder")
    headers = raw.get("headers", [])
    for header in [headers] if isinstance(headers, str) else headers:
        if not (library / build.get("includeDir", "src") / header).is_file():
            problems.append(f"headers names {header}, not a file of the include folder")
    for example in raw.get("examples", []):
        base = library / example.get("base", "")
        for name in example.get("files", []):
            if not (base / name).is_file():
                problems.append(f"example {example.get('name')}: {base / name} missing")
    if (library / "library.properties").exists():
        problems += platformio_properties_problems(library)
    return problems


def platformio_properties_problems(library):
    from platformio.package.manifest.parser import ManifestParserFactory
    from platformio.package.manifest.schema import ManifestSchema

    try:
        data = ManifestParserFactory.new_from_file(str(library / "library.properties")).as_dict()
        ManifestSchema().load_manifest(data)
    except Exception as error:  # PlatformIO's ManifestValidationError and parser errors
        return [f"PlatformIO's reader of library.properties rejects it: {error}"]
    return []


def idf_problems(library):
    from idf_component_tools.manager import ManifestManager, UploadMode

    problems = []
    manager = ManifestManager(str(library), "skyframe", upload_mode=UploadMode.component)
    problems += [f"component manager: {e.strip()}" for e in manager.validation_errors]
    if not problems:
        manifest = manager.manifest
        for key in ("version", "description"):
            if not getattr(manifest, key, None):
                problems.append(f"field {key} missing or empty")
    cmake = library / "CMakeLists.txt"
    text = cmake.read_text(encoding="utf-8") if cmake.exists() else ""
    call = re.search(r"idf_component_register\s*\((.*?)\)", text, re.S)
    if not call:
        problems.append("CMakeLists.txt does not call idf_component_register(...)")
    else:
        words = re.findall(r'"([^"]*)"|(\S+)', call.group(1))
        words = [a or b for a, b in words]
        section, listed = None, {"SRCS": [], "INCLUDE_DIRS": []}
        for word in words:
            if word.isupper():
                section = word
            elif section in listed:
                listed[section].append(word)
        for section, paths in listed.items():
            if not paths:
                problems.append(f"idf_component_register has no {section}")
            for p in paths:
                if not (library / p).exists():
                    problems.append(f"{section} {p!r} does not exist")
    return problems


def versions(library):
    props, _ = read_properties(library / "library.properties")
    pio = json.loads((library / "library.json").read_text(encoding="utf-8")).get("version")
    idf = re.search(r'^version:\s*"?([^"\s]+)"?', (library / "idf_component.yml")
                    .read_text(encoding="utf-8"), re.M)
    return props.get("version"), pio, idf.group(1) if idf else None


RESERVED = re.compile(r"(^|\.)(invalid|example|test|localhost)$|^example\.(com|net|org)$")


def address_problems(library):
    """Addresses in the manifests that are not http(s) or point at a reserved, never-resolving
    name; a license named without its file."""
    found = []
    props, _ = read_properties(library / "library.properties")
    found.append(("library.properties url", props.get("url")))
    if (library / "library.json").is_file():
        raw = json.loads((library / "library.json").read_text(encoding="utf-8"))
        repository = raw.get("repository") or {}
        found += [("library.json homepage", raw.get("homepage")),
                  ("library.json repository", repository.get("url") if isinstance(repository, dict)
                   else repository)]
        if raw.get("license") and not (library / "LICENSE").is_file():
            found.append(("library.json license", "license without a LICENSE file"))
    if (library / "idf_component.yml").is_file():
        text = (library / "idf_component.yml").read_text(encoding="utf-8")
        for key in ("url", "repository", "documentation", "issues"):
            m = re.search(rf'^{key}:\s*"?([^"\s]+)"?', text, re.M)
            found.append((f"idf_component.yml {key}", m.group(1) if m else None))
    problems = []
    for where, value in found:
        if value is None:
            continue
        m = re.match(r"^https?://([^/:\s]+)", value)
        if not m:
            problems.append(f"{where}: {value!r} is not an http(s) address")
        elif RESERVED.search(m.group(1).lower()):
            problems.append(f"{where}: {value!r} is on a name reserved never to resolve")
    return problems


KEYWORD_TYPES = {"KEYWORD1", "KEYWORD2", "KEYWORD3", "LITERAL1", "LITERAL2"}


def keywords_problems(library):
    problems = []
    if not (library / "README.md").is_file():
        problems.append("no README.md")
    path = library / "keywords.txt"
    if not path.is_file():
        return problems + ["no keywords.txt"]
    declared = "".join(p.read_text(encoding="utf-8") for p in (library / "src").glob("*.h"))
    lines = [l for l in path.read_text(encoding="utf-8").splitlines()
             if l.strip() and not l.startswith("#")]
    for line in lines:
        fields = line.split("\t")
        if len(fields) < 2 or fields[1] not in KEYWORD_TYPES or not re.match(r"^\w+$", fields[0]):
            problems.append(f"keywords.txt line {line!r} is not name<TAB>TYPE")
        elif not re.search(rf"\b{fields[0]}\b", declared):
            problems.append(f"keywords.txt names {fields[0]}, which src/ does not declare")
    if not lines:
        problems.append("keywords.txt is empty")
    return problems


def header_version(header):
    """SKYFRAME_LIBRARY_VERSION of HEADER as the compiler sees it, with its three numbers joined
    by dots, or a sentence saying why there is none."""
    program = (f'#include "{header}"\n#include <stdio.h>\n'
               'int main(void) {\n'
               '    printf("%s %d.%d.%d\\n", SKYFRAME_LIBRARY_VERSION, SKYFRAME_LIBRARY_VERSION_MAJOR,\n'
               '           SKYFRAME_LIBRARY_VERSION_MINOR, SKYFRAME_LIBRARY_VERSION_PATCH);\n'
               '    return 0;\n}\n')
    with tempfile.TemporaryDirectory() as tmp:
        source, binary = Path(tmp) / "v.c", Path(tmp) / "v"
        source.write_text(program)
        built = subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", "-o", str(binary),
                                str(source)], capture_output=True, text=True)
        if built.returncode != 0:
            errors = [l for l in built.stderr.splitlines() if "error" in l] or ["?"]
            return None, f"no version in the header: {errors[0].split('error: ')[-1][:100]}"
        text, numbers = subprocess.run([str(binary)], capture_output=True, text=True,
                                       check=True).stdout.split()
    if text != numbers:
        return None, f"SKYFRAME_LIBRARY_VERSION {text} but _MAJOR/_MINOR/_PATCH {numbers}"
    return text, None


def python_version(module):
    spec = importlib.util.spec_from_file_location("skyframe_under_test", module)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return getattr(loaded, "VERSION", None)


def spoiled(library, tmp, index, name, change):
    """A copy of LIBRARY (links followed) with CHANGE applied to file NAME's text."""
    copy = Path(tmp) / str(index) / "skyframe"
    shutil.copytree(library, copy, symlinks=False,
                    ignore=shutil.ignore_patterns("test", "__pycache__"))
    path = copy / name
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
    return copy


def main():
    library = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else \
        Path(__file__).resolve().parent.parent
    esp32 = Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else \
        library.parent / "skyframe-esp32"
    for label, check, folder in (
            ("library.properties (Arduino 1.5)", arduino_problems, library),
            ("library.json (PlatformIO)", platformio_problems, library),
            ("idf_component.yml + CMakeLists.txt (ESP-IDF)", idf_problems, library),
            ("Skyframe ESP32: library.properties (Arduino 1.5)", arduino_problems, esp32),
            ("Skyframe ESP32: library.properties (PlatformIO's reader)",
             platformio_properties_problems, esp32),
            ("addresses and license (Skyframe)", address_problems, library),
            ("addresses (Skyframe ESP32)", address_problems, esp32),
            ("README.md and keywords.txt (Skyframe)", keywords_problems, library),
            ("README.md and keywords.txt (Skyframe ESP32)", keywords_problems, esp32)):
        try:
            problems = check(folder)
        except ImportError as error:
            problems = [f"the checker's package is missing: {error} (run test/python-env.sh)"]
        if problems:
            bad(f"{label}: " + "; ".join(problems))
        else:
            ok(f"{label} meets its specification")
    v = versions(library)
    v_esp32 = read_properties(esp32 / "library.properties")[0].get("version")
    if v[0] and v[0] == v[1] == v[2] == v_esp32:
        ok(f"the four manifests give version {v[0]}")
    else:
        bad(f"versions differ: library.properties {v[0]}, library.json {v[1]}, "
            f"idf_component.yml {v[2]}, Skyframe ESP32's library.properties {v_esp32}")
    notes = library.parent
    for header in (notes / "skyframe_frame.h", library / "src" / "skyframe_frame.h"):
        c_version, why = header_version(header)
        where = header.relative_to(notes.parent)
        if why:
            bad(f"{where}: {why}")
        elif c_version != v[0]:
            bad(f"{where}: SKYFRAME_LIBRARY_VERSION {c_version}, library.properties {v[0]}")
        else:
            ok(f"{where}: SKYFRAME_LIBRARY_VERSION {c_version} (and its numbers), as the manifests")
    module = notes / "micropython" / "skyframe.py"
    try:
        py_version = python_version(module)
    except Exception as error:  # a module that does not import is a failure here too
        py_version = f"no import: {error}"
    if py_version == v[0]:
        ok(f"firmware-notes/micropython/skyframe.py: VERSION {py_version}, as the manifests")
    else:
        bad(f"firmware-notes/micropython/skyframe.py: VERSION {py_version}, "
            f"library.properties {v[0]}")

    # Known-bad manifests must be refused, by the same functions.
    broken = [
        ("library.properties", "no maintainer", arduino_problems,
         lambda t: re.sub(r"^maintainer=.*\n", "", t, flags=re.M)),
        ("library.properties", "category Weather", arduino_problems,
         lambda t: re.sub(r"^category=.*$", "category=Weather", t, flags=re.M)),
        ("library.properties", "version v1.1", arduino_problems,
         lambda t: re.sub(r"^version=.*$", "version=v1.1", t, flags=re.M)),
        ("library.json", "version 1.x", platformio_problems,
         lambda t: t.replace('"version": "', '"version": "x', 1)),
        ("library.json", "no authors", platformio_problems,
         lambda t: json.dumps({k: v for k, v in json.loads(t).items() if k != "authors"})),
        ("idf_component.yml", "version one", idf_problems,
         lambda t: re.sub(r"^version:.*$", 'version: "one"', t, flags=re.M)),
        ("CMakeLists.txt", "SRCS of a missing file", idf_problems,
         lambda t: t.replace("src/skyframe_frame.c", "src/missing.c")),
    ]
    broken = [(library,) + b for b in broken] + [
        (esp32, "library.properties", "depends=Skyframe; PubSubClient", arduino_problems,
         lambda t: re.sub(r"^depends=.*$", "depends=Skyframe; PubSubClient", t, flags=re.M)),
        (esp32, "library.properties", "no architectures", arduino_problems,
         lambda t: re.sub(r"^architectures=.*\n", "", t, flags=re.M)),
        (library, "library.properties", "url=https://skyframe.invalid/x", address_problems,
         lambda t: t + "url=https://skyframe.invalid/x\n"),
        (library, "library.json", "a license and no LICENSE file", address_problems,
         lambda t: json.dumps(dict(json.loads(t), license="MIT"))),
        (library, "keywords.txt", "a name src/ does not declare", keywords_problems,
         lambda t: t + "skyframe_no_such_thing\tKEYWORD2\n"),
        (esp32, "keywords.txt", "spaces instead of a tab", keywords_problems,
         lambda t: t.replace("\t", "    ")),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for index, (folder, name, what, check, change) in enumerate(broken):
            try:
                problems = check(spoiled(folder, tmp, index, name, change))
            except ImportError as error:
                problems = []
                bad(f"cannot check a {name} with {what}: {error}")
                continue
            if problems:
                ok(f"a {name} with {what} is refused ({problems[0][:90]})")
            else:
                bad(f"a {name} with {what} passed the check")
    print(f"manifests: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
