#!/usr/bin/env python3
"""Writes the golden vectors in schemas/vectors/ from the values below.

An encoder independent of the Swift codec and the C decoder, written from schemas/frame-v1.md,
schemas/request-v1.md, schemas/lorawan-uplink-v1.md and schemas/frame-profiles.md (with the
layouts frame-large.json and frame-tiny.json): the Swift tests check that their encoder produces these bytes, the C test that
its decoder reads these values. Run it again only when the spec changes:

    python3 schemas/vectors/generate.py

Writes frames/ (standard, 192 bytes), requests/, and large/, tiny/, unchanged/ (frame-profiles.md
§8: description, profile, hex, frame and, for frames, wire and content_check), and lorawan/ (the uplink
requests of schemas/lorawan-uplink-v1.md: description, hex, configured_places, for coordinates
"write" with the 1e-5 deg a device's writer is given, expect). Deterministic: the same
files on every run. Refuses (AssertionError) any value outside its field's wire range.
"""
import json
import pathlib
import re
import struct
import unicodedata
import zlib
from decimal import ROUND_HALF_UP, Decimal

HERE = pathlib.Path(__file__).resolve().parent
STATUS = ["ok", "stale", "not_found", "bad_request", "upstream_unavailable", "rate_limited",
          "too_many_locations", "internal_error"]
SERVICE = ["none", "open-meteo", "openweathermap", "weatherapi", "met-norway"]
SUN = {"normal": 0, "polar_day": 1, "polar_night": 2, None: 0xFF}
# v1.1 (frame-v1.md §5.5-5.8, §6.9): every field 0 when absent.
AQI_SCALE = {"european_aqi": 0, "us_aqi": 1}
SEVERITY = ["absent", "none", "unknown", "minor", "moderate", "severe", "extreme"]
MOON = ["new_moon", "waxing_crescent", "first_quarter", "waxing_gibbous", "full_moon",
        "waning_gibbous", "last_quarter", "waning_crescent"]


def air_quality(value):
    if value is None:
        return 0
    assert 0 <= value["index"] <= 999
    return (AQI_SCALE[value["scale"]] << 15) | (value["index"] + 1)


def alerts(value):
    if value is None:
        return 0
    severity = SEVERITY.index(value["severity"])
    assert (severity == 1) == (value["count"] == 0)
    return (min(value["count"], 31) << 3) | severity


def moon_byte(phase):
    """Phase as a fraction of the synodic month since new moon -> 1...255."""
    value = 1 + round(phase * 255)
    return 1 if value == 256 else value


def moon_document(phase):
    import math
    if phase is None:
        return None
    wire = (moon_byte(phase) - 1) / 255
    return {"phase": wire, "name": MOON[round(wire * 8) % 8],
            "illumination_pct": round(100 * (1 - math.cos(2 * math.pi * wire)) / 2)}


def next_hour(value):
    if value is None:
        return 0
    now = 0x80 if value["now"] == "precipitation" else 0
    minutes = value["change_in_min"]
    return now | (127 if minutes is None else minutes + 1)


def steps(value, scale, sentinel):
    """Human value -> wire integer; refuses values that are not whole steps."""
    if value is None:
        return sentinel
    wire = round(value / scale) if scale >= 1 else round(value * round(1 / scale))
    assert abs(wire * scale - value) < 1e-6, (value, scale)
    return wire


def days(iso):
    import datetime
    return (datetime.date.fromisoformat(iso) - datetime.date(1970, 1, 1)).days


def label(value, names):
    return value if isinstance(value, int) else names.index(value)


def encode_frame(f):
    c = f["current"]
    out = bytearray(192)
    struct.pack_into("<2sBBHBBBBBB", out, 0, b"SF", 1, label(f["status"], STATUS), f["request_id"],
                     f["slot_index"], f["slot_count"], label(f["service"], SERVICE),
                     {True: 1, False: 0, None: 0xFF}[f["is_day"]], SUN[f["sun"]], f["hourly_step_h"])
    struct.pack_into("<iiIIIhH2s", out, 12,
                     steps(f["latitude"], 1e-5, -2**31), steps(f["longitude"], 1e-5, -2**31),
                     f["observed_at"] or 0, f["fetched_at"] or 0, f["hourly_start"] or 0,
                     steps(f["utc_offset_min"], 1, -2**15),
                     days(f["daily_start"]) if f["daily_start"] else 0xFFFF,
                     (f["country"] or "").encode().ljust(2, b"\0"))
    name = f["name"].encode()
    assert len(name) <= 24
    out[40:40 + len(name)] = name
    struct.pack_into("<hhHHHHHHBBBB", out, 64,
                     steps(c["temperature_c"], 0.1, -2**15), steps(c["feels_like_c"], 0.1, -2**15),
                     steps(c["pressure_hpa"], 0.1, 0xFFFF), steps(c["wind_speed_ms"], 0.1, 0xFFFF),
                     steps(c["wind_gust_ms"], 0.1, 0xFFFF), steps(c["wind_direction_deg"], 1, 0xFFFF),
                     steps(c["visibility_m"], 10, 0xFFFF), steps(c["precipitation_mm"], 0.1, 0xFFFF),
                     steps(c["humidity_pct"], 1, 0xFF), steps(c["weather_code"], 1, 0xFF),
                     steps(c["cloud_cover_pct"], 1, 0xFF), steps(c["uv_index"], 0.1, 0xFF))
    struct.pack_into("<II", out, 88, f["sunrise"] or 0, f["sunset"] or 0)
    for i, h in enumerate(f["hourly"]):
        struct.pack_into("<h", out, 96 + 2 * i, steps(h["temperature_c"], 0.1, -2**15))
        out[120 + i] = steps(h["weather_code"], 1, 0xFF)
        out[132 + i] = steps(h["precip_probability_pct"], 1, 0xFF)
    for i, d in enumerate(f["daily"]):
        struct.pack_into("<h", out, 144 + 2 * i, steps(d["min_c"], 0.1, -2**15))
        struct.pack_into("<h", out, 158 + 2 * i, steps(d["max_c"], 0.1, -2**15))
        out[172 + i] = steps(d["weather_code"], 1, 0xFF)
        out[179 + i] = steps(d["precip_probability_pct"], 1, 0xFF)
    struct.pack_into("<H", out, 38, air_quality(f["air_quality"]))
    out[84] = alerts(f["alerts"])
    out[85] = 0 if f["moon"] is None else moon_byte(f["moon"]["phase"])
    out[86] = next_hour(f["precip_next_hour"])
    struct.pack_into("<H", out, 186, f["next_update_s"] or 0)
    struct.pack_into("<I", out, 188, zlib.crc32(bytes(out[:188])))
    return bytes(out)


def empty_current():
    return {k: None for k in ["temperature_c", "feels_like_c", "humidity_pct", "pressure_hpa",
                              "wind_speed_ms", "wind_gust_ms", "wind_direction_deg", "weather_code",
                              "cloud_cover_pct", "precipitation_mm", "uv_index", "visibility_m"]}


def error_frame(status, request_id=0, slot_index=0, slot_count=1, name=""):
    return {"status": status, "request_id": request_id, "slot_index": slot_index,
            "slot_count": slot_count, "service": "none", "latitude": None, "longitude": None,
            "name": name, "country": None, "observed_at": None, "fetched_at": None,
            "utc_offset_min": None, "is_day": None, "sun": None, "sunrise": None, "sunset": None,
            "current": empty_current(), "hourly_start": None, "hourly_step_h": 0,
            "hourly": [{"temperature_c": None, "weather_code": None, "precip_probability_pct": None}] * 12,
            "daily_start": None,
            "daily": [{"min_c": None, "max_c": None, "weather_code": None, "precip_probability_pct": None}] * 7,
            "air_quality": None, "alerts": None, "moon": None, "precip_next_hour": None,
            "next_update_s": None}


def weather(status="ok", service="open-meteo", *, lat, lon, name, country, observed, offset,
            temperature, feels, humidity, pressure, wind, gust, direction, code, clouds, rain, uv,
            visibility, is_day, sun, sunrise, sunset, hourly, daily, step=1, request_id=0,
            slot_index=0, slot_count=1, fetched_after=300, v11=None):
    fetched = observed + fetched_after
    hour_start = fetched - fetched % 3600 if step == 1 else fetched - fetched % 10800
    local_day = (fetched + offset * 60) // 86400
    import datetime
    frame = error_frame(status, request_id, slot_index, slot_count, name)
    frame.update({
        "service": service, "latitude": lat, "longitude": lon, "country": country,
        "observed_at": observed, "fetched_at": fetched, "utc_offset_min": offset, "is_day": is_day,
        "sun": sun, "sunrise": sunrise, "sunset": sunset, "hourly_start": hour_start,
        "hourly_step_h": step,
        "daily_start": (datetime.date(1970, 1, 1) + datetime.timedelta(days=local_day)).isoformat(),
        "current": {"temperature_c": temperature, "feels_like_c": feels, "humidity_pct": humidity,
                    "pressure_hpa": pressure, "wind_speed_ms": wind, "wind_gust_ms": gust,
                    "wind_direction_deg": direction, "weather_code": code, "cloud_cover_pct": clouds,
                    "precipitation_mm": rain, "uv_index": uv, "visibility_m": visibility},
        "hourly": [{"temperature_c": t, "weather_code": w, "precip_probability_pct": p} for t, w, p in hourly],
        "daily": [{"min_c": lo, "max_c": hi, "weather_code": w, "precip_probability_pct": p} for lo, hi, w, p in daily],
    })
    for key, value in (v11 or {}).items():
        if key == "moon":
            value = moon_document(value["phase"])
        elif key == "alerts":
            value = dict(value, count=min(value["count"], 31))  # the wire keeps 31 = 31 or more
        frame[key] = value
    return frame


def ramp(start, step, codes, chances):
    return [(round(start + step * i, 1), codes[i % len(codes)], chances[i % len(chances)]) for i in range(12)]


FRAMES = [
    ("01-ok-berlin", "Open-Meteo answer for Berlin in January: every field present, UTC+1.",
     weather(lat=52.52, lon=13.405, name="Berlin", country="DE", observed=1705330800, offset=60,
             temperature=-2.3, feels=-6.8, humidity=86, pressure=1021.4, wind=4.2, gust=9.8,
             direction=250, code=71, clouds=100, rain=0.3, uv=0.4, visibility=8200, is_day=True,
             sun="normal", sunrise=1705302660, sunset=1705333140, request_id=42,
             hourly=ramp(-2.3, -0.2, [71, 73, 3], [60, 70, 40]),
             daily=[(-4.1, -0.5, 71, 80), (-6.0, -1.2, 3, 10), (-7.5, 0.4, 2, 0), (-3.0, 2.8, 61, 55),
                    (0.5, 6.1, 63, 90), (1.2, 7.0, 3, 20), (-0.4, 4.4, 45, 5)])),
    ("02-stale-sydney", "Stale frame from the cache for Sydney: southern hemisphere, UTC+11.",
     weather("stale", lat=-33.86882, lon=151.20929, name="Sydney", country="AU", observed=1705290000,
             offset=660, temperature=27.4, feels=29.0, humidity=62, pressure=1009.8, wind=6.3, gust=11.2,
             direction=45, code=2, clouds=40, rain=0.0, uv=11.3, visibility=24140, is_day=True,
             sun="normal", sunrise=1705257420, sunset=1705308960, fetched_after=2700,
             hourly=ramp(27.4, 0.3, [2, 1, 80], [10, 20, 35]),
             daily=[(21.0, 29.5, 2, 20), (20.4, 31.2, 1, 5), (22.0, 33.0, 95, 60), (19.8, 24.1, 81, 85),
                    (18.7, 23.9, 3, 30), (19.0, 25.5, 1, 0), (20.2, 27.8, 0, 0)])),
    ("03-ok-vostok-polar-night", "Vostok Station in June: -89.2 °C, polar night, UTC+5.",
     weather(lat=-78.46418, lon=106.83722, name="Vostok Station", country="AQ", observed=1686816000,
             offset=300, temperature=-89.2, feels=-99.9, humidity=60, pressure=624.0, wind=5.1,
             gust=8.0, direction=225, code=0, clouds=0, rain=0.0, uv=0.0, visibility=40000,
             is_day=False, sun="polar_night", sunrise=None, sunset=None,
             hourly=ramp(-89.2, 0.4, [0], [0]),
             daily=[(-89.2, -82.0, 0, 0), (-87.5, -80.1, 0, 0), (-85.0, -79.9, 1, 0), (-84.2, -78.0, 3, 5),
                    (-83.9, -77.6, 3, 5), (-86.0, -79.0, 0, 0), (-88.1, -81.3, 0, 0)])),
    ("04-ok-death-valley-west", "Furnace Creek in July: +56.7 °C now, +57.0 max, western hemisphere, UTC-7.",
     weather(lat=36.45749, lon=-116.86703, name="Furnace Creek", country="US", observed=1689458400,
             offset=-420, temperature=56.7, feels=54.9, humidity=3, pressure=1001.2, wind=7.7, gust=15.4,
             direction=190, code=0, clouds=0, rain=0.0, uv=11.8, visibility=16090, is_day=True,
             sun="normal", sunrise=1689424920, sunset=1689476460,
             hourly=ramp(56.7, 0.1, [0], [0]),
             daily=[(38.9, 57.0, 0, 0), (37.2, 54.4, 0, 0), (36.0, 52.1, 1, 0), (35.5, 50.0, 2, 0),
                    (34.8, 49.3, 0, 0), (33.1, 48.8, 0, 0), (34.0, 49.9, 0, 0)])),
    ("05-ok-kathmandu-quarter-hour", "Kathmandu, UTC+5:45, name in Devanagari (24 bytes, fills the field).",
     weather(lat=27.70169, lon=85.3206, name="काठमाडौं", country="NP", observed=1705300200,
             offset=345, temperature=12.4, feels=11.0, humidity=58, pressure=1017.0, wind=1.3, gust=3.0,
             direction=270, code=1, clouds=15, rain=0.0, uv=4.2, visibility=6000, is_day=True,
             sun="normal", sunrise=1705281300, sunset=1705320240,
             hourly=ramp(12.4, 0.5, [1, 2], [0, 5]),
             daily=[(2.1, 19.0, 1, 0), (2.5, 19.4, 1, 0), (3.0, 18.7, 2, 5), (3.8, 17.9, 3, 15),
                    (4.0, 16.2, 61, 45), (3.1, 18.8, 2, 10), (2.2, 19.9, 0, 0)])),
    ("06-ok-tokyo-name-cut", "A 13-character Japanese name (39 bytes) cut after 8 whole characters (24 bytes), UTC+9.",
     weather(service="weatherapi", lat=35.68124, lon=139.76712, name="東京都千代田区丸", country="JP",
             observed=1705305600, offset=540, temperature=8.0, feels=6.2, humidity=40, pressure=1024.9,
             wind=2.2, gust=5.0, direction=315, code=3, clouds=90, rain=0.0, uv=2.0, visibility=10000,
             is_day=False, sun="normal", sunrise=1705268400, sunset=1705304940,
             hourly=ramp(8.0, -0.3, [3, 2], [10, 5]),
             daily=[(1.0, 10.2, 3, 10), (0.4, 9.8, 1, 0), (2.0, 11.1, 61, 70), (3.3, 8.4, 63, 90),
                    (1.1, 9.0, 3, 20), (0.0, 8.8, 0, 0), (-0.5, 9.5, 0, 0)])),
    ("07-ok-chatham-islands", "Chatham Islands, UTC+13:45 in summer: south and west (east of the date line, negative longitude).",
     weather(lat=-43.95, lon=-176.56, name="Waitangi", country="NZ", observed=1705312800, offset=825,
             temperature=15.8, feels=13.9, humidity=81, pressure=1008.3, wind=11.4, gust=19.0,
             direction=200, code=80, clouds=75, rain=1.2, uv=6.0, visibility=20000, is_day=False,
             sun="normal", sunrise=1705252500, sunset=1705308300,
             hourly=ramp(15.8, -0.2, [80, 3], [50, 30]),
             daily=[(11.0, 16.9, 80, 60), (10.2, 15.5, 61, 70), (9.8, 17.0, 3, 20), (11.5, 18.2, 2, 10),
                    (12.0, 17.7, 80, 55), (10.9, 16.0, 61, 65), (9.9, 15.1, 3, 25)])),
    ("08-ok-st-johns-half-hour", "St. John's, Newfoundland: UTC-3:30, snow, negative feels-like.",
     weather(lat=47.56494, lon=-52.70931, name="St. John's", country="CA", observed=1705330800,
             offset=-210, temperature=-7.5, feels=-15.2, humidity=78, pressure=998.6, wind=12.5,
             gust=20.3, direction=290, code=75, clouds=100, rain=2.5, uv=0.5, visibility=1200,
             is_day=True, sun="normal", sunrise=1705318500, sunset=1705350660,
             hourly=ramp(-7.5, -0.1, [75, 73], [90, 85]),
             daily=[(-11.0, -6.2, 75, 95), (-14.3, -8.0, 73, 70), (-12.2, -5.5, 71, 40), (-9.0, -1.1, 3, 10),
                    (-6.5, 0.8, 66, 60), (-4.0, 2.2, 61, 75), (-7.7, -2.0, 71, 35)])),
    ("09-ok-tromso-polar-day", "Tromsø in June: midnight sun, no sunrise or sunset, UTC+2.",
     weather(lat=69.6489, lon=18.95508, name="Tromsø", country="NO", observed=1687125600, offset=120,
             temperature=11.2, feels=9.8, humidity=70, pressure=1014.1, wind=3.3, gust=6.0,
             direction=10, code=2, clouds=35, rain=0.0, uv=3.1, visibility=50000, is_day=True,
             sun="polar_day", sunrise=None, sunset=None,
             hourly=ramp(11.2, 0.2, [2, 1], [5, 0]),
             daily=[(7.9, 13.0, 2, 10), (8.3, 14.4, 1, 0), (9.0, 15.5, 0, 0), (8.8, 12.2, 3, 20),
                    (7.0, 10.9, 61, 65), (6.6, 11.8, 3, 30), (7.4, 13.3, 2, 5)])),
    ("10-ok-missing-values", "Open-Meteo answered with nulls: no country, is_day, sun state, sunrise or sunset; now only temperature and pressure (no feels-like, humidity, wind, gusts, code, cloud cover, precipitation, UV, visibility); gaps in hourly and daily; no v1.1 fields.",
     weather(lat=0.0, lon=0.0, name="Null Island", country=None, observed=1705330800, offset=0,
             temperature=26.1, feels=None, humidity=None, pressure=1011.0, wind=None, gust=None,
             direction=None, code=None, clouds=None, rain=None, uv=None, visibility=None, is_day=None,
             sun=None, sunrise=None, sunset=None,
             hourly=[(26.1, 1, None), (None, None, None), (26.3, 2, 10)] + [(None, None, None)] * 9,
             daily=[(24.0, 28.0, None, None)] + [(None, None, None, None)] * 6)),
    ("11-ok-typhoon-openweathermap", "OpenWeatherMap with 3-hour steps: typhoon gusts of 111.1 m/s (400 km/h), 870.0 hPa, UTC+8.",
     weather(service="openweathermap", lat=18.5, lon=125.0, name="Philippine Sea", country=None,
             observed=1705330800, offset=480, temperature=26.5, feels=31.0, humidity=100,
             pressure=870.0, wind=85.0, gust=111.1, direction=90, code=99, clouds=100, rain=120.5,
             uv=0.0, visibility=100, is_day=False, sun="normal", sunrise=1705271100, sunset=1705312080,
             step=3, hourly=ramp(26.5, 0.1, [99, 82, 65], [100, 100, 95]),
             daily=[(24.0, 27.1, 99, 100), (24.5, 27.9, 82, 100), (25.0, 28.3, 65, 90), (25.1, 29.0, 63, 80),
                    (25.5, 29.4, 80, 60), (25.9, 30.0, 2, 20), (26.0, 30.2, 1, 10)])),
    ("12-ok-delhi-weatherapi", "WeatherAPI.com for New Delhi, UTC+5:30, slot 2 of 3 of request 65535.",
     weather(service="weatherapi", lat=28.6139, lon=77.209, name="New Delhi", country="IN",
             observed=1705300200, offset=330, temperature=14.0, feels=13.1, humidity=72, pressure=1019.0,
             wind=1.9, gust=4.4, direction=300, code=45, clouds=25, rain=0.0, uv=3.0, visibility=800,
             is_day=True, sun="normal", sunrise=1705283220, sunset=1705321260, request_id=65535,
             slot_index=2, slot_count=3,
             hourly=ramp(14.0, 0.8, [45, 48, 1], [0, 0, 5]),
             daily=[(7.0, 18.2, 45, 0), (6.4, 19.0, 45, 0), (6.9, 20.3, 1, 0), (8.1, 21.0, 2, 5),
                    (9.0, 22.4, 3, 10), (8.2, 19.9, 61, 40), (7.5, 18.8, 2, 10)])),
    ("13-not-found", "Unknown city, second place of a three-place request: the name echoes what was asked.",
     error_frame("not_found", request_id=7, slot_index=1, slot_count=3, name="Atlantis")),
    ("14-bad-request", "A request the gateway could not parse.", error_frame("bad_request", request_id=0)),
    ("15-upstream-unavailable", "The weather service failed and nothing was cached.",
     error_frame("upstream_unavailable", request_id=1, name="Paris")),
    ("16-rate-limited", "The device asked too often.", error_frame("rate_limited", request_id=300)),
    ("17-too-many-locations", "Eight places asked, seven allowed: a single frame, slot 0 of 1.",
     error_frame("too_many_locations", request_id=9)),
    ("18-internal-error", "The gateway failed.", error_frame("internal_error", request_id=4242)),
    ("19-unknown-status-from-v1x", "Status 9 from a newer v1.x gateway: decoders show the number, not reject the frame.",
     error_frame(9, request_id=5)),
    ("20-ok-v1-1-berlin-all-fields", "v1.1: European AQI 27, two alerts (worst moderate), waxing gibbous moon, rain in 30 min, newer data in 540 s.",
     weather(lat=52.52, lon=13.405, name="Berlin", country="DE", observed=1717236000, offset=120,
             temperature=18.4, feels=18.0, humidity=64, pressure=1012.8, wind=3.1, gust=7.4,
             direction=240, code=3, clouds=90, rain=0.0, uv=3.8, visibility=24140, is_day=True,
             sun="normal", sunrise=1717210200, sunset=1717269900, request_id=11,
             hourly=ramp(18.4, 0.3, [3, 61, 63], [30, 70, 85]),
             daily=[(12.2, 21.0, 61, 80), (11.0, 19.4, 3, 30), (10.5, 22.3, 2, 10), (13.0, 24.8, 1, 0),
                    (14.1, 26.0, 95, 60), (13.3, 21.5, 80, 55), (12.0, 20.1, 3, 20)],
             v11={"air_quality": {"index": 27, "scale": "european_aqi"},
                  "alerts": {"count": 2, "severity": "moderate"}, "moon": {"phase": 0.36},
                  "precip_next_hour": {"now": "dry", "change_in_min": 30}, "next_update_s": 540})),
    ("21-ok-v1-1-us-aqi-zero-raining", "v1.1: US AQI 0 (cleanest air, not absent), no alerts, new moon, raining and stopping in 15 min, hint at its maximum.",
     weather(service="weatherapi", lat=47.6062, lon=-122.3321, name="Seattle", country="US",
             observed=1705330800, offset=-480, temperature=7.2, feels=4.9, humidity=93, pressure=1004.1,
             wind=5.0, gust=9.9, direction=200, code=63, clouds=100, rain=2.1, uv=0.2, visibility=4000,
             is_day=True, sun="normal", sunrise=1705334580, sunset=1705367040,
             hourly=ramp(7.2, 0.1, [63, 61, 3], [100, 90, 40]),
             daily=[(4.0, 8.1, 63, 100), (3.2, 7.7, 61, 80), (2.0, 9.0, 3, 20), (1.1, 8.4, 2, 5),
                    (0.5, 7.9, 1, 0), (2.2, 9.1, 61, 60), (3.0, 8.8, 63, 85)],
             v11={"air_quality": {"index": 0, "scale": "us_aqi"},
                  "alerts": {"count": 0, "severity": "none"}, "moon": {"phase": 0.0},
                  "precip_next_hour": {"now": "precipitation", "change_in_min": 15},
                  "next_update_s": 65535})),
    ("22-ok-v1-1-extremes", "v1.1: European AQI 999, 31 or more alerts (worst extreme), full moon, rain that does not stop within the hour, hint 1 s; no minute data absent elsewhere.",
     weather(service="openweathermap", lat=28.6139, lon=77.209, name="New Delhi", country="IN",
             observed=1730700000, offset=330, temperature=24.0, feels=25.3, humidity=55, pressure=1013.0,
             wind=0.8, gust=None, direction=320, code=45, clouds=20, rain=0.0, uv=2.5, visibility=300,
             is_day=True, sun="normal", sunrise=1730680980, sunset=1730721240, step=3,
             hourly=ramp(24.0, 0.4, [45, 48], [0, 5]),
             daily=[(16.0, 30.2, 45, 0), (15.4, 30.0, 45, 0), (15.1, 29.8, 45, 5), (14.9, 29.5, 1, 0),
                    (14.0, 29.0, 1, 0), (13.8, 28.7, 0, 0), (13.5, 28.2, 0, 0)],
             v11={"air_quality": {"index": 999, "scale": "european_aqi"},
                  "alerts": {"count": 40, "severity": "extreme"}, "moon": {"phase": 0.499},
                  "precip_next_hour": {"now": "precipitation", "change_in_min": None},
                  "next_update_s": 1})),
    ("23-ok-v1-1-dry-hour-no-aqi", "v1.1: some fields absent (no AQI, no alerts), waning crescent, a dry hour ahead, newer data in 600 s.",
     weather(lat=-33.86882, lon=151.20929, name="Sydney", country="AU", observed=1705290000,
             offset=660, temperature=27.4, feels=29.0, humidity=62, pressure=1009.8, wind=6.3, gust=11.2,
             direction=45, code=2, clouds=40, rain=0.0, uv=11.3, visibility=24140, is_day=True,
             sun="normal", sunrise=1705257420, sunset=1705308960,
             hourly=ramp(27.4, 0.3, [2, 1, 80], [10, 20, 35]),
             daily=[(21.0, 29.5, 2, 20), (20.4, 31.2, 1, 5), (22.0, 33.0, 95, 60), (19.8, 24.1, 81, 85),
                    (18.7, 23.9, 3, 30), (19.0, 25.5, 1, 0), (20.2, 27.8, 0, 0)],
             v11={"moon": {"phase": 0.93}, "precip_next_hour": {"now": "dry", "change_in_min": None},
                  "next_update_s": 600})),
    ("24-rate-limited-v1-1-hint", "v1.1: an error frame with a hint: ask again in 42 s.",
     dict(error_frame("rate_limited", request_id=12), next_update_s=42)),
    ("25-ok-v1-1-oslo-met-norway", "v1.1: MET Norway (service 4) for Oslo in winter: no AQI, alerts, apparent temperature, gusts, UV or visibility from it; waxing gibbous; newer data in 1742 s (its Expires).",
     weather(service="met-norway", lat=59.9139, lon=10.7522, name="Oslo", country="NO",
             observed=1770411600, offset=60, temperature=-5.8, feels=None, humidity=67,
             pressure=1014.6, wind=6.0, gust=None, direction=37, code=73, clouds=100, rain=0.5,
             uv=None, visibility=None, is_day=False, sun="normal", sunrise=1770362460,
             sunset=1770393300,
             hourly=ramp(-5.8, -0.1, [73, 71, 3], [None, None, None]),
             daily=[(-9.1, -3.2, 73, None), (-11.0, -4.5, 71, None), (-12.3, -6.0, 3, None),
                    (-10.8, -5.1, 2, None), (-9.9, -2.7, 71, None), (-8.0, -1.9, 73, None),
                    (-7.5, -2.2, 3, None)],
             v11={"moon": {"phase": 0.6}, "next_update_s": 1742})),
]


def request_binary(kind, request_id, lat=0, lon=0, country=b"\0\0", name=b"", profile=0, check=None):
    """request-v1.md §3: byte 6 the profile number, byte 7 bit 0 with the check in bytes 56-59."""
    out = bytearray(64)
    struct.pack_into("<2sBBHBB", out, 0, b"SQ", 1, kind, request_id, profile, 0 if check is None else 1)
    struct.pack_into("<ii2s", out, 8, lat, lon, country)
    out[20:20 + len(name)] = name
    if check is not None:
        assert len(name) <= 36
        struct.pack_into("<I", out, 56, check)
    struct.pack_into("<I", out, 60, zlib.crc32(bytes(out[:60])))
    return bytes(out)


def place(name, country=None):
    return {"name": name, "country": country}


def point(lat, lon):
    return {"latitude": lat, "longitude": lon}


def ok(locations, request_id=0, profile=None, checks=()):
    """profile: the profile named by the request, None when it names none (§2.4; binary byte 6 = 0);
    checks: one per slot given, 8 lower-case hex digits or None for "-"."""
    return {"id": request_id, "refresh": False, "locations": locations, "profile": profile,
            "checks": list(checks)}


def refresh(request_id=0, profile=None, checks=()):
    return {"id": request_id, "refresh": True, "locations": [], "profile": profile, "checks": list(checks)}


def fail(error, status="bad_request", **where):
    return {"error": error, "status": status, **where}


broken_crc = bytearray(request_binary(1, 1, 5252000, 1341000))
broken_crc[8] ^= 0x01
REQUESTS = [
    ("01-text-coordinates", "GPS position as text.", b"52.52,13.41", ok([point(52.52, 13.41)])),
    ("02-text-city", "A typed city.", b"Berlin", ok([place("Berlin")])),
    ("03-text-city-country", "City and country.", b"Berlin,de", ok([place("Berlin", "DE")])),
    ("04-text-several-with-id", "Request id and three places, answered in this order.",
     b"#42 Berlin; Paris,FR ;-33.8688,151.2093",
     ok([place("Berlin"), place("Paris", "FR"), point(-33.8688, 151.2093)], 42)),
    ("05-text-refresh", "Refresh, any case, with an id.", b"#7 REFRESH", refresh(7)),
    ("06-text-utf8-name", "Multi-byte UTF-8 name, trailing newline from echo.", "São Paulo,BR\n".encode(),
     ok([place("São Paulo", "BR")])),
    ("07-text-extremes-rounded", "South pole / date line; more than five decimals rounds half away from zero.",
     b"-90,-180;+12.345675,-0.000004", ok([point(-90.0, -180.0), point(12.34568, -0.0)])),
    ("08-binary-coordinates", "Binary form, coordinates, id 1234.",
     request_binary(1, 1234, -3386880, 15120930), ok([point(-33.8688, 151.2093)], 1234)),
    ("09-binary-name", "Binary form, name and country.", request_binary(2, 3, country=b"JP", name="東京".encode()),
     ok([place("東京", "JP")], 3)),
    ("10-binary-refresh", "Binary form, refresh, highest id.", request_binary(3, 65535), refresh(65535)),
    ("11-error-latitude", "Latitude beyond the pole.", b"91,0", fail("latitude_out_of_range", slot=0)),
    ("12-error-longitude", "Longitude beyond the date line, in the second place.", b"Oslo;10,180.5",
     fail("longitude_out_of_range", slot=1)),
    ("13-error-exponent", "Numbers with exponents are not coordinates.", b"52.5e1,13",
     fail("bad_number", slot=0)),
    ("14-error-nan", "NaN is a name without a valid country, not a number.", b"nan,nan",
     fail("bad_country_code", slot=0)),
    ("15-error-empty", "Only whitespace.", b"  \n", fail("empty")),
    ("16-error-empty-slot", "Nothing between two semicolons.", b"Berlin;;Paris", fail("empty_location", slot=1)),
    ("17-error-too-many", "Eight places, seven allowed.", b"A;B;C;D;E;F;G;H",
     fail("too_many_locations", "too_many_locations", count=8, maximum=7)),
    ("18-error-invalid-utf8", "A byte that is not UTF-8.", b"Berl\xffin", fail("invalid_utf8", offset=4)),
    ("19-error-control", "A control character inside.", b"Ber\x01lin", fail("control_character", offset=3)),
    ("20-error-name-too-long", "A 41-byte name.", b"A" * 41, fail("name_too_long", slot=0, bytes=41)),
    ("21-error-request-id", "An id above 65535.", b"#70000 Berlin", fail("bad_request_id", offset=0)),
    ("22-error-binary-crc", "Binary form with one bit flipped.", bytes(broken_crc),
     fail("checksum_mismatch", stored=struct.unpack_from("<I", broken_crc, 60)[0],
          computed=zlib.crc32(bytes(broken_crc[:60])))),
    ("23-error-binary-kind", "Binary form with an unknown kind.", request_binary(9, 1), fail("unknown_kind", kind=9)),
    ("24-error-binary-short", "Binary form cut short.", request_binary(1, 1)[:40], fail("wrong_binary_length", count=40)),
    # Options (request-v1.md §2.4 and §3 bytes 6, 7, 56-59; frame-profiles.md)
    ("25-text-large", "The large profile for a city, with an id.", b"#42 ~large Berlin,DE",
     ok([place("Berlin", "DE")], 42, profile="large")),
    ("26-text-tiny-check-refresh", "Refresh in the tiny profile with the check of the frame shown; option names in any case.",
     b"#7 ~TINY ~check=0C1F22aa refresh", refresh(7, profile="tiny", checks=["0c1f22aa"])),
    ("27-text-checks-two-places", "Checks in slot order, '-' for a place the device has nothing for.",
     b"~check=-,9f3a0c11 ~standard Oslo;Bergen", ok([place("Oslo"), place("Bergen")], profile="standard",
                                                    checks=[None, "9f3a0c11"])),
    ("28-binary-tiny-coordinates-check", "Binary form: coordinates, tiny profile, with a content check.",
     request_binary(1, 300, 5252000, 1340500, profile=2, check=0x0C1F22AA),
     ok([point(52.52, 13.405)], 300, profile="tiny", checks=["0c1f22aa"])),
    ("29-binary-large-name", "Binary form: a name in the large profile, no check.",
     request_binary(2, 9, country=b"NO", name=b"Troms\xc3\xb8", profile=1),
     ok([place("Tromsø", "NO")], 9, profile="large")),
    ("30-error-unknown-option", "An option that does not exist.", b"#5 ~huge Berlin",
     fail("unknown_option", offset=3)),
    ("31-error-two-profiles", "A second profile option.", b"~tiny ~large Berlin",
     fail("bad_option", offset=6)),
    ("32-error-short-check", "A check that is not 8 hex digits.", b"~check=1a2b3c Berlin",
     fail("bad_option", offset=0)),
    ("33-error-more-checks-than-places", "Two checks for one place.", b"~tiny ~check=-,0c1f22aa Berlin",
     fail("bad_option", offset=6)),
    ("34-error-binary-profile", "Binary form with profile 3.", request_binary(3, 1, profile=3),
     fail("unknown_profile", kind=3)),
    # request-v1.md §2.2: a C string sent with its terminator (strlen + 1 bytes)
    ("35-text-trailing-nul", "A C string sent with its terminating NUL: the NUL is not part of it.",
     b"#9 Berlin,DE\n\x00", ok([place("Berlin", "DE")], 9)),
    ("36-error-nul-inside", "A NUL that is not the last byte is a control character.",
     b"Berlin\x00\x00", fail("control_character", offset=6)),
]



# ---- Frame profiles: large, tiny, unchanged (schemas/frame-profiles.md) ---------------------------
#
# Written from frame-profiles.md and the machine layouts frame-large.json / frame-tiny.json (read
# here: offsets, types, counts, scales, wire ranges, sentinels), not from the Swift codec. A
# vector is built in two steps: the values a gateway starts from (service values in human units,
# or for `tiny` the standard frame it would send) are turned into WIRE values by the rules of
# frame-profiles.md §2.1 / §3.1 (wind at 0.5 m/s, whole degrees, ...); encode_profile() then
# writes the bytes from the wire values and refuses any value outside the layout's wire range,
# and mirror() writes the JSON object of §8 from the same wire values.

SCHEMAS = HERE.parent
LAYOUTS = {profile: json.loads((SCHEMAS / f"frame-{profile}.json").read_text(encoding="utf-8"))
           for profile in ("large", "tiny")}
INT_TYPES = {"u8": ("B", 0, 0xFF), "i8": ("b", -0x80, 0x7F), "u16": ("H", 0, 0xFFFF),
             "i16": ("h", -0x8000, 0x7FFF), "u32": ("I", 0, 0xFFFFFFFF),
             "i32": ("i", -0x80000000, 0x7FFFFFFF)}
KIND = {"standard": 0x01, "large": 0x11, "tiny": 0x21, "unchanged": 0x31}  # §1.1
PROFILE_NUMBER = {"standard": 0, "large": 1, "tiny": 2}  # §1.2
# §5: bytes taken as zero, [start, end); standard's are not in frame-v1.json
ZEROED = {"standard": [(4, 8), (20, 28), (186, 188)],
          "large": [tuple(r) for r in LAYOUTS["large"]["content_check_zeroed"]],
          "tiny": [tuple(r) for r in LAYOUTS["tiny"]["content_check_zeroed"]]}
COVERED = {"standard": 188, "large": 956, "tiny": 44}
assert ZEROED["large"] == [(4, 8), (20, 28), (40, 42), (664, 668)]  # as the table of §5 says
assert ZEROED["tiny"] == [(4, 8), (8, 12), (12, 14)]


def in_mirror(field):
    """§8: one key per field of the table except magic, kind (the standard table's `version`),
    the reserved_* fields and crc32."""
    return field["name"] not in ("magic", "kind", "version", "crc32") \
        and not field["name"].startswith("reserved_")


def fields(profile):
    return {f["name"]: f for f in LAYOUTS[profile]["fields"] if in_mirror(f)}


def element_size(field):
    return 1 if field["type"] in ("utf8", "char") else struct.calcsize(INT_TYPES[field["type"]][0])


def check_layout(profile):
    """The layout tiles the frame in order, every field aligned to its element size (§1), CRC last."""
    layout = LAYOUTS[profile]
    assert layout["profile"] == profile and layout["kind"] == KIND[profile]
    assert layout["magic"] == [0x53, 0x46] and layout["byte_order"] == "little"
    offset = 0
    for field in layout["fields"]:
        size = element_size(field)
        assert field["offset"] == offset, (profile, field["name"], field["offset"], offset)
        assert offset % size == 0, (profile, field["name"], "misaligned")
        offset += (field["length"] if field["type"] == "utf8" else size) * field["count"]
        if field["type"] in INT_TYPES:
            _, low, high = INT_TYPES[field["type"]]
            for bound in (field["min"], field["max"], field["sentinel"]):
                assert bound is None or low <= bound <= high, (profile, field["name"], bound)
    assert offset == layout["size"] and offset % 4 == 0
    crc = layout["fields"][-1]
    assert crc["name"] == "crc32" and crc["offset"] == layout["size"] - 4 == COVERED[profile]
    assert layout["crc"] == {"algorithm": "CRC-32/ISO-HDLC", "offset": crc["offset"],
                             "covers": [0, crc["offset"]]}


for _profile in LAYOUTS:
    check_layout(_profile)

# The standard frame's table (frame-v1.json): its JSON mirror is read off it like the others' (§8).
# Its one text field gives its bytes as `count`; the profile tables say `length` bytes, `count` texts.
LAYOUTS["standard"] = json.loads((SCHEMAS / "frame-v1.json").read_text(encoding="utf-8"))
for _field in LAYOUTS["standard"]["fields"]:
    if _field["type"] == "utf8" and "length" not in _field:
        _field["length"], _field["count"] = _field["count"], 1


def read_wire(profile, raw):
    """The wire values of every field the mirror shows, read from the bytes by the table: the
    inverse of encode_profile (which checks it for large and tiny, and the standard frames'
    independent encoder below)."""
    layout = LAYOUTS[profile]
    assert len(raw) == layout["size"]
    wire = {}
    for name, field in fields(profile).items():
        offset, count = field["offset"], field["count"]
        if field["type"] == "char":
            wire[name] = bytes(raw[offset:offset + 2])
        elif field["type"] == "utf8":
            size = field["length"]
            texts = [bytes(raw[offset + i * size:offset + (i + 1) * size]).rstrip(b"\0")
                     for i in range(count)]
            wire[name] = texts if count > 1 else texts[0]
        else:
            fmt, size = INT_TYPES[field["type"]][0], element_size(field)
            values = [struct.unpack_from("<" + fmt, raw, offset + i * size)[0] for i in range(count)]
            wire[name] = values if count > 1 else values[0]
    return wire


def wire_range(field):
    _, low, high = INT_TYPES[field["type"]]
    return (low if field["min"] is None else field["min"],
            high if field["max"] is None else field["max"])


def encode_profile(profile, wire):
    """The frame's bytes from wire values: {field name: int, list of ints, bytes, list of bytes}
    for every field the mirror shows. Refuses a value outside the field's wire range (its
    sentinel is the one value allowed outside it), text longer than its field, a bad country."""
    layout = LAYOUTS[profile]
    assert set(wire) == set(fields(profile)), sorted(set(wire) ^ set(fields(profile)))
    out = bytearray(layout["size"])
    out[0:2] = bytes(layout["magic"])
    out[2] = KIND[profile]
    for field in layout["fields"]:
        if not in_mirror(field):
            continue  # magic and kind above, reserved bytes 0, CRC below
        name, offset, count = field["name"], field["offset"], field["count"]
        if field["type"] == "char":  # two ASCII capitals or two zero bytes
            code = wire[name]
            assert count == 2 and (code == b"\0\0" or re.fullmatch(rb"[A-Z]{2}", code)), (name, code)
            out[offset:offset + 2] = code
            continue
        values = wire[name] if count > 1 else [wire[name]]
        assert isinstance(values, list) and len(values) == count, (name, values)
        if field["type"] == "utf8":
            for i, text in enumerate(values):
                assert isinstance(text, bytes) and len(text) <= field["length"] and b"\0" not in text
                text.decode("utf-8")  # whole characters only
                start = offset + i * field["length"]
                out[start:start + len(text)] = text
        else:
            fmt, size = INT_TYPES[field["type"]][0], element_size(field)
            low, high = wire_range(field)
            for i, value in enumerate(values):
                assert isinstance(value, int) and not isinstance(value, bool), (name, value)
                assert value == field["sentinel"] or low <= value <= high, \
                    f"{profile} {name}[{i}] = {value}: outside the wire range {low}..{high}"
                struct.pack_into("<" + fmt, out, offset + i * size, value)
    assert wire["slot_index"] < wire["slot_count"]
    crc_at = layout["crc"]["offset"]
    struct.pack_into("<I", out, crc_at, zlib.crc32(bytes(out[:crc_at])))
    return bytes(out)


def human(field, value):
    """§8: wire x scale in the table's unit, None for the sentinel. A whole-number scale gives an
    int; any other the float nearest to the exact decimal product (so 52.52, not 52.519999...)."""
    if field["sentinel"] is not None and value == field["sentinel"]:
        return None
    scale = Decimal(repr(field["scale"]))
    if scale == scale.to_integral_value():
        return value * int(scale)
    return float(Decimal(value) * scale)


# §8: the fields the mirror shows by what they mean (frame-v1.md §5.3, §5.5-5.8), not as the wire
# integer; null where the spec reads the value as absent or unknown.
MEANING_FIELDS = ("sun", "daily_sun", "air_quality", "alerts", "alert_severity", "moon",
                  "precip_next_hour")
SUN_NAMES = {0: "normal", 1: "polar_day", 2: "polar_night"}
SEVERITY_NAMES = {1: "none", 2: "unknown", 3: "minor", 4: "moderate", 5: "severe", 6: "extreme"}


def half_up(fraction):
    """A non-negative Fraction rounded to an integer, half up (§8's values never lie on a tie)."""
    from fractions import Fraction
    assert fraction >= 0 and fraction.denominator != 2, fraction
    return int(fraction + Fraction(1, 2))


def meaning(name, value):
    """§8: the JSON of one wire value of a field of MEANING_FIELDS."""
    import math
    from fractions import Fraction
    if name in ("sun", "daily_sun"):
        return SUN_NAMES.get(value)
    if name == "alert_severity":
        return SEVERITY_NAMES.get(value)
    if name == "air_quality":  # §5.5: bits 0-14 the index + 1, bit 15 the scale
        if value & 0x7FFF == 0:
            return None
        return {"index": (value & 0x7FFF) - 1,
                "scale": "us_aqi" if value & 0x8000 else "european_aqi"}
    if name == "alerts":  # §5.6: bits 3-7 the count, bits 0-2 the worst severity
        if value & 7 not in SEVERITY_NAMES:
            return None
        return {"count": value >> 3, "worst": SEVERITY_NAMES[value & 7]}
    if name == "moon":  # §5.7: phase (value - 1) / 255
        if value == 0:
            return None
        k = value - 1
        thousandths = half_up(Fraction(1000 * k, 255))
        icon = half_up(Fraction(8 * k, 255)) % 8
        lit = 100 * (1 - math.cos(2 * math.pi * k / 255)) / 2
        assert abs(lit - math.floor(lit) - 0.5) > 0.005, (value, lit)  # never near a tie
        return {"phase": thousandths / 1000, "name": MOON[icon], "lit": round(lit) / 100}
    if name == "precip_next_hour":  # §5.8: bit 7 now, bits 0-6 minutes + 1 or 127
        minutes = value & 0x7F
        if not (1 <= minutes <= 61 or minutes == 127):
            return None
        return {"precipitating": value & 0x80 != 0,
                "change_in_min": None if minutes == 127 else minutes - 1}
    raise KeyError(name)


def wire_values(profile, wire):
    """§8's `wire` object: the wire integers of the meaning fields the profile has."""
    return {name: wire[name] for name in fields(profile) if name in MEANING_FIELDS}


def mirror(profile, wire):
    """The JSON object of §8 for a frame's wire values."""
    doc = {"profile": profile}
    for name, field in fields(profile).items():
        value = wire[name]
        if name in MEANING_FIELDS:
            doc[name] = [meaning(name, v) for v in value] if field["count"] > 1 \
                else meaning(name, value)
        elif name == "status":
            doc[name] = STATUS[value] if value < len(STATUS) else value
        elif name == "service":
            doc[name] = SERVICE[value] if value < len(SERVICE) else value
        elif field["type"] == "utf8":
            doc[name] = value.decode("utf-8") if field["count"] == 1 else [t.decode("utf-8") for t in value]
        elif field["type"] == "char":
            doc[name] = None if value == b"\0\0" else value.decode("ascii")
        elif field["count"] > 1:
            doc[name] = [human(field, v) for v in value]
        else:
            doc[name] = human(field, value)
    return doc


def content_check(profile, raw):
    """§5: CRC-32 of the bytes before the crc32 field, the zeroed ranges taken as zero."""
    data = bytearray(raw[:COVERED[profile]])
    for start, end in ZEROED[profile]:
        data[start:end] = bytes(end - start)
    return f"{zlib.crc32(bytes(data)):08x}"


def half_away(value):
    """A Decimal rounded to an integer, half away from zero (-2.5 -> -3, 2.5 -> 3)."""
    return int(Decimal(value).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def half_ms(value):
    """§2.1 wind at 0.5 m/s: m/s x 2, rounded half away from zero, 127 m/s (254) and above 254."""
    if value is None:
        return 0xFF
    assert value >= 0, value
    return min(half_away(Decimal(repr(value)) * 2), 254)


def graphemes(text):
    """Text split into user-perceived characters, enough for the names here: a combining mark,
    a variation selector, an emoji modifier, ZWJ and what follows it join the one before."""
    clusters = []
    for ch in text:
        joins = clusters and (unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Mc")
                              or 0xFE00 <= ord(ch) <= 0xFE0F or 0x1F3FB <= ord(ch) <= 0x1F3FF
                              or ch == "\u200d" or clusters[-1].endswith("\u200d"))
        if joins:
            clusters[-1] += ch
        else:
            clusters.append(ch)
    return clusters


def cut(text, limit):
    """frame-v1.md §6.1 with `limit` bytes: a U+0000 ends the text; cut after the last whole
    character that fits."""
    out = b""
    for cluster in graphemes(text.split("\0")[0]):
        raw = cluster.encode("utf-8")
        if len(out) + len(raw) > limit:
            break
        out += raw
    return out


def unix(iso):
    """'2025-01-15T10:20Z' -> Unix seconds."""
    import datetime
    return int(datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp())


def pad(values, count, fill=None):
    values = list(values)
    assert len(values) <= count
    return values + [fill] * (count - len(values))


# ---- large ---------------------------------------------------------------------------------

def hour(temperature=None, amount=None, code=None, chance=None, wind=None, gust=None):
    """One hourly step of a service: degC, mm in the step, WMO code, %, m/s, m/s."""
    return {"temperature": temperature, "amount": amount, "code": code, "chance": chance,
            "wind": wind, "gust": gust}


def day(low=None, high=None, code=None, chance=None, rain=None, uv=None, wind=None, sun=None,
        rise=None, set_=None):
    """One day of a service: min/max degC, WMO code, %, mm, UV index, m/s, "normal" /
    "polar_day" / "polar_night" / None, sunrise and sunset in Unix s."""
    if sun in ("polar_day", "polar_night"):
        assert rise is None and set_ is None  # frame-v1.md §6.7: both 0
    return {"low": low, "high": high, "code": code, "chance": chance, "rain": rain, "uv": uv,
            "wind": wind, "sun": sun, "rise": rise, "set": set_}


def alert(severity, event, onset=None, end=None):
    """A weather alert as the service lists it: severity name (frame-v1.md §5.6), event name,
    onset and end in Unix s (None: unknown)."""
    return {"severity": SEVERITY.index(severity), "event": event, "onset": onset, "end": end}


def alert_wire(listed, fetched):
    """§2.1 Alerts: (the `alerts` byte, the 3 entries). The byte counts the alerts in force at
    fetched_at with their highest severity (frame-v1.md §5.6); the entries are the alerts in
    force at fetched_at or starting later, worst severity first, then earliest onset (unknown =
    0, in force since before), then the service's order."""
    if listed is None:
        return 0, []
    now = [a for a in listed if (a["onset"] or 0) <= fetched and (a["end"] is None or a["end"] > fetched)]
    byte = alerts({"count": len(now), "severity": SEVERITY[max(a["severity"] for a in now)] if now else "none"})
    kept = [a for a in listed if a["end"] is None or a["end"] > fetched]
    kept = sorted(enumerate(kept), key=lambda ia: (-ia[1]["severity"], ia[1]["onset"] or 0, ia[0]))
    return byte, [a for _, a in kept[:3]]


def large(status="ok", service="open-meteo", *, request_id=0, slot_index=0, slot_count=1, name="",
          country=None, lat=None, lon=None, observed=None, fetched=None, offset=None, is_day=None,
          step=None, now=None, hourly=(), daily=(), minutely=None, aqi=None, service_alerts=None,
          moon=None, next_hour_now=None, next_update=None, wire=None):
    """A large frame's wire values from what the gateway starts from (service values in human
    units). `now`: the current block {temperature, feels_like, dew_point, pressure, wind_speed,
    wind_gust, wind_direction, visibility, precipitation, humidity, weather_code, cloud_cover,
    uv_index}, missing keys are missing values. `wire`: wire values set last, as they are (the
    synthetic extremes)."""
    f = fields("large")
    w = {}

    def scaled(key, value):
        field = f[key]
        return steps(value, field["scale"], field["sentinel"])

    w.update(status=label(status, STATUS), request_id=request_id, slot_index=slot_index,
             slot_count=slot_count, service=label(service, SERVICE),
             is_day={True: 1, False: 0, None: 0xFF}[is_day])
    hourly = list(hourly)
    step = (1 if hourly else 0) if step is None else step
    w["hourly_step_h"] = step
    w["latitude"] = scaled("latitude", lat)
    w["longitude"] = scaled("longitude", lon)
    w["observed_at"], w["fetched_at"] = observed or 0, fetched or 0
    w["hourly_start"] = fetched - fetched % (step * 3600) if hourly and step and fetched else 0
    w["utc_offset_min"] = scaled("utc_offset_min", offset)
    known = fetched is not None and offset is not None
    w["daily_start"] = (fetched + 60 * offset) // 86400 if known else 0xFFFF  # frame-v1.md §6.6
    w["country"] = (country or "").encode("ascii").ljust(2, b"\0")
    w["air_quality"] = air_quality(aqi)
    w["next_update"] = next_update or 0
    byte, entries = alert_wire(service_alerts, fetched)
    w["alerts"] = byte
    w["moon"] = 0 if moon is None else moon_byte(moon)
    w["precip_next_hour"] = next_hour(next_hour_now)
    w["name"] = cut(name, f["name"]["length"])

    now = now or {}
    for key in ("temperature", "feels_like", "dew_point", "pressure", "wind_speed", "wind_gust",
                "wind_direction", "visibility", "precipitation", "humidity", "weather_code",
                "cloud_cover", "uv_index"):
        w[key] = scaled(key, now.get(key))
    assert set(now) <= set(w), set(now) - set(w)

    steps48 = [hour(**h) if isinstance(h, dict) else hour(*h) for h in pad(hourly, 48, {})]
    w["hourly_temperature"] = [scaled("hourly_temperature", h["temperature"]) for h in steps48]
    w["hourly_precip_amount"] = [scaled("hourly_precip_amount", h["amount"]) for h in steps48]
    w["hourly_weather_code"] = [scaled("hourly_weather_code", h["code"]) for h in steps48]
    w["hourly_precip_probability"] = [scaled("hourly_precip_probability", h["chance"]) for h in steps48]
    w["hourly_wind_speed"] = [half_ms(h["wind"]) for h in steps48]
    w["hourly_wind_gust"] = [half_ms(h["gust"]) for h in steps48]

    days8 = pad(daily, 8, day())
    w["daily_min"] = [scaled("daily_min", d["low"]) for d in days8]
    w["daily_max"] = [scaled("daily_max", d["high"]) for d in days8]
    w["daily_precip_sum"] = [scaled("daily_precip_sum", d["rain"]) for d in days8]
    w["daily_sunrise"] = [d["rise"] or 0 for d in days8]
    w["daily_sunset"] = [d["set"] or 0 for d in days8]
    w["daily_weather_code"] = [scaled("daily_weather_code", d["code"]) for d in days8]
    w["daily_precip_probability"] = [scaled("daily_precip_probability", d["chance"]) for d in days8]
    w["daily_uv_max"] = [scaled("daily_uv_max", d["uv"]) for d in days8]
    w["daily_wind_max"] = [half_ms(d["wind"]) for d in days8]
    w["daily_sun"] = [SUN[d["sun"]] for d in days8]
    # §2.1: day 0's sun state, sunrise and sunset are the header's
    w["sun"], w["sunrise"], w["sunset"] = w["daily_sun"][0], w["daily_sunrise"][0], w["daily_sunset"][0]

    if minutely is None:  # §2.1 Next hour: no short-step data
        w["minutely_start"], w["minutely_precip"] = 0, [0xFF] * 4
    else:
        w["minutely_start"] = fetched - fetched % 900  # the step that contains fetched_at
        w["minutely_precip"] = [scaled("minutely_precip", v) for v in pad(minutely, 4)]

    entries = pad(entries, 3, {"severity": 0, "onset": None, "end": None, "event": ""})
    w["alert_onset"] = [e["onset"] or 0 for e in entries]
    w["alert_end"] = [e["end"] or 0 for e in entries]
    w["alert_severity"] = [e["severity"] for e in entries]
    w["alert_event"] = [cut(e["event"], f["alert_event"]["length"]) for e in entries]

    for key, value in (wire or {}).items():
        assert key in w, key
        w[key] = value
    assert set(w) == set(f), sorted(set(w) ^ set(f))
    return w


def error_large(status, request_id=0, slot_index=0, slot_count=1, name="", next_update=None):
    """§2.1 Error frames: status, request_id, slots, name (reason or place, 48 bytes),
    next_update; everything else at its sentinel (service 0, hourly_step_h 0)."""
    return large(status, "none", request_id=request_id, slot_index=slot_index, slot_count=slot_count,
                 name=name, next_update=next_update)


def diurnal(low, high, start_hour, count, drift=0.0):
    """count hourly temperatures (degC, 0.1 steps) between low and high, coldest at 06:00 and
    warmest at 15:00 local, starting at local hour start_hour, drifting by `drift` per day."""
    shape = [2, 1, 1, 0, 0, 0, 0, 1, 2, 4, 6, 7, 8, 9, 10, 10, 9, 8, 7, 6, 5, 4, 3, 3]  # 0..10
    out = []
    for i in range(count):
        local = (start_hour + i) % 24
        tenths = round((low + drift * i / 24) * 10) + round((high - low) * shape[local])
        out.append(tenths / 10)
    return out


BERLIN_FETCHED = unix("2025-01-15T10:20Z")
BERLIN_RISE, BERLIN_SET = unix("2025-01-15T07:11Z"), unix("2025-01-15T15:26Z")
TROMSO_FETCHED = unix("2025-06-20T10:05Z")
LONGYEARBYEN_FETCHED = unix("2025-12-20T12:00Z")
GARMISCH_FETCHED = unix("2025-10-07T06:40Z")
TOKYO_FETCHED = unix("2025-03-10T01:10Z")
NAHA_FETCHED = unix("2024-09-05T03:40Z")
MAX_TIME = 0xFFFFFFFF

GERMAN_EVENT = "Amtliche UNWETTERWARNUNG vor ERGIEBIGEM DAUERREGEN. Hochwasser/Überflutungen möglich"
JAPANESE_EVENTS = ["大雨特別警報（土砂災害、浸水害）及び洪水警報・暴風警報・波浪警報",
                   "暴風雪警報・大雪警報・なだれ注意報・着雪注意報・低温注意報",
                   "高潮警報及び波浪警報並びに強風注意報（東京湾沿岸）"]
TOKYO_NAME = "東京都千代田区 Chiyodaku Marunouchi Itchōme"
LONG_NAME = "Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch"
# the cuts these vectors are about: in the middle of a character, so fewer bytes than the field
assert len(GERMAN_EVENT.encode()) > 64 and len(cut(GERMAN_EVENT, 64)) == 63
assert cut(GERMAN_EVENT, 64).decode().endswith("Hochwasser/")
assert all(len(e.encode()) > 64 and len(cut(e, 64)) == 63 for e in JAPANESE_EVENTS)
assert len(TOKYO_NAME.encode()) > 48 and len(cut(TOKYO_NAME, 48)) == 47
assert len(cut(LONG_NAME, 48)) == 48

LARGE = [
    ("01-ok-berlin-48h", "Open-Meteo for Berlin in January, every block filled: 48 hourly steps "
     "(winds rounded to 0.5 m/s: 3.25 -> 3.5, 4.1 -> 4.0), 8 days with sunrise and sunset, dew "
     "point, four 15-minute steps (rain starting in 25 min), European AQI 27, moon, next update in "
     "540 s; Open-Meteo gives no alerts (absent, entries empty). UTC+1.",
     large(request_id=42, name="Berlin", country="DE", lat=52.52, lon=13.405,
           observed=BERLIN_FETCHED - 300, fetched=BERLIN_FETCHED, offset=60, is_day=True,
           now={"temperature": 2.4, "feels_like": -1.3, "dew_point": 0.3, "pressure": 1021.4,
                "wind_speed": 4.2, "wind_gust": 9.7, "wind_direction": 250, "visibility": 24140,
                "precipitation": 0.0, "humidity": 86, "weather_code": 3, "cloud_cover": 100,
                "uv_index": 0.4},
           hourly=[(t, [0.0, 0.0, 0.3, 1.2, 0.8, 0.0][i % 6], [3, 3, 61, 63, 61, 2][i % 6],
                    [10, 20, 45, 60, 40, 15][i % 6], [3.25, 4.1, 5.0, 6.75, 2.2, 0.0][i % 6],
                    [7.3, 9.75, 11.0, 13.1, 5.6, 1.2][i % 6])
                   for i, t in enumerate(diurnal(-1.2, 4.1, 11, 48, drift=-0.6))],
           daily=[day(-1.2, 4.1, 61, 60, 2.4, 0.9, 6.75, "normal", BERLIN_RISE, BERLIN_SET),
                  day(-3.0, 2.5, 71, 40, 1.1, 0.8, 5.25, "normal", BERLIN_RISE + 86400 - 70, BERLIN_SET + 86400 + 110),
                  day(-5.5, 0.3, 3, 10, 0.0, 1.0, 4.0, "normal", BERLIN_RISE + 2 * 86400 - 140, BERLIN_SET + 2 * 86400 + 220),
                  day(-6.1, -0.8, 1, 0, 0.0, 1.1, 3.1, "normal", BERLIN_RISE + 3 * 86400 - 210, BERLIN_SET + 3 * 86400 + 330),
                  day(-4.4, 1.9, 2, 5, 0.0, 1.1, 2.8, "normal", BERLIN_RISE + 4 * 86400 - 280, BERLIN_SET + 4 * 86400 + 440),
                  day(-0.7, 5.6, 61, 70, 4.6, 0.7, 8.4, "normal", BERLIN_RISE + 5 * 86400 - 350, BERLIN_SET + 5 * 86400 + 550),
                  day(1.5, 7.2, 63, 85, 9.3, 0.6, 10.25, "normal", BERLIN_RISE + 6 * 86400 - 420, BERLIN_SET + 6 * 86400 + 660),
                  day(0.2, 4.8, 3, 25, 0.4, 1.2, 6.0, "normal", BERLIN_RISE + 7 * 86400 - 490, BERLIN_SET + 7 * 86400 + 770)],
           minutely=[0.0, 0.0, 0.2, 0.4], aqi={"index": 27, "scale": "european_aqi"}, moon=0.57,
           next_hour_now={"now": "dry", "change_in_min": 25}, next_update=540)),
    ("02-ok-tromso-polar-day", "Tromsø in June from MET Norway: midnight sun every day (daily_sun 1, "
     "sun 1, every sunrise and sunset 0), a dew point but no apparent temperature, gusts, UV, "
     "visibility, precipitation probability, AQI, alerts or short-step data from it. UTC+2.",
     large(service="met-norway", request_id=7, name="Tromsø", country="NO", lat=69.6489, lon=18.95508,
           observed=TROMSO_FETCHED - 3900, fetched=TROMSO_FETCHED, offset=120, is_day=True,
           now={"temperature": 11.2, "dew_point": 5.9, "pressure": 1014.1, "wind_speed": 3.3,
                "wind_direction": 10, "precipitation": 0.0, "humidity": 70, "weather_code": 2,
                "cloud_cover": 35},
           hourly=[(t, [0.0, 0.0, 0.1, 0.0][i % 4], [2, 1, 61, 3][i % 4], None, [3.3, 2.8, 4.4, 3.9][i % 4])
                   for i, t in enumerate(diurnal(7.9, 13.0, 12, 48))],
           daily=[day(7.9, 13.0, 2, None, 0.1, None, 4.4, "polar_day"),
                  day(8.3, 14.4, 1, None, 0.0, None, 3.9, "polar_day"),
                  day(9.0, 15.5, 0, None, 0.0, None, 2.5, "polar_day"),
                  day(8.8, 12.2, 3, None, 1.5, None, 5.6, "polar_day"),
                  day(7.0, 10.9, 61, None, 6.2, None, 8.1, "polar_day"),
                  day(6.6, 11.8, 3, None, 0.8, None, 6.6, "polar_day"),
                  day(7.4, 13.3, 2, None, 0.0, None, 4.0, "polar_day"),
                  day(8.1, 14.0, 1, None, 0.0, None, 3.5, "polar_day")],
           moon=0.83, next_update=1742)),
    ("03-ok-longyearbyen-polar-night", "Longyearbyen in December from Open-Meteo: polar night every "
     "day (daily_sun 2, sun 2, sunrise and sunset 0), night now, snowing in every 15-minute step "
     "and not stopping within the hour. UTC+1.",
     large(name="Longyearbyen", country="SJ", lat=78.22317, lon=15.64689,
           observed=LONGYEARBYEN_FETCHED - 900, fetched=LONGYEARBYEN_FETCHED, offset=60, is_day=False,
           now={"temperature": -14.6, "feels_like": -23.9, "dew_point": -18.2, "pressure": 1002.7,
                "wind_speed": 9.1, "wind_gust": 15.8, "wind_direction": 95, "visibility": 3400,
                "precipitation": 0.4, "humidity": 74, "weather_code": 73, "cloud_cover": 100,
                "uv_index": 0.0},
           hourly=[(round(-14.6 - 0.1 * (i % 12), 1), 0.3 if i < 20 else 0.0, 73 if i < 20 else 3,
                    80 if i < 20 else 20, round(9.1 - 0.25 * (i % 8), 2), round(15.8 - 0.5 * (i % 8), 2))
                   for i in range(48)],
           daily=[day(-17.0, -12.4, 73, 90, 5.9, 0.0, 11.25, "polar_night"),
                  day(-19.2, -14.0, 3, 30, 0.6, 0.0, 7.5, "polar_night"),
                  day(-21.5, -16.3, 1, 5, 0.0, 0.0, 4.0, "polar_night"),
                  day(-22.0, -18.8, 0, 0, 0.0, 0.0, 3.25, "polar_night"),
                  day(-20.1, -15.0, 71, 35, 1.2, 0.0, 6.0, "polar_night"),
                  day(-16.4, -11.9, 73, 80, 4.4, 0.0, 12.5, "polar_night"),
                  day(-13.0, -9.7, 75, 95, 8.8, 0.0, 17.75, "polar_night"),
                  day(-15.5, -10.2, 3, 20, 0.2, 0.0, 8.0, "polar_night")],
           minutely=[0.1, 0.1, 0.2, 0.1], aqi={"index": 8, "scale": "european_aqi"}, moon=0.0,
           next_hour_now={"now": "precipitation", "change_in_min": None}, next_update=900)),
    ("04-ok-all-missing", "Status ok from Open-Meteo with nothing in it: every value at its "
     "sentinel (no position, times, offset, date, country, name, current values, hourly steps "
     "(hourly_step_h 0), days, sun, 15-minute steps, AQI, alerts, moon or hint).",
     large()),
    ("05-ok-garmisch-alerts-german", "WeatherAPI.com for Garmisch-Partenkirchen with six DWD "
     "alerts: one expired (left out), three in force, two starting later. The entries are the worst "
     "three: severe; moderate (unknown onset: 0); of the two minor ones the one with the earlier "
     "onset (in force, unknown end: 0). The alerts byte counts the 3 in force, worst severe (0x1d). "
     "The severe event name (86 bytes) is cut to 63 bytes, before the 'Ü' that would straddle "
     "byte 64. Three days of data, the rest missing. UTC+2.",
     large(service="weatherapi", request_id=1207, slot_index=1, slot_count=2,
           name="Garmisch-Partenkirchen", country="DE", lat=47.49209, lon=11.09576,
           observed=GARMISCH_FETCHED - 600, fetched=GARMISCH_FETCHED, offset=120, is_day=False,
           now={"temperature": 6.8, "feels_like": 3.1, "dew_point": 6.1, "pressure": 1003.9,
                "wind_speed": 8.9, "wind_gust": 21.4, "wind_direction": 200, "visibility": 6000,
                "precipitation": 3.6, "humidity": 95, "weather_code": 65, "cloud_cover": 100,
                "uv_index": 0.0},
           hourly=[(round(6.8 + 0.1 * (i % 10), 1), 3.6 if i < 30 else 0.5, 65 if i < 30 else 61,
                    100 if i < 30 else 60, 8.9, round(21.4 - 0.25 * (i % 4), 2)) for i in range(48)],
           daily=[day(5.9, 8.8, 65, 100, 62.5, 0.4, 12.0, "normal", GARMISCH_FETCHED - 4800, GARMISCH_FETCHED + 36300),
                  day(5.1, 9.5, 65, 100, 48.0, 0.6, 10.5, "normal", GARMISCH_FETCHED + 86400 - 4710, GARMISCH_FETCHED + 86400 + 36190),
                  day(4.0, 11.2, 61, 70, 9.7, 1.5, 7.0, "normal", GARMISCH_FETCHED + 2 * 86400 - 4620, GARMISCH_FETCHED + 2 * 86400 + 36080)],
           service_alerts=[
               alert("moderate", "Amtliche WARNUNG vor STURMBÖEN", GARMISCH_FETCHED - 86400, GARMISCH_FETCHED - 3600),
               alert("minor", "Amtliche WARNUNG vor GLÄTTE", GARMISCH_FETCHED + 43200, GARMISCH_FETCHED + 86400),
               alert("unknown", "Vorabinformation UNWETTER vor ORKANBÖEN", GARMISCH_FETCHED + 7200, None),
               alert("severe", GERMAN_EVENT, GARMISCH_FETCHED - 7200, GARMISCH_FETCHED + 129600),
               alert("moderate", "Amtliche WARNUNG vor ORKANARTIGEN BÖEN in exponierten Lagen", None, GARMISCH_FETCHED + 21600),
               alert("minor", "Amtliche WARNUNG vor FROST", GARMISCH_FETCHED - 600, None)],
           moon=0.52, next_update=600)),
    ("06-ok-tokyo-alerts-japanese", "WeatherAPI.com for Tokyo with three JMA alerts whose Japanese "
     "event names (78-96 bytes, 3 bytes a character) are cut to 21 characters = 63 bytes; the "
     "name (51 bytes) is cut to 47 bytes, before the two-byte 'ō'. UTC+9.",
     large(service="weatherapi", name=TOKYO_NAME, country="JP", lat=35.68124, lon=139.76712,
           observed=TOKYO_FETCHED - 600, fetched=TOKYO_FETCHED, offset=540, is_day=True,
           now={"temperature": 9.4, "feels_like": 5.0, "dew_point": 8.0, "pressure": 996.3,
                "wind_speed": 14.2, "wind_gust": 27.5, "wind_direction": 135, "visibility": 4000,
                "precipitation": 12.4, "humidity": 91, "weather_code": 82, "cloud_cover": 100,
                "uv_index": 1.0},
           hourly=[(round(9.4 + 0.2 * (i % 6), 1), 12.4 if i < 12 else 1.0, 82 if i < 12 else 61,
                    100 if i < 12 else 70, round(14.25 - 0.25 * (i % 10), 2), round(27.5 - 0.5 * (i % 10), 2))
                   for i in range(48)],
           daily=[day(7.7, 11.9, 82, 100, 88.0, 1.0, 16.0, "normal", TOKYO_FETCHED - 15420, TOKYO_FETCHED + 27420),
                  day(6.3, 13.0, 61, 80, 20.5, 2.9, 10.0, "normal", TOKYO_FETCHED + 86400 - 15510, TOKYO_FETCHED + 86400 + 27480)],
           service_alerts=[alert("extreme", JAPANESE_EVENTS[0], TOKYO_FETCHED - 10800, TOKYO_FETCHED + 43200),
                           alert("severe", JAPANESE_EVENTS[1], TOKYO_FETCHED - 3600, TOKYO_FETCHED + 21600),
                           alert("severe", JAPANESE_EVENTS[2], TOKYO_FETCHED - 7200, None)],
           moon=0.35, next_update=300)),
    ("07-ok-naha-openweathermap-3h", "OpenWeatherMap's 5 day / 3 hour forecast for Naha: "
     "hourly_step_h 3 (48 steps would cover 144 h; the forecast's 39 steps from the one containing "
     "fetched_at, the last 9 missing), precipitation amounts per 3 hours, gusts of a typhoon; no dew "
     "point, UV, AQI on a European or US scale, alerts or short-step data; only today's sun times. "
     "UTC+9.",
     large(service="openweathermap", name="Naha", country="JP", lat=26.2124, lon=127.6809,
           observed=NAHA_FETCHED - 420, fetched=NAHA_FETCHED, offset=540, is_day=True, step=3,
           now={"temperature": 28.3, "feels_like": 33.9, "pressure": 962.0, "wind_speed": 31.4,
                "wind_gust": 48.9, "wind_direction": 80, "visibility": 1500, "precipitation": 18.7,
                "humidity": 94, "weather_code": 82, "cloud_cover": 100},
           hourly=[(round(28.3 - 0.1 * (i % 8), 1), [24.5, 31.0, 12.8, 4.4][i % 4], [82, 82, 65, 63][i % 4],
                    [100, 100, 96, 88][i % 4], [31.4, 35.75, 28.2, 19.9][i % 4], [48.9, 55.25, 41.0, 30.3][i % 4])
                   for i in range(39)],
           daily=[day(26.9, 29.1, 82, 100, 132.4, None, 35.75, "normal", NAHA_FETCHED - 23700, NAHA_FETCHED + 22620),
                  day(26.5, 29.8, 82, 100, 96.0, None, 33.0, None),
                  day(26.8, 30.5, 65, 96, 41.2, None, 21.5, None),
                  day(27.0, 31.6, 63, 80, 8.8, None, 12.0, None),
                  day(27.3, 31.9, 80, 60, 3.1, None, 8.75, None)],
           moon=0.09, next_update=1800)),
    ("08-stale-extremes-high", "Synthetic: every field at the upper end of its wire range (values "
     "set as they are, not derived from one another): stale from MET Norway, request 65535 slot "
     "254 of 255, 90 N 180 E, times 2^32-1, daily_start 65534, UTC+14, +100.0 degC everywhere, "
     "2000.0 hPa, 500.0 m/s, 359 deg, 655340 m, 6553.4 mm, UV 25.0, 0.5-m/s winds 254 (from 130 "
     "and 127 m/s), hourly_step_h 24, days 4-7 polar night, US AQI 999, 31 or more alerts "
     "(extreme) with three extreme entries whose event names fill 64 bytes exactly (4-, 2- and "
     "1-byte characters, no terminating zero), a name of exactly 48 bytes, moon 255, raining "
     "without a stop within the hour, next update 65535 s.",
     large("stale", "met-norway", request_id=65535, slot_index=254, slot_count=255, name=LONG_NAME,
           country="ZW", lat=90.0, lon=180.0, observed=MAX_TIME, fetched=MAX_TIME, offset=840,
           is_day=True, step=24,
           now={"temperature": 100.0, "feels_like": 100.0, "dew_point": 100.0, "pressure": 2000.0,
                "wind_speed": 500.0, "wind_gust": 500.0, "wind_direction": 359, "visibility": 655340,
                "precipitation": 6553.4, "humidity": 100, "weather_code": 99, "cloud_cover": 100,
                "uv_index": 25.0},
           hourly=[(100.0, 6553.4, 99, 100, 130.0, 127.0)] * 48,
           daily=[day(100.0, 100.0, 99, 100, 6553.4, 25.0, 127.0, "normal", MAX_TIME, MAX_TIME)] * 4
           + [day(100.0, 100.0, 99, 100, 6553.4, 25.0, 150.0, "polar_night")] * 4,
           minutely=[25.4] * 4, aqi={"index": 999, "scale": "us_aqi"},
           service_alerts=[alert("extreme", "𠮷" * 16, MAX_TIME - 1, None),
                           alert("extreme", "ß" * 32, MAX_TIME - 1, None),
                           alert("extreme", "X" * 64, MAX_TIME - 1, None)] * 11,
           moon=254 / 255, next_hour_now={"now": "precipitation", "change_in_min": None},
           next_update=65535,
           wire={"hourly_start": MAX_TIME, "daily_start": 65534, "minutely_start": MAX_TIME,
                 "alert_onset": [MAX_TIME] * 3, "alert_end": [MAX_TIME] * 3})),
    ("09-ok-extremes-low", "Synthetic: every field at the lower end of its wire range (values set as "
     "they are, not derived from one another): ok, service 0, request 0 slot 0 of 1, 90 S 180 W, "
     "times 1, UTC-12, daily_start 0 (1970-01-01), -100.0 degC everywhere, 0 for every pressure, "
     "wind, direction, visibility, precipitation, humidity, code, cloud cover, UV and probability, "
     "an empty name, European AQI 0 (not absent), no alert in force but three entries of "
     "severity 2 (unknown) with empty event names, moon 1 (new), rain starting now, next update "
     "1 s.",
     large("ok", "none", country="AD", lat=-90.0, lon=-180.0, observed=1, fetched=1, offset=-720,
           is_day=False, step=1,
           now={"temperature": -100.0, "feels_like": -100.0, "dew_point": -100.0, "pressure": 0.0,
                "wind_speed": 0.0, "wind_gust": 0.0, "wind_direction": 0, "visibility": 0,
                "precipitation": 0.0, "humidity": 0, "weather_code": 0, "cloud_cover": 0,
                "uv_index": 0.0},
           hourly=[(-100.0, 0.0, 0, 0, 0.0, 0.0)] * 48,
           daily=[day(-100.0, -100.0, 0, 0, 0.0, 0.0, 0.0, "normal", 1, 1)] * 8,
           minutely=[0.0] * 4, aqi={"index": 0, "scale": "european_aqi"},
           service_alerts=[alert("unknown", "", 2, None)] * 3,
           moon=0.0, next_hour_now={"now": "dry", "change_in_min": 0}, next_update=1,
           wire={"hourly_start": 1, "daily_start": 0, "minutely_start": 1,
                 "alert_onset": [1] * 3, "alert_end": [1] * 3})),
    ("10-not-found", "Place 3 of 3 of request 7 is not found: the name echoes what was asked (a "
     "request's name has at most 40 bytes, so it always fits the 48 bytes: 31 bytes of Cyrillic).",
     error_large("not_found", request_id=7, slot_index=2, slot_count=3,
                 name="Нижняя Атлантида")),
    ("11-bad-request-reason-cut", "A request with an unknown option: the name carries the reason "
     "('unknown option ~...', request-v1.md §2.4), cut to the 48 bytes of the field (no terminating "
     "zero on the wire).",
     error_large("bad_request", request_id=12,
                 name="unknown option ~verylongoptionnamethatnogatewayknows")),
    ("12-rate-limited-next-update", "The device asked too often: rate_limited with a hint to ask "
     "again in 42 s.",
     error_large("rate_limited", request_id=300, next_update=42)),
    ("13-upstream-unavailable-hint", "The service failed and nothing is cached: the place's name "
     "echoed, ask again in 60 s.",
     error_large("upstream_unavailable", request_id=1, name="Paris", next_update=60)),
    ("14-unknown-status-from-v1x", "Status 9 from a newer gateway: shown as the number.",
     error_large(9, request_id=5)),
]
assert len(cut("unknown option ~verylongoptionnamethatnogatewayknows", 48)) == 48
assert len("Нижняя Атлантида".encode()) <= 40


# ---- tiny ----------------------------------------------------------------------------------

def tiny(status="ok", *, request_id=0, slot_index=0, slot_count=1, fetched=None, next_update=None,
         temperature=None, aqi=None, code=None, is_day=None, alerts_now=None, next_hour_now=None,
         wind=None, gust=None, direction=None, offset=None, humidity=None, uv=None, daily=(),
         wire=None):
    """A tiny frame's wire values from the standard frame the gateway would send (§3.1): the
    values here are a standard frame's, in its units (0.1 degC, 0.1 m/s, whole degrees, minutes),
    and each is checked against the standard wire range first. `daily`: days 0..3 of the standard
    frame as (min, max, code, probability). `wire`: wire values set last (synthetic extremes)."""
    t = {}
    std_temperature = steps(temperature, 0.1, -2**15)
    std_wind, std_gust = steps(wind, 0.1, 0xFFFF), steps(gust, 0.1, 0xFFFF)
    std_direction = steps(direction, 1, 0xFFFF)
    std_offset = steps(offset, 1, -2**15)
    assert std_temperature == -2**15 or -1000 <= std_temperature <= 1000
    assert all(v == 0xFFFF or 0 <= v <= 5000 for v in (std_wind, std_gust))
    assert std_direction == 0xFFFF or 0 <= std_direction <= 359
    assert std_offset == -2**15 or -720 <= std_offset <= 840

    def whole_degrees(value):  # 0.1 degC -> 1 degC, half away from zero, clamped to -127..127
        std = steps(value, 0.1, -2**15)
        if std == -2**15:
            return -128
        assert -1000 <= std <= 1000
        return max(-127, min(127, half_away(Decimal(std) / 10)))

    def half_ms_from_standard(std):  # 0.1 m/s / 5, half away from zero, above 254 sent as 254
        return 0xFF if std == 0xFFFF else min(254, half_away(Decimal(std) / 5))

    t.update(status=label(status, STATUS), request_id=request_id, slot_index=slot_index,
             slot_count=slot_count, fetched_at=fetched or 0, next_update=next_update or 0,
             temperature=std_temperature, air_quality=air_quality(aqi),
             weather_code=steps(code, 1, 0xFF), is_day={True: 1, False: 0, None: 0xFF}[is_day],
             alerts=alerts(alerts_now), precip_next_hour=next_hour(next_hour_now),
             wind_speed=half_ms_from_standard(std_wind), wind_gust=half_ms_from_standard(std_gust),
             humidity=steps(humidity, 1, 0xFF), uv_index=steps(uv, 0.1, 0xFF))
    # degrees / 2 rounded half up, 180 -> 0 (359 deg -> 0 = north)
    t["wind_direction"] = 0xFF if std_direction == 0xFFFF else (std_direction + 1) // 2 % 180
    # utc_offset_min at 15 min a step: minutes / 15 when whole, else missing
    t["utc_offset_min"] = std_offset // 15 if std_offset != -2**15 and std_offset % 15 == 0 else -128
    days4 = pad(list(daily)[:4], 4, (None, None, None, None))
    t["daily_min"] = [whole_degrees(d[0]) for d in days4]
    t["daily_max"] = [whole_degrees(d[1]) for d in days4]
    t["daily_weather_code"] = [steps(d[2], 1, 0xFF) for d in days4]
    t["daily_precip_probability"] = [steps(d[3], 1, 0xFF) for d in days4]
    for key, value in (wire or {}).items():
        assert key in t, key
        t[key] = value
    assert set(t) == set(fields("tiny")), sorted(set(t) ^ set(fields("tiny")))
    return t


def error_tiny(status, request_id=0, slot_index=0, slot_count=1, next_update=None):
    """§3.1 Error frames: status, request_id, slots, next_update; everything else at its sentinel."""
    return tiny(status, request_id=request_id, slot_index=slot_index, slot_count=slot_count,
                next_update=next_update)


TINY = [
    ("01-ok-berlin", "Berlin from the standard frame of 01-ok-berlin-48h's weather: temperature "
     "copied at 0.1 degC, wind 4.2 m/s -> 8 (4.0 m/s), gust 9.7 -> 19 (9.5), 250 deg -> 125 (250), "
     "UTC+60 min -> 4, days 0-3 in whole degrees, European AQI 27, alerts absent (Open-Meteo "
     "gives none, as in large/01), rain in 25 min, next update 540 s.",
     tiny(request_id=42, fetched=BERLIN_FETCHED, next_update=540, temperature=2.4,
          aqi={"index": 27, "scale": "european_aqi"}, code=3, is_day=True,
          alerts_now=None,
          next_hour_now={"now": "dry", "change_in_min": 25}, wind=4.2, gust=9.7, direction=250,
          offset=60, humidity=86, uv=0.4,
          daily=[(-1.2, 4.1, 61, 60), (-3.0, 2.5, 71, 40), (-5.5, 0.3, 3, 10), (-6.1, -0.8, 1, 0),
                 (-4.4, 1.9, 2, 5)])),
    ("02-stale-sydney", "Stale frame for Sydney (fetched_at is the original fetch), UTC+11 -> 44, "
     "two alerts in force (worst moderate), a dry hour ahead.",
     tiny("stale", fetched=1705290000 + 2700, next_update=60, temperature=27.4,
          aqi={"index": 35, "scale": "us_aqi"}, code=2, is_day=True,
          alerts_now={"count": 2, "severity": "moderate"},
          next_hour_now={"now": "dry", "change_in_min": None}, wind=6.3, gust=11.2, direction=45,
          offset=660, humidity=62, uv=11.3,
          daily=[(21.0, 29.5, 2, 20), (20.4, 31.2, 1, 5), (22.0, 33.0, 95, 60), (19.8, 24.1, 81, 85)])),
    ("03-ok-rounding-half-away", "Rounding, half away from zero: daily min/max -2.5 -> -3, 2.5 -> 3, "
     "-0.5 -> -1, 0.5 -> 1, -0.4 -> 0, 0.4 -> 0, -14.5 -> -15, 14.5 -> 15; wind 359 deg -> 179.5 "
     "-> 180 -> 0 (north); wind 2.3 m/s -> 4.6 -> 5 (2.5 m/s); gust 2.2 m/s -> 4.4 -> 4 (2.0 m/s).",
     tiny(request_id=3, fetched=1736936400, next_update=600, temperature=-2.5, code=71, is_day=False,
          wind=2.3, gust=2.2, direction=359, offset=0, humidity=93, uv=0.0,
          daily=[(-2.5, 2.5, 71, 80), (-0.5, 0.5, 73, 90), (-0.4, 0.4, 3, 20), (-14.5, 14.5, 0, 0)])),
    ("04-ok-rounding-direction-half-up", "Wind direction / 2 rounded half up: 1 deg -> 0.5 -> 1 "
     "(2 deg); wind 0.2 m/s -> 0.4 -> 0; gust 0.3 m/s -> 0.6 -> 1 (0.5 m/s); daily 1.5 -> 2, "
     "-1.5 -> -2, 9.9 -> 10, -9.9 -> -10, 0.0 -> 0, 0.1 and -0.1 -> 0.",
     tiny(request_id=4, fetched=1736936400, next_update=600, temperature=0.0, code=1, is_day=True,
          wind=0.2, gust=0.3, direction=1, offset=0, humidity=50, uv=1.5,
          daily=[(-1.5, 1.5, 1, 0), (-9.9, 9.9, 2, 10), (0.0, 0.0, 3, 20), (-0.1, 0.1, 45, 5)])),
    ("05-ok-rounding-direction-181", "Wind direction 181 deg -> 90.5 -> 91 (182 deg), "
     "wind 12.7 m/s -> 25.4 -> 25 (12.5 m/s), gust 12.8 m/s -> 25.6 -> 26 (13.0 m/s).",
     tiny(request_id=5, fetched=1736936400, next_update=600, temperature=12.7, code=2, is_day=True,
          wind=12.7, gust=12.8, direction=181, offset=0, humidity=40, uv=3.3,
          daily=[(8.0, 13.0, 2, 0)])),
    ("06-ok-kathmandu-345", "Kathmandu, UTC+5:45: utc_offset_min 345 -> wire 23 (15 min steps), shown as 345.",
     tiny(fetched=1705300500, next_update=900, temperature=12.4, code=1, is_day=True, wind=1.3,
          gust=3.0, direction=270, offset=345, humidity=58, uv=4.2,
          daily=[(2.1, 19.0, 1, 0), (2.5, 19.4, 1, 0), (3.0, 18.7, 2, 5), (3.8, 17.9, 3, 15)])),
    ("07-ok-st-johns-minus-210", "St. John's, Newfoundland, UTC-3:30: -210 -> -14.",
     tiny(fetched=1705331100, next_update=900, temperature=-7.5, code=75, is_day=True, wind=12.5,
          gust=20.3, direction=290, offset=-210, humidity=78, uv=0.5,
          alerts_now={"count": 1, "severity": "minor"},
          daily=[(-11.0, -6.2, 75, 95), (-14.3, -8.0, 73, 70), (-12.2, -5.5, 71, 40), (-9.0, -1.1, 3, 10)])),
    ("08-ok-chatham-825", "Chatham Islands in summer, UTC+13:45: 825 -> 55.",
     tiny(fetched=1705313100, next_update=900, temperature=15.8, code=80, is_day=False, wind=11.4,
          gust=19.0, direction=200, offset=825, humidity=81, uv=6.0,
          daily=[(11.0, 16.9, 80, 60), (10.2, 15.5, 61, 70), (9.8, 17.0, 3, 20), (11.5, 18.2, 2, 10)])),
    ("09-ok-offset-not-quarter-hour", "Synthetic: an offset of +20 min is not a whole number of "
     "quarter hours, so utc_offset_min is missing (wire -128); a missing standard daily day stays "
     "missing.",
     tiny(fetched=1736936400, next_update=600, temperature=5.0, code=3, is_day=True, wind=1.0,
          gust=2.0, direction=90, offset=20, humidity=70, uv=0.5,
          daily=[(1.0, 6.0, 3, 10), (None, None, None, None), (0.5, 4.5, 61, 55)])),
    ("10-ok-extremes-high", "Synthetic: the upper ends of the wire ranges: daily min and max 127 "
     "(set as they are: a standard frame gives at most 100), 100.0 degC now, wind and gust 500.0 "
     "m/s -> 1000 -> sent as 254, 358 deg -> 179, UTC+14 -> 56, humidity 100, UV 25.0, codes 99, "
     "probabilities 100, US AQI 999, 31 or more alerts (extreme), raining without a stop, "
     "fetched_at 2^32-1, next update 65535, request 65535, slot 254 of 255.",
     tiny(request_id=65535, slot_index=254, slot_count=255, fetched=MAX_TIME, next_update=65535,
          temperature=100.0, aqi={"index": 999, "scale": "us_aqi"}, code=99, is_day=True,
          alerts_now={"count": 40, "severity": "extreme"},
          next_hour_now={"now": "precipitation", "change_in_min": None}, wind=500.0, gust=500.0,
          direction=358, offset=840, humidity=100, uv=25.0,
          daily=[(100.0, 100.0, 99, 100)] * 4,
          wire={"daily_min": [127] * 4, "daily_max": [127] * 4})),
    ("11-ok-extremes-low", "Synthetic: the lower ends: daily min and max -127 (set as they are), "
     "-100.0 degC now, wind, gust, direction 0, UTC-12 -> -48, humidity, UV, codes and "
     "probabilities 0, European AQI 0 (not absent), no alert in force, rain starting now, "
     "fetched_at 1, next update 1 s, request 0.",
     tiny(fetched=1, next_update=1, temperature=-100.0, aqi={"index": 0, "scale": "european_aqi"},
          code=0, is_day=False, alerts_now={"count": 0, "severity": "none"},
          next_hour_now={"now": "dry", "change_in_min": 0}, wind=0.0, gust=0.0, direction=0,
          offset=-720, humidity=0, uv=0.0, daily=[(-100.0, -100.0, 0, 0)] * 4,
          wire={"daily_min": [-127] * 4, "daily_max": [-127] * 4})),
    ("12-ok-all-missing", "Status ok with every value at its sentinel: no fetch time, temperature, "
     "AQI, code, day/night, alerts, next hour, wind, offset, humidity, UV, days or hint.",
     tiny()),
    ("13-not-found", "Place 2 of 3 of request 7 not found (tiny has no name: the reason is in the "
     "gateway's log).", error_tiny("not_found", request_id=7, slot_index=1, slot_count=3)),
    ("14-bad-request", "A request the gateway could not parse.", error_tiny("bad_request", request_id=0)),
    ("15-upstream-unavailable-hint", "The service failed, nothing cached: ask again in 60 s.",
     error_tiny("upstream_unavailable", request_id=1, next_update=60)),
    ("16-rate-limited-next-update", "The device asked too often: ask again in 42 s.",
     error_tiny("rate_limited", request_id=300, next_update=42)),
    ("17-too-many-locations", "Eight places asked, seven allowed: one frame, slot 0 of 1.",
     error_tiny("too_many_locations", request_id=9)),
    ("18-internal-error", "The gateway failed.", error_tiny("internal_error", request_id=4242)),
    ("19-unknown-status-from-v1x", "Status 9 from a newer gateway: shown as the number.",
     error_tiny(9, request_id=5)),
]


# ---- unchanged -----------------------------------------------------------------------------

def encode_unchanged(m):
    """§4: magic, kind 0x31, profile, request_id, slot_index, slot_count, next_update, 2 reserved
    bytes, CRC-32 of bytes 0..11."""
    assert m["of"] in PROFILE_NUMBER and 0 <= m["request_id"] <= 0xFFFF
    assert 0 <= m["slot_index"] < m["slot_count"] <= 255
    assert m["next_update"] is None or 1 <= m["next_update"] <= 65535
    out = bytearray(16)
    struct.pack_into("<2sBBHBBH", out, 0, b"SF", KIND["unchanged"], PROFILE_NUMBER[m["of"]],
                     m["request_id"], m["slot_index"], m["slot_count"], m["next_update"] or 0)
    struct.pack_into("<I", out, 12, zlib.crc32(bytes(out[:12])))
    return bytes(out)


def unchanged_mirror(m):
    return {"profile": "unchanged", **m}


def unchanged(of, request_id=0, slot_index=0, slot_count=1, next_update=None):
    return {"of": of, "request_id": request_id, "slot_index": slot_index, "slot_count": slot_count,
            "next_update": next_update}


UNCHANGED = [
    ("01-standard", "The standard frame the device shows is still right; no hint.",
     unchanged("standard", request_id=42)),
    ("02-standard-next-update", "Standard, place 2 of 3, newer data expected in 540 s.",
     unchanged("standard", request_id=7, slot_index=1, slot_count=3, next_update=540)),
    ("03-large", "Large, request without an id; no hint.", unchanged("large")),
    ("04-large-next-update", "Large, request 65535, slot 254 of 255, hint at its maximum.",
     unchanged("large", request_id=65535, slot_index=254, slot_count=255, next_update=65535)),
    ("05-tiny", "Tiny, request 7; no hint.", unchanged("tiny", request_id=7)),
    ("06-tiny-next-update", "Tiny, request 7, newer data expected in 1 s.",
     unchanged("tiny", request_id=7, next_update=1)),
]


# ---- LoRaWAN uplink requests (schemas/lorawan-uplink-v1.md) ---------------------------------

UPLINK_KIND = {"coordinates": 1, "place": 2, "refresh": 3}


def uplink(kind, request_id, body=b"", check=None, version=1):
    """§2: header (version in bits 7-5, bit 4 when a check ends the payload, kind in bits 3-0),
    the request id, the kind's body, then the check, little-endian."""
    number = UPLINK_KIND.get(kind, kind)
    assert 0 <= request_id <= 255 and 0 <= version <= 7 and 0 <= number <= 15
    head = version << 5 | (0x10 if check is not None else 0) | number
    out = bytes([head, request_id]) + body
    if check is not None:
        out += struct.pack("<I", check)
    return out


def e2_from_e5(value):
    """§3 Rounding: 1e-5 deg to 0.01 deg, half away from zero."""
    assert -18_000_000 <= value <= 18_000_000
    return int(Decimal(value).scaleb(-3).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def uplink_point(lat_e2, lon_e2):
    return struct.pack("<hh", lat_e2, lon_e2)


def uplink_coordinates(request_id, lat_e5, lon_e5, check=None):
    """A valid coordinates vector as a device writes it: (payload, write, expect)."""
    lat, lon = e2_from_e5(lat_e5), e2_from_e5(lon_e5)
    assert -9000 <= lat <= 9000 and -18000 <= lon <= 18000
    expect = {"kind": "coordinates", "id": request_id, "latitude": float(Decimal(lat).scaleb(-2)),
              "longitude": float(Decimal(lon).scaleb(-2)), "check": check_hex(check)}
    return uplink("coordinates", request_id, uplink_point(lat, lon), check), \
        {"lat_e5": lat_e5, "lon_e5": lon_e5}, expect


def uplink_place(request_id, index, check=None):
    return uplink("place", request_id, bytes([index]), check), None, \
        {"kind": "place", "id": request_id, "index": index, "check": check_hex(check)}


def uplink_refresh(request_id, check=None):
    return uplink("refresh", request_id, b"", check), None, \
        {"kind": "refresh", "id": request_id, "check": check_hex(check)}


def check_hex(check):
    return None if check is None else f"{check:08x}"


def uplink_fail(payload, error, status="bad_request", **details):
    """An error vector: the id the error frame echoes (§3: byte 1 of a version-1 payload)."""
    echoed = payload[1] if len(payload) >= 2 and payload[0] >> 5 == 1 else 0
    return payload, None, {"error": error, "status": status, "id": echoed, **details}


UPLINKS = [
    # (slug, description, configured places, (payload, write, expect))
    ("01-coordinates", "Berlin at 0.01 deg, id 7, no check.", 0,
     uplink_coordinates(7, 5_252_000, 1_341_000)),
    ("02-coordinates-check-rounded", "With a check; 52.52499 rounds down, 13.405 rounds half away from zero to 13.41.", 0,
     uplink_coordinates(42, 5_252_499, 1_340_500, check=0x0C1F22AA)),
    ("03-coordinates-south-east", "Sydney: south and east; -33.8688 and 151.2093 round to -33.87 and 151.21.", 0,
     uplink_coordinates(3, -3_386_880, 15_120_930)),
    ("04-coordinates-negative-half", "-0.005 deg rounds half away from zero to -0.01.", 0,
     uplink_coordinates(4, -500, -1_340_500)),
    ("05-coordinates-minimum", "South pole and the date line, highest id, check all ones.", 0,
     uplink_coordinates(255, -9_000_000, -18_000_000, check=0xFFFFFFFF)),
    ("06-coordinates-maximum-rounded-up", "89.99999 and 179.995 round up to the pole and the date line; id 0 (none).", 0,
     uplink_coordinates(0, 8_999_999, 17_999_500)),
    ("07-coordinates-zero", "0,0 with check 0.", 0, uplink_coordinates(1, 0, 0, check=0)),
    ("08-place-first", "Configured place 0 of 3.", 3, uplink_place(1, 0)),
    ("09-place-check", "Configured place 2 of 3, with a check.", 3, uplink_place(3, 2, check=0x12345678)),
    ("10-place-highest", "Place index 255 of 256 configured.", 256, uplink_place(17, 255)),
    ("11-refresh", "Refresh, id 9.", 0, uplink_refresh(9)),
    ("12-refresh-check", "Refresh with the check of the tiny frame shown.", 0,
     uplink_refresh(200, check=0xDEADBEEF)),
    ("13-error-empty", "An uplink without payload.", 0, uplink_fail(b"", "too_short", count=0)),
    ("14-error-header-only", "A header without the request id.", 0,
     uplink_fail(bytes([0x23]), "too_short", count=1)),
    ("15-error-coordinates-cut", "Coordinates one byte short.", 0,
     uplink_fail(uplink("coordinates", 5, uplink_point(5252, 1341))[:5], "too_short", count=5)),
    ("16-error-check-missing", "The header announces a check the payload does not carry.", 0,
     uplink_fail(uplink("coordinates", 42, uplink_point(5252, 1341), check=0)[:6], "too_short", count=6)),
    ("17-error-longer-than-kind", "A refresh with a byte too many.", 0,
     uplink_fail(uplink("refresh", 9) + b"\x00", "too_long", count=3)),
    ("18-error-eleven-bytes", "11 bytes fit the link but no v1 request is that long.", 0,
     uplink_fail(uplink("coordinates", 6, uplink_point(0, 0), check=1) + b"\x00", "too_long", count=11)),
    ("19-error-twelve-bytes", "More than 11 bytes: refused before the header is read.", 0,
     uplink_fail(bytes([0xFF] * 12), "too_long", count=12)),
    ("20-error-text", "The MQTT text form sent by mistake: 'r' is version 3.", 0,
     uplink_fail(b"refresh", "unsupported_version", version=3)),
    ("21-error-version-2", "Version 2.", 0,
     uplink_fail(uplink("refresh", 1, version=2), "unsupported_version", version=2)),
    ("22-error-kind-4", "Kind 4.", 0, uplink_fail(uplink(4, 1), "unknown_kind", kind=4)),
    ("23-error-kind-0", "Kind 0, with the check flag.", 0,
     uplink_fail(uplink(0, 2, check=5), "unknown_kind", kind=0)),
    ("24-error-latitude", "Latitude 90.01.", 0,
     uplink_fail(uplink("coordinates", 1, uplink_point(9001, 0)), "latitude_out_of_range")),
    ("25-error-longitude", "Longitude -180.01 (latitude in range).", 0,
     uplink_fail(uplink("coordinates", 2, uplink_point(-9000, -18001)), "longitude_out_of_range")),
    ("26-error-both-out-of-range", "Both out of range: the latitude is named.", 0,
     uplink_fail(uplink("coordinates", 3, uplink_point(-32768, 32767)), "latitude_out_of_range")),
    ("27-error-place-not-configured", "Index 3 with 3 places configured.", 3,
     uplink_fail(uplink("place", 5, bytes([3])), "place_not_configured", "not_found", index=3, count=3)),
    ("28-error-no-places", "Index 0 with no places configured.", 0,
     uplink_fail(uplink("place", 6, bytes([0]), check=7), "place_not_configured", "not_found", index=0, count=0)),
]


def write(folder, documents):
    target = HERE / folder
    target.mkdir(exist_ok=True)
    for old in target.glob("*.json"):
        old.unlink()
    for slug, document in documents:
        (target / f"{slug}.json").write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def main():
    frames = []
    for slug, description, frame in FRAMES:
        raw = encode_frame(frame)
        # content_check after hex: adding it changes no other line of the existing files
        wire = read_wire("standard", raw)
        assert encode_profile("standard", wire) == raw, slug
        frames.append((slug, {"description": description, "profile": "standard", "hex": raw.hex(),
                              "frame": mirror("standard", wire),
                              "wire": wire_values("standard", wire),
                              "content_check": content_check("standard", raw)}))
    write("frames", frames)
    write("requests", [(slug, {"description": description, "hex": payload.hex(), "max_locations": 7,
                               "expect": expect})
                       for slug, description, payload, expect in REQUESTS])
    for profile, vectors in (("large", LARGE), ("tiny", TINY)):
        documents = []
        for slug, description, wire in vectors:
            raw = encode_profile(profile, wire)
            documents.append((slug, {"description": description, "profile": profile, "hex": raw.hex(),
                                     "frame": mirror(profile, wire),
                                     "wire": wire_values(profile, wire),
                                     "content_check": content_check(profile, raw)}))
        write(profile, documents)
    write("unchanged", [(slug, {"description": description, "profile": "unchanged",
                                "hex": encode_unchanged(message).hex(),
                                "frame": unchanged_mirror(message)})
                        for slug, description, message in UNCHANGED])
    uplinks = []
    for slug, description, places, (payload, arguments, expect) in UPLINKS:
        document = {"description": description, "hex": payload.hex(), "configured_places": places}
        if arguments is not None:
            document["write"] = arguments  # the 1e-5 deg a device's writer was given
        document["expect"] = expect
        uplinks.append((slug, document))
    write("lorawan", uplinks)
    print(f"{len(FRAMES)} frames, {len(REQUESTS)} requests, {len(LARGE)} large, {len(TINY)} tiny, "
          f"{len(UNCHANGED)} unchanged, {len(UPLINKS)} lorawan")


if __name__ == "__main__":
    main()
