#!/usr/bin/env python3
"""The status page as a person sees it, in a real headless Chromium (Tests/StatusPage/test.sh).

Starts a mosquitto on a free loopback port, the Open-Meteo stand-in of the virtual display
(firmware-notes/examples/virtual-display/open_meteo_stub.py, its fixtures) and the gateway
($SKYFRAME_BIN, default .build/debug/skyframe) with two named places and the metrics listener;
a device publishes a watch. Then Chromium loads http://127.0.0.1:PORT/ and the checks read what
the page shows: both places' names and temperatures (the temperatures compared with the frames
on the wire, decoded by `skyframe decode --json`), the watch, every picture decoded by the
browser and as large as the renderer draws it, the services table. The stand-in is stopped, two
requests for new places fail, and the page, without being reloaded, shows the breaker open.
A screenshot goes to $STATUS_PAGE_SCREENSHOT when set (the picture in docs/operators/metrics.md).

Last line: "status-page: N passed, M failed"; exit status non-zero on any failure.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from chromium import Chromium  # noqa: E402

VD = os.path.join(REPO, "firmware-notes", "examples", "virtual-display")
BIN = os.environ.get("SKYFRAME_BIN", os.path.join(REPO, ".build", "debug", "skyframe"))

passed = 0
failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {what}", flush=True)
    else:
        failed += 1
        print(f"FAIL {what}", flush=True)
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def wait_until(predicate, seconds, interval=0.1):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


def retained_frame(mqtt_port, topic):
    """The retained frame on `topic`, decoded by the gateway's own CLI."""
    hex_line = subprocess.run(
        ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(mqtt_port), "-t", topic, "-C", "1",
         "-W", "20", "-F", "%x"], capture_output=True, text=True, timeout=30).stdout.strip()
    if not hex_line:
        return None
    decoded = subprocess.run([BIN, "decode", "--json"], input=hex_line + "\n",
                             capture_output=True, text=True, timeout=30)
    return json.loads(decoded.stdout) if decoded.returncode == 0 else None


def main():
    processes = []
    tmp = tempfile.mkdtemp(prefix="skyframe-status-page-")

    def start(command, log):
        process = subprocess.Popen(command, stdout=open(os.path.join(tmp, log), "w"),
                                   stderr=subprocess.STDOUT, start_new_session=True)
        processes.append(process)
        return process

    try:
        mqtt_port = None
        for _ in range(3):  # the free port may be taken before mosquitto binds it
            port = free_port()
            with open(os.path.join(tmp, "mosquitto.conf"), "w") as f:
                f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
            start(["mosquitto", "-c", os.path.join(tmp, "mosquitto.conf")], "mosquitto.log")
            if wait_until(lambda: listening(port), 5):
                mqtt_port = port
                break
        if not check(mqtt_port is not None, "mosquitto started"):
            return
        port_file = os.path.join(tmp, "stub.port")
        stub = start([sys.executable, os.path.join(VD, "open_meteo_stub.py"), port_file],
                     "stub.log")
        if not check(wait_until(lambda: os.path.exists(port_file)
                                and os.path.getsize(port_file) > 0, 10),
                     "the Open-Meteo stand-in started"):
            return
        http = f"http://127.0.0.1:{open(port_file).read().strip()}"
        page_port = free_port()
        config = os.path.join(tmp, "gateway.yaml")
        with open(config, "w") as f:
            f.write(f"""mqtt:
  host: 127.0.0.1
  port: {mqtt_port}
  client-id: skyframe-page-test
weather:
  batch-window-ms: 0          # each failed place is a call of its own
open-meteo:
  forecast-url: {http}/v1/forecast
  geocoding-url: {http}/v1/search
  timeout-seconds: 3
air-quality:
  url: {http}/v1/air-quality
alerts:
  nws:
    enabled: false
places:
  reverse-geocoding: geonames
  geonames-file: {VD}/fixtures/cities.txt
upstream:
  breaker-failures: 2
  backoff-initial-seconds: 120
metrics:
  host: 127.0.0.1
  port: {page_port}
  stats-seconds: 0
watches:
  minimum-seconds: 60
locations:
  names: [home, office]
  home:
    latitude: 52.52
    longitude: 13.405
  office:
    latitude: 48.8566
    longitude: 2.3522
""")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SKYFRAME_")}
        gateway = subprocess.Popen([BIN, "run", "--config", config], env=env,
                                   stdout=open(os.path.join(tmp, "gateway.log"), "w"),
                                   stderr=subprocess.STDOUT, start_new_session=True)
        processes.append(gateway)
        if not check(wait_until(lambda: listening(page_port), 30), "the status page listens"):
            return
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(mqtt_port), "-r", "-q", "1",
                        "-t", "skyframe/v1/watch/kitchen", "-m", "52.52,13.41 @60"], check=True)
        home = retained_frame(mqtt_port, "skyframe/v1/loc/home")
        office = retained_frame(mqtt_port, "skyframe/v1/loc/office")
        kitchen = retained_frame(mqtt_port, "skyframe/v1/frame/kitchen")
        if not check(home and office and kitchen, "both places and the watch published frames"):
            return

        url = f"http://127.0.0.1:{page_port}/"
        with Chromium(timeout=30, viewport=(1280, 900)) as browser:
            browser.navigate(url)
            check(browser.evaluate("document.title").startswith("Skyframe"), "the page loads")
            shown = browser.wait_for(
                "document.querySelectorAll('[data-display]').length == 3", timeout=15)
            check(shown, "three displays on the page (two places, one watch)")
            for key, frame in (("loc/home", home), ("loc/office", office),
                               ("watch/kitchen", kitchen)):
                card = browser.evaluate(
                    f"(() => {{ const c = document.querySelector('[data-display=\"{key}\"]');"
                    " if (!c) return null;"
                    " return { name: c.querySelector('.name').textContent,"
                    " temperature: c.querySelector('.temperature').textContent,"
                    " text: c.innerText }; })()")
                if not check(card is not None, f"{key}: on the page"):
                    continue
                check(card["name"] == frame["name"],
                      f"{key}: the name shown ({card['name']!r}) is the frame's ({frame['name']!r})")
                expected = f"{frame['temperature']:.1f} °C"
                check(card["temperature"] == expected,
                      f"{key}: the temperature shown ({card['temperature']!r}) is the frame's"
                      f" ({expected!r})")
            pictures = browser.evaluate(
                "Array.from(document.querySelectorAll('[data-display] img')).map(i =>"
                " ({ src: i.getAttribute('src'), w: i.naturalWidth, h: i.naturalHeight,"
                " done: i.complete }))")
            check(len(pictures) == 3, f"three pictures ({len(pictures)})")
            for picture in pictures:
                check(picture["done"] and picture["w"] == 592 and picture["h"] == 256,
                      f"{picture['src']}: decoded by the browser, 592x256"
                      f" ({picture['w']}x{picture['h']})")
            breaker = "document.querySelector('[data-service=\"open-meteo\"] .breaker')"
            check(browser.evaluate(f"{breaker}.textContent") == "closed",
                  "open-meteo's breaker is closed")
            screenshot = os.environ.get("STATUS_PAGE_SCREENSHOT")
            if screenshot:
                browser.screenshot(screenshot)

            # The service goes away; two new places fail, and the page (not reloaded) shows it.
            os.killpg(stub.pid, signal.SIGTERM)
            stub.wait(timeout=10)
            browser.evaluate("window.__notReloaded = true")
            for device, place in (("probe-1", "10.5,10.5"), ("probe-2", "20.5,20.5")):
                subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(mqtt_port),
                                "-t", f"skyframe/v1/req/{device}", "-m", place], check=True)
            try:
                opened = browser.wait_for(f"{breaker}.textContent.startsWith('open')", timeout=30)
            except Exception as error:  # WaitTimeout: the check fails, with what /health says
                opened = False
                health = urllib.request.urlopen(url + "health", timeout=5).read().decode()
                print(f"     {error}\n     /health: {health[:600]}")
            check(opened, "after two failed calls the page shows the breaker open")
            check(browser.evaluate("window.__notReloaded === true"),
                  "... without the page being reloaded")
            error = browser.evaluate(
                "document.querySelector('[data-service=\"open-meteo\"]').innerText")
            check("refused" in error or "closed" in error or "unavailable" in error,
                  f"... with the last error ({error.strip()[:120]!r})")
    finally:
        for process in processes:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        if failed:
            for log in ("gateway.log", "stub.log"):
                path = os.path.join(tmp, log)
                if os.path.exists(path):
                    print(f"--- {log} (last lines)")
                    print("".join(open(path).readlines()[-15:]))
        print(f"status-page: {passed} passed, {failed} failed")


if __name__ == "__main__":
    main()
    sys.exit(1 if failed else 0)
