#!/usr/bin/env python3
"""Writes the golden vectors in schemas/vectors/ from the values below.

An encoder independent of the Swift codec and the C decoder, written from schemas/frame-v1.md and
schemas/request-v1.md: the Swift tests check that their encoder produces these bytes, the C test
that its decoder reads these values. Run it again only when the spec changes:

    python3 schemas/vectors/generate.py
"""
import json
import pathlib
import struct
import zlib

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


def request_binary(kind, request_id, lat=0, lon=0, country=b"\0\0", name=b""):
    out = bytearray(64)
    struct.pack_into("<2sBBH", out, 0, b"SQ", 1, kind, request_id)
    struct.pack_into("<ii2s", out, 8, lat, lon, country)
    out[20:20 + len(name)] = name
    struct.pack_into("<I", out, 60, zlib.crc32(bytes(out[:60])))
    return bytes(out)


def place(name, country=None):
    return {"name": name, "country": country}


def point(lat, lon):
    return {"latitude": lat, "longitude": lon}


def ok(locations, request_id=0):
    return {"id": request_id, "refresh": False, "locations": locations}


def refresh(request_id=0):
    return {"id": request_id, "refresh": True, "locations": []}


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
]



#PROFILES#


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
        frames.append((slug, {"description": description, "hex": raw.hex(),
                              "content_check": content_check("standard", raw), "frame": frame}))
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
                                     "content_check": content_check(profile, raw)}))
        write(profile, documents)
    write("unchanged", [(slug, {"description": description, "profile": "unchanged",
                                "hex": encode_unchanged(message).hex(),
                                "frame": unchanged_mirror(message)})
                        for slug, description, message in UNCHANGED])
    print(f"{len(FRAMES)} frames, {len(REQUESTS)} requests, {len(LARGE)} large, {len(TINY)} tiny, "
          f"{len(UNCHANGED)} unchanged")


if __name__ == "__main__":
    main()
