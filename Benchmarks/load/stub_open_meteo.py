#!/usr/bin/env python3
"""A stand-in for Open-Meteo for the load benchmark: stdlib only, loopback only.

    stub_open_meteo.py PORT

GET /v1/forecast answers, for every latitude/longitude asked (comma-separated lists give a JSON
array, as Open-Meteo does), a forecast shaped like Open-Meteo's with timeformat=unixtime:
utc_offset_seconds, current{...}, hourly{time, temperature_2m, weather_code,
precipitation_probability} for 48 h and daily{...} for 7 days, arrays of equal length.
GET /v1/search answers one geocoding result. GET /control/fail/N makes every forecast and search
answer 500 for the next N seconds (the fault run's service failure). Anything else: 404. Every request is counted, and
so are the points forecasts were asked for, in all and as distinct 0.01° cells; the
counts are printed to standard error on exit (the load benchmark expects a handful: cache hits do
not call) and GET /stats answers them as one line of key=value pairs, uncounted (abuse.sh reads
them while the gateway runs).
"""

import json
import math
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

UTC_OFFSET = 3600
CALLS = {"forecast": 0, "search": 0, "other": 0}
CELLS: set[tuple[int, int]] = set()
CELLS_ASKED = 0
# A cell answered again sooner than this many seconds after its last answer counts as an early
# refetch (SKYFRAME_STUB_EARLY_S; 0: not counted): the fault run's "no extra upstream call".
EARLY_S = float(os.environ.get("SKYFRAME_STUB_EARLY_S", "0"))
LAST_ANSWERED: dict[tuple[int, int], float] = {}
EARLY = 0
# Search calls by the name asked.
SEARCHES: dict[str, int] = {}
# Until when (time.monotonic()) forecasts and searches fail with 500.
FAILING_UNTIL = 0.0
# The server answers each connection on its own thread.
LOCK = threading.Lock()


def stats() -> str:
    with LOCK:
        counts = dict(CALLS, cells_asked=CELLS_ASKED, cells_distinct=len(CELLS))
        if EARLY_S > 0:
            counts["early_refetches"] = EARLY
        if SEARCHES:
            counts["searches_per_name_max"] = max(SEARCHES.values())
            counts["names_searched"] = len(SEARCHES)
    return " ".join(f"{key}={value}" for key, value in counts.items())


def forecast(latitude: float, longitude: float) -> dict:
    now = int(time.time())
    local_midnight = (now + UTC_OFFSET) // 86400 * 86400 - UTC_OFFSET
    hours = [local_midnight + 3600 * i for i in range(48)]
    days = [local_midnight + 86400 * i for i in range(7)]
    return {
        "latitude": latitude,
        "longitude": longitude,
        "generationtime_ms": 0.1,
        "utc_offset_seconds": UTC_OFFSET,
        "timezone": "Europe/Berlin",
        "timezone_abbreviation": "GMT+1",
        "elevation": 38.0,
        "current": {
            "time": now // 900 * 900,
            "interval": 900,
            "temperature_2m": 4.2,
            "relative_humidity_2m": 81,
            "apparent_temperature": 1.3,
            "is_day": 1,
            "precipitation": 0.0,
            "weather_code": 3,
            "cloud_cover": 100,
            "pressure_msl": 1013.4,
            "wind_speed_10m": 3.9,
            "wind_direction_10m": 245,
            "wind_gusts_10m": 8.1,
            "uv_index": 0.4,
            "visibility": 24140.0,
        },
        "hourly": {
            "time": hours,
            "temperature_2m": [round(2.0 + (i % 24) * 0.3, 1) for i in range(48)],
            "weather_code": [3 if i % 5 else 61 for i in range(48)],
            "precipitation_probability": [(i * 7) % 100 for i in range(48)],
        },
        "daily": {
            "time": days,
            "weather_code": [3, 61, 71, 0, 1, 2, 45],
            "temperature_2m_max": [6.1, 5.2, 2.0, 4.4, 7.9, 8.3, 5.5],
            "temperature_2m_min": [0.3, 1.1, -2.4, -1.0, 2.2, 3.0, 0.8],
            "precipitation_probability_max": [20, 80, 65, 5, 10, 15, 30],
            "sunrise": [d + 7 * 3600 + 40 * 60 for d in days],
            "sunset": [d + 16 * 3600 + 35 * 60 for d in days],
            "daylight_duration": [32100.0 + 90 * i for i in range(7)],
        },
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        global CELLS_ASKED, FAILING_UNTIL, EARLY
        url = urlparse(self.path)
        query = parse_qs(url.query)
        if url.path == "/stats":
            self.answer_text(stats() + "\n")
            return
        if url.path.startswith("/control/fail/"):
            FAILING_UNTIL = time.monotonic() + float(url.path.rsplit("/", 1)[1])
            self.answer_text("failing\n")
            return
        if url.path in ("/v1/forecast", "/v1/search") and time.monotonic() < FAILING_UNTIL:
            with LOCK:
                CALLS["other"] += 1
            self.answer(500, {"error": True, "reason": "the fault run's service failure"})
            return
        if url.path == "/v1/forecast":
            with LOCK:
                CALLS["forecast"] += 1
            try:
                latitudes = [float(x) for x in query.get("latitude", [""])[0].split(",")]
                longitudes = [float(x) for x in query.get("longitude", [""])[0].split(",")]
                if len(latitudes) != len(longitudes):
                    raise ValueError("latitude and longitude must have the same number of elements")
            except ValueError as error:
                self.answer(400, {"error": True, "reason": str(error)})
                return
            # The gateway's default grid (cache.grid-degrees 0.01); the epsilon keeps a cell's corner
            # (40.01 is 4000.9999… hundredths) in its own cell, whether it sends corners or centres.
            with LOCK:
                CELLS_ASKED += len(latitudes)
                cells = [(math.floor(a * 100 + 1e-6), math.floor(o * 100 + 1e-6))
                         for a, o in zip(latitudes, longitudes)]
                CELLS.update(cells)
                now = time.monotonic()
                for cell in cells:
                    last = LAST_ANSWERED.get(cell)
                    if EARLY_S > 0 and last is not None and now - last < EARLY_S:
                        EARLY += 1
                        print(f"stub_open_meteo: early refetch of {cell}, {now - last:.1f} s after "
                              "the last", file=sys.stderr, flush=True)
                    LAST_ANSWERED[cell] = now
            places = [forecast(lat, lon) for lat, lon in zip(latitudes, longitudes)]
            self.answer(200, places[0] if len(places) == 1 else places)
        elif url.path == "/v1/search":
            with LOCK:
                CALLS["search"] += 1
                name = query.get("name", [""])[0]
                SEARCHES[name] = SEARCHES.get(name, 0) + 1
            name = query.get("name", ["Berlin"])[0]
            self.answer(200, {"results": [{
                "id": 2950159, "name": name, "latitude": 52.52437, "longitude": 13.41053,
                "country_code": "DE", "country": "Germany", "timezone": "Europe/Berlin",
            }], "generationtime_ms": 0.1})
        else:
            with LOCK:
                CALLS["other"] += 1
            self.answer(404, {"error": True, "reason": "not found"})

    def answer(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def answer_text(self, text: str) -> None:
        data = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


def main() -> None:
    port = int(sys.argv[1])
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        print(f"stub_open_meteo: {stats()}", file=sys.stderr)


if __name__ == "__main__":
    main()
