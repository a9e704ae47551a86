#!/usr/bin/env python3
"""Writes a C program that checks skyframe_frame.h against the layout tables.

    layout_check.py [--schemas DIR] [--header FILE] OUT.c

Reads schemas/frame-v1.json (standard), frame-large.json and frame-tiny.json and the header, and
writes OUT.c, a C99 program (built with the header's own implementation) that checks, per
profile:

  - every field of the table, every element of an array: a frame of that profile (magic, kind
    byte, CRC over the table's `covers`, stored at its `offset`) holding the sentinels
    everywhere (0 where there is none) gets a distinctive raw value written at exactly the
    field's offset, with its type and byte order; the header's decoder must accept it, the
    struct member the field maps to must hold that wire value (the header keeps wire units; where
    it also gives a field in the table's unit, as skyframe_tiny_utc_offset_min(), that must be
    raw x scale), no other member may change, and for large and tiny skyframe_content_check()
    must equal the CRC with the table's `content_check_zeroed` ranges taken as zero;
  - then the field's sentinel (when it has one): the member must hold it and the header must
    report it missing the way it documents: SKYFRAME_HAS_*() false for the member's C type, a
    time (uint32_t) 0, the v1.1-style fields 0 (or skyframe_has_<field>() 0 in a standard frame),
    a text "";
  - magic, kind byte and CRC: the decoded kind, a wrong magic or kind byte at the table's offset
    (refused with the right error), every byte of the stored CRC and the last covered byte
    (refused), one byte short or long (refused), skyframe_message_kind();
  - array and text sizes: the member's array length (or char buffer, one more for the NUL)
    equals the table's count (or length);
  - every size/count constant the header #defines (SKYFRAME_FRAME_SIZE, SKYFRAME_*_COUNT,
    SKYFRAME_*_BYTES, SKYFRAME_*_OFFSET, SKYFRAME_KIND_*, the magic, the CRC check value) against
    the table value in CONSTANTS below;
  - found here, before any C runs, and printed by the program as failures of that profile (of
    "header" for constants): a table field with no struct member (unless ALLOWED_UNEXPOSED says
    the spec leaves it out), a header constant with no table counterpart (unless
    ALLOWED_CONSTANTS), a member whose C type is not the table's type, a member array shorter
    than the table's count, a member whose comment documents another scale than the table's
    (e.g. "0.1 degC" against scale 0.5; no number in front means 1), and a table that does not
    tile its frame (gaps, overlaps, CRC not in the last four bytes).
The allowed exceptions are printed as "note layout ..." lines, by name.

The program prints one FAIL line per disagreement, naming the profile and the field, one line per
profile ("ok   layout large: ..." or "FAIL layout large: ..."), and "layout: P passed, F failed"
(P + F = 3 profiles, plus one failure when the header's constants or CRC routine disagree); exit
status 1 on any failure. Python 3 stdlib only.

Table field names map to struct members by name: a member of that name, else one of that name in
a nested struct (current.temperature), else hourly_X -> hourly[i].X, alert_X -> alert[i].X, ...
(a prefix naming an array of structs); MEMBER_NAMES and STRUCT_MEMBER_NAMES hold the few that
differ.

To see it fail: copy schemas/ (or the header) somewhere, change an offset there, and run
    layout_check.py --schemas COPY --header HEADER /tmp/l.c &&
    cc -std=c99 -Wall -Wextra -Werror -pedantic -o /tmp/l /tmp/l.c && /tmp/l
"""
import argparse
import ast
import json
import os
import re
import sys
import zlib

# ---- What the tables and the header call the profiles -------------------------------------

PROFILES = [
    # name, table file, struct, decoder, field holding byte 2
    ("standard", "frame-v1.json", "skyframe_frame", "skyframe_frame_decode", "version"),
    ("large", "frame-large.json", "skyframe_large", "skyframe_large_decode", "kind"),
    ("tiny", "frame-tiny.json", "skyframe_tiny", "skyframe_tiny_decode", "kind"),
]

# Table names whose struct member is not found by the name rules (any profile); {i} = element.
MEMBER_NAMES = {
    "daily_min": "daily[{i}].temperature_min",
    "daily_max": "daily[{i}].temperature_max",
}

# Table names whose member in one struct has another name: (struct, table name) -> member. The
# tiny row is `utc_offset_min` (one name for one quantity in every profile, frame-profiles.md 3.1
# and 8); the header keeps the member's older name, which says its unit: quarter hours.
STRUCT_MEMBER_NAMES = {
    ("skyframe_tiny", "utc_offset_min"): "utc_offset_15min",
}

# Table fields the header checks rather than just stores (no free value to write): magic, CRC
# and the profile's kind byte (PROFILES: `version` in standard, `kind` in large and tiny).
FRAMING = {"magic", "crc32"}

# Table fields the header deliberately does not expose, with the spec's word for it.
ALLOWED_UNEXPOSED = {
    ("standard", "reserved_87"): "frame-v1.md 3, 8: byte 87 is reserved, ignored by decoders",
    ("large", "reserved_45"): "frame-profiles.md 2: written 0, ignored",
    ("large", "reserved_118"): "frame-profiles.md 2: written 0, ignored",
    ("large", "reserved_699"): "frame-profiles.md 2: written 0, ignored",
    ("large", "reserved_892"): "frame-profiles.md 2: written 0, ignored (for v1.x additions)",
}

# Fields whose sentinel is 0 and that the header documents as "0 = absent" (v1.1-style fields,
# frame-v1.md 4 and 6.9) or "0 = empty entry" (alert_severity, frame-profiles.md 2). Any other
# field is missing when SKYFRAME_HAS_*() of its C type says so (uint32_t: SKYFRAME_HAS_TIME).
ZERO_ABSENT = {"air_quality", "alerts", "moon", "precip_next_hour", "next_update",
               "alert_severity"}

# Header helpers that give a field in the table's unit (raw x scale): (profile, field) ->
# (C expression on `g`, what it returns for the sentinel).
UNIT_HELPERS = {
    ("tiny", "utc_offset_min"): ("skyframe_tiny_utc_offset_min(g)", "SKYFRAME_MISSING_I16"),
    ("standard", "next_update"): ("skyframe_next_update_seconds(g)", "-1"),
}

# Member comments that state the scale in words rather than with a leading number.
SCALE_IN_WORDS = {
    ("tiny", "utc_offset_min"): 15,  # "quarter hours"; checked through UNIT_HELPERS too
}

# Values for the bit-field fields the decoder reads as absent unless they are well formed
# (frame-v1.md 5.5, 5.6, 5.8): the spec's own examples.
BITFIELD_VALUES = {
    "air_quality": [0x802B, 0x0001, 0x83E8, 0x0065],  # US 42, European 0, US 999, European 100
    "alerts": [0x15, 0x01, 0xFE, 0x0B],  # 2 severe, none, 31 extreme, 1 minor
    "precip_next_hour": [0x10, 0x9F, 0x7F, 0xFF],  # in 15 min, stops in 30, dry hour, wet hour
}

# Header constants: name -> [(profile, table path)]. Paths: size, crc.offset, crc.check,
# magic[0], version, kind, FIELD.offset, FIELD.count, FIELD.bytes (a text's length in bytes).
CONSTANTS = {
    "SKYFRAME_FRAME_SIZE": [("standard", "size")],
    "SKYFRAME_FRAME_VERSION": [("standard", "version")],
    "SKYFRAME_FRAME_MAGIC0": [("standard", "magic[0]"), ("large", "magic[0]"),
                              ("tiny", "magic[0]")],
    "SKYFRAME_FRAME_MAGIC1": [("standard", "magic[1]"), ("large", "magic[1]"),
                              ("tiny", "magic[1]")],
    "SKYFRAME_CRC_OFFSET": [("standard", "crc.offset"), ("standard", "crc32.offset")],
    "SKYFRAME_CRC32_CHECK": [("standard", "crc.check")],
    "SKYFRAME_HOURLY_COUNT": [("standard", "hourly_temperature.count")],
    "SKYFRAME_DAILY_COUNT": [("standard", "daily_min.count")],
    "SKYFRAME_NAME_BYTES": [("standard", "name.bytes")],
    "SKYFRAME_KIND_OFFSET": [("standard", "version.offset"), ("large", "kind.offset"),
                             ("tiny", "kind.offset")],
    "SKYFRAME_KIND_STANDARD": [("standard", "version")],  # frame-profiles.md 1.1: kind 0x01
    "SKYFRAME_KIND_LARGE": [("large", "kind")],
    "SKYFRAME_KIND_TINY": [("tiny", "kind")],
    "SKYFRAME_LARGE_SIZE": [("large", "size")],
    "SKYFRAME_LARGE_HOURLY_COUNT": [("large", "hourly_temperature.count")],
    "SKYFRAME_LARGE_DAILY_COUNT": [("large", "daily_min.count")],
    "SKYFRAME_LARGE_MINUTELY_COUNT": [("large", "minutely_precip.count")],
    "SKYFRAME_LARGE_ALERT_COUNT": [("large", "alert_severity.count")],
    "SKYFRAME_LARGE_NAME_BYTES": [("large", "name.bytes")],
    "SKYFRAME_ALERT_EVENT_BYTES": [("large", "alert_event.bytes")],
    "SKYFRAME_TINY_SIZE": [("tiny", "size")],
    "SKYFRAME_TINY_DAILY_COUNT": [("tiny", "daily_min.count")],
}

# Size/count constants of the header that no frame table has, and why that is right.
ALLOWED_CONSTANTS = {
    "SKYFRAME_UNCHANGED_SIZE": "the unchanged message (frame-profiles.md 4) has no JSON table",
    "SKYFRAME_KIND_UNCHANGED": "the unchanged message (frame-profiles.md 4) has no JSON table",
    "SKYFRAME_REQUEST_SIZE": "binary request (request-v1.md), not a frame",
    "SKYFRAME_REQUEST_NAME_BYTES": "binary request (request-v1.md), not a frame",
    "SKYFRAME_REQUEST_CHECK_NAME_BYTES": "binary request (request-v1.md), not a frame",
    "SKYFRAME_UPLINK_MAX_SIZE": "LoRaWAN uplink (lorawan-uplink-v1.md), not a frame",
}

# Which #defines are size/count constants.
CONSTANT_PATTERN = re.compile(
    r"^SKYFRAME_(\w+_)?(SIZE|COUNT|BYTES|OFFSET)$|^SKYFRAME_KIND_\w+$|^SKYFRAME_FRAME_MAGIC\d$"
    r"|^SKYFRAME_FRAME_VERSION$|^SKYFRAME_CRC32_CHECK$")

TYPES = {  # table type -> (bytes, signed, C type of the member)
    "u8": (1, False, "uint8_t"), "i8": (1, True, "int8_t"),
    "u16": (2, False, "uint16_t"), "i16": (2, True, "int16_t"),
    "u32": (4, False, "uint32_t"), "i32": (4, True, "int32_t"),
}
TEXT_TYPES = {"utf8", "char"}
HAS_MACRO = {"uint8_t": "SKYFRAME_HAS_U8", "int8_t": "SKYFRAME_HAS_I8",
             "uint16_t": "SKYFRAME_HAS_U16", "int16_t": "SKYFRAME_HAS_I16",
             "int32_t": "SKYFRAME_HAS_I32", "uint32_t": "SKYFRAME_HAS_TIME"}


# ---- The header ---------------------------------------------------------------------------

class Member:
    def __init__(self, ctype, name, dim, comment):
        self.ctype, self.name, self.dim, self.comment = ctype, name, dim, comment


def parse_header(text):
    """#define NAME VALUE constants, and typedef struct members with their trailing comment."""
    defines = {}
    for m in re.finditer(r"^#define (SKYFRAME_\w+)[ \t]+(.*?)[ \t]*(?:/\*.*)?$", text, re.M):
        defines[m.group(1)] = m.group(2)
    structs, problems = {}, []
    member_re = re.compile(
        r"^(?:const\s+)?(\w+)\s+(\w+)(?:\[([^\]]+)\])?;\s*(?:/\*\s*(.*?)\s*(?:\*/)?)?$")
    for m in re.finditer(r"typedef struct (\w+) \{(.*?)\} (\w+);", text, re.S):
        members = []
        for line in m.group(2).split("\n"):
            s = line.strip()
            if not s or s.startswith("/*") or s.startswith("*"):
                continue
            mm = member_re.match(s)
            if not mm:
                problems.append("cannot read this line of struct %s: %s" % (m.group(3), s))
                continue
            members.append(Member(mm.group(1), mm.group(2), mm.group(3), mm.group(4) or ""))
        structs[m.group(3)] = members
    return defines, structs, problems


def find(members, name):
    for m in members:
        if m.name == name:
            return m
    return None


def member_path(structs, struct, field, counted):
    """(path with {i} for the element, leaf Member, array Member or None) or None."""
    top = structs[struct]
    field = STRUCT_MEMBER_NAMES.get((struct, field), field)
    if field in MEMBER_NAMES:
        path = MEMBER_NAMES[field]
        head, _, tail = path.partition("[{i}].")
        arr = find(top, head)
        if arr is None or arr.ctype not in structs:
            return None
        leaf = find(structs[arr.ctype], tail)
        return (path, leaf, arr) if leaf else None
    m = find(top, field)
    if m is not None:
        if counted and m.dim is not None:
            return field + "[{i}]", m, m
        return field, m, None
    for m in top:  # a nested struct that is not an array: current.temperature
        if m.dim is None and m.ctype in structs:
            leaf = find(structs[m.ctype], field)
            if leaf is not None:
                return m.name + "." + field, leaf, None
    parts = field.split("_")
    for k in range(1, len(parts)):  # hourly_precip_amount -> hourly[i].precip_amount
        head, tail = "_".join(parts[:k]), "_".join(parts[k:])
        arr = find(top, head)
        if arr is not None and arr.dim is not None and arr.ctype in structs:
            leaf = find(structs[arr.ctype], tail)
            if leaf is not None:
                return head + "[{i}]." + tail, leaf, arr
    return None


def evaluate(expr, defines, depth=0):
    """The value of an integer #define expression (SKYFRAME_NAME_BYTES + 1), or None."""
    ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b}

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in defines and depth < 8:
            return evaluate(defines[node.id], defines, depth + 1)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = value(node.operand)
            return None if v is None else -v
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            a, b = value(node.left), value(node.right)
            return None if a is None or b is None else ops[type(node.op)](a, b)
        return None

    expr = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expr)  # 8UL -> 8
    try:
        return value(ast.parse(expr, mode="eval").body)
    except SyntaxError:
        return None


def documented_scale(comment):
    """The number a member comment starts with ("0.1 degC", "1e-5 degree"), else None."""
    m = re.match(r"(\d+(?:\.\d+)?(?:e-?\d+)?)(?![\d.])", comment)
    return float(m.group(1)) if m else None


# ---- The tables ---------------------------------------------------------------------------

def text_shape(f):
    """(number of texts, bytes each) of a utf8/char field: `length` if given, else one text."""
    if "length" in f:
        return f["count"], f["length"]
    return 1, f["count"]


def field_bytes(f):
    if f["type"] in TEXT_TYPES:
        n, each = text_shape(f)
        return n * each
    return TYPES[f["type"]][0] * f["count"]


def table_value(table, path):
    fields = {f["name"]: f for f in table["fields"]}
    if path == "size":
        return table["size"]
    if path == "version":
        return table["version"]
    if path == "kind":
        return table["kind"]
    if path == "crc.offset":
        return table["crc"]["offset"]
    if path == "crc.check":
        return int(table["crc"]["check"], 16)
    m = re.match(r"magic\[(\d)\]$", path)
    if m:
        return table["magic"][int(m.group(1))]
    name, _, attr = path.rpartition(".")
    if name not in fields:
        return None
    if attr == "bytes":
        return text_shape(fields[name])[1]
    return fields[name][attr]


def tiling_problems(table):
    out = []
    pos = 0
    for f in sorted(table["fields"], key=lambda f: f["offset"]):
        if f["offset"] > pos:
            out.append("bytes %d..%d belong to no field" % (pos, f["offset"] - 1))
        elif f["offset"] < pos:
            out.append("%s at %d overlaps the field before it (which ends at %d)"
                       % (f["name"], f["offset"], pos - 1))
        if f["type"] not in TYPES and f["type"] not in TEXT_TYPES:
            out.append("%s has an unknown type %r" % (f["name"], f["type"]))
            continue
        pos = max(pos, f["offset"] + field_bytes(f))
    if pos != table["size"]:
        out.append("the fields end at %d, the frame is %d bytes" % (pos, table["size"]))
    crc = table["crc"]
    if crc["offset"] != table["size"] - 4 or crc["covers"] != [0, crc["offset"]]:
        out.append("crc %s is not the last four bytes over all before them" % crc)
    if crc["algorithm"] != "CRC-32/ISO-HDLC":
        out.append("crc algorithm %s (this test knows CRC-32/ISO-HDLC)" % crc["algorithm"])
    if table["byte_order"] not in ("little", "big"):
        out.append("byte order %r" % table["byte_order"])
    return out


def encode(value, nbytes, big):
    raw = value & ((1 << (8 * nbytes)) - 1)
    return list(raw.to_bytes(nbytes, "big" if big else "little"))


def background(table):
    """The frame every case starts from: sentinels, 0 where there is none, magic, kind."""
    big = table["byte_order"] == "big"
    b = [0] * table["size"]
    for f in table["fields"]:
        if f["type"] in TYPES and f["sentinel"] is not None:
            n = TYPES[f["type"]][0]
            for i in range(f["count"]):
                off = f["offset"] + i * n
                if off + n <= len(b):
                    b[off:off + n] = encode(f["sentinel"], n, big)
    b[0:2] = table["magic"]
    return b


def pick(profile, f, i, bg, big):
    """A distinctive valid raw value for element i: in the table's range, not the sentinel,
    and (as far as the range allows) sharing no byte with the background under it."""
    if f["name"] in BITFIELD_VALUES:
        vals = BITFIELD_VALUES[f["name"]]
        return vals[zlib.crc32(("%s/%s/%d" % (profile, f["name"], i)).encode()) % len(vals)]
    n, signed, _ = TYPES[f["type"]]
    lo = f["min"] if f["min"] is not None else (-(1 << (8 * n - 1)) if signed else 0)
    hi = f["max"] if f["max"] is not None else ((1 << (8 * n - 1)) - 1 if signed
                                                else (1 << (8 * n)) - 1)
    off = f["offset"] + i * n
    under = bg[off:off + n]
    best = None
    for attempt in range(200):
        h = zlib.crc32(("%s/%s/%d/%d" % (profile, f["name"], i, attempt)).encode())
        v = lo + h % (hi - lo + 1)
        if v == f["sentinel"]:
            continue
        same = sum(1 for a, b in zip(encode(v, n, big), under) if a == b)
        if best is None or same < best[0]:
            best = (same, v)
        if same == 0:
            break
    return best[1]


def text_value(profile, f, i, length):
    seed = "%s %s %d " % (profile, f["name"], i)
    s = (seed + "abcdefghijklmnopqrstuvwxyz0123456789" * 4)[:length]
    if f["type"] == "char":  # country: capital letters only (frame-v1.md 6.1)
        h = zlib.crc32(seed.encode())
        s = "".join(chr(ord("A") + (h >> (5 * k)) % 26) for k in range(length))
    return s


# ---- Writing the program ------------------------------------------------------------------

def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_ll(v):
    return "(%dLL)" % v if v >= -(2 ** 62) else "(%dLL - 1)" % (v + 1)


def c_bytes(bs):
    rows = []
    for k in range(0, len(bs), 24):
        rows.append("    " + ", ".join(str(x) for x in bs[k:k + 24]) + ",")
    return "\n".join(rows)


def generate(schemas, header_path):
    with open(header_path, encoding="utf-8") as fh:
        header_text = fh.read()
    defines, structs, parse_problems = parse_header(header_text)
    tables = {}
    for prof, fname, _, _, _ in PROFILES:
        with open(os.path.join(schemas, fname), encoding="utf-8") as fh:
            tables[prof] = json.load(fh)

    # Found here, printed by the program: failures and notes per profile ("constants": the
    # header's constants that no table has).
    static = {p: [] for p in [q[0] for q in PROFILES] + ["constants"]}
    notes = {p: [] for p in static}
    const_checks = {p[0]: [] for p in PROFILES}
    static["constants"].extend(parse_problems)
    # skyframe_has_<field>(const skyframe_frame *): how the header reports a v1.1 field missing.
    has_helper = set(re.findall(r"int skyframe_has_(\w+)\(const skyframe_frame \*", header_text))

    # Constants.
    selected = sorted(n for n in defines if CONSTANT_PATTERN.match(n))
    for name in selected:
        if name in CONSTANTS:
            continue
        if name in ALLOWED_CONSTANTS:
            notes["constants"].append("%s has no table counterpart (allowed: %s)"
                                     % (name, ALLOWED_CONSTANTS[name]))
        else:
            static["constants"].append("header constant %s = %s has no table counterpart"
                                      % (name, defines[name]))
    for name, targets in CONSTANTS.items():
        for prof, path in targets:
            value = table_value(tables[prof], path)
            if name not in defines:
                static[prof].append("no header constant %s for the table's %s = %s"
                                    % (name, path, value))
            elif value is None:
                static[prof].append("%s: the table has no %s" % (name, path))
            else:
                const_checks[prof].append((name, path, value))

    profile_code = []
    for prof, fname, struct, decoder, kind_field in PROFILES:
        t = tables[prof]
        big = t["byte_order"] == "big"
        static[prof].extend("table: " + p for p in tiling_problems(t))
        if struct not in structs:
            static[prof].append("the header has no struct %s" % struct)
            members_ok = False
        else:
            members_ok = True
        bg = background(t)
        kind = t["version"] if kind_field == "version" else t["kind"]
        bg[2] = kind
        lines = []
        emit = lines.append
        n_fields = n_values = n_sentinels = n_framing = 0
        unexposed = []
        ranges = []  # (label, path) of every member a field maps to

        for f in t["fields"]:
            name, ftype = f["name"], f["type"]
            if ftype not in TYPES and ftype not in TEXT_TYPES:
                continue  # reported by tiling_problems
            if name in FRAMING or name == kind_field:
                n_framing += 1
                continue
            text = ftype in TEXT_TYPES
            ntexts, each = text_shape(f) if text else (0, 0)
            elems = ntexts if text else f["count"]
            found = member_path(structs, struct, name, elems > 1) if members_ok else None
            if found is None:
                if (prof, name) in ALLOWED_UNEXPOSED:
                    unexposed.append(name)
                    notes[prof].append("%s is not exposed by the header (allowed: %s)"
                                       % (name, ALLOWED_UNEXPOSED[(prof, name)]))
                else:
                    unexposed.append(name + " (not allowed)")
                    static[prof].append("%s (offset %d) has no member in %s"
                                        % (name, f["offset"], struct))
                continue
            path, leaf, arr = found
            if elems > 1 and "{i}" not in path:
                static[prof].append("%s has %d elements, its member %s is not an array"
                                    % (name, elems, path))
                continue
            table_elems = elems
            if "{i}" in path:
                length = evaluate(arr.dim, defines)
                if length is None:
                    static[prof].append("%s: cannot read the length of %s[%s]"
                                        % (name, arr.name, arr.dim))
                    continue
                if length < elems:
                    static[prof].append("%s: the member array %s has %d elements, the table %d;"
                                        " checking the first %d" % (name, arr.name, length,
                                                                    elems, length))
                    elems = length
            n_fields += 1
            # Static: C type and documented scale.
            if text:
                if leaf.ctype != "char" or leaf.dim is None:
                    static[prof].append("%s: member %s is %s, the table has text"
                                        % (name, path.replace("{i}", "i"), leaf.ctype))
            else:
                want = TYPES[ftype][2]
                if leaf.ctype != want:
                    static[prof].append("%s: member %s is %s, the table says %s (%s)"
                                        % (name, path.replace("{i}", "i"), leaf.ctype, ftype, want))
                doc = SCALE_IN_WORDS.get((prof, name), documented_scale(leaf.comment))
                doc = 1 if doc is None else doc
                if abs(doc - f["scale"]) > 1e-12 * max(1.0, abs(doc)):
                    static[prof].append(
                        "%s: the header documents scale %g (comment %r of %s), the table says %g"
                        % (name, doc, leaf.comment, path.replace("{i}", "i"), f["scale"]))
            # Array and text sizes.
            if elems > 1 or arr is not None:
                arr_path = path.split("[{i}]")[0]
                emit("    expect_size(c, %s, \"array length of %s\", "
                     "sizeof g->%s / sizeof g->%s[0], %d);"
                     % (c_str(name), arr_path, arr_path, arr_path, table_elems))
            if text:
                tp = path.format(i=0)
                emit("    expect_size(c, %s, \"char buffer %s (bytes + NUL)\", sizeof g->%s, %d);"
                     % (c_str(name), tp.replace("[0]", "[i]"), tp, each + 1))
            # Missing-value report.
            if text:
                missing = "g->{p}[0] != '\\0'"
            elif prof == "standard" and name in has_helper:
                missing = "skyframe_has_%s(g)" % name
            elif name in ZERO_ABSENT:
                missing = "g->{p} != 0"
            elif leaf.ctype in HAS_MACRO:
                missing = HAS_MACRO[leaf.ctype] + "(g->{p})"
            else:
                missing = None
                static[prof].append("%s: no SKYFRAME_HAS_* for C type %s" % (name, leaf.ctype))
            helper = UNIT_HELPERS.get((prof, name))
            for i in range(elems):
                p = path.format(i=i)
                label = name if elems == 1 and "{i}" not in path else "%s[%d]" % (name, i)
                ranges.append((label, p))
                if text:
                    off = f["offset"] + i * each
                    txt = text_value(prof, f, i, each)
                    emit("    TEXT_CASE(%s, %d, %d, %s, %s);"
                         % (c_str(label), off, each, c_str(txt), p))
                    n_values += 1
                    if f["sentinel"] is not None:
                        emit("    TEXT_MISSING_CASE(%s, %d, %d, %s);"
                             % (c_str(label), off, each, p))
                        n_sentinels += 1
                    continue
                n, _, _ = TYPES[ftype]
                off = f["offset"] + i * n
                v = pick(prof, f, i, bg, big)
                wire = "0x%XULL" % (v & ((1 << (8 * n)) - 1))
                # A field without a sentinel has no "missing": any value is a value.
                has = missing.format(p=p) if missing and f["sentinel"] is not None else "1"
                emit("    INT_CASE(%s, %d, %d, %s, %s, %s, %s);"
                     % (c_str(label), off, n, wire, c_ll(v), p, has))
                if helper:
                    emit("    if (c->decoded) expect_int(c, \"%s\", (long long)(%s), %s);"
                         % (helper[0], helper[0], c_ll(int(round(v * f["scale"])))))
                n_values += 1
                if f["sentinel"] is not None:
                    sent = f["sentinel"]
                    swire = "0x%XULL" % (sent & ((1 << (8 * n)) - 1))
                    emit("    MISSING_CASE(%s, %d, %d, %s, %s, %s, %s);"
                         % (c_str(label), off, n, swire, c_ll(sent), p, has))
                    if helper:
                        emit("    if (c->decoded) expect_int(c, \"%s\", (long long)(%s), "
                             "(long long)(%s));" % (helper[0], helper[0], helper[1]))
                    n_sentinels += 1

        fields = {f["name"]: f for f in t["fields"]}
        framing = []
        if "magic" in fields:
            for k in range(2):
                framing.append("    framing_error(c, \"magic\", %d, 0x%02X, "
                               "SKYFRAME_ERR_BAD_MAGIC);"
                               % (fields["magic"]["offset"] + k, t["magic"][k] ^ 0x20))
        else:
            static[prof].append("table has no magic field")
        if kind_field in fields:
            framing.append("    framing_error(c, \"%s\", %d, 0x%02X, SKYFRAME_ERR_BAD_VERSION);"
                           % (kind_field, fields[kind_field]["offset"], kind ^ 0x40))
            framing.append("    if (c->base_ok) expect_int(c, \"%s\", (long long)base->%s, %d);"
                           % (kind_field, kind_field, kind))
        else:
            static[prof].append("table has no %s field" % kind_field)
        if "crc32" in fields:
            co = fields["crc32"]["offset"]
            for k in range(4):
                framing.append("    framing_error(c, \"crc32\", %d, -1, SKYFRAME_ERR_CRC);"
                               % (co + k))
            framing.append("    framing_error(c, \"crc32 (last covered byte)\", %d, -1, "
                           "SKYFRAME_ERR_CRC);" % (t["crc"]["covers"][1] - 1))
            framing.append("    if (c->base_ok) expect_int(c, \"crc32\", (long long)base->crc32, "
                           "(long long)c->bg_crc);")
        else:
            static[prof].append("table has no crc32 field")
        framing.append("    length_errors(c);")
        zero = t.get("content_check_zeroed", [])
        if not zero:
            notes[prof].append("the table has no content_check_zeroed: skyframe_content_check()"
                               " is not compared for this profile")

        body = []
        if prof == "large":
            body.append("#if SKYFRAME_LARGE")
        body.append("static %s got_%s, base_%s;" % (struct, prof, prof))
        body.append("static const uint8_t bg_%s[%d] = {\n%s\n};" % (prof, t["size"], c_bytes(bg)))
        body.append("static int decode_%s(const uint8_t *b, size_t n, void *out) {\n"
                    "    return %s(b, n, (%s *)out);\n}" % (prof, decoder, struct))
        body.append("static const size_t zero_%s[][2] = {%s};"
                    % (prof, ", ".join("{%d, %d}" % (a, b) for a, b in zero) or "{0, 0}"))
        body.append("static const member_range ranges_%s[] = {" % prof)
        for label, p in ranges:
            body.append("    {%s, offsetof(%s, %s), sizeof ((%s *)0)->%s},"
                        % (c_str(label), struct, p, struct, p))
        body.append("    {\"crc32\", offsetof(%s, crc32), sizeof ((%s *)0)->crc32}};"
                    % (struct, struct))
        body.append("static const char *const static_%s[] = {" % prof)
        for s in static[prof]:
            body.append("    %s," % c_str(s))
        body.append("    NULL};")
        body.append("static const char *const notes_%s[] = {" % prof)
        for s in notes[prof]:
            body.append("    %s," % c_str(s))
        body.append("    NULL};")
        body.append("static int check_%s(void) {" % prof)
        body.append("    typedef %s profile_struct;" % struct)
        body.append("    static profile_ctx ctx_;")
        body.append("    profile_ctx *c = &ctx_;")
        body.append("    %s *g = &got_%s;" % (struct, prof))
        body.append("    const %s *base = &base_%s;" % (struct, prof))
        body.append("    begin(c, \"%s\", bg_%s, %d, %d, %d, %d, %d, decode_%s, g, &base_%s,"
                    " sizeof *g,"
                    % (prof, prof, t["size"], t["crc"]["offset"], t["crc"]["covers"][0],
                       t["crc"]["covers"][1], 1 if big else 0, prof, prof))
        body.append("          zero_%s, %d, ranges_%s, sizeof ranges_%s / sizeof ranges_%s[0], %d);"
                    % (prof, len(zero), prof, prof, prof, kind))
        body.append("    report_static(c, static_%s, notes_%s);" % (prof, prof))
        for name, path, value in const_checks[prof]:
            body.append("    expect_const(c, \"%s\", (long long)(%s), %s, \"%s\");"
                        % (name, name, c_ll(value), path))
        body.extend(framing)
        body.extend(lines)
        body.append("    (void)base;")
        body.append("    return finish(c, %d, %d, %d, %d, %d, %d, %s);"
                    % (len(t["fields"]), n_fields, n_values, n_sentinels, n_framing,
                       len(const_checks[prof]), c_str(", ".join(unexposed))))
        body.append("}")
        if prof == "large":
            body.append("#else")
            body.append("static int check_large(void) {\n"
                        "    printf(\"FAIL layout large: SKYFRAME_LARGE is 0\\n\");\n"
                        "    return 0;\n}")
            body.append("#endif")
        profile_code.append("\n".join(body))

    crc = tables["standard"]["crc"]
    poly = int(crc["polynomial"], 16)
    reflected = int("{:032b}".format(poly)[::-1], 2)
    out = [PROGRAM_HEAD.replace("@HEADER@", c_str(os.path.abspath(header_path)))
           .replace("@POLY@", "0x%08XUL" % reflected)
           .replace("@CHECK@", "0x%08XUL" % int(crc["check"], 16))]
    out.append("static const char *const static_constants[] = {\n%s    NULL};\n"
               "static const char *const notes_constants[] = {\n%s    NULL};"
               % ("".join("    %s,\n" % c_str(x) for x in static["constants"]),
                  "".join("    %s,\n" % c_str(x) for x in notes["constants"])))
    out.extend(profile_code)
    out.append(PROGRAM_MAIN.replace("@CALLS@", "\n".join(
        "    ok = check_%s(); passed += ok; failed += !ok;" % p[0] for p in PROFILES)))
    return "\n\n".join(out) + "\n"


PROGRAM_HEAD = r'''/* Generated by firmware-notes/test/layout_check.py from the layout tables
 * (frame-v1.json, frame-large.json, frame-tiny.json) and the header it includes. */
#define SKYFRAME_FRAME_IMPLEMENTATION
#include @HEADER@
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define MOFF(T, PATH) offsetof(T, PATH)
static const char zeros[1024];

typedef struct { const char *label; size_t off, size; } member_range;

typedef struct {
    const char *profile;
    const uint8_t *bg;
    size_t size, crc_off, cov0, cov1;
    int big;
    int (*decode)(const uint8_t *b, size_t n, void *out);
    void *got;
    const void *base;
    size_t struct_size;
    const size_t (*zero)[2];
    int nzero;
    const member_range *ranges;
    size_t nranges;
    int kind;
    uint32_t bg_crc;
    /* the case being checked */
    const char *field;
    int base_ok, decoded;
    int failures;
    uint8_t buf[1024];
} profile_ctx;

/* CRC-32/ISO-HDLC bit by bit from the table's polynomial (reflected), independent of the
 * header's table-driven one. */
static uint32_t ref_crc(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFUL;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (k = 0; k < 8; k++) c = (c & 1u) ? (c >> 1) ^ @POLY@ : c >> 1;
    }
    return c ^ 0xFFFFFFFFUL;
}

static void put(uint8_t *p, int n, int big, unsigned long long v) {
    int k;
    for (k = 0; k < n; k++) p[big ? n - 1 - k : k] = (uint8_t)((v >> (8 * k)) & 0xFFu);
}

static void fail(profile_ctx *c, const char *what) {
    if (c->field && *c->field) printf("FAIL layout %s %s: %s\n", c->profile, c->field, what);
    else printf("FAIL layout %s: %s\n", c->profile, what);
    c->failures++;
}

static void seal(profile_ctx *c) {
    put(c->buf + c->crc_off, 4, c->big, ref_crc(c->buf + c->cov0, c->cov1 - c->cov0));
}

static void begin(profile_ctx *c, const char *profile, const uint8_t *bg, size_t size,
                  size_t crc_off, size_t cov0, size_t cov1, int big,
                  int (*decode)(const uint8_t *, size_t, void *), void *got, void *base,
                  size_t struct_size, const size_t (*zero)[2], int nzero,
                  const member_range *ranges, size_t nranges, int kind) {
    int rc;
    memset(c, 0, sizeof *c);
    c->profile = profile;
    c->bg = bg;
    c->size = size;
    c->crc_off = crc_off;
    c->cov0 = cov0;
    c->cov1 = cov1;
    c->big = big;
    c->decode = decode;
    c->got = got;
    c->base = base;
    c->struct_size = struct_size;
    c->zero = zero;
    c->nzero = nzero;
    c->ranges = ranges;
    c->nranges = nranges;
    c->kind = kind;
    c->field = "(frame of sentinels)";
    if (size + 1 > sizeof c->buf || crc_off + 4 > size) {
        fail(c, "frame size or CRC offset out of this test's range");
        return;
    }
    memcpy(c->buf, bg, size);
    seal(c);
    c->bg_crc = ref_crc(c->buf + cov0, cov1 - cov0);
    rc = decode(c->buf, size, base);
    c->base_ok = rc == SKYFRAME_OK;
    if (!c->base_ok) {
        char m[160];
        sprintf(m, "the header refuses a valid frame of sentinels: %s", skyframe_error_name(rc));
        fail(c, m);
    }
    if (skyframe_message_kind(c->buf, size) != kind)
        fail(c, "skyframe_message_kind() is not the kind");
}

static void report_static(profile_ctx *c, const char *const *problems, const char *const *notes) {
    c->field = "";
    for (; *problems; problems++) fail(c, *problems);
    for (; *notes; notes++) printf("note layout %s: %s\n", c->profile, *notes);
}

static void expect_int(profile_ctx *c, const char *what, long long got, long long want) {
    if (got != want) {
        char m[200];
        sprintf(m, "%s is %lld, the table implies %lld", what, got, want);
        fail(c, m);
    }
}

static void expect_const(profile_ctx *c, const char *name, long long got, long long want,
                         const char *path) {
    if (got != want) {
        char m[200];
        c->field = name;
        sprintf(m, "%lld, the table's %s is %lld", got, path, want);
        fail(c, m);
    }
}

static void expect_size(profile_ctx *c, const char *field, const char *what, size_t got,
                        size_t want) {
    if (got != want) {
        char m[200];
        c->field = field;
        sprintf(m, "%s is %lu, the table implies %lu", what, (unsigned long)got,
                (unsigned long)want);
        fail(c, m);
    }
}

/* Writes n bytes of value v (or text t) at off, seals, decodes into c->got. */
static void write_case(profile_ctx *c, const char *field, size_t off, int n, unsigned long long v,
                       const char *t) {
    int rc;
    c->field = field;
    c->decoded = 0;
    if (off + (size_t)n > c->size) {
        fail(c, "the field lies outside the frame");
        return;
    }
    memcpy(c->buf, c->bg, c->size);
    if (t) memcpy(c->buf + off, t, (size_t)n);
    else put(c->buf + off, n, c->big, v);
    seal(c);
    rc = c->decode(c->buf, c->size, c->got);
    c->decoded = rc == SKYFRAME_OK;
    if (!c->decoded) {
        char m[160];
        sprintf(m, "the header refuses the frame: %s", skyframe_error_name(rc));
        fail(c, m);
    }
}

/* No member but [off, off + size) and the CRC differs from the frame of sentinels'; and the
 * content check (large, tiny) is the table's. */
static void others_and_check(profile_ctx *c, size_t off, size_t size) {
    const unsigned char *a = (const unsigned char *)c->got, *b = (const unsigned char *)c->base;
    const member_range *crc = &c->ranges[c->nranges - 1];
    size_t i, r;
    for (i = 0; i < c->struct_size; i++) {
        if ((i >= off && i < off + size) || (i >= crc->off && i < crc->off + crc->size)) continue;
        if (a[i] != b[i]) {
            char m[200];
            const char *who = NULL;
            for (r = 0; r + 1 < c->nranges; r++)
                if (i >= c->ranges[r].off && i < c->ranges[r].off + c->ranges[r].size)
                    who = c->ranges[r].label;
            if (who) sprintf(m, "writing it also changed the member of %s", who);
            else sprintf(m, "writing it also changed struct byte %lu", (unsigned long)i);
            fail(c, m);
            break;
        }
    }
    if (c->nzero > 0) {
        uint8_t tmp[1024];
        uint32_t want, got = 0;
        int k;
        memcpy(tmp, c->buf, c->cov1);
        for (k = 0; k < c->nzero; k++)
            memset(tmp + c->zero[k][0], 0, c->zero[k][1] - c->zero[k][0]);
        want = ref_crc(tmp + c->cov0, c->cov1 - c->cov0);
        if (skyframe_content_check(c->buf, c->size, &got) != SKYFRAME_OK || got != want) {
            char m[200];
            sprintf(m, "skyframe_content_check() is %08lx, the table's zeroed ranges give %08lx",
                    (unsigned long)got, (unsigned long)want);
            fail(c, m);
        }
    }
}

/* A wrong byte at off (value x, or the byte flipped when x < 0), not resealed when it is the CRC
 * or x < 0: the decoder must answer err. */
static void framing_error(profile_ctx *c, const char *field, size_t off, int x, int err) {
    int rc;
    char m[200];
    c->field = field;
    memcpy(c->buf, c->bg, c->size);
    seal(c);
    if (off >= c->size) {
        fail(c, "offset outside the frame");
        return;
    }
    c->buf[off] = x < 0 ? (uint8_t)(c->buf[off] ^ 0x01u) : (uint8_t)x;
    if (x >= 0) seal(c);
    rc = c->decode(c->buf, c->size, c->got);
    if (rc != err) {
        sprintf(m, "a wrong byte %lu gives %s, not %s", (unsigned long)off, skyframe_error_name(rc),
                skyframe_error_name(err));
        fail(c, m);
    }
}

/* One byte short and one byte long: truncated and too long. */
static void length_errors(profile_ctx *c) {
    int rc;
    c->field = "size";
    memcpy(c->buf, c->bg, c->size);
    seal(c);
    c->buf[c->size] = 0;
    rc = c->decode(c->buf, c->size - 1, c->got);
    if (rc != SKYFRAME_ERR_TRUNCATED) fail(c, "one byte short is not refused as truncated");
    rc = c->decode(c->buf, c->size + 1, c->got);
    if (rc != SKYFRAME_ERR_TOO_LONG) fail(c, "one byte long is not refused as too long");
}

#define INT_CASE(FIELD, OFF, N, WIRE, RAW, PATH, HAS)                                        \
    do {                                                                                     \
        write_case(c, FIELD, OFF, N, WIRE, NULL);                                            \
        if (c->decoded) {                                                                    \
            expect_int(c, "the member " #PATH, (long long)(g->PATH), RAW);                   \
            if (!(HAS)) fail(c, "the header reports a value as missing: " #HAS);             \
            others_and_check(c, MOFF(profile_struct, PATH), sizeof g->PATH);                 \
        }                                                                                    \
    } while (0)

#define MISSING_CASE(FIELD, OFF, N, WIRE, SENTINEL, PATH, HAS)                               \
    do {                                                                                     \
        write_case(c, FIELD " (sentinel)", OFF, N, WIRE, NULL);                              \
        if (c->decoded) {                                                                    \
            expect_int(c, "the member " #PATH, (long long)(g->PATH), SENTINEL);              \
            if (HAS) fail(c, "the header does not report the sentinel as missing: " #HAS);   \
            others_and_check(c, MOFF(profile_struct, PATH), sizeof g->PATH);                 \
        }                                                                                    \
    } while (0)

#define TEXT_CASE(FIELD, OFF, N, TEXT, PATH)                                                 \
    do {                                                                                     \
        write_case(c, FIELD, OFF, N, 0, TEXT);                                               \
        if (c->decoded) {                                                                    \
            if (strcmp(g->PATH, TEXT) != 0) {                                                \
                char m_[300];                                                                \
                sprintf(m_, "the member " #PATH " is \"%.100s\", not \"%.100s\"", g->PATH, TEXT); \
                fail(c, m_);                                                                 \
            }                                                                                \
            others_and_check(c, MOFF(profile_struct, PATH), sizeof g->PATH);                 \
        }                                                                                    \
    } while (0)

#define TEXT_MISSING_CASE(FIELD, OFF, N, PATH)                                               \
    do {                                                                                     \
        write_case(c, FIELD " (sentinel)", OFF, N, 0, zeros);                                \
        if (c->decoded) {                                                                    \
            if (g->PATH[0] != '\0') fail(c, "the member " #PATH " is not \"\"");             \
            others_and_check(c, MOFF(profile_struct, PATH), sizeof g->PATH);                 \
        }                                                                                    \
    } while (0)

static int finish(profile_ctx *c, int fields, int read_back, int values, int sentinels,
                  int framing, int constants, const char *unexposed) {
    printf("%s layout %s: %d fields: %d read back (%d values, %d sentinels), %d framing, "
           "%d not exposed%s%s%s; %d constants; %d disagreements\n",
           c->failures ? "FAIL" : "ok  ", c->profile, fields, read_back, values, sentinels,
           framing, fields - read_back - framing, *unexposed ? " (" : "", unexposed,
           *unexposed ? ")" : "", constants, c->failures);
    return c->failures == 0;
}

static int check_crc_routine(void) {
    static const uint8_t digits[9] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
    int ok = ref_crc(digits, 9) == @CHECK@ && skyframe_crc32(digits, 9) == @CHECK@;
    if (!ok) printf("FAIL layout: CRC-32 of \"123456789\" is not the table's check value\n");
    return ok;
}'''

PROGRAM_MAIN = r'''int main(void) {
    int passed = 0, failed = 0, ok;
    const char *const *s;
    int header_failures = 0;
    for (s = notes_constants; *s; s++) printf("note layout header: %s\n", *s);
    for (s = static_constants; *s; s++, header_failures++) printf("FAIL layout header: %s\n", *s);
    if (!check_crc_routine()) header_failures++;
    if (header_failures) failed++;
@CALLS@
    printf("layout: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}'''


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--schemas", default=os.path.join(here, "..", "..", "schemas"))
    ap.add_argument("--header", default=os.path.join(here, "..", "skyframe_frame.h"))
    ap.add_argument("out")
    args = ap.parse_args()
    program = generate(args.schemas, args.header)
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(program)
    return 0


if __name__ == "__main__":
    sys.exit(main())
