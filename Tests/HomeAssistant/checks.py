"""The checks of test.sh that look into Home Assistant: each prints lines `ok   …` or
`FAIL …` (test.sh counts them) and exits 0 when every line is `ok`, 1 when any is `FAIL`; a
crash (an import, a missing file) exits non-zero too, with its traceback, and test.sh fails it. Run with the venv's Python (it reads Home
Assistant's own sensor constants); Home Assistant is the one ha_harness.py started in --dir.

  checks.py present --dir HA --expect FILE --mqtt-port P [--timeout S]
      every display of FILE (object id, model, and the frame as `skyframe decode --json` gives
      it) is a device with all its sensors, each with the entity id, unit, device class and state
      class of docs/integrations/home-assistant.md, its state equal to the frame's value; the
      gateway's device with its broker, answers-per-minute and breaker sensors, their states equal
      to the retained status document.
  checks.py gone --dir HA --gone ID,… --kept ID,… [--timeout S]
      the devices of the gone ids have left the states, the entity and the device registry;
      the kept ones have all their entities.
  checks.py availability --dir HA --ids ID,… --want available|unavailable [--timeout S]
  checks.py log --dir HA
      no warning or error in Home Assistant's log from MQTT, sensors or templates.

Each waits (up to --timeout) until everything it checks holds, then reports what it saw last.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time
from datetime import datetime, timezone

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ha_harness import Attached  # noqa: E402

from homeassistant.util import slugify  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KMH_PER_MS = 3.6


# ---- what the frame says each sensor shows ----------------------------------------------------
def field(name):
    """A field of the frame as `skyframe decode --json` shows it (frame-profiles.md §8)."""
    return lambda frame: frame.get(name)


def air_quality(frame):
    """frame-profiles.md §8: {"index", "scale"} (frame-v1.md §5.5); None when absent."""
    return frame.get("air_quality")


def alerts(frame):
    """§8: {"count", "worst"} (frame-v1.md §5.6), as the state's alert_count and alert_severity
    say them; None when absent."""
    value = frame.get("alerts")
    return None if value is None else {"count": value["count"], "severity": value["worst"]}


def moon_name(frame):
    """§8: the moon's icon name (frame-v1.md §5.7); None when absent."""
    value = frame.get("moon")
    return None if value is None else value["name"]


def nested(read, key):
    return lambda frame: (read(frame) or {}).get(key)


def next_hour_text(frame):
    """The next hour in docs/integrations/home-assistant.md's words: dry / starting / stopping /
    all hour, from §8's {"precipitating", "change_in_min"} (frame-v1.md §5.8; change_in_min
    null: no change within the hour)."""
    value = frame.get("precip_next_hour")
    if value is None:
        return None
    minutes = value["change_in_min"]
    if not value["precipitating"]:
        return "dry for the hour" if minutes is None else "precipitation in %d min" % minutes
    return "precipitation all hour" if minutes is None else (
        "precipitation, stopping in %d min" % minutes)


# key: (kind, unit shown, device class, state class, the frame's value)
# Wind speeds are published in m/s; Home Assistant's metric unit system shows every wind_speed
# sensor in km/h (util/unit_system.py, METRIC_SYSTEM conversions), so that is what is checked.
# wind_direction has a device class in 2025.4 (sensor/const.py), which takes state class
# measurement_angle only.
SENSORS = {
    "temperature": ("number", "°C", "temperature", "measurement", field("temperature")),
    "feels_like": ("number", "°C", "temperature", "measurement", field("feels_like")),
    "humidity": ("number", "%", "humidity", "measurement", field("humidity")),
    "pressure": ("number", "hPa", "atmospheric_pressure", "measurement", field("pressure")),
    "wind_speed": ("km/h", "km/h", "wind_speed", "measurement", field("wind_speed")),
    "wind_gust": ("km/h", "km/h", "wind_speed", "measurement", field("wind_gust")),
    "wind_direction": ("number", "°", "wind_direction", "measurement_angle",
                       field("wind_direction")),
    "uv_index": ("number", None, None, "measurement", field("uv_index")),
    "visibility": ("number", "m", "distance", "measurement", field("visibility")),
    "precipitation": ("number", "mm", "precipitation", "measurement",
                      field("precipitation")),
    "aqi": ("number", None, "aqi", "measurement", nested(air_quality, "index")),
    "alert_count": ("number", None, None, "measurement", nested(alerts, "count")),
    "alert_severity": ("enum", None, "enum", None, nested(alerts, "severity")),
    "next_hour_precipitation": ("text", None, None, None, next_hour_text),
    "moon_phase": ("enum", None, "enum", None, moon_name),
    "condition": ("condition", None, None, None, field("weather_code")),
    "fetched_at": ("timestamp", None, "timestamp", None, field("fetched_at")),
    "status": ("enum", None, "enum", None, field("status")),
}


def wmo_meanings():
    """Code -> meaning from the tables of schemas/wmo-codes.md."""
    meanings = {}
    with open(os.path.join(REPO, "schemas", "wmo-codes.md"), encoding="utf-8") as f:
        for line in f:
            match = re.match(r"\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|", line)
            if match:
                meanings.setdefault(int(match.group(1)), match.group(2))
    return meanings


def words(text):
    return set(re.findall(r"[a-z]+", text.lower())) - {"and", "or", "with", "by", "in", "the"}


def escaped(text):
    """The contract's escaping in ids: bytes outside A-Z a-z 0-9 '-' as '_' + 2 hex digits."""
    return "".join(chr(b) if chr(b).isascii() and (chr(b).isalnum() or chr(b) == "-")
                   else "_%02x" % b for b in text.encode())


def decimals(text):
    return len(text.split(".", 1)[1]) if "." in text else 0


class Results:
    def __init__(self):
        self.lines = []

    def check(self, ok, text):
        self.lines.append(("ok   " if ok else "FAIL ") + text)
        return ok

    @property
    def ok(self):
        return all(line.startswith("ok") for line in self.lines)


def poll(timeout, attempt, settled=None):
    """Runs attempt() (which returns a Results) until all its checks pass or time is up, and
    prints the last one's lines. With `settled`, it also stops once that many answers in a row
    (a second apart) were the same: what is wrong then is not a matter of waiting."""
    deadline = time.monotonic() + timeout
    previous, same = None, 0
    while True:
        try:
            results = attempt()
        except Exception as e:  # Home Assistant not answering is a failure like any other
            results = Results()
            results.check(False, "asking Home Assistant: %s: %s" % (type(e).__name__, e))
        same = same + 1 if results.lines == previous else 1
        previous = results.lines
        if results.ok or time.monotonic() > deadline or (settled and same >= settled):
            break
        time.sleep(1)
    for line in results.lines:
        print(line)
    sys.stdout.flush()
    return results.ok and bool(results.lines)


class Snapshot:
    """States, entity and device registry at one moment."""

    def __init__(self, ha):
        self.states = {s["entity_id"]: s for s in ha.states()}
        self.entities = ha.entity_registry()
        self.devices = ha.device_registry()
        self.by_unique_id = {e["unique_id"]: e for e in self.entities
                             if e.get("platform") == "mqtt"}

    def device(self, object_id):
        for device in self.devices:
            if ["mqtt", object_id] in device["identifiers"]:
                return device
        return None

    def entities_of(self, object_id):
        return [e for e in self.by_unique_id.values() if e["unique_id"].startswith(object_id + "_")]


def check_device(results, snapshot, object_id, model, name, keys, platforms, entity_prefix,
                 entity_keys=None):
    """The device, its registry entities (exactly `keys`) and their entity ids. Gives the
    entity registry entry of each key found."""
    device = snapshot.device(object_id)
    if not results.check(device is not None, "device %s exists" % object_id):
        return {}
    problems = []
    for field, wanted in (("manufacturer", "Skyframe"), ("model", model), ("name", name)):
        if wanted is not None and device.get(field) != wanted:
            problems.append("%s %r, want %r" % (field, device.get(field), wanted))
    if not device.get("sw_version"):
        problems.append("no sw_version")
    results.check(not problems, "device %s: %s" % (object_id, "; ".join(problems) or
                  "name %r, manufacturer Skyframe, model %r, sw_version %s"
                  % (device["name"], model, device.get("sw_version"))))
    found = {}
    for key in keys:
        entry = snapshot.by_unique_id.get("%s_%s" % (object_id, key))
        if entry is not None:
            found[key] = entry
    on_device = {e["unique_id"] for e in snapshot.entities if e.get("device_id") == device["id"]}
    wanted = {"%s_%s" % (object_id, key) for key in keys}
    results.check(on_device == wanted, "device %s holds exactly its %d entities%s" % (
        object_id, len(wanted), "" if on_device == wanted else ": missing %s, extra %s" % (
            sorted(wanted - on_device), sorted(on_device - wanted))))
    # The entity ids of docs/integrations/home-assistant.md, written out by the test from the
    # rule there (each part a-y, 0-9, every other byte z and two hex digits), not computed by the
    # gateway's code: `{entity prefix}_{key}`, the same on 2025.4 (object_id) and later
    # (default_entity_id).
    entity_keys = entity_keys or {}
    wrong_ids = ["%s is %s" % (key, entry["entity_id"]) for key, entry in found.items()
                 if entry["entity_id"] != "%s.%s_%s" % (platforms.get(key, "sensor"),
                                                        entity_prefix,
                                                        entity_keys.get(key, key))]
    results.check(not wrong_ids, "entity ids of %s are <platform>.%s_<key>%s" % (
        object_id, entity_prefix, "" if not wrong_ids else "; Home Assistant made: "
        + ", ".join(sorted(wrong_ids))))
    return found


def check_sensor(results, snapshot, entry, key, frame, meanings):
    kind, unit, device_class, state_class, value_of = SENSORS[key]
    entity_id = entry["entity_id"]
    state = snapshot.states.get(entity_id)
    if not results.check(state is not None, "%s has a state" % entity_id):
        return
    shown, attributes = state["state"], state["attributes"]
    problems = []
    for attribute, wanted in (("unit_of_measurement", unit), ("device_class", device_class),
                              ("state_class", state_class)):
        if attributes.get(attribute) != wanted:
            problems.append("%s %r, want %r" % (attribute, attributes.get(attribute), wanted))
    expected = value_of(frame)
    if expected is None:
        if shown != "unknown":
            problems.append("state %r, want unknown (not in the frame)" % shown)
    elif kind in ("number", "km/h"):
        want = expected * (KMH_PER_MS if kind == "km/h" else 1)
        # Rounding only: the frame's value exactly, or (converted) to the digits shown.
        tolerance = 1e-6 if kind == "number" else 0.5 * 10 ** -decimals(shown) + 1e-9
        try:
            ok = math.isclose(float(shown), want, abs_tol=tolerance)
        except ValueError:
            ok = False
        if not ok:
            problems.append("state %r, want %s" % (shown, round(want, 6)))
    elif kind == "timestamp":
        try:
            when = datetime.fromisoformat(shown)
            ok = when.tzinfo is not None and when.timestamp() == expected
        except ValueError:
            ok = False
        if not ok:
            problems.append("state %r, want %s" % (
                shown, datetime.fromtimestamp(expected, timezone.utc).isoformat()))
    elif kind == "condition":
        meaning = meanings.get(expected, "")
        if shown in ("unknown", "unavailable", "") or not words(shown) & words(meaning):
            problems.append("state %r, want the meaning of WMO code %d (%r)"
                            % (shown, expected, meaning))
        else:
            expected = "%d, %s" % (expected, meaning)
    elif shown != expected:
        problems.append("state %r, want %r" % (shown, expected))
    if kind == "enum" and shown not in attributes.get("options", []) and shown != "unknown":
        problems.append("state %r not among its options" % shown)
    if key == "aqi":
        scale = nested(air_quality, "scale")(frame)
        if attributes.get("scale") != scale:
            problems.append("attribute scale %r, want %r" % (attributes.get("scale"), scale))
    results.check(not problems, "%s = %r %s(frame: %s)%s" % (
        entity_id, shown, (attributes.get("unit_of_measurement") or "") + " "
        if attributes.get("unit_of_measurement") else "", expected,
        "" if not problems else ": " + "; ".join(problems)))


def retained(port, topic):
    out = subprocess.run(
        ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", topic, "-C", "1", "-W", "3"],
        capture_output=True, text=True).stdout.strip()
    return json.loads(out) if out else None


def present(ha, args):
    with open(args.expect) as f:
        expect = json.load(f)
    meanings = wmo_meanings()

    def attempt():
        results = Results()
        snapshot = Snapshot(ha)
        for display in expect["displays"]:
            found = check_device(results, snapshot, display["object_id"], display["model"],
                                 display["frame"].get("name"), SENSORS, {},
                                 display["entity_prefix"])
            for key in SENSORS:
                if key in found:
                    check_sensor(results, snapshot, found[key], key, display["frame"], meanings)
                else:
                    results.check(False, "%s_%s: no such entity" % (display["object_id"], key))

        gateway = expect["gateway"]
        stats = retained(args.mqtt_port, gateway["stats_topic"]) or {}
        services = [s["name"] for s in stats.get("services", [])]
        breakers = {"breaker_" + escaped(name): name for name in services}
        keys = ["broker", "answers_per_minute", *breakers]
        found = check_device(results, snapshot, gateway["object_id"], "gateway", None, keys,
                             {"broker": "binary_sensor"}, gateway["entity_prefix"],
                             {key: "breaker_" + name.replace("-", "_")
                              for key, name in breakers.items()})
        results.check(bool(services), "the status document names the services (%s)"
                      % ", ".join(services))

        def gateway_sensor(key, want_state, want_class, text):
            entry = found.get(key)
            state = snapshot.states.get(entry["entity_id"]) if entry else None
            shown = state["state"] if state else None
            device_class = state["attributes"].get("device_class") if state else None
            results.check(shown == want_state and device_class == want_class,
                          "%s: %r, device class %r (%s)" % (
                              entry["entity_id"] if entry else gateway["object_id"] + "_" + key,
                              shown, device_class, text))

        gateway_sensor("broker", "on", "connectivity", "want 'on', connectivity")
        rate = stats.get("answers_per_minute")
        gateway_sensor("answers_per_minute", "unknown" if rate is None else str(rate), None,
                       "status document: %s" % rate)
        for key, name in breakers.items():
            breaker = next(s["breaker"] for s in stats["services"] if s["name"] == name)
            gateway_sensor(key, breaker, "enum", "status document: %s %s" % (name, breaker))
        return results

    # Every entity there, with its value: a failure that stays the same for 5 s stays.
    return poll(args.timeout, attempt, settled=5)


def gone(ha, args):
    gone_ids = [i for i in args.gone.split(",") if i]
    kept_ids = [i for i in args.kept.split(",") if i]
    # The entity-id prefixes of the gone devices (docs/integrations/home-assistant.md), in order.
    gone_entities = [i for i in args.gone_entities.split(",") if i]

    def attempt():
        results = Results()
        snapshot = Snapshot(ha)
        for index, object_id in enumerate(gone_ids):
            ids = [e["entity_id"] for e in snapshot.entities_of(object_id)]
            # By the contract's entity ids and by those Home Assistant would make of the
            # device id.
            prefixes = {object_id + "_", slugify(object_id) + "_"}
            if index < len(gone_entities):
                prefixes.add(gone_entities[index] + "_")
            states = [s for s in snapshot.states
                      if any(s.split(".", 1)[1].startswith(p) for p in prefixes)]
            results.check(not states, "%s: no states left%s" % (
                object_id, "" if not states else " (%s)" % ", ".join(sorted(set(states)))))
            results.check(not ids, "%s: no entity registry entries left%s" % (
                object_id, "" if not ids else " (%d)" % len(ids)))
            results.check(snapshot.device(object_id) is None,
                          "%s: gone from the device registry" % object_id)
        for object_id in kept_ids:
            count = sum(1 for e in snapshot.entities_of(object_id)
                        if e["entity_id"] in snapshot.states)
            want = len(SENSORS)
            results.check(count == want and snapshot.device(object_id) is not None,
                          "%s: still there with its %d entities (has %d)" % (object_id, want,
                                                                            count))
        return results

    return poll(args.timeout, attempt)


def availability(ha, args):
    ids = [i for i in args.ids.split(",") if i]

    def attempt():
        results = Results()
        snapshot = Snapshot(ha)
        for object_id in ids:
            entities = snapshot.entities_of(object_id)
            states = [snapshot.states.get(e["entity_id"], {}).get("state") for e in entities]
            if args.want == "unavailable":
                wrong = [s for s in states if s != "unavailable"]
            else:
                wrong = [s for s in states if s in ("unavailable", None)]
            results.check(entities and not wrong, "%s: %d entities %s%s" % (
                object_id, len(entities), args.want,
                "" if not wrong else " (%d are not: %s)" % (len(wrong), sorted(set(map(str, wrong))))))
        return results

    return poll(args.timeout, attempt)


def log(args):
    path = os.path.join(args.dir, "ha.log")
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    pattern = re.compile(r" (WARNING|ERROR|CRITICAL) \([^)]*\) \[(homeassistant\.components\."
                         r"(mqtt|sensor|binary_sensor)[^\]]*|homeassistant\.helpers\.(template|"
                         r"entity[^\]]*|device_registry))\]")
    bad = [line for line in lines if pattern.search(line)]
    print(("ok   " if not bad else "FAIL ") +
          "Home Assistant's log: no warning or error from MQTT, sensors or templates%s" % (
              "" if not bad else " (%d):\n       %s" % (len(bad), "\n       ".join(
                  line[:400] for line in bad[:10]))))
    return not bad


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["present", "gone", "availability", "log"])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--expect")
    parser.add_argument("--mqtt-port", type=int)
    parser.add_argument("--gone", default="")
    parser.add_argument("--kept", default="")
    parser.add_argument("--gone-entities", default="")
    parser.add_argument("--ids", default="")
    parser.add_argument("--want", choices=["available", "unavailable"])
    parser.add_argument("--timeout", type=float, default=30)
    args = parser.parse_args(argv)
    if args.command == "log":
        return 0 if log(args) else 1
    ha = Attached(args.dir)
    ok = {"present": present, "gone": gone, "availability": availability}[args.command](ha, args)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
