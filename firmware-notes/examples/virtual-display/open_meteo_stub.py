#!/usr/bin/env python3
"""A local stand-in for Open-Meteo, for test.sh: answers the three endpoints the gateway calls,
in Open-Meteo's JSON shape, from the files in fixtures/.

  GET /v1/forecast?latitude=..&longitude=..   fixtures/forecast-berlin.json, one object per point
                                              (an array for comma-separated points)
  GET /v1/air-quality?latitude=..&longitude=.. fixtures/air-quality.json, the same way
  GET /v1/search?name=..                      fixtures/search-<name>.json (lower case), or
                                              fixtures/search-none.json: no "results" key

The fixtures hold fixed times. So that the gateway sees data for today, every answer is moved in
time: the daily and hourly times (and sunrise, sunset) by whole days, so that daily[0] is today
at the place; `current.time` to the current quarter hour (the hour for air quality); and the
`minutely_15` times to the quarter hours from now on.

Usage: open_meteo_stub.py PORT_FILE. Listens on 127.0.0.1 on a free port, writes the port to
PORT_FILE once it listens, and logs each request to stderr.
"""
import json
import os
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def load(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return json.load(f)


def moved_forecast(body, latitude, longitude, now):
    offset = body["utc_offset_seconds"]
    today = (now + offset) // 86400 * 86400 - offset  # local midnight, Unix seconds
    shift = today - body["daily"]["time"][0]
    for key in ("time", "sunrise", "sunset"):
        body["daily"][key] = [t + shift for t in body["daily"][key]]
    body["hourly"]["time"] = [t + shift for t in body["hourly"]["time"]]
    quarter = now - now % 900
    body["current"]["time"] = quarter
    steps = len(body["minutely_15"]["time"])
    body["minutely_15"]["time"] = [quarter + 900 * (i + 1) for i in range(steps)]
    body["latitude"], body["longitude"] = latitude, longitude
    return body


def moved_air_quality(body, latitude, longitude, now):
    body["current"]["time"] = now - now % 3600
    body["latitude"], body["longitude"] = latitude, longitude
    return body


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        now = int(time.time())
        if url.path in ("/v1/forecast", "/v1/air-quality"):
            try:
                latitudes = [float(v) for v in query["latitude"].split(",")]
                longitudes = [float(v) for v in query["longitude"].split(",")]
            except (KeyError, ValueError):
                reason = "latitude and longitude are required"
                return self.answer(400, {"error": True, "reason": reason})
            if url.path == "/v1/forecast":
                bodies = [moved_forecast(load("forecast-berlin.json"), la, lo, now)
                          for la, lo in zip(latitudes, longitudes)]
            else:
                bodies = [moved_air_quality(load("air-quality.json"), la, lo, now)
                          for la, lo in zip(latitudes, longitudes)]
            return self.answer(200, bodies[0] if len(bodies) == 1 else bodies)
        if url.path == "/v1/search":
            name = query.get("name", "").strip().lower()
            file = "search-%s.json" % name
            known = re.fullmatch(r"[a-z0-9-]+", name) and os.path.exists(os.path.join(FIXTURES, file))
            if not known:
                file = "search-none.json"
            return self.answer(200, load(file))
        return self.answer(404, {"error": True, "reason": "Not Found"})

    def answer(self, status, body):
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, fmt, *args):
        sys.stderr.write("open-meteo stub: %s\n" % (fmt % args))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: open_meteo_stub.py PORT_FILE")
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.replace(sys.argv[1] + ".tmp", sys.argv[1])  # appears whole, once the socket listens
    server.serve_forever()


if __name__ == "__main__":
    main()
