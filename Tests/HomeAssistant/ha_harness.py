"""A real Home Assistant core for Skyframe's end-to-end test (test.sh), on 127.0.0.1 only.

Runs with the Python of the venv that install.sh makes (Home Assistant's own aiohttp is used
for its websocket API; the rest is the standard library).

As a library:

    with HomeAssistant(mqtt_port=1883, workdir="/tmp/x") as ha:   # started and ready
        ha.states(); ha.state("sensor.foo"); ha.entity_registry(); ha.device_registry()
    # stopped (and killed if it does not stop) on leaving the block, on an error, at exit

Starting means: a fresh configuration directory (configuration.yaml: homeassistant with
unit_system metric and time_zone UTC, http on 127.0.0.1 and a free port, api), Home Assistant
started with --skip-pip, the owner user onboarded over REST, an access token and then a
long-lived one (websocket `auth/long_lived_access_token`), the MQTT integration added through
the config-entry flow (broker 127.0.0.1:mqtt_port), and a wait for Home Assistant's birth
message `online` on homeassistant/status (it subscribes to discovery just before).

As a command, for shell scripts (each prints JSON on stdout where it answers something):

    ha_harness.py start --dir DIR --mqtt-port PORT [--timeout S]
        starts it as above, leaves it running in its own process group, writes DIR/harness.json
        (url, token, pid) and DIR/ha.pid (as soon as it runs); exits 0 once ready, else 1 with
        the reason (and Home Assistant stopped). The log is DIR/ha.log.
    ha_harness.py states --dir DIR           GET /api/states
    ha_harness.py state --dir DIR ENTITY_ID  GET /api/states/ENTITY_ID (null when not found)
    ha_harness.py entities --dir DIR         websocket config/entity_registry/list
    ha_harness.py devices --dir DIR          websocket config/device_registry/list
    ha_harness.py stop --dir DIR             SIGTERM to its process group, SIGKILL after 20 s
"""

import argparse
import asyncio
import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

HOST = "127.0.0.1"
OWNER = {"name": "Skyframe Test", "username": "skyframe", "password": "skyframe-test-pass"}


class HarnessError(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def write_configuration(config_dir, http_port):
    os.makedirs(config_dir, exist_ok=True)
    with open(os.path.join(config_dir, "configuration.yaml"), "w") as f:
        f.write(
            "homeassistant:\n"
            "  name: Skyframe test\n"
            "  unit_system: metric\n"
            "  time_zone: UTC\n"
            "  latitude: 52.52\n"
            "  longitude: 13.405\n"
            "  elevation: 34\n"
            "  currency: EUR\n"
            "  country: DE\n"
            "http:\n"
            "  server_host: %s\n"
            "  server_port: %d\n"
            "api:\n"
            "logger:\n"
            "  default: warning\n"
            "  logs:\n"
            "    homeassistant.components.mqtt.discovery: info\n" % (HOST, http_port)
        )


class Process:
    """Home Assistant's process, in a process group of its own so that everything it starts
    goes with it."""

    def __init__(self, pid):
        self.pid = pid

    def alive(self):
        try:
            waited, _ = os.waitpid(self.pid, os.WNOHANG)
            if waited == self.pid:
                return False
        except ChildProcessError:
            pass  # not our child (the `stop` command): ask the kernel
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        try:  # a zombie is not alive
            with open("/proc/%d/stat" % self.pid) as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    def stop(self, grace=20.0):
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(self.pid, sig)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                if not self.alive():
                    return
                time.sleep(0.1)


class HomeAssistant:
    def __init__(self, mqtt_port, workdir, timeout=180.0, python=sys.executable):
        self.mqtt_port = mqtt_port
        self.workdir = os.path.abspath(workdir)
        self.timeout = timeout
        self.python = python
        self.process = None
        self.url = None
        self.token = None

    # ---- lifecycle -----------------------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        atexit.register(self.stop)
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self):
        deadline = time.monotonic() + self.timeout
        config_dir = os.path.join(self.workdir, "config")
        http_port = free_port()
        write_configuration(config_dir, http_port)
        self.url = "http://%s:%d" % (HOST, http_port)
        log = open(os.path.join(self.workdir, "ha.log"), "ab")
        popen = subprocess.Popen(
            [self.python, "-m", "homeassistant", "--config", config_dir, "--skip-pip",
             "--log-no-color"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
        log.close()
        self.process = Process(popen.pid)
        with open(os.path.join(self.workdir, "ha.pid"), "w") as f:
            f.write("%d\n" % popen.pid)

        # The API answers 401 to anyone without a token once http is up; onboarding's views
        # come a little later.
        self._wait("the HTTP API", deadline, lambda: self._status("/api/") == 401)
        self._wait("onboarding", deadline,
                   lambda: self._status("/api/onboarding") == 200)
        client_id = self.url + "/"
        answer = self._request("POST", "/api/onboarding/users", body=dict(
            OWNER, client_id=client_id, language="en"), auth=False)
        tokens = self._request("POST", "/auth/token", form={
            "grant_type": "authorization_code", "code": answer["auth_code"],
            "client_id": client_id}, auth=False)
        self.token = tokens["access_token"]
        self.token = self._websocket([{
            "type": "auth/long_lived_access_token", "client_name": "skyframe-test",
            "lifespan": 1}])[0]

        # Subscribe to the birth message before MQTT exists in Home Assistant: it is not
        # retained, so a later subscriber would miss it.
        birth = subprocess.Popen(
            ["mosquitto_sub", "-h", HOST, "-p", str(self.mqtt_port), "-t", "homeassistant/status",
             "-C", "1", "-W", str(max(1, int(deadline - time.monotonic())))],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(0.3)  # mosquitto_sub connects and subscribes
            if birth.poll() is not None:
                raise HarnessError("mosquitto_sub on port %d: %s" % (
                    self.mqtt_port, birth.stderr.read().strip()))
            flow = self._request("POST", "/api/config/config_entries/flow",
                                 body={"handler": "mqtt", "show_advanced_options": False})
            if flow.get("type") != "form" or flow.get("step_id") != "broker":
                raise HarnessError("MQTT config flow: expected the broker form, got %r" % flow)
            done = self._request("POST", "/api/config/config_entries/flow/" + flow["flow_id"],
                                 body={"broker": HOST, "port": self.mqtt_port})
            if done.get("type") != "create_entry":
                raise HarnessError("MQTT config flow: no entry made: %r" % done)
            out, err = birth.communicate(timeout=max(1, deadline - time.monotonic()) + 2)
        except BaseException:
            birth.kill()
            birth.wait()
            raise
        if out.strip() != "online":
            raise HarnessError("no birth message 'online' on homeassistant/status (got %r, %s)"
                               % (out.strip(), err.strip()))

    def stop(self):
        if self.process is not None:
            self.process.stop()
            self.process = None

    def _wait(self, what, deadline, ready):
        while True:
            if self.process is not None and not self.process.alive():
                raise HarnessError("Home Assistant exited while waiting for %s (see ha.log)"
                                   % what)
            try:
                if ready():
                    return
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline:
                raise HarnessError("Home Assistant: no %s within %.0f s" % (what, self.timeout))
            time.sleep(0.25)

    # ---- REST --------------------------------------------------------------------------
    def _status(self, path):
        try:
            with urllib.request.urlopen(self.url + path, timeout=5) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code

    def _request(self, method, path, body=None, form=None, auth=True, missing_ok=False):
        headers = {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        elif form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if auth:
            headers["Authorization"] = "Bearer " + self.token
        request = urllib.request.Request(self.url + path, data=data, headers=headers,
                                         method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            if missing_ok and e.code == 404:
                return None
            raise HarnessError("%s %s: HTTP %d %s" % (method, path, e.code,
                                                       e.read()[:500].decode(errors="replace")))

    def states(self):
        """Every entity's state object (GET /api/states)."""
        return self._request("GET", "/api/states")

    def state(self, entity_id):
        """One entity's state object, or None when Home Assistant has no such entity."""
        return self._request("GET", "/api/states/" + urllib.parse.quote(entity_id),
                             missing_ok=True)

    # ---- websocket -----------------------------------------------------------------------
    def _websocket(self, commands):
        return asyncio.run(self._websocket_async(commands))

    async def _websocket_async(self, commands):
        import aiohttp  # Home Assistant's own

        results = []
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(self.url + "/api/websocket", timeout=30) as ws:
                hello = await ws.receive_json(timeout=30)
                if hello.get("type") != "auth_required":
                    raise HarnessError("websocket: %r" % hello)
                await ws.send_json({"type": "auth", "access_token": self.token})
                answer = await ws.receive_json(timeout=30)
                if answer.get("type") != "auth_ok":
                    raise HarnessError("websocket auth: %r" % answer)
                for number, command in enumerate(commands, start=1):
                    await ws.send_json(dict(command, id=number))
                    while True:
                        answer = await ws.receive_json(timeout=30)
                        if answer.get("id") == number and answer.get("type") == "result":
                            break
                    if not answer.get("success"):
                        raise HarnessError("websocket %s: %r" % (command["type"],
                                                                 answer.get("error")))
                    results.append(answer.get("result"))
        return results

    def entity_registry(self):
        return self._websocket([{"type": "config/entity_registry/list"}])[0]

    def device_registry(self):
        return self._websocket([{"type": "config/device_registry/list"}])[0]


# ---- command line ----------------------------------------------------------------------------
class Attached(HomeAssistant):
    """A Home Assistant that `start` left running, from DIR/harness.json."""

    def __init__(self, workdir):
        with open(os.path.join(workdir, "harness.json")) as f:
            saved = json.load(f)
        super().__init__(saved["mqtt_port"], workdir)
        self.url, self.token = saved["url"], saved["token"]
        self.process = Process(saved["pid"])


def main(argv):
    parser = argparse.ArgumentParser(description="A real Home Assistant for Skyframe's tests")
    parser.add_argument("command", choices=["start", "states", "state", "entities", "devices",
                                            "stop"])
    parser.add_argument("entity_id", nargs="?")
    parser.add_argument("--dir", required=True)
    parser.add_argument("--mqtt-port", type=int)
    parser.add_argument("--timeout", type=float, default=180.0)
    args = parser.parse_intermixed_args(argv)
    os.makedirs(args.dir, exist_ok=True)

    if args.command == "start":
        if not args.mqtt_port:
            parser.error("start needs --mqtt-port")
        ha = HomeAssistant(args.mqtt_port, args.dir, timeout=args.timeout)
        # Stopped like this, we stop Home Assistant too (start's finally).
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        started = time.monotonic()
        try:
            ha.start()
        except HarnessError as e:
            print("Home Assistant did not start: %s" % e, file=sys.stderr)
            return 1
        with open(os.path.join(args.dir, "harness.json"), "w") as f:
            json.dump({"url": ha.url, "token": ha.token, "pid": ha.process.pid,
                       "mqtt_port": args.mqtt_port}, f)
        atexit.unregister(ha.stop)  # it goes on running until `stop`
        print("Home Assistant ready at %s in %.1f s (pid %d)"
              % (ha.url, time.monotonic() - started, ha.process.pid), file=sys.stderr)
        return 0

    if args.command == "stop":
        pid_file = os.path.join(args.dir, "ha.pid")
        if os.path.exists(pid_file):
            with open(pid_file) as f:
                Process(int(f.read())).stop()
        return 0

    ha = Attached(args.dir)
    try:
        if args.command == "states":
            result = ha.states()
        elif args.command == "state":
            if not args.entity_id:
                parser.error("state needs an entity id")
            result = ha.state(args.entity_id)
        elif args.command == "entities":
            result = ha.entity_registry()
        else:
            result = ha.device_registry()
    except HarnessError as e:
        print(e, file=sys.stderr)
        return 1
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
