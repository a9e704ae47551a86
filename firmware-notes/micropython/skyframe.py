# skyframe.py - Skyframe frames and requests in pure Python, for MicroPython, CircuitPython and
# CPython. One file: copy it to the board (mpremote cp skyframe.py :, or the CIRCUITPY drive).
#
#   import skyframe
#   m = skyframe.decode(payload)        # any kind: 192 (standard), 960 (large), 48 (tiny), 16
#   if m.kind == skyframe.KIND_STANDARD and m.has_weather():
#       t = m.get("temperature")         # wire units (0.1 degC here), None when missing
#   skyframe.request_place("Berlin", "DE", request_id=7)   # the 64-byte binary request
#   skyframe.request_text("Berlin,DE", request_id=7, profile="tiny")   # or the text form
#
# decode() checks the length, the magic "SF", the kind byte and the CRC-32, in that order, like
# skyframe_frame.h, and raises FrameError (its .error is the header's name: "truncated",
# "too_long", "bad_magic", "unsupported_version", "crc_mismatch"). The message it returns keeps
# a memoryview of your buffer and reads each field when asked (no copy, no per-field object):
# get(name[, i]) gives the wire value as an int, or None for the field's "missing" sentinel;
# value(name[, i]) the number in the unit of schemas/frame-*.json (a float where the scale is
# not whole); text(name[, i]) a string field. Field names are those of the layout tables
# (schemas/frame-v1.json, frame-large.json, frame-tiny.json). Keep the buffer unchanged while you
# read. mirror() gives the JSON form of `skyframe decode --json` and the golden vectors (it
# allocates; for tests and logs): air_quality, alerts, moon, precip_next_hour and the sun by what
# they mean (frame-profiles.md 8), as air_quality(), alerts(), ... below read them.
#
# Tiny's offset from UTC is "utc_offset_min" (as in standard and large; the table row was called
# "utc_offset_15min" before, and get()/value() still take that name): get() gives the wire value
# in quarter hours, value() minutes.
import struct

# The release of the Skyframe device libraries (semver of their API; the C header's
# SKYFRAME_LIBRARY_VERSION is the same number). Not the gateway's version, nor a wire format's.
VERSION = "1.1.0"

try:
    from binascii import crc32 as _crc32
except ImportError:  # a port built without binascii.crc32
    _crc32 = None

KIND_STANDARD = 0x01
KIND_LARGE = 0x11
KIND_TINY = 0x21
KIND_UNCHANGED = 0x31
SIZES = {KIND_STANDARD: 192, KIND_LARGE: 960, KIND_TINY: 48, KIND_UNCHANGED: 16}
KIND_NAMES = {KIND_STANDARD: "standard", KIND_LARGE: "large", KIND_TINY: "tiny",
              KIND_UNCHANGED: "unchanged"}
PROFILES = ("standard", "large", "tiny")  # request profile byte 0, 1, 2
STATUS = ("ok", "stale", "not_found", "bad_request", "upstream_unavailable", "rate_limited",
          "too_many_locations", "internal_error")
SERVICE = ("none", "open-meteo", "openweathermap", "weatherapi", "met-norway")
SUN = ("normal", "polar_day", "polar_night")
SEVERITY = (None, "none", "unknown", "minor", "moderate", "severe", "extreme")
MOON = ("new_moon", "waxing_crescent", "first_quarter", "waxing_gibbous", "full_moon",
        "waning_gibbous", "last_quarter", "waning_crescent")
AQI_SCALE = ("european_aqi", "us_aqi")

# Field types: byte count and sentinel rules live in _read.
U8, I8, U16, I16, U32, I32, CHAR, UTF8 = 0, 1, 2, 3, 4, 5, 6, 7
_WIDTH = (1, 1, 2, 2, 4, 4, 1, 1)

# name: (offset, type, count, scale numerator, scale denominator, sentinel, text length)
# value = wire * num / den (an int where den is 1); sentinel None: the field has none.
_STANDARD = {
    "status": (3, U8, 1, 1, 1, None, 0), "request_id": (4, U16, 1, 1, 1, None, 0),
    "slot_index": (6, U8, 1, 1, 1, None, 0), "slot_count": (7, U8, 1, 1, 1, None, 0),
    "service": (8, U8, 1, 1, 1, None, 0), "is_day": (9, U8, 1, 1, 1, 255, 0),
    "sun": (10, U8, 1, 1, 1, 255, 0), "hourly_step_h": (11, U8, 1, 1, 1, None, 0),
    "latitude": (12, I32, 1, 1, 100000, -2147483648, 0),
    "longitude": (16, I32, 1, 1, 100000, -2147483648, 0),
    "observed_at": (20, U32, 1, 1, 1, 0, 0), "fetched_at": (24, U32, 1, 1, 1, 0, 0),
    "hourly_start": (28, U32, 1, 1, 1, 0, 0), "utc_offset_min": (32, I16, 1, 1, 1, -32768, 0),
    "daily_start": (34, U16, 1, 1, 1, 65535, 0), "country": (36, CHAR, 2, 1, 1, 0, 2),
    "air_quality": (38, U16, 1, 1, 1, 0, 0), "name": (40, UTF8, 1, 1, 1, 0, 24),
    "temperature": (64, I16, 1, 1, 10, -32768, 0), "feels_like": (66, I16, 1, 1, 10, -32768, 0),
    "pressure": (68, U16, 1, 1, 10, 65535, 0), "wind_speed": (70, U16, 1, 1, 10, 65535, 0),
    "wind_gust": (72, U16, 1, 1, 10, 65535, 0), "wind_direction": (74, U16, 1, 1, 1, 65535, 0),
    "visibility": (76, U16, 1, 10, 1, 65535, 0), "precipitation": (78, U16, 1, 1, 10, 65535, 0),
    "humidity": (80, U8, 1, 1, 1, 255, 0), "weather_code": (81, U8, 1, 1, 1, 255, 0),
    "cloud_cover": (82, U8, 1, 1, 1, 255, 0), "uv_index": (83, U8, 1, 1, 10, 255, 0),
    "alerts": (84, U8, 1, 1, 1, 0, 0), "moon": (85, U8, 1, 1, 1, 0, 0),
    "precip_next_hour": (86, U8, 1, 1, 1, 0, 0), "sunrise": (88, U32, 1, 1, 1, 0, 0),
    "sunset": (92, U32, 1, 1, 1, 0, 0),
    "hourly_temperature": (96, I16, 12, 1, 10, -32768, 0),
    "hourly_weather_code": (120, U8, 12, 1, 1, 255, 0),
    "hourly_precip_probability": (132, U8, 12, 1, 1, 255, 0),
    "daily_min": (144, I16, 7, 1, 10, -32768, 0), "daily_max": (158, I16, 7, 1, 10, -32768, 0),
    "daily_weather_code": (172, U8, 7, 1, 1, 255, 0),
    "daily_precip_probability": (179, U8, 7, 1, 1, 255, 0),
    "next_update": (186, U16, 1, 1, 1, 0, 0),
}
_LARGE = {
    "status": (3, U8, 1, 1, 1, None, 0), "request_id": (4, U16, 1, 1, 1, None, 0),
    "slot_index": (6, U8, 1, 1, 1, None, 0), "slot_count": (7, U8, 1, 1, 1, None, 0),
    "service": (8, U8, 1, 1, 1, None, 0), "is_day": (9, U8, 1, 1, 1, 255, 0),
    "sun": (10, U8, 1, 1, 1, 255, 0), "hourly_step_h": (11, U8, 1, 1, 1, None, 0),
    "latitude": (12, I32, 1, 1, 100000, -2147483648, 0),
    "longitude": (16, I32, 1, 1, 100000, -2147483648, 0),
    "observed_at": (20, U32, 1, 1, 1, 0, 0), "fetched_at": (24, U32, 1, 1, 1, 0, 0),
    "hourly_start": (28, U32, 1, 1, 1, 0, 0), "utc_offset_min": (32, I16, 1, 1, 1, -32768, 0),
    "daily_start": (34, U16, 1, 1, 1, 65535, 0), "country": (36, CHAR, 2, 1, 1, 0, 2),
    "air_quality": (38, U16, 1, 1, 1, 0, 0), "next_update": (40, U16, 1, 1, 1, 0, 0),
    "alerts": (42, U8, 1, 1, 1, 0, 0), "moon": (43, U8, 1, 1, 1, 0, 0),
    "precip_next_hour": (44, U8, 1, 1, 1, 0, 0), "name": (48, UTF8, 1, 1, 1, 0, 48),
    "temperature": (96, I16, 1, 1, 10, -32768, 0), "feels_like": (98, I16, 1, 1, 10, -32768, 0),
    "dew_point": (100, I16, 1, 1, 10, -32768, 0), "pressure": (102, U16, 1, 1, 10, 65535, 0),
    "wind_speed": (104, U16, 1, 1, 10, 65535, 0), "wind_gust": (106, U16, 1, 1, 10, 65535, 0),
    "wind_direction": (108, U16, 1, 1, 1, 65535, 0), "visibility": (110, U16, 1, 10, 1, 65535, 0),
    "precipitation": (112, U16, 1, 1, 10, 65535, 0), "humidity": (114, U8, 1, 1, 1, 255, 0),
    "weather_code": (115, U8, 1, 1, 1, 255, 0), "cloud_cover": (116, U8, 1, 1, 1, 255, 0),
    "uv_index": (117, U8, 1, 1, 10, 255, 0), "sunrise": (120, U32, 1, 1, 1, 0, 0),
    "sunset": (124, U32, 1, 1, 1, 0, 0),
    "hourly_temperature": (128, I16, 48, 1, 10, -32768, 0),
    "hourly_precip_amount": (224, U16, 48, 1, 10, 65535, 0),
    "hourly_weather_code": (320, U8, 48, 1, 1, 255, 0),
    "hourly_precip_probability": (368, U8, 48, 1, 1, 255, 0),
    "hourly_wind_speed": (416, U8, 48, 1, 2, 255, 0),
    "hourly_wind_gust": (464, U8, 48, 1, 2, 255, 0),
    "daily_min": (512, I16, 8, 1, 10, -32768, 0), "daily_max": (528, I16, 8, 1, 10, -32768, 0),
    "daily_precip_sum": (544, U16, 8, 1, 10, 65535, 0),
    "daily_sunrise": (560, U32, 8, 1, 1, 0, 0), "daily_sunset": (592, U32, 8, 1, 1, 0, 0),
    "daily_weather_code": (624, U8, 8, 1, 1, 255, 0),
    "daily_precip_probability": (632, U8, 8, 1, 1, 255, 0),
    "daily_uv_max": (640, U8, 8, 1, 10, 255, 0), "daily_wind_max": (648, U8, 8, 1, 2, 255, 0),
    "daily_sun": (656, U8, 8, 1, 1, 255, 0), "minutely_start": (664, U32, 1, 1, 1, 0, 0),
    "minutely_precip": (668, U8, 4, 1, 10, 255, 0), "alert_onset": (672, U32, 3, 1, 1, 0, 0),
    "alert_end": (684, U32, 3, 1, 1, 0, 0), "alert_severity": (696, U8, 3, 1, 1, 0, 0),
    "alert_event": (700, UTF8, 3, 1, 1, 0, 64),
}
_TINY = {
    "status": (3, U8, 1, 1, 1, None, 0), "request_id": (4, U16, 1, 1, 1, None, 0),
    "slot_index": (6, U8, 1, 1, 1, None, 0), "slot_count": (7, U8, 1, 1, 1, None, 0),
    "fetched_at": (8, U32, 1, 1, 1, 0, 0), "next_update": (12, U16, 1, 1, 1, 0, 0),
    "temperature": (14, I16, 1, 1, 10, -32768, 0), "air_quality": (16, U16, 1, 1, 1, 0, 0),
    "weather_code": (18, U8, 1, 1, 1, 255, 0), "is_day": (19, U8, 1, 1, 1, 255, 0),
    "alerts": (20, U8, 1, 1, 1, 0, 0), "precip_next_hour": (21, U8, 1, 1, 1, 0, 0),
    "wind_speed": (22, U8, 1, 1, 2, 255, 0), "wind_gust": (23, U8, 1, 1, 2, 255, 0),
    "wind_direction": (24, U8, 1, 2, 1, 255, 0), "utc_offset_min": (25, I8, 1, 15, 1, -128, 0),
    "humidity": (26, U8, 1, 1, 1, 255, 0), "uv_index": (27, U8, 1, 1, 10, 255, 0),
    "daily_min": (28, I8, 4, 1, 1, -128, 0), "daily_max": (32, I8, 4, 1, 1, -128, 0),
    "daily_weather_code": (36, U8, 4, 1, 1, 255, 0),
    "daily_precip_probability": (40, U8, 4, 1, 1, 255, 0),
}
_UNCHANGED = {
    "profile": (3, U8, 1, 1, 1, None, 0), "request_id": (4, U16, 1, 1, 1, None, 0),
    "slot_index": (6, U8, 1, 1, 1, None, 0), "slot_count": (7, U8, 1, 1, 1, None, 0),
    "next_update": (8, U16, 1, 1, 1, 0, 0),
}
LAYOUTS = {KIND_STANDARD: _STANDARD, KIND_LARGE: _LARGE, KIND_TINY: _TINY,
           KIND_UNCHANGED: _UNCHANGED}
# The mirror's field order (frame-profiles.md 8): the tables' order (frame-v1.json,
# frame-large.json, frame-tiny.json), every field but magic, kind/version, reserved and crc32.
_ORDER = {
    KIND_STANDARD: ("status", "request_id", "slot_index", "slot_count", "service", "is_day",
                    "sun", "hourly_step_h", "latitude", "longitude", "observed_at",
                    "fetched_at", "hourly_start", "utc_offset_min", "daily_start", "country",
                    "air_quality", "name", "temperature", "feels_like", "pressure",
                    "wind_speed", "wind_gust", "wind_direction", "visibility", "precipitation",
                    "humidity", "weather_code", "cloud_cover", "uv_index", "alerts", "moon",
                    "precip_next_hour", "sunrise", "sunset", "hourly_temperature",
                    "hourly_weather_code", "hourly_precip_probability", "daily_min",
                    "daily_max", "daily_weather_code", "daily_precip_probability",
                    "next_update"),
    KIND_LARGE: ("status", "request_id", "slot_index", "slot_count", "service", "is_day", "sun",
                 "hourly_step_h", "latitude", "longitude", "observed_at", "fetched_at",
                 "hourly_start", "utc_offset_min", "daily_start", "country", "air_quality",
                 "next_update", "alerts", "moon", "precip_next_hour", "name", "temperature",
                 "feels_like", "dew_point", "pressure", "wind_speed", "wind_gust",
                 "wind_direction", "visibility", "precipitation", "humidity", "weather_code",
                 "cloud_cover", "uv_index", "sunrise", "sunset", "hourly_temperature",
                 "hourly_precip_amount", "hourly_weather_code", "hourly_precip_probability",
                 "hourly_wind_speed", "hourly_wind_gust", "daily_min", "daily_max",
                 "daily_precip_sum", "daily_sunrise", "daily_sunset", "daily_weather_code",
                 "daily_precip_probability", "daily_uv_max", "daily_wind_max", "daily_sun",
                 "minutely_start", "minutely_precip", "alert_onset", "alert_end",
                 "alert_severity", "alert_event"),
    KIND_TINY: ("status", "request_id", "slot_index", "slot_count", "fetched_at", "next_update",
                "temperature", "air_quality", "weather_code", "is_day", "alerts",
                "precip_next_hour", "wind_speed", "wind_gust", "wind_direction",
                "utc_offset_min", "humidity", "uv_index", "daily_min", "daily_max",
                "daily_weather_code", "daily_precip_probability"),
}
# Wire values frame-v1.md reads as absent (5.5, 5.6, 5.8): checked by get() for these names.
_V11 = ("air_quality", "alerts", "precip_next_hour")
# Names the tables had before (still taken by get() and value()): old name -> table name.
_RENAMED = {"utc_offset_15min": "utc_offset_min"}

_TABLE = (0x00000000, 0x1DB71064, 0x3B6E20C8, 0x26D930AC, 0x76DC4190, 0x6B6B51F4, 0x4DB26158,
          0x5005713C, 0xEDB88320, 0xF00F9344, 0xD6D6A3E8, 0xCB61B38C, 0x9B64C2B0, 0x86D3D2D4,
          0xA00AE278, 0xBDBDF21C)


def crc32(data, crc=0):
    """CRC-32/ISO-HDLC (zlib's) of data, continuing from crc."""
    if _crc32 is not None:
        return _crc32(data, crc) & 0xFFFFFFFF
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        crc = (crc >> 4) ^ _TABLE[crc & 15]
        crc = (crc >> 4) ^ _TABLE[crc & 15]
    return crc ^ 0xFFFFFFFF


class FrameError(ValueError):
    """A message that is not a valid Skyframe message; .error is the C header's name."""

    @property
    def error(self):
        return self.args[0]


def _u16(b, o):
    return b[o] | b[o + 1] << 8


def _read(b, o, t):
    """The wire value of type t at offset o."""
    if t == U8 or t == CHAR or t == UTF8:
        return b[o]
    if t == I8:
        v = b[o]
        return v - 256 if v > 127 else v
    if t == U16:
        return b[o] | b[o + 1] << 8
    if t == I16:
        v = b[o] | b[o + 1] << 8
        return v - 65536 if v > 32767 else v
    return struct.unpack_from("<I" if t == U32 else "<i", b, o)[0]


def message_kind(buf):
    """The kind byte of a valid-looking message (length, magic, kind; not the CRC), or raises."""
    n = len(buf)
    kind = {192: KIND_STANDARD, 960: KIND_LARGE, 48: KIND_TINY, 16: KIND_UNCHANGED}.get(n)
    if kind is None:
        size = 960
        if n >= 3 and buf[0] == 0x53 and buf[1] == 0x46:
            size = SIZES.get(buf[2], 960)
        raise FrameError("truncated" if n < size else "too_long")
    if buf[0] != 0x53 or buf[1] != 0x46:
        raise FrameError("bad_magic")
    if buf[2] != kind:
        raise FrameError("unsupported_version")
    return kind


def _check(b, kind):
    """frame-profiles.md 1.1: length, magic, kind byte, CRC, for a decoder of one kind."""
    size, n = SIZES[kind], len(b)
    if n < size:
        raise FrameError("truncated")
    if n > size:
        raise FrameError("too_long")
    if b[0] != 0x53 or b[1] != 0x46:
        raise FrameError("bad_magic")
    if b[2] != kind:
        raise FrameError("unsupported_version")
    if struct.unpack_from("<I", b, size - 4)[0] != crc32(b[:size - 4]):
        raise FrameError("crc_mismatch")


class Message:
    """A checked message of one kind over the caller's buffer (a memoryview, no copy)."""

    def __init__(self, buf, kind):
        self.kind = kind
        self.buf = buf
        self.layout = LAYOUTS[kind]

    def _field(self, name):
        try:
            return self.layout[name]
        except KeyError:
            return self.layout[_RENAMED[name]]  # KeyError still for a name no table had

    def get(self, name, i=0):
        """The wire value (an int), None for the field's sentinel (or an absent v1.1 value)."""
        o, t, count, _, _, sentinel, length = self._field(name)
        if i < 0 or i >= count:
            raise IndexError(name)
        v = _read(self.buf, o + i * (length if length > 2 else _WIDTH[t]), t)
        if v == sentinel:
            return None
        if name in _V11 and not _v11_ok(name, v):
            return None
        return v

    def value(self, name, i=0):
        """get() times the field's scale: an int, a float where the scale is not whole, None."""
        v = self.get(name, i)
        if v is None:
            return None
        field = self._field(name)
        num, den = field[3], field[4]
        return v * num if den == 1 else v * num / den

    def text(self, name, i=0):
        """A text field: name, alert_event (the bytes before the first zero, UTF-8; a byte
        sequence that is not UTF-8 reads as U+FFFD), or country (two letters in capitals, None
        when it holds none)."""
        o, t, count, _, _, _, length = self.layout[name]
        o += i * length
        b = self.buf
        if t == CHAR:
            out = ""
            for c in (b[o], b[o + 1]):
                if 0x61 <= c <= 0x7A:
                    c -= 32
                if c < 0x41 or c > 0x5A:
                    return None
                out += chr(c)
            return out
        end = o
        while end < o + length and b[end] != 0:
            end += 1
        return _utf8(bytes(b[o:end]))

    def status_name(self):
        s = self.buf[3]
        return STATUS[s] if s < len(STATUS) else s

    def has_weather(self):
        return self.kind != KIND_UNCHANGED and self.buf[3] <= 1

    def mirror(self):
        return _mirror(self)


def _utf8_end(b, i):
    """Where the character that starts at b[i] ends; minus where it ends when it is not valid
    UTF-8 (the maximal ill-formed part: a lead byte and the continuation bytes that fit it).
    Overlong forms, surrogates and code points above U+10FFFF are not valid. An int, not a
    tuple, so that reading a name allocates nothing but its text."""
    c = b[i]
    if c < 0x80:
        return i + 1
    if 0xC2 <= c <= 0xDF:
        need, lo, hi = 1, 0x80, 0xBF
    elif 0xE0 <= c <= 0xEF:
        need, lo, hi = 2, 0x80, 0xBF
        if c == 0xE0:
            lo = 0xA0
        elif c == 0xED:
            hi = 0x9F
    elif 0xF0 <= c <= 0xF4:
        need, lo, hi = 3, 0x80, 0xBF
        if c == 0xF0:
            lo = 0x90
        elif c == 0xF4:
            hi = 0x8F
    else:
        return -(i + 1)
    j = i + 1
    while need:
        if j >= len(b) or not lo <= b[j] <= hi:
            return -j
        lo, hi = 0x80, 0xBF
        j += 1
        need -= 1
    return j


def _utf8(b):
    """The text of b (bytes). frame-v1.md 6.1: a decoder tolerates bytes that are not UTF-8, so
    each ill-formed part becomes U+FFFD, as CPython's decode("utf-8", "replace") gives.
    MicroPython's own decoder raises UnicodeError on some of them and lets others through, so
    the bytes are checked here first."""
    i = 0
    while i < len(b):
        i = _utf8_end(b, i)
        if i < 0:
            break
    else:
        return str(b, "utf-8")
    out = []
    i = 0
    while i < len(b):
        end = _utf8_end(b, i)
        out.append(str(b[i:end], "utf-8") if end > 0 else "\ufffd")
        i = abs(end)
    return "".join(out)


def _v11_ok(name, v):
    if name == "air_quality":
        return v & 0x7FFF != 0
    if name == "alerts":
        return 1 <= v & 7 <= 6
    m = v & 0x7F  # precip_next_hour
    return 1 <= m <= 61 or m == 127


def decode(buf, kind=None):
    """Checks a message (any kind, or only KIND) and returns a Message over it; FrameError when
    it is not valid. buf: bytes, bytearray or memoryview (kept, not copied)."""
    b = buf if isinstance(buf, memoryview) else memoryview(buf)
    if kind is None:
        kind = message_kind(b)
    _check(b, kind)
    return Message(b, kind)


def content_check(buf):
    """frame-profiles.md 5: the CRC-32 of a standard, large or tiny message with the fields that
    change without the weather changing taken as zero (send it with ~check= or
    request_*(check=...) to get an `unchanged` answer while the screen is right)."""
    b = buf if isinstance(buf, memoryview) else memoryview(buf)
    kind = message_kind(b)
    if kind == KIND_TINY:
        zeroed = ((4, 14),)
    elif kind == KIND_UNCHANGED:
        raise FrameError("unsupported_version")
    elif kind == KIND_STANDARD:
        zeroed = ((4, 8), (20, 28), (186, 188))
    else:  # large: minutely_start too (a quarter hour passing alone is no change)
        zeroed = ((4, 8), (20, 28), (40, 42), (664, 668))
    crc, at = 0, 0
    for start, end in zeroed:
        crc = crc32(b[at:start], crc)
        crc = crc32(bytes(end - start), crc)
        at = end
    return crc32(b[at:SIZES[kind] - 4], crc)


# ---- v1.1 helpers (standard, large and tiny messages) ----

def air_quality(m):
    """(index, scale name) or None."""
    v = m.get("air_quality")
    return None if v is None else ((v & 0x7FFF) - 1, AQI_SCALE[v >> 15])


def alerts(m):
    """(count 0..31, severity name) or None; a count of 31 means 31 or more."""
    v = m.get("alerts")
    return None if v is None else (v >> 3, SEVERITY[v & 7])


def precip_next_hour(m):
    """(precipitation now: bool, minutes until it starts or stops or None) or None."""
    v = m.get("precip_next_hour")
    if v is None:
        return None
    minutes = v & 0x7F
    return (v & 0x80 != 0, None if minutes == 127 else minutes - 1)


def moon_phase_icon(m):
    """0 new .. 4 full .. 7 waning crescent (MOON names them), or None."""
    v = m.get("moon")
    return None if v is None else ((16 * (v - 1) + 255) // 510) % 8


def moon_illumination_pct(m):
    """The lit part of the moon in whole percent, or None: the C header's integer method, so
    every device shows the same number."""
    v = m.get("moon")
    return None if v is None else _lit_pct(v)


def _lit_pct(v):
    """moon_illumination_pct() of the moon byte v (1..255)."""
    k = v - 1
    h = k if k <= 127 else 255 - k
    a = 2 * h if h <= 63 else 255 - 2 * h
    t = (a * 103347 + 128) >> 8
    t2 = (t * t + 32768) >> 16
    p = 65536 - (t2 + 21) // 42
    p = 65536 - (((t2 * p + 32768) >> 16) + 10) // 20
    p = 65536 - (((t2 * p + 32768) >> 16) + 3) // 6
    s = (t * p + 32768) >> 16
    s = (s * s + 128) >> 8
    x = (s * 100 + 0x800000) >> 24
    return x if h <= 63 else 100 - x


def date_from_days(days):
    """(year, month, day) of a day number since 1970-01-01 (daily_start)."""
    z = days + 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    mo = mp + 3 if mp < 10 else mp - 9
    return (yoe + era * 400 + (1 if mo <= 2 else 0), mo, d)


# ---- The JSON mirror (skyframe decode --json; the golden vectors' "frame") ----

def _named(table, v):
    return table[v] if v < len(table) else v


# frame-profiles.md 8: the fields the mirror shows by what they mean, not as the wire integer.
_MEANING = ("sun", "daily_sun", "air_quality", "alerts", "alert_severity", "moon",
            "precip_next_hour")


def _meaning(name, w):
    """The mirror's value of the wire integer w: a name, a dict, or None when it is absent."""
    if name == "sun" or name == "daily_sun":
        return SUN[w] if w < len(SUN) else None
    if name == "alert_severity":
        return SEVERITY[w] if 1 <= w <= 6 else None
    if name == "air_quality":
        return {"index": (w & 0x7FFF) - 1, "scale": AQI_SCALE[w >> 15]} if w & 0x7FFF else None
    if name == "alerts":
        return {"count": w >> 3, "worst": SEVERITY[w & 7]} if 1 <= w & 7 <= 6 else None
    if name == "moon":
        if w == 0:
            return None
        k = w - 1  # phase k / 255: to 3 decimals, its icon, and the lit part to 2 decimals
        return {"phase": ((2000 * k + 255) // 510) / 1000,
                "name": MOON[((16 * k + 255) // 510) % 8], "lit": _lit_pct(w) / 100}
    if not _v11_ok(name, w):  # precip_next_hour
        return None
    minutes = w & 0x7F
    return {"precipitating": w & 0x80 != 0,
            "change_in_min": None if minutes == 127 else minutes - 1}


def _list(m, name):
    return [m.value(name, i) for i in range(m.layout[name][2])]


def _mirror(m):
    k = m.kind
    if k == KIND_UNCHANGED:
        return {"profile": "unchanged", "of": _named(PROFILES, m.get("profile")),
                "request_id": m.get("request_id"), "slot_index": m.get("slot_index"),
                "slot_count": m.get("slot_count"), "next_update": m.get("next_update")}
    out = {"profile": KIND_NAMES[k]}
    for name in _ORDER[k]:
        t, count = m.layout[name][1], m.layout[name][2]
        if name == "status":
            out[name] = _named(STATUS, m.get(name))
        elif name == "service":
            out[name] = _named(SERVICE, m.get(name))
        elif t == CHAR:
            out[name] = m.text(name)
        elif t == UTF8:
            out[name] = m.text(name) if count == 1 else [m.text(name, i) for i in range(count)]
        elif name in _MEANING:
            o = m.layout[name][0]
            out[name] = _meaning(name, _read(m.buf, o, t)) if count == 1 else \
                [_meaning(name, _read(m.buf, o + i * _WIDTH[t], t)) for i in range(count)]
        elif count > 1:
            out[name] = _list(m, name)
        else:
            out[name] = m.value(name)
    return out


# ---- Requests (schemas/request-v1.md) ----

def _request(kind, request_id, profile, check, out):
    if not 0 <= request_id <= 65535:
        raise ValueError("request_id 0..65535")
    r = out if out is not None else bytearray(64)
    if len(r) != 64:
        raise ValueError("a request is 64 bytes")
    for i in range(64):
        r[i] = 0
    r[0], r[1], r[2], r[3] = 0x53, 0x51, 1, kind
    struct.pack_into("<H", r, 4, request_id)
    if profile is not None:
        r[6] = PROFILES.index(profile)
    if check is not None:
        r[7] = 1
        struct.pack_into("<I", r, 56, check)
    return r


def _finish(r):
    struct.pack_into("<I", r, 60, crc32(memoryview(r)[:60]))
    return r


def request_coordinates(lat_e5, lon_e5, request_id=0, profile=None, check=None, out=None):
    """The 64-byte binary request for coordinates in 1e-5 degrees (52.52 N = 5252000).
    profile: "standard", "large", "tiny" or None; check: a content_check() or None. Writes
    into out (a bytearray of 64) when given, else into a new bytearray; returns it."""
    if not -9000000 <= lat_e5 <= 9000000 or not -18000000 <= lon_e5 <= 18000000:
        raise ValueError("latitude or longitude out of range")
    r = _request(1, request_id, profile, check, out)
    struct.pack_into("<ii", r, 8, lat_e5, lon_e5)
    return _finish(r)


def request_place(name, country=None, request_id=0, profile=None, check=None, out=None):
    """The binary request for a place name (1-40 UTF-8 bytes, 36 with a check) and an optional
    two-letter country."""
    raw = name.encode("utf-8")
    if not 1 <= len(raw) <= (36 if check is not None else 40) or name.strip() != name:
        raise ValueError("name: 1-40 bytes (36 with a check), no space at either end")
    if country is not None and (len(country) != 2 or not country.isalpha()):
        raise ValueError("country: two letters")
    r = _request(2, request_id, profile, check, out)
    if country is not None:
        r[16], r[17] = ord(country[0]), ord(country[1])
    r[20:20 + len(raw)] = raw
    return _finish(r)


def request_refresh(request_id=0, profile=None, check=None, out=None):
    """The binary request for the device's last places again."""
    return _finish(_request(3, request_id, profile, check, out))


def request_text(places, request_id=None, profile=None, checks=None):
    """The text request: places a string ("Berlin,DE", "52.52,13.405", "refresh") or a list of
    them; checks a list of content checks (None for a place with none), in slot order."""
    parts = []
    if request_id is not None:
        parts.append("#%d" % request_id)
    if profile is not None:
        parts.append("~" + PROFILES[PROFILES.index(profile)])
    if checks:
        parts.append("~check=" + ",".join("-" if c is None else "%08x" % c for c in checks))
    parts.append(places if isinstance(places, str) else ";".join(places))
    return " ".join(parts)
