#!/usr/bin/env python3
"""The fleet under faults: two `skyframe run` members in one cluster behind a mosquitto with
persistence saved at every change (`autosave_on_changes true`, `autosave_interval 1`: what
docs/operators/operating.md advises for a broker that may be killed), on 127.0.0.1 only, while

  - QoS 1 devices (persistent sessions) ask every 2-3 s with a new id each time,
  - QoS 0 devices ask every 2-3 s and ask once more, with the same id, when no answer came in 5 s,
  - watch devices keep a retained watch (interval WATCH_S) and named places are published
    (interval PLACE_S),

and these faults come, each twice: the broker killed (-9) and restarted, the broker stopped
(SIGTERM) and restarted, a member killed (-9) and restarted, both members reloaded (SIGHUP),
the weather service failing for 15 s (the stand-in answers 500).

It prints, per fault and outside them: requests sent, answered once, answered twice, lost (no
answer by the end; for QoS 0 after the retry too); answer latency p50/p99 inside fault windows
(sent from 1 s before a fault to 10 s after it) and outside; `stale` answers' latency; upstream
calls; pushes that came sooner than half their interval after the one before; each member's log
bytes; then the goals: 0 QoS 1 requests lost, 0 answered twice, stale p99 under 50 ms, no early
push. Needs mosquitto, python3 with venv (paho-mqtt is installed into .build/faults-venv) and a
release build (`make faults` does both).

Environment: SKYFRAME_BIN (default .build/release/skyframe), Q1=60, Q0=20, WATCHES=10,
DURATION=150 (seconds of the run, faults included), WATCH_S=60, PLACE_S=60, BROKER_AWAY_S=2 (how
long a restarted broker is away: 8 lets scheduled work fall into the gap, where a member's wants
and shares wait for the reconnect).
"""
import os
import pathlib
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import paho.mqtt.client as mqtt

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("SKYFRAME_BIN", str(ROOT / ".build/release/skyframe"))
Q1 = int(os.environ.get("Q1", "60"))
Q0 = int(os.environ.get("Q0", "20"))
WATCHES = int(os.environ.get("WATCHES", "10"))
DURATION = float(os.environ.get("DURATION", "150"))
WATCH_S = int(os.environ.get("WATCH_S", "60"))
PLACE_S = int(os.environ.get("PLACE_S", "60"))
BROKER_AWAY_S = float(os.environ.get("BROKER_AWAY_S", "2"))
PLACES = ["alpha", "bravo", "charlie"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class Run:
    def __init__(self, tmp):
        self.tmp = tmp
        self.lock = threading.Lock()
        self.sent = {}  # (device, id) -> (time, qos)
        self.answers = {}  # (device, id) -> [(time, status)]
        self.pushes = {}  # topic -> [time]
        self.faults = []  # (name, time)
        self.broker_port = free_port()
        self.stub_port = free_port()
        (tmp / "db").mkdir()
        # mosquitto started as root drops to its own user: it must be able to write the database.
        os.chmod(tmp, 0o755)
        os.chmod(tmp / "db", 0o777)
        (tmp / "mosquitto.conf").write_text(
            f"listener {self.broker_port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
            f"persistence_location {tmp}/db/\nautosave_on_changes true\nautosave_interval 1\n"
            "set_tcp_nodelay true\n"
            "max_queued_messages 10000\n")
        self.broker = None
        self.members = {}
        self.start_broker()
        self.stub = subprocess.Popen(
            [sys.executable, str(ROOT / "Benchmarks/load/stub_open_meteo.py"), str(self.stub_port)],
            stdout=subprocess.DEVNULL, stderr=open(tmp / "stub.log", "w"),
            # A cell fetched again within 90 % of cache.ttl-seconds (60) was fetched for nothing.
            env=dict(os.environ, SKYFRAME_STUB_EARLY_S="54"))
        while not listening(self.stub_port):
            time.sleep(0.05)
        lines = ["cluster:", "  group: faults", '  key: "the fault run\'s cluster key, 32+ bytes"',
                 "  session-expiry-seconds: 300", "cache:", "  ttl-seconds: 60",
                 "  stale-seconds: 3600", "requests:", "  per-device-per-minute: 0",
                 "upstream:", "  new-cells-per-minute: 0", "  new-cells-per-device-per-minute: 0",
                 "  breaker-failures: 1", "  backoff-initial-seconds: 5",
                 "  backoff-max-seconds: 10", "air-quality:", "  service: none", "alerts:",
                 "  enabled: false", "log:", "  level: info", "locations:",
                 f"  names: [{', '.join(PLACES)}]"]
        for index, name in enumerate(PLACES):
            lines += [f"  {name}:", f"    latitude: {48 + index}.5", "    longitude: 11.5",
                      f"    refresh-seconds: {PLACE_S}"]
        (tmp / "member.yaml").write_text("\n".join(lines) + "\n")
        for member in ("gw-1", "gw-2"):
            self.start_member(member)
        time.sleep(2)
        for member, process in self.members.items():
            if process.poll() is not None:
                sys.exit(f"faults: {member} did not start:\n" + (tmp / f"{member}.log").read_text())

    def start_broker(self):
        self.broker = subprocess.Popen(
            ["mosquitto", "-c", str(self.tmp / "mosquitto.conf")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not listening(self.broker_port):
            time.sleep(0.02)

    def start_member(self, member):
        environment = dict(
            os.environ, SKYFRAME_MQTT_PORT=str(self.broker_port), SKYFRAME_METRICS_PORT="0",
            SKYFRAME_CLUSTER_INSTANCE_ID=member,
            SKYFRAME_OPEN_METEO_FORECAST_URL=f"http://127.0.0.1:{self.stub_port}/v1/forecast",
            SKYFRAME_OPEN_METEO_GEOCODING_URL=f"http://127.0.0.1:{self.stub_port}/v1/search")
        self.members[member] = subprocess.Popen(
            [BIN, "run", "--config", str(self.tmp / "member.yaml")], env=environment,
            stdout=subprocess.DEVNULL, stderr=open(self.tmp / f"{member}.log", "a"))

    def fault(self, name, action):
        with self.lock:
            self.faults.append((name, time.monotonic()))
        print(f"  fault at +{time.monotonic() - self.began:.1f} s: {name}", flush=True)
        action()

    def broker_restart(self, how):
        self.broker.send_signal(how)
        self.broker.wait()
        time.sleep(BROKER_AWAY_S)
        self.start_broker()

    def member_restart(self, member):
        self.members[member].kill()
        self.members[member].wait()
        time.sleep(2)
        self.start_member(member)

    def reload(self):
        for process in self.members.values():
            process.send_signal(signal.SIGHUP)

    def service_failure(self):
        with socket.create_connection(("127.0.0.1", self.stub_port)) as s:
            s.sendall(b"GET /control/fail/15 HTTP/1.0\r\nHost: x\r\n\r\n")
            s.recv(100)

    def stop(self):
        for process in self.members.values():
            process.terminate()
        for process in self.members.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        stats = ""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.stub_port}/stats") as answer:
                stats = answer.read().decode().strip()
        except OSError:
            pass
        self.stub.terminate()
        self.broker.terminate()
        return stats


class Device:
    """One device: a paho client on its own network thread, asking on its own schedule."""

    def __init__(self, run, name, qos, watch=False, listen=None):
        self.run, self.name, self.qos = run, name, qos
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=name, clean_session=(qos == 0),
            protocol=mqtt.MQTTv311)
        self.client.on_connect = self.connected
        self.client.on_message = self.message
        self.client.reconnect_delay_set(0.5, 1)
        self.topics = listen or [f"skyframe/v1/frame/{name}"]
        self.watch = watch
        self.next_id = 1
        self.client.connect_async("127.0.0.1", run.broker_port, keepalive=10)
        self.client.loop_start()

    def connected(self, client, userdata, flags, reason, properties):
        for topic in self.topics:
            client.subscribe(topic, qos=1)
        if self.watch:
            client.publish(f"skyframe/v1/watch/{self.name}",
                           f"{hash(self.name) % 40 + 40}.25,12.25 @{WATCH_S}", qos=1, retain=True)

    def message(self, client, userdata, message):
        now = time.monotonic()
        payload = message.payload
        with self.run.lock:
            if self.watch or not message.topic.startswith("skyframe/v1/frame/"):
                # A retained copy comes with every (re)subscription: only a live one is a push.
                if payload and not message.retain:
                    self.run.pushes.setdefault(message.topic, []).append(now)
                return
            if len(payload) != 192:
                return
            request_id = payload[4] | payload[5] << 8
            device = message.topic.rsplit("/", 1)[1]
            self.run.answers.setdefault((device, request_id), []).append((now, payload[3]))

    def ask(self, request_id):
        latitude = 40 + (hash(self.name) % 80) * 0.1
        with self.run.lock:
            self.run.sent.setdefault((self.name, request_id), (time.monotonic(), self.qos))
        self.client.publish(f"skyframe/v1/req/{self.name}",
                            f"#{request_id} {latitude:.2f},13.41", qos=self.qos)

    def loop(self, until):
        time.sleep(random.uniform(0, 2))
        while time.monotonic() < until:
            request_id = self.next_id
            self.next_id += 1
            self.ask(request_id)
            if self.qos == 0:
                time.sleep(5)
                with self.run.lock:
                    answered = (self.name, request_id) in self.run.answers
                if not answered:
                    self.ask(request_id)  # the one retry, the same request and id
            time.sleep(random.uniform(2, 3))


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    with tempfile.TemporaryDirectory() as directory:
        tmp = pathlib.Path(directory)
        run = Run(tmp)
        time.sleep(3)
        run.began = time.monotonic()
        end = run.began + DURATION
        devices = [Device(run, f"fq1-{i}", 1) for i in range(Q1)]
        devices += [Device(run, f"fq0-{i}", 0) for i in range(Q0)]
        watchers = [Device(run, f"fw-{i}", 1, watch=True) for i in range(WATCHES)]
        places = Device(run, "fplaces", 0, listen=["skyframe/v1/loc/+"])
        threads = [threading.Thread(target=d.loop, args=(end - 15,), daemon=True) for d in devices]
        for thread in threads:
            thread.start()
        schedule = [
            (15, "broker killed (-9)", lambda: run.broker_restart(signal.SIGKILL)),
            (30, "member killed (-9)", lambda: run.member_restart("gw-1")),
            (45, "reload (SIGHUP)", run.reload),
            (55, "service failing 15 s", run.service_failure),
            (80, "broker stopped (SIGTERM)", lambda: run.broker_restart(signal.SIGTERM)),
            (95, "member killed (-9)", lambda: run.member_restart("gw-2")),
            (105, "broker killed (-9)", lambda: run.broker_restart(signal.SIGKILL)),
            (115, "reload (SIGHUP)", run.reload),
            (120, "service failing 15 s", run.service_failure),
        ]
        for at, name, action in schedule:
            if at >= DURATION - 20:
                continue
            time.sleep(max(0, run.began + at - time.monotonic()))
            run.fault(name, action)
        time.sleep(max(0, end - time.monotonic()))
        for device in devices + watchers + [places]:
            device.client.loop_stop()
            device.client.disconnect()
        stats = run.stop()
        logs = {m: (tmp / f"{m}.log").stat().st_size for m in ("gw-1", "gw-2")}
        # The members' and the stand-in's logs, kept for a look after the run.
        kept = ROOT / ".build/faults-logs"
        kept.mkdir(parents=True, exist_ok=True)
        for name in ("gw-1.log", "gw-2.log", "stub.log"):
            if (tmp / name).exists():
                shutil.copy(tmp / name, kept / name)
        report(run, stats, logs)


def report(run, stats, logs):
    windows = [(name, at - 1, at + 10) for name, at in run.faults]

    def window(sent_at):
        for name, start, stop in windows:
            if start <= sent_at <= stop:
                return name
        return "outside faults"

    rows = {}
    inside, outside, stale = [], [], []
    lost_lines = []
    for key, (sent_at, qos) in run.sent.items():
        answers = run.answers.get(key, [])
        row = rows.setdefault((window(sent_at), qos), [0, 0, 0, 0])
        row[0] += 1
        if not answers:
            row[3] += 1
            if qos == 1 and run.faults:
                name, at = min(run.faults, key=lambda fault: abs(sent_at - fault[1]))
                lost_lines.append(f"{key} sent {(sent_at - at) * 1000:+.0f} ms from '{name}'")
            continue
        row[1 if len(answers) == 1 else 2] += 1
        latency = (answers[0][0] - sent_at) * 1000
        (outside if window(sent_at) == "outside faults" else inside).append(latency)
        if answers[0][1] == 1:
            stale.append(latency)
    print("\n| requests sent in | QoS | sent | answered once | answered twice | lost |")
    print("|---|--:|--:|--:|--:|--:|")
    total = [0, 0, 0, 0, 0]
    for (name, qos), (sent, once, twice, lost) in sorted(rows.items()):
        print(f"| {name} | {qos} | {sent} | {once} | {twice} | {lost} |")
        total[1] += twice
        if qos == 1:
            total[2] += lost
        else:
            total[3] += lost
    for line in sorted(lost_lines)[:20]:
        print(f"  lost: {line}")
    print(f"\nlatency ms, first answer: outside faults p50 {percentile(outside, .5):.1f} "
          f"p99 {percentile(outside, .99):.1f}; inside fault windows p50 "
          f"{percentile(inside, .5):.1f} p99 {percentile(inside, .99):.1f}; "
          f"stale answers {len(stale)}, p50 {percentile(stale, .5):.1f} "
          f"p99 {percentile(stale, .99):.1f}")
    early = 0
    intervals = {topic: (PLACE_S if "/loc/" in topic else WATCH_S) for topic in run.pushes}
    for topic, times in run.pushes.items():
        for a, b in zip(times, times[1:]):
            if b - a < intervals[topic] / 2:
                early += 1
                print(f"  early push: {topic} at +{b - run.began:.1f} s, {b - a:.1f} s after the one "
                      "before")
    pushes = sum(len(times) for times in run.pushes.values())
    print(f"pushes: {pushes} to {len(run.pushes)} topics, {early} sooner than half their "
          "interval after the one before")
    print(f"upstream (stand-in): {stats}")
    fields = dict(item.split("=", 1) for item in stats.split() if "=" in item)
    early_refetches = int(fields.get("early_refetches", "-1"))
    print("log bytes: " + ", ".join(f"{m} {size}" for m, size in logs.items())
          + f" ({sum(logs.values()) / max(len(run.faults), 1):.0f} per fault)")
    goals = [
        ("QoS 1 requests lost", total[2], total[2] == 0),
        ("requests answered twice", total[1], total[1] == 0),
        ("stale p99 under 50 ms", f"{percentile(stale, .99):.1f} ms",
         bool(stale) and percentile(stale, .99) < 50),
        ("pushes sooner than half their interval", early, early == 0),
        ("cells fetched again within 90 % of their time-to-live (restarts included)",
         early_refetches, early_refetches == 0),
    ]
    print("\ngoals:")
    for name, value, met in goals:
        print(f"- {name}: {value} {'met' if met else 'MISSED'}")
    print(f"(QoS 0 requests lost after their retry: {total[3]}; a QoS 0 request sent while the "
          "broker is away is lost by MQTT, and its retry may be too)")


if __name__ == "__main__":
    main()
