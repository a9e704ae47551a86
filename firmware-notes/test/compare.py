#!/usr/bin/env python3
"""Checks the C decoder against the golden frame vectors.

    compare.py [--v1.0] [--corrupt] DECODER VECTOR_DIR [REQUEST_VECTOR_DIR [UPLINK_VECTOR_DIR]]

Feeds the `hex` of every VECTOR_DIR/*.json to DECODER (decode_vectors, one hex line in, one JSON
line out), turns every field of the vector's `frame` object (frame-profiles.md 8, the one shape
of every profile: "profile": "standard", then one key per field of schemas/frame-v1.json but
magic, version, reserved_87 and crc32; wire x scale in the table's unit, null for the sentinel;
`daily_start` days since 1970, `is_day` the wire number, status and service by name; `sun`,
`air_quality`, `alerts`, `moon`, `precip_next_hour` (and large's `daily_sun`, `alert_severity`)
by their meaning: a name or an object, null when absent) back into wire units with that table
(SKYFRAME_SCHEMAS overrides its folder), refusing a value that is not a whole step, outside the
field's range or the sentinel written as a number, or a meaning no wire value has (a moon name
or lit fraction that is not its phase's, an unknown name, a missing key), and compares it with
the decoder's; the name byte for byte. Every key of the table must be there and no other. The
vector's `wire` object (the wire integers of the meaning fields) must have exactly the meaning
fields of the profile, and each value must read as the `frame` object says (frame-profiles.md
8, computed here). Prints one line per vector (plus one line per mismatch, naming the file and
the field) and finally "vectors: N passed, M failed".
Exit status 0 only if every vector passed and there was at least one. Python 3 stdlib only.

The header's readers are checked against what the spec derives from the vector's wire values
(frame-v1.md 5.1-5.8, 6.9), computed here: status, service and sun names; the v1.1 fields (null =
absent, and a wire value the spec reads as absent) twice, the decoder's wire value against the
vector's and the header's helpers against the spec's reading of it: `air_quality` index (bits
0-14 minus 1) and scale (bit 15), `alerts` count (bits 3-7, 31 = "31 or more") and severity (bits
0-2), `moon` icon round(phase x 8) mod 8 and illumination round(100 (1 - cos 2 pi phase) / 2)
with phase = (wire - 1) / 255 (compared exactly: the header's integer version is exact),
`precip_next_hour` now (bit 7) and minutes (bits 0-6 minus 1; 127 = no change within 60 min),
`next_update` seconds.

--v1.0: DECODER is built against the v1.0 header (test/v1.0/skyframe_frame.h). Every vector,
v1.1 ones included, must decode and match in every v1.0 field; the v1.1 keys of the vectors are
accepted but not compared, and the decoder must not print v1.1 fields (else it is not the v1.0
header). The summary line then reads "v1.0-vectors: N passed, M failed".

A vector may carry "error": "<skyframe_error_name>" instead of "frame" to say the hex must be
rejected (e.g. "crc_mismatch").

--corrupt: DECODER is also given, in the same run, corrupted copies of every valid 192-byte
vector, each of which must be rejected with the exact skyframe_error_name (the header checks
length, magic, version, CRC, in that order): a flipped bit in the body (crc_mismatch), a flipped
bit in the stored CRC (crc_mismatch), a wrong magic with a recomputed CRC (bad_magic), a wrong
version with a recomputed CRC (unsupported_version), a wrong magic and version with the old CRC
(bad_magic: magic first), a wrong version with the old CRC (unsupported_version: before the CRC),
191 bytes (truncated), 191 bytes with a wrong magic (truncated: length first) and 193 bytes
(too_long). The bit and byte positions move from vector to vector. Each vector's set of copies
counts as one more result: "ok   corrupted NAME (9 copies rejected with the right error)".

With REQUEST_VECTOR_DIR, the valid binary request vectors there (hex "5351...", 64 bytes, an
"expect" without "error") are rebuilt with the header's skyframe_request_* helpers
(DECODER --request) and must come out byte for byte. With UPLINK_VECTOR_DIR, the same for the
valid LoRaWAN uplink vectors there (schemas/lorawan-uplink-v1.md, vectors/lorawan: an "expect"
with a "kind"), rebuilt with skyframe_uplink_* (DECODER --uplink) from the vector's "write"
(coordinates in 1e-5 degree, rounded by the writer) or its "expect" (id, index, check); zero
valid uplink vectors there is a failure.

    compare.py --profiles [--corrupt] [--without-large] DECODER DIR [DIR ...]

The frame profiles (schemas/frame-profiles.md) through DECODER --profiles ("DECODER HEX" lines
in, one JSON line out: boards/profile_json.h). For every vector of the DIRs (large/, tiny/,
unchanged/; a vector without "profile" is a standard frame): its hex must be a valid message of
its profile; it is decoded through skyframe_message_kind() ("any") and through its own decoder
(the same line both times); every field of the vector's "frame" (frame-profiles.md §8: wire x
scale, null for the sentinel) is turned back into wire units with the layout tables
schemas/frame-large.json and frame-tiny.json (SKYFRAME_SCHEMAS overrides the folder), refusing a
value that is not a whole step, outside the wire range or the sentinel written as a number, and
compared with the decoder's; texts byte for byte; status and service by name or number. The
content check the header computes (skyframe_content_check) must equal "content_check", which must
be the CRC of §5 (recomputed here); a standard vector is checked for that alone (its fields are
the business of the run without --profiles). --corrupt adds, per vector, copies that must be
refused with the exact error, by its decoder and by "any": a flipped body bit and CRC bit
(crc_mismatch), one byte short or long (truncated, too_long), a wrong kind byte with a new CRC and
with the old one (unsupported_version: kind before CRC), a wrong magic (bad_magic), a wrong magic
and kind (bad_magic first), a short copy with a wrong magic (truncated first), and the message
given to the decoders of the other kinds (truncated / too_long); for a standard frame, a large,
tiny or unchanged kind byte in 192 bytes (unsupported_version) and the other decoders. Each
vector's copies count as one more result. --without-large: the DECODER has no large decoder
(SKYFRAME_LARGE 0, the AVR): large vectors are skipped and nothing is given to it. Summary line:
"profile-vectors: N passed, M failed".
"""

import json
import math
import os
import subprocess
import sys
import zlib
from decimal import Decimal
from pathlib import Path

STATUS = {
    "ok": 0, "stale": 1, "not_found": 2, "bad_request": 3, "upstream_unavailable": 4,
    "rate_limited": 5, "too_many_locations": 6, "internal_error": 7,
}
SERVICE = {"none": 0, "open-meteo": 1, "openweathermap": 2, "weatherapi": 3, "met-norway": 4}
SERVICES_V10 = 4  # ids a v1.0 decoder names; it shows later ones as numbers
SUN = {"normal": 0, "polar_day": 1, "polar_night": 2}
# v1.1 (frame-v1.md 5.5-5.8)
AQI_SCALE = {"european_aqi": 0, "us_aqi": 1}
SEVERITY = {"none": 1, "unknown": 2, "minor": 3, "moderate": 4, "severe": 5, "extreme": 6}
MOON = ["new_moon", "waxing_crescent", "first_quarter", "waxing_gibbous", "full_moon",
        "waning_gibbous", "last_quarter", "waning_crescent"]
ABSENT = object()  # a key the vector does not have

# The standard frame's fields that v1.0 reserved (frame-v1.md 3): a v1.0 decoder ignores them.
V11_FIELDS = ("air_quality", "alerts", "moon", "precip_next_hour", "next_update")
# The fields the mirror shows by what they mean (frame-profiles.md 8), not as the wire integer.
MEANING_FIELDS = ("sun", "daily_sun", "air_quality", "alerts", "alert_severity", "moon",
                  "precip_next_hour")
SEVERITY_NUMBER = {name: number for name, number in SEVERITY.items()}
SEVERITY_NAME = {number: name for name, number in SEVERITY.items()}
SUN_NAME = {number: name for name, number in SUN.items()}
# What the decoder (boards/frame_json.h) prints only when built with the v1.1 header.
V11_PRINTED = {f"{name}_wire" for name in V11_FIELDS} | {
    "air_quality", "alerts", "moon", "precip_next_hour", "next_update_s"}
# frame_json.h prints the standard frame nested, as skyframe_frame holds it: the table's field
# (frame-v1.json) -> (the decoder's group, its key there). Other fields: the same key at the top.
NESTED = {
    "temperature": ("current", "temperature"), "feels_like": ("current", "feels_like"),
    "pressure": ("current", "pressure"), "wind_speed": ("current", "wind_speed"),
    "wind_gust": ("current", "wind_gust"), "wind_direction": ("current", "wind_direction"),
    "visibility": ("current", "visibility"), "precipitation": ("current", "precipitation"),
    "humidity": ("current", "humidity"), "weather_code": ("current", "weather_code"),
    "cloud_cover": ("current", "cloud_cover"), "uv_index": ("current", "uv_index"),
    "hourly_temperature": ("hourly", "temperature"),
    "hourly_weather_code": ("hourly", "weather_code"),
    "hourly_precip_probability": ("hourly", "precip_probability"),
    "daily_min": ("daily", "temperature_min"), "daily_max": ("daily", "temperature_max"),
    "daily_weather_code": ("daily", "weather_code"),
    "daily_precip_probability": ("daily", "precip_probability"),
}


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


class Checker:
    def __init__(self, vector, v11=True):
        self.vector = vector
        self.v11 = v11  # False: the decoder has the v1.0 header
        self.problems = []

    def fail(self, field, text):
        self.problems.append(f"{self.vector}: {field}: {text}")

    def keys(self, where, obj, expected):
        if not isinstance(obj, dict):
            self.fail(where or "frame", f"expected an object, got {obj!r}")
            return False
        for k in sorted(expected - set(obj)):
            self.fail(f"{where}{k}", "missing in the vector")
        for k in sorted(set(obj) - expected):
            self.fail(f"{where}{k}", "unknown field (compare.py does not know how to check it)")
        return True

    def unmeaning(self, want, wire_object=ABSENT):
        """want (a vector's `frame`) with every meaning field (frame-profiles.md 8) turned into
        its wire integer (None for null), so the table's fields compare alike; a meaning no wire
        value has is reported. With the vector's `wire` object: it must hold exactly the meaning
        fields `want` has, each a wire integer that reads as `want` says."""
        if not isinstance(want, dict):
            return want
        out = dict(want)
        for name in MEANING_FIELDS:
            if name not in want:
                continue
            value = want[name]
            try:
                if name in ("daily_sun", "alert_severity"):
                    if not isinstance(value, list):
                        raise ValueError(f"{value!r} is not a list")
                    out[name] = [meaning_wire(name, v) for v in value]
                else:
                    out[name] = meaning_wire(name, value)
            except ValueError as error:
                self.fail(name, f"vector meaning: {error}")
                out[name] = value  # profile_frame reports it again, as a value off the wire
        if wire_object is ABSENT:
            return out
        expected = {name for name in MEANING_FIELDS if name in want}
        if not isinstance(wire_object, dict) or set(wire_object) != expected:
            shown = sorted(wire_object) if isinstance(wire_object, dict) else repr(wire_object)
            self.fail("wire", f"expected an object with exactly {sorted(expected)}, got {shown}")
            return out
        for name, raw in wire_object.items():
            values, shown = (raw, want[name]) if isinstance(raw, list) else ([raw], [want[name]])
            if not isinstance(shown, list) or len(values) != len(shown) or \
                    not all(is_int(v) and v >= 0 for v in values):
                self.fail(f"wire.{name}", f"{raw!r} is not the wire integer(s) of {want[name]!r}")
                continue
            for i, (v, meant) in enumerate(zip(values, shown)):
                if not same_meaning(spec_meaning(name, v), meant):
                    self.fail(f"wire.{name}", f"wire {v} reads as "
                                              f"{json.dumps(spec_meaning(name, v), default=str)}, "
                                              f"the frame says {json.dumps(meant, default=str)}"
                              + (f" (element {i})" if isinstance(raw, list) else ""))
        return out

    def equal(self, field, human, want, got):
        if want != got:
            shown = str(human) if isinstance(human, Decimal) else repr(human)
            self.fail(field, f"vector {shown} -> wire {want!r}, decoder {got!r}")

    def int_or_null(self, field, human, got):
        if human is not None and (isinstance(human, bool) or not isinstance(human, int)):
            self.fail(field, f"vector value {human!r} is not an integer or null")
            return
        self.equal(field, human, human, got)

    def named(self, field, human, table, got_number, got_name=None):
        if isinstance(human, str):
            if human not in table:
                self.fail(field, f"vector name {human!r} is not one of {sorted(table)}")
                return
            self.equal(field, human, table[human], got_number)
            unnamed = field == "service" and not self.v11 and table[human] >= SERVICES_V10
            if unnamed:
                # v1.0 has no name for a later service: a number and no name (or "unknown").
                if got_name not in (None, "", "unknown", "(null)", str(got_number)):
                    self.fail(field, f"v1.0 decoder names {got_number!r} {got_name!r}")
            elif got_name is not None and got_name != human:
                self.fail(field, f"decoder names {got_number!r} {got_name!r}, vector says {human!r}")
        else:
            self.int_or_null(field, human, got_number)

    def frame(self, want, got, wire_object=ABSENT):
        """A standard vector's "frame" (frame-profiles.md 8) against the decoder's object."""
        want = self.unmeaning(want, wire_object)
        layout = standard_layout()
        fields = mirror_fields(layout)
        skip = () if self.v11 else V11_FIELDS  # v1.0: the v1.1 keys are there, not compared
        if not self.v11:
            printed = sorted(k for k in V11_PRINTED if k in got)
            if printed:
                self.fail("decoder", f"prints v1.1 fields {printed}: not the v1.0 header")
        self.profile_frame("standard", layout, want, standard_wire(got, fields, skip), skip)
        if isinstance(want, dict) and isinstance(want.get("sun"), int) and \
                not isinstance(want["sun"], bool) and want["sun"] in SUN.values():
            name = next(n for n, v in SUN.items() if v == want["sun"])
            self.equal("sun (name)", want["sun"], name, got["sun_name"])
        if self.v11 and isinstance(want, dict):
            for name in V11_FIELDS:
                if name in want:
                    expected = v11_reading(name, want[name])
                    if expected is not ABSENT:
                        key = "next_update_s" if name == "next_update" else name
                        self.helpers(name, want[name], expected, got[key])

    def helpers(self, field, want, expected, got):
        """The header's helpers (the decoder's object for the field) against the spec's reading
        of the vector's wire value."""
        if expected != got:
            self.fail(field, f"vector {json.dumps(want, default=str)} -> helpers should give "
                             f"{json.dumps(expected)}, decoder {json.dumps(got)}")

    def wire(self, field, human, where):
        """A vector value (Decimal/int/None) -> wire integer, or None after reporting why not."""
        if human is None:
            if field["sentinel"] is None:
                self.fail(where, "null, but the field has no missing value")
            return field["sentinel"]
        if isinstance(human, bool) or not isinstance(human, (int, Decimal)):
            self.fail(where, f"vector value {human!r} is not a number or null")
            return None
        scale = Decimal(repr(field["scale"]))
        wire = Decimal(human) / scale
        if wire != wire.to_integral_value():
            self.fail(where, f"vector value {human} is not a multiple of {scale}: not on the wire")
            return None
        wire = int(wire)
        low, high = INT_RANGE[field["type"]]
        low = low if field["min"] is None else field["min"]
        high = high if field["max"] is None else field["max"]
        if not low <= wire <= high:
            self.fail(where, f"vector value {human} is wire {wire}, outside {low}..{high}")
        elif wire == field["sentinel"]:
            self.fail(where, f"vector value {human} is the sentinel: the mirror says null")
        return wire

    def profile_frame(self, profile, layout, want, got, skip=()):
        """want (frame-profiles.md 8) field by field against got: the decoder's wire values under
        the table's names (a missing value as its sentinel), texts as hex, names as NAME_name.
        The fields named in skip must be in want but are not compared."""
        fields = mirror_fields(layout)
        if not self.keys("", want, {"profile"} | {f["name"] for f in fields}):
            return
        if want.get("profile") != profile:
            self.fail("profile", f"{want.get('profile')!r}, the file says {profile!r}")
        for field in fields:
            name = field["name"]
            if name not in want or name in skip:
                continue  # reported by keys(), or not this decoder's
            value = want[name]
            if name in ("status", "service"):
                table = STATUS if name == "status" else SERVICE
                if value is None:
                    self.fail(name, "null: never missing")
                else:
                    self.named(name, value, table, got[name], got[f"{name}_name"])
                    if not isinstance(value, str) and got[f"{name}_name"] != "unknown":
                        self.fail(name, f"{value} is shown as a number, the decoder names it "
                                        f"{got[name + '_name']!r}")
            elif field["type"] == "utf8":
                texts = value if field["count"] > 1 else [value]
                gots = got[f"{name}_hex"] if field["count"] > 1 else [got[f"{name}_hex"]]
                if not isinstance(texts, list) or len(texts) != field["count"] or \
                        not all(isinstance(t, str) for t in texts):
                    self.fail(name, f"expected {field['count']} text(s), got {value!r}")
                    continue
                for i, (text, hex_got) in enumerate(zip(texts, gots)):
                    raw = text.encode("utf-8")
                    if len(raw) > field["length"] or "\0" in text:
                        self.fail(f"{name}[{i}]", f"{len(raw)} UTF-8 bytes, the field holds "
                                                  f"{field['length']} (or a U+0000)")
                    self.equal(f"{name}[{i}]" if field["count"] > 1 else name, text, raw.hex(),
                               hex_got)
            elif field["type"] == "char":
                if value is not None and not (isinstance(value, str) and len(value) == 2
                                              and value.isascii() and value.isupper()):
                    self.fail(name, f"expected two capital letters or null, got {value!r}")
                self.equal(name, value, value, got[name])
            elif field["count"] > 1:
                if not isinstance(value, list) or len(value) != field["count"]:
                    self.fail(name, f"expected a list of {field['count']}, got {value!r}")
                    continue
                wires = [self.wire(field, v, f"{name}[{i}]") for i, v in enumerate(value)]
                for i, (human, wire, g) in enumerate(zip(value, wires, got[name])):
                    if wire is not None:
                        self.equal(f"{name}[{i}]", human, wire, g)
            else:
                wire = self.wire(field, value, name)
                if wire is not None:
                    self.equal(name, value, wire, got[name])
        if profile == "tiny":  # the header's helper: minutes, or the i16 sentinel
            quarter = got["utc_offset_min"]  # the struct's utc_offset_15min, the wire value
            minutes = -32768 if quarter == -128 else quarter * 15
            self.equal("skyframe_tiny_utc_offset_min", quarter, minutes,
                       got["utc_offset_minutes"])


def standard_wire(got, fields, skip=()):
    """The decoder's object for a standard frame (boards/frame_json.h: nested as skyframe_frame,
    null for a missing value, is_day as true/false/null, the v1.1 fields as NAME_wire) under the
    table's names with wire values, a missing value as the field's sentinel. Fields in skip are
    left out (v1.0: the decoder does not print them)."""
    out = {k: got[k] for k in ("status", "status_name", "service", "service_name", "name_hex",
                               "country")}
    for field in fields:
        name = field["name"]
        if name in out or name in skip or field["type"] in ("utf8", "char"):
            continue
        if name in NESTED:
            group, key = NESTED[name]
            value = got[group][key] if field["count"] == 1 else [slot[key] for slot in got[group]]
            if field["count"] > 1 and len(value) != field["count"]:
                raise ValueError(f"decoder printed {len(value)} {group} slots, "
                                 f"not {field['count']}")
        elif name in V11_FIELDS:
            value = got[f"{name}_wire"]  # the struct's byte(s), 0 when absent
        elif name == "is_day":
            value = {True: 1, False: 0, None: None}[got["is_day"]]
        else:
            value = got[name]
        if field["count"] > 1:
            out[name] = [field["sentinel"] if v is None else v for v in value]
        else:
            out[name] = field["sentinel"] if value is None else value
    return out


def v11_reading(name, wire):
    """What the header's helpers must read from a v1.1 field's wire value (frame-v1.md 5.5-5.8,
    6.9), computed from the spec: the decoder's object for it, None when the spec reads it as
    absent; ABSENT when the vector's value is not a wire integer (reported by profile_frame)."""
    if wire is None:
        return None
    if not is_int(wire) or wire < 0:
        return ABSENT
    if name == "air_quality":
        index, scale = (wire & 0x7FFF) - 1, wire >> 15
        if index < 0 or scale > 1:
            return None
        return {"index": index, "scale": scale,
                "scale_name": next(n for n, v in AQI_SCALE.items() if v == scale)}
    if name == "alerts":
        severity = wire & 7
        if not 1 <= severity <= 6:
            return None
        return {"count": wire >> 3, "severity": severity,
                "severity_name": next(n for n, v in SEVERITY.items() if v == severity)}
    if name == "moon":
        phase = (wire - 1) / 255
        icon = round(phase * 8) % 8  # (wire - 1) / 255 x 8 never ends in .5 (5.7)
        return {"icon": icon, "name": MOON[icon],
                "illumination_pct": round(100 * (1 - math.cos(2 * math.pi * phase)) / 2)}
    if name == "precip_next_hour":
        minutes = wire & 0x7F
        if not (1 <= minutes <= 61 or minutes == 127):
            return None
        return {"now": wire & 0x80 != 0, "change_in_min": None if minutes == 127 else minutes - 1}
    return wire  # next_update: seconds


def spec_meaning(name, wire):
    """frame-profiles.md 8: the mirror's value for one wire integer of a meaning field (a name,
    an object, or None when the spec reads it as absent). Phase and lit as Decimals, so they
    compare equal to a vector's numbers read with parse_float=Decimal."""
    if name in ("sun", "daily_sun"):
        return SUN_NAME.get(wire)
    if name == "alert_severity":
        return SEVERITY_NAME.get(wire)
    if name == "air_quality":
        if wire & 0x7FFF == 0:
            return None
        return {"index": (wire & 0x7FFF) - 1,
                "scale": next(n for n, v in AQI_SCALE.items() if v == wire >> 15)}
    if name == "alerts":
        if wire & 7 not in SEVERITY_NAME:
            return None
        return {"count": wire >> 3, "worst": SEVERITY_NAME[wire & 7]}
    if name == "moon":
        if wire == 0:
            return None
        k = wire - 1
        lit = 100 * (1 - math.cos(2 * math.pi * k / 255)) / 2
        return {"phase": Decimal((2000 * k + 255) // 510) / 1000,  # round(1000 k / 255)
                "name": MOON[round(k / 255 * 8) % 8], "lit": Decimal(round(lit)) / 100}
    if name == "precip_next_hour":
        minutes = wire & 0x7F
        if not (1 <= minutes <= 61 or minutes == 127):
            return None
        return {"precipitating": wire & 0x80 != 0,
                "change_in_min": None if minutes == 127 else minutes - 1}
    raise KeyError(name)


def same_meaning(a, b):
    """Equal as JSON values: numbers by value, but a bool is not a number."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_meaning(a[k], b[k]) for k in a)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def meaning_wire(name, value):
    """The wire integer whose mirror value is `value` (None for null), or raises ValueError saying
    why no wire value shows it. The smallest such value: the spec writes each one way."""
    if value is None:
        return None
    if name == "air_quality":
        if not isinstance(value, dict) or set(value) != {"index", "scale"}:
            raise ValueError(f"{value!r} is not {{\"index\": ..., \"scale\": ...}}")
        index, scale = value["index"], value["scale"]
        if not is_int(index) or not 0 <= index <= 0x7FFE or scale not in AQI_SCALE:
            raise ValueError(f"{value!r}: index 0..32766 and a scale {sorted(AQI_SCALE)}")
        candidates = [AQI_SCALE[scale] << 15 | (index + 1)]
    elif name == "alerts":
        if not isinstance(value, dict) or set(value) != {"count", "worst"}:
            raise ValueError(f"{value!r} is not {{\"count\": ..., \"worst\": ...}}")
        count, worst = value["count"], value["worst"]
        if not is_int(count) or not 0 <= count <= 31 or worst not in SEVERITY_NUMBER:
            raise ValueError(f"{value!r}: count 0..31 and worst one of {sorted(SEVERITY)}")
        candidates = [count << 3 | SEVERITY_NUMBER[worst]]
    else:
        candidates = range(256)
    for wire in candidates:
        if same_meaning(spec_meaning(name, wire), value):
            return wire
    raise ValueError(f"{json.dumps(value, default=str)} is what no wire value of {name} shows")


def crc_note(hex_text):
    try:
        raw = bytes.fromhex(hex_text)
    except ValueError:
        return ""
    if len(raw) != 192:
        return ""
    stored = int.from_bytes(raw[188:192], "little")
    return f" (zlib.crc32 of bytes 0..187 = 0x{zlib.crc32(raw[:188]):08X}, stored 0x{stored:08X})"


PROFILE_NUMBERS = {"standard": 0, "large": 1, "tiny": 2}  # request-v1.md 3, byte 6


def request_line(expect):
    """The DECODER --request input line that should rebuild a binary request vector."""
    return request_body(expect) + request_options(expect)


def request_body(expect):
    if expect.get("refresh"):
        return f"refresh {expect['id']}"
    (place,) = expect["locations"]
    if "latitude" in place:
        lat = Decimal(place["latitude"]) * 100000
        lon = Decimal(place["longitude"]) * 100000
        if lat != lat.to_integral_value() or lon != lon.to_integral_value():
            raise ValueError("coordinates are not whole 1e-5 degree steps")
        return f"coordinates {expect['id']} {int(lat)} {int(lon)}"
    country = place.get("country") or "-"
    return f"place {expect['id']} {country} {place['name'].encode('utf-8').hex()}"


def request_options(expect):
    """" profile=N" when the vector names a profile, " check=HEX" for the first slot's check."""
    options = ""
    if expect.get("profile"):
        options += f" profile={PROFILE_NUMBERS[expect['profile']]}"
    checks = expect.get("checks") or []
    if checks and checks[0] is not None:
        options += f" check={checks[0]}"
    return options


def check_requests(decoder, directory):
    """[(name, problems)] for the valid binary request vectors in directory."""
    cases = []
    for path in sorted(directory.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
            hex_text = "".join(data["hex"].split()).lower()
            expect = data["expect"]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # not this check's business: the gateway's tests read these vectors
        if not hex_text.startswith("5351") or len(hex_text) != 128 or "error" in expect:
            continue
        try:
            cases.append((path.name, hex_text, request_line(expect)))
        except (KeyError, ValueError, TypeError) as error:
            cases.append((path.name, hex_text, f"#{error!r}"))  # reported below
    if not cases:  # an empty or missing directory checks nothing: a failure
        return [(str(directory), [f"no valid binary request vectors in {directory}"])]
    lines = [line for _, _, line in cases if not line.startswith("#")]
    run = subprocess.run([decoder, "--request"], input="".join(l + "\n" for l in lines),
                         capture_output=True, text=True, check=False)
    output = iter(run.stdout.splitlines())
    results = []
    for name, hex_text, line in cases:
        if line.startswith("#"):
            results.append((name, [f"{name}: expect: cannot build a request from it: {line[1:]}"]))
            continue
        got = next(output, None)
        if got == hex_text:
            results.append((name, []))
        else:
            note = f" ({run.stderr.strip()})" if run.stderr.strip() else ""
            results.append((name, [f"{name}: skyframe_request_* for '{line}' gave {got}, "
                                   f"vector {hex_text}{note}"]))
    return results


def uplink_line(vector):
    """The DECODER --uplink input line that should rebuild a LoRaWAN uplink vector."""
    expect = vector["expect"]
    if expect["kind"] == "coordinates":
        line = f"coordinates {expect['id']} {vector['write']['lat_e5']} {vector['write']['lon_e5']}"
    elif expect["kind"] == "place":
        line = f"place {expect['id']} {expect['index']}"
    elif expect["kind"] == "refresh":
        line = f"refresh {expect['id']}"
    else:
        raise ValueError(f"unknown kind {expect['kind']!r}")
    if expect.get("check") is not None:
        line += f" check={expect['check']}"
    return line


def check_uplinks(decoder, directory):
    """[(name, problems)] for the valid uplink vectors in directory (at least one)."""
    cases = []
    for path in sorted(directory.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            hex_text = "".join(data["hex"].split()).lower()
            expect = data["expect"]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            cases.append((path.name, "", f"#unreadable vector: {error!r}"))
            continue
        if "error" in expect:
            continue  # the gateway's parser reads these (Swift tests)
        try:
            cases.append((path.name, hex_text, uplink_line(data)))
        except (KeyError, ValueError, TypeError) as error:
            cases.append((path.name, hex_text, f"#{error!r}"))
    if not cases:
        return [(str(directory), [f"no valid uplink vectors in {directory}"])]
    lines = [line for _, _, line in cases if not line.startswith("#")]
    run = subprocess.run([decoder, "--uplink"], input="".join(l + "\n" for l in lines),
                         capture_output=True, text=True, check=False)
    output = iter(run.stdout.splitlines())
    results = []
    for name, hex_text, line in cases:
        if line.startswith("#"):
            results.append((name, [f"{name}: cannot build an uplink from it: {line[1:]}"]))
            continue
        got = next(output, None)
        if got == hex_text:
            results.append((name, []))
        else:
            note = f" ({run.stderr.strip()})" if run.stderr.strip() else ""
            results.append((name, [f"{name}: skyframe_uplink_* for '{line}' gave {got}, "
                                   f"vector {hex_text}{note}"]))
    return results


def reseal(raw):
    """raw (192 bytes, bytearray) with the CRC of bytes 0..187 stored again."""
    raw[188:192] = zlib.crc32(bytes(raw[:188])).to_bytes(4, "little")
    return raw


def corrupted_copies(hex_text, index):
    """[(what, expected skyframe_error_name, hex)] for a valid 192-byte frame; index (the
    vector's position) moves the flipped bits and the wrong values around."""
    raw = bytes.fromhex(hex_text)
    copies = []

    def add(what, error, data):
        copies.append((what, error, bytes(data).hex()))

    body = bytearray(raw)
    byte, bit = 3 + (index * 53) % 185, index % 8  # bytes 3..187: not magic or version
    body[byte] ^= 1 << bit
    add(f"bit {bit} of body byte {byte} flipped", "crc_mismatch", body)
    crc = bytearray(raw)
    byte, bit = 188 + index % 4, (index * 3 + 1) % 8
    crc[byte] ^= 1 << bit
    add(f"bit {bit} of CRC byte {byte} flipped", "crc_mismatch", crc)
    magic = bytearray(raw)
    byte = index % 2
    magic[byte] ^= 1 << (index % 8)
    add(f"magic byte {byte} = 0x{magic[byte]:02x}, CRC recomputed", "bad_magic", reseal(magic))
    version = bytearray(raw)
    version[2] = (2, 0, 0xFF)[index % 3]
    add(f"version {version[2]}, CRC recomputed", "unsupported_version", reseal(version))
    both = bytearray(raw)
    both[0], both[2] = ord("s"), 2
    add("magic \"sF\" and version 2, old CRC", "bad_magic", both)
    stale = bytearray(raw)
    stale[2] = 2
    add("version 2, old CRC", "unsupported_version", stale)
    add("191 bytes", "truncated", raw[:191])
    add("191 bytes, magic \"SQ\"", "truncated", b"SQ" + raw[2:191])
    add("193 bytes", "too_long", raw + bytes([index & 0xFF]))
    return copies


def decoded(line):
    """The decoder's JSON object for one output line, or None if it is not one."""
    try:
        got = json.loads(line)
    except ValueError:
        return None
    return got if isinstance(got, dict) else None


# ---- Frame profiles: compare.py --profiles (frame-profiles.md) --------------------------------
#
# The vector's "frame" object (§8: wire x scale, null for the sentinel) is turned back into wire
# values with the layout tables schemas/frame-large.json and frame-tiny.json (scale, range,
# sentinel of each field) and compared with what the decoder printed (decode_vectors --profiles:
# the struct's values under the table's names). Independent of the generator's code: only the
# layout files and the spec's rules are shared.

SCHEMAS = Path(os.environ.get("SKYFRAME_SCHEMAS", Path(__file__).resolve().parents[2] / "schemas"))
KIND = {"standard": 0x01, "large": 0x11, "tiny": 0x21, "unchanged": 0x31}
SIZE = {"standard": 192, "large": 960, "tiny": 48, "unchanged": 16}
PROFILE_NUMBER = {"standard": 0, "large": 1, "tiny": 2}
ZEROED = {"standard": [(4, 8), (20, 28), (186, 188)]}  # §5; large and tiny: from their layouts
INT_RANGE = {"u8": (0, 0xFF), "i8": (-0x80, 0x7F), "u16": (0, 0xFFFF), "i16": (-0x8000, 0x7FFF),
             "u32": (0, 0xFFFFFFFF), "i32": (-0x80000000, 0x7FFFFFFF)}
UNCHANGED_KEYS = {"profile", "of", "request_id", "slot_index", "slot_count", "next_update"}
DECODERS = ("standard", "large", "tiny", "unchanged")


def load_layouts():
    layouts = {}
    for profile in ("large", "tiny"):
        layout = json.loads((SCHEMAS / f"frame-{profile}.json").read_text(encoding="utf-8"))
        assert layout["kind"] == KIND[profile] and layout["size"] == SIZE[profile], profile
        layouts[profile] = layout
        ZEROED[profile] = [tuple(r) for r in layout["content_check_zeroed"]]
    return layouts


def mirror_fields(layout):
    """§8: every field of the table but magic, kind (the standard table's `version`), the
    reserved_* fields and crc32, in the table's order."""
    return [f for f in layout["fields"] if f["name"] not in ("magic", "kind", "version", "crc32")
            and not f["name"].startswith("reserved_")]


_STANDARD_LAYOUT = []


def standard_layout():
    """schemas/frame-v1.json, its one text field (`name`: `count` bytes) given a `length` of
    that many bytes and a `count` of one text, as the profile tables have it."""
    if not _STANDARD_LAYOUT:
        layout = json.loads((SCHEMAS / "frame-v1.json").read_text(encoding="utf-8"))
        assert layout["size"] == SIZE["standard"] and layout["magic"] == [0x53, 0x46], layout
        for field in layout["fields"]:
            if field["type"] == "utf8" and "length" not in field:
                field["length"], field["count"] = field["count"], 1
        _STANDARD_LAYOUT.append(layout)
    return _STANDARD_LAYOUT[0]


def content_check(profile, raw):
    data = bytearray(raw[:SIZE[profile] - 4])
    for start, end in ZEROED[profile]:
        data[start:end] = bytes(end - start)
    return f"{zlib.crc32(bytes(data)):08x}"


def reseal_any(raw):
    """raw (bytearray) with its last 4 bytes the CRC-32 of the others."""
    raw[-4:] = zlib.crc32(bytes(raw[:-4])).to_bytes(4, "little")
    return raw


class ProfileChecker(Checker):
    def unchanged_frame(self, want, got):
        if not self.keys("", want, UNCHANGED_KEYS):
            return
        of = want.get("of")
        if of not in PROFILE_NUMBER:
            self.fail("of", f"{of!r} is not one of {sorted(PROFILE_NUMBER)}")
        else:
            self.equal("of", of, PROFILE_NUMBER[of], got["of"])
            self.equal("of (name)", of, of, got["of_name"])
        for k in ("request_id", "slot_index", "slot_count"):
            if k in want:
                if want[k] is None:
                    self.fail(k, "null: never missing")
                self.int_or_null(k, want[k], got[k])
        if "next_update" in want:
            hint = want["next_update"]
            if hint == 0:
                self.fail("next_update", "0: the mirror says null for no hint")
            self.int_or_null("next_update", hint, None if got["next_update"] == 0 else got["next_update"])


def profile_copies(profile, raw, index, large):
    """[(decoder, what, expected skyframe_error_name, bytes)] for a valid message: corrupted
    copies through its own decoder and through skyframe_message_kind ("any"), and the message
    given to the decoders of the other kinds. index moves positions and values around."""
    size = len(raw)
    out = []

    def add(decoder, what, error, data):
        if decoder == "large" and not large:
            return
        out.append((decoder, what, error, bytes(data)))

    body = bytearray(raw)
    byte, bit = 3 + (index * 53) % (size - 7), index % 8  # bytes 3..size-5: not magic or kind
    body[byte] ^= 1 << bit
    for decoder in (profile, "any"):
        add(decoder, f"bit {bit} of body byte {byte} flipped", "crc_mismatch", body)
    crc = bytearray(raw)
    byte, bit = size - 4 + index % 4, (index * 3 + 1) % 8
    crc[byte] ^= 1 << bit
    add(profile, f"bit {bit} of CRC byte {byte} flipped", "crc_mismatch", crc)
    for decoder in (profile, "any"):
        add(decoder, f"{size - 1} bytes", "truncated", raw[:-1])
        add(decoder, f"{size + 1} bytes", "too_long", raw + bytes([index & 0xFF]))
    # the other kinds, this profile's version 2, an unknown profile, 0
    others = [k for k in (0x01, 0x11, 0x21, 0x31) if k != raw[2]] + [raw[2] + 1, 0x41, 0]
    kind = bytearray(raw)
    kind[2] = others[index % len(others)]
    reseal_any(kind)
    for decoder in (profile, "any"):
        add(decoder, f"kind byte 0x{kind[2]:02x}, CRC recomputed", "unsupported_version", kind)
    stale = bytearray(raw)
    stale[2] = others[(index + 1) % len(others)]
    add(profile, f"kind byte 0x{stale[2]:02x}, old CRC", "unsupported_version", stale)
    magic = bytearray(raw)
    magic[index % 2] ^= 1 << (index % 8)
    reseal_any(magic)
    for decoder in (profile, "any"):
        add(decoder, f"magic {bytes(magic[:2])!r}, CRC recomputed", "bad_magic", magic)
    both = bytearray(raw)
    both[0], both[2] = ord("s"), others[index % len(others)]
    add(profile, "magic \"sF\" and a wrong kind, old CRC", "bad_magic", both)
    short = b"SQ" + raw[2:-1]
    add(profile, f"{size - 1} bytes, magic \"SQ\"", "truncated", short)
    for other in DECODERS:
        if other != profile:
            add(other, f"given to the {other} decoder",
                "truncated" if size < SIZE[other] else "too_long", raw)
    return out


def standard_copies(raw, index, large):
    """For a standard frame (its own corruptions are compare.py's business without --profiles):
    a large kind byte in 192 bytes, and the frame given to the profile decoders."""
    out = []
    kind = bytearray(raw)
    kind[2] = (0x11, 0x21, 0x31)[index % 3]
    reseal_any(kind)
    out.append(("any", f"kind byte 0x{kind[2]:02x} in 192 bytes, CRC recomputed",
                "unsupported_version", bytes(kind)))
    for other in ("large", "tiny", "unchanged"):
        if other != "large" or large:
            out.append((other, f"given to the {other} decoder",
                        "truncated" if 192 < SIZE[other] else "too_long", raw))
    return out


def profiles_main(args):
    corrupt, large = False, True
    while args[:1] in (["--corrupt"], ["--without-large"]):
        if args[0] == "--corrupt":
            corrupt = True
        else:
            large = False
        args = args[1:]
    label = "profile-vectors"
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    decoder, directories = args[0], [Path(a) for a in args[1:]]
    layouts = load_layouts()
    files = [p for d in directories for p in sorted(d.glob("*.json"))]
    # Each directory given must hold vectors: one left empty (or missing) checks nothing.
    empty = [str(d) for d in directories if not any(d.glob("*.json"))]
    if empty:
        print(f"no vectors: {', '.join(empty)} hold no *.json")
        print(f"{label}: 0 passed, 1 failed")
        return 1

    vectors, problems, skipped = [], {}, {}  # vectors: (key, data, profile, raw); skipped: why
    for path in files:
        key = f"{path.parent.name}/{path.name}"
        try:
            data = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
            raw = bytes.fromhex("".join(data["hex"].split()))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            problems[key] = [f"{key}: unreadable vector: {error}"]
            continue
        profile = data.get("profile", "standard")
        if profile not in SIZE:
            problems[key] = [f"{key}: profile {profile!r} is not one of {sorted(SIZE)}"]
            continue
        if "error" in data:
            skipped[key] = "a vector of a message to refuse"
            continue
        if profile == "large" and not large:
            skipped[key] = "--without-large"
            continue
        found = problems.setdefault(key, [])
        if len(raw) != SIZE[profile] or raw[:2] != b"SF" or raw[2] != KIND[profile]:
            found.append(f"{key}: hex is not a {profile} message ({len(raw)} bytes, "
                         f"{raw[:3].hex()})")
        elif zlib.crc32(raw[:-4]) != int.from_bytes(raw[-4:], "little"):
            found.append(f"{key}: hex: stored CRC is not the CRC-32 of the bytes before it")
        if profile != "unchanged":
            if "content_check" not in data:
                found.append(f"{key}: content_check: missing in the vector")
            elif len(raw) == SIZE[profile] and data["content_check"] != content_check(profile, raw):
                found.append(f"{key}: content_check: vector {data['content_check']!r}, "
                             f"frame-profiles.md §5 gives {content_check(profile, raw)!r}")
        elif "content_check" in data:
            found.append(f"{key}: content_check: an unchanged message has none")
        vectors.append((key, data, profile, raw))

    lines_in, expect = [], []  # expect: (key, kind of line, what, error)
    for index, (key, data, profile, raw) in enumerate(vectors):
        lines_in.append(f"any {raw.hex()}")
        expect.append((key, "any", None, None))
        lines_in.append(f"{profile} {raw.hex()}")
        expect.append((key, "own", None, None))
        if corrupt and len(raw) == SIZE[profile]:
            copies = (standard_copies(raw, index, large) if profile == "standard"
                      else profile_copies(profile, raw, index, large))
            for decoder_name, what, error, data_bytes in copies:
                lines_in.append(f"{decoder_name} {data_bytes.hex()}")
                expect.append((key, "copy", f"{decoder_name} decoder, {what}", error))

    run = subprocess.run([decoder, "--profiles"], input="".join(l + "\n" for l in lines_in),
                         capture_output=True, text=True, check=False)
    lines = run.stdout.splitlines()
    if run.returncode != 0 or run.stderr.strip() or len(lines) != len(lines_in):
        print(f"decoder failed: exit {run.returncode}, {len(lines)} lines for {len(lines_in)} "
              f"messages ({len(vectors)} vectors)")
        print(run.stderr.strip()[-4000:])
        print(f"{label}: 0 passed, {len(files)} failed")
        return 1

    by_key = {key: (data, profile, raw) for key, data, profile, raw in vectors}
    first_output, copies_seen, copy_problems = {}, {}, {}
    for (key, role, what, error), line in zip(expect, lines):
        data, profile, raw = by_key[key]
        got = decoded(line)
        if role == "copy":
            copies_seen[key] = copies_seen.get(key, 0) + 1
            found = copy_problems.setdefault(key, [])
            if got is None:
                found.append(f"{key}: {what}: not a JSON object: {line[:200]!r}")
            elif got.get("ok"):
                found.append(f"{key}: {what}: expected {error!r}, decoder accepted it")
            elif got.get("error") != error:
                found.append(f"{key}: {what}: expected {error!r}, decoder says {got.get('error')!r}")
            continue
        checker = ProfileChecker(key)
        if got is None:
            checker.fail("decoder", f"not a JSON object: {line[:200]!r}")
        elif not got.get("ok"):
            checker.fail("hex", f"{'skyframe_message_kind + ' if role == 'any' else ''}"
                                f"{profile} decoder refused it: {got.get('error')}")
        elif role == "own":
            if line != first_output.get(key):
                checker.fail("decoder", f"the {profile} decoder printed another object than "
                                        "skyframe_message_kind's choice")
        else:
            first_output[key] = line
            checker.equal("kind", profile, KIND[profile], got.get("kind"))
            checker.equal("profile", profile, profile, got.get("profile"))
            checker.equal("crc32", "stored CRC", int.from_bytes(raw[-4:], "little"), got.get("crc32"))
            if profile != "unchanged":
                checker.equal("content_check", data.get("content_check"), data.get("content_check"),
                              got.get("content_check"))
            try:
                if profile in layouts:
                    checker.profile_frame(profile, layouts[profile],
                                          checker.unmeaning(data.get("frame"), data.get("wire")),
                                          got)
                elif profile == "unchanged":
                    checker.unchanged_frame(data.get("frame"), got)
            except Exception as error:  # a malformed vector must not hide the other results
                checker.fail("frame", f"could not be checked: {error!r}")
        problems.setdefault(key, []).extend(checker.problems)

    passed = failed = 0
    for path in files:
        key = f"{path.parent.name}/{path.name}"
        if key in skipped:
            print(f"skip {key} ({skipped[key]})")
            continue
        found = problems.get(key, [])
        if found:
            failed += 1
            print(f"FAIL {key}")
            for problem in found:
                print(f"     {problem}")
        else:
            passed += 1
            print(f"ok   {key}")
        if key in copies_seen:
            if copy_problems.get(key):
                failed += 1
                print(f"FAIL corrupted {key}")
                for problem in copy_problems[key]:
                    print(f"     {problem}")
            else:
                passed += 1
                print(f"ok   corrupted {key} ({copies_seen[key]} copies rejected with the right "
                      "error)")
    print(f"{label}: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def main():
    args = sys.argv[1:]
    if "--profiles" in args[:3]:
        return profiles_main([a for a in args if a != "--profiles"])
    v11, corrupt = True, False
    while args[:1] in (["--v1.0"], ["--corrupt"]):
        if args[0] == "--v1.0":
            v11 = False
        else:
            corrupt = True
        args = args[1:]
    if len(args) not in (2, 3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    label = "vectors" if v11 else "v1.0-vectors"
    header = "" if v11 else " (v1.0 header)"
    decoder, directory = args[0], Path(args[1])
    requests = Path(args[2]) if len(args) >= 3 else None
    uplinks = Path(args[3]) if len(args) == 4 else None
    files = sorted(directory.glob("*.json"))
    if not files:
        print(f"no vectors: {directory}/*.json matches nothing")
        print(f"{label}: 0 passed, 1 failed")
        return 1

    vectors, problems = [], {}
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
            hex_text = data["hex"]
            if not isinstance(hex_text, str):
                raise ValueError("hex is not a string")
        except (OSError, ValueError, KeyError, TypeError) as error:
            problems[path.name] = [f"{path.name}: unreadable vector: {error}"]
            continue
        hex_text = "".join(hex_text.split())
        if len(hex_text) != 384:
            # still decoded: a vector may test a wrong length on purpose ("error": "truncated")
            note = f"{path.name}: hex: {len(hex_text)} characters, a frame is 384"
            if "error" not in data:
                problems.setdefault(path.name, []).append(note)
        vectors.append((path, data, hex_text))

    copies = []  # (vector name, what, expected error, hex)
    if corrupt:
        for index, (path, data, hex_text) in enumerate(vectors):
            if "error" not in data and len(hex_text) == 384:
                try:
                    found = corrupted_copies(hex_text, index)
                except ValueError:
                    continue  # not hex: the vector itself fails
                copies.extend((path.name, *copy) for copy in found)

    lines_in = [h for _, _, h in vectors] + [h for _, _, _, h in copies]
    stdin = "".join(h + "\n" for h in lines_in)
    run = subprocess.run([decoder], input=stdin, capture_output=True, text=True, check=False)
    lines = run.stdout.splitlines()
    if run.returncode != 0 or run.stderr.strip() or len(lines) != len(lines_in):
        print(f"decoder failed: exit {run.returncode}, {len(lines)} lines for {len(lines_in)} "
              f"frames ({len(vectors)} vectors, {len(copies)} corrupted copies)")
        print(run.stderr.strip()[-4000:])
        print(f"{label}: 0 passed, {len(files)} failed")
        return 1

    for (path, data, hex_text), line in zip(vectors, lines):
        checker = Checker(path.name, v11)
        got = decoded(line)
        if got is None:
            checker.fail("decoder", f"not a JSON object: {line[:200]!r}")
        elif "error" in data:
            if "frame" in data:
                checker.fail("error", "a vector has either \"frame\" or \"error\", not both")
            if got.get("ok"):
                checker.fail("error", f"expected {data['error']!r}, decoder accepted the frame")
            elif got["error"] != data["error"]:
                checker.fail("error", f"expected {data['error']!r}, decoder says {got['error']!r}")
        elif not got.get("ok"):
            checker.fail("hex", f"decoder refused the frame: {got['error']}" + crc_note(hex_text))
        elif "frame" not in data:
            checker.fail("frame", "missing in the vector")
        else:
            try:
                checker.frame(data["frame"], got, data.get("wire"))
            except Exception as error:  # a malformed vector must not hide the other results
                checker.fail("frame", f"could not be checked: {error!r}")
        problems.setdefault(path.name, []).extend(checker.problems)

    rejected = {}  # vector name -> [problems], one entry per vector with copies
    for (name, what, error, _), line in zip(copies, lines[len(vectors):]):
        found = rejected.setdefault(name, [])
        got = decoded(line)
        if got is None:
            found.append(f"{name}: {what}: not a JSON object: {line[:200]!r}")
        elif got.get("ok"):
            found.append(f"{name}: {what}: expected {error!r}, decoder accepted it")
        elif got.get("error") != error:
            found.append(f"{name}: {what}: expected {error!r}, decoder says {got.get('error')!r}")

    passed = failed = 0
    for path in files:
        found = problems.get(path.name, [])
        if found:
            failed += 1
            print(f"FAIL {path.name}{header}")
            for problem in found:
                print(f"     {problem}")
        else:
            passed += 1
            print(f"ok   {path.name}{header}")
        if path.name in rejected:
            count = sum(1 for copy in copies if copy[0] == path.name)
            if rejected[path.name]:
                failed += 1
                print(f"FAIL corrupted {path.name}{header}")
                for problem in rejected[path.name]:
                    print(f"     {problem}")
            else:
                passed += 1
                print(f"ok   corrupted {path.name}{header} ({count} copies rejected with the "
                      "right error)")
    if requests is not None and requests.is_dir():
        for name, found in check_requests(decoder, requests):
            if found:
                failed += 1
                print(f"FAIL request {name}")
                for problem in found:
                    print(f"     {problem}")
            else:
                passed += 1
                print(f"ok   request {name} (rebuilt with skyframe_request_*)")
    if uplinks is not None:
        for name, found in check_uplinks(decoder, uplinks):
            if found:
                failed += 1
                print(f"FAIL uplink {name}")
                for problem in found:
                    print(f"     {problem}")
            else:
                passed += 1
                print(f"ok   uplink {name} (rebuilt with skyframe_uplink_*)")
    print(f"{label}: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
