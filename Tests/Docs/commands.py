#!/usr/bin/env python3
"""Runs every shell command of README.md and docs/ as it is written, on 127.0.0.1 only.

Every line of every ```sh block is a command (a trailing backslash joins lines, a `#` outside
quotes starts a comment). Each is run in the order the page gives it, block by block, against a
mosquitto on a free port, the Open-Meteo stand-in of the virtual display (answers from its
fixtures) and `skyframe run --config config/skyframe.example.yaml` (what `make run` starts),
with only what must differ on a test machine changed:

  - mosquitto_pub / _sub / _rr get `-h 127.0.0.1 -p PORT`; `--port 1883` and `localhost:9464`
    become the test's ports; `--out FILE` writes into a temporary directory;
  - `.build/release/skyframe` and a bare `skyframe` are $SKYFRAME_BIN (default
    .build/debug/skyframe: make test builds debug);
  - a `mosquitto_sub` without `-C` waits in the background (as in a second terminal) for 8 s
    while the block's later commands run, and must have printed something by then.

A command passes when it exits 0 and, when its output goes to `skyframe decode` or `grep`, prints
something. A command that cannot run here is listed in NOT_RUN with why and what checks it;
a command that is neither run nor listed fails, so a new line in the docs needs one or the other.
Last line: "docs-commands: N passed, M failed"; exit status 1 on any failure.
"""
import os
import pathlib
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("SKYFRAME_BIN", str(REPO / ".build/debug/skyframe"))
STUB = REPO / "firmware-notes/examples/virtual-display/open_meteo_stub.py"

# Commands not run here, each with why and the check that covers what it does.
NOT_RUN = {
    "make run": "runs in the foreground on port 1883 until stopped; what it starts — "
    "`skyframe run --config config/skyframe.example.yaml` and a mosquitto — is what this "
    "check runs every other command against",
    "make test": "is the run this check is part of",
    "make deb": "a release build of its own (minutes); make test runs it in the background and "
    "Tests/DebianPackage/test.sh checks the package it makes",
    "sudo apt install ./skyframe_*.deb": "needs root and changes this machine; "
    "Tests/DebianPackage/test.sh installs the package with dpkg into a temporary root",
    "sudo apt purge skyframe": "needs root and changes this machine; Tests/DebianPackage/test.sh "
    "purges the package from its temporary root",
    "install -m 0755 .build/release/skyframe /usr/local/bin/skyframe": "needs root; "
    "config/skyframe.service is checked by SystemdUnitTests (systemd-analyze verify)",
    "install -D -m 0644 config/skyframe.example.yaml /etc/skyframe/skyframe.yaml": "needs root; "
    "the file itself is loaded by ConfigurationReferenceTests and by this check",
    "install -m 0644 config/skyframe.service /etc/systemd/system/skyframe.service": "needs root; "
    "SystemdUnitTests verifies the unit",
    "systemctl daemon-reload && systemctl enable --now skyframe": "needs root and a running "
    "systemd; SystemdUnitTests verifies the unit",
    "coap-client-openssl -u display-1 -k \"$(cat coap-psk)\" -m get -o - "
    "'coaps://localhost:5684/v1/frame/demo?q=Berlin,DE' | skyframe decode --raw": "needs a "
    "gateway with coap.dtls and its key file, which the example configuration leaves off; "
    "CoAPWayInTests.dtlsWithAPreSharedKeyIsAnswered runs coap-client-openssl with a key against "
    "the gateway",
}


def strip_comment(line):
    """The line without a `#` comment outside quotes (`-m '#7 Berlin'` keeps its `#`)."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip()
    return line.rstrip()


def commands():
    """(page, block number, command) for every command of every ```sh block."""
    pages = [REPO / "README.md"] + sorted((REPO / "docs").rglob("*.md"))
    found = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for number, block in enumerate(re.findall(r"```(?:sh|bash|shell)\n(.*?)```", text, re.S)):
            joined = block.replace("\\\n", " ")
            for line in joined.splitlines():
                command = strip_comment(line).strip()
                if command:
                    found.append((page.relative_to(REPO), number, re.sub(r"\s+", " ", command)))
    return found


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise SystemExit(f"docs-commands: {what} did not come up")


class Setup:
    """mosquitto, the Open-Meteo stand-in and the gateway, on free ports."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.processes = []
        self.broker = free_port()
        self.metrics = free_port()
        self.http = free_port()
        self.coap = int(os.environ.get("SKYFRAME_COAP_PORT") or free_udp_port())
        conf = tmp / "mosquitto.conf"
        conf.write_text(f"listener {self.broker} 127.0.0.1\nallow_anonymous true\n")
        self.start(["mosquitto", "-c", str(conf)], "mosquitto.log")
        wait_for(lambda: self.listening(self.broker), 10, "mosquitto")
        port_file = tmp / "stub.port"
        self.start([sys.executable, str(STUB), str(port_file)], "stub.log")
        wait_for(lambda: port_file.exists() and port_file.read_text().strip(), 10, "the stand-in")
        stub = f"http://127.0.0.1:{port_file.read_text().strip()}"
        environment = dict(
            os.environ,
            SKYFRAME_MQTT_PORT=str(self.broker),
            SKYFRAME_METRICS_PORT=str(self.metrics),
            SKYFRAME_HTTP_PORT=str(self.http),
            SKYFRAME_COAP_PORT=str(self.coap),
            SKYFRAME_OPEN_METEO_FORECAST_URL=stub + "/v1/forecast",
            SKYFRAME_OPEN_METEO_GEOCODING_URL=stub + "/v1/search",
            SKYFRAME_AIR_QUALITY_URL=stub + "/v1/air-quality",
            SKYFRAME_ALERTS_NWS_ENABLED="false",
        )
        self.start([BIN, "run", "--config", "config/skyframe.example.yaml"], "gateway.log",
                   environment)
        online = subprocess.run(
            ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.broker), "-t",
             "skyframe/v1/gateway/state", "-C", "1", "-W", "20"],
            capture_output=True, text=True)
        if "online" not in online.stdout:
            print((tmp / "gateway.log").read_text()[-3000:])
            raise SystemExit("docs-commands: the gateway did not come online")
        wait_for(lambda: self.listening(self.http), 20, "the HTTP way in")

    def start(self, argv, log, environment=None):
        handle = open(self.tmp / log, "w")
        self.processes.append(subprocess.Popen(
            argv, cwd=REPO, stdout=handle, stderr=subprocess.STDOUT, env=environment))

    @staticmethod
    def listening(port):
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0

    def stop(self):
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def rewrite(command, setup):
    """The command as run here (see the module's text), and whether it waits in the background."""
    parts = []
    background = False
    for segment in command.split(" | "):
        words = shlex.split(segment)
        program = words[0]
        if program in (".build/release/skyframe", "skyframe"):
            words[0] = BIN
        if program in ("mosquitto_pub", "mosquitto_sub", "mosquitto_rr"):
            words[1:1] = ["-h", "127.0.0.1", "-p", str(setup.broker)]
            if program == "mosquitto_rr":
                words += ["-W", "10"]
            if program == "mosquitto_sub" and "-C" not in words:
                words += ["-W", "8"]
                background = True
        for index, word in enumerate(words):
            if word == "--port" and index + 1 < len(words) and words[index + 1] == "1883":
                words[index + 1] = str(setup.broker)
            if word == "--out" and index + 1 < len(words):
                words[index + 1] = str(setup.tmp / pathlib.Path(words[index + 1]).name)
            words[index] = words[index].replace("localhost:9464", f"localhost:{setup.metrics}")
            words[index] = words[index].replace("localhost:8080", f"localhost:{setup.http}")
            words[index] = words[index].replace("localhost:5683", f"localhost:{setup.coap}")
        if program == ".build/release/skyframe" and len(words) > 1 and words[1] == "request":
            words += ["--port", str(setup.broker)]
        parts.append(shlex.join(words))
    return " | ".join(parts), background


def main():
    found = commands()
    passed = failed = 0
    with tempfile.TemporaryDirectory() as directory:
        setup = Setup(pathlib.Path(directory))
        waiting = []

        def collect():
            nonlocal passed, failed
            for page, command, process in waiting:
                try:
                    output, _ = process.communicate(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    output, _ = process.communicate()
                # -W ends the wait with status 27 when it passes; what matters is the output.
                ok = bool(output.strip()) and process.returncode in (0, 27)
                report(ok, page, command, f"printed {len(output.splitlines())} line(s), exit "
                       f"{process.returncode}" + ("" if ok else ": " + output.strip()[-400:]))
            waiting.clear()

        def report(ok, page, command, detail):
            nonlocal passed, failed
            if ok:
                passed += 1
            else:
                failed += 1
            print(f"{'ok  ' if ok else 'FAIL'} {page}: {command}  ({detail})")

        try:
            block = None
            for page, number, command in found:
                if (page, number) != block:
                    collect()
                    block = (page, number)
                if command in NOT_RUN:
                    print(f"not run {page}: {command}  ({NOT_RUN[command]})")
                    continue
                if not re.match(r"(mosquitto_(pub|sub|rr)|\.build/release/skyframe|skyframe|curl|coap-client-notls|"
                                r"make -C firmware-notes/|firmware-notes/examples/)", command):
                    report(False, page, command, "neither run by this check nor in its NOT_RUN")
                    continue
                argv, background = rewrite(command, setup)
                if background:
                    waiting.append((page, command, subprocess.Popen(
                        argv, shell=True, cwd=REPO, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True, errors="replace")))
                    time.sleep(0.3)  # subscribed before the next command publishes
                    continue
                result = subprocess.run(argv, shell=True, cwd=REPO, capture_output=True,
                                        text=True, errors="replace", timeout=60)
                printed = result.stdout.strip()
                needs_output = re.search(r"\| (\S*skyframe decode|grep)", argv) is not None
                ok = result.returncode == 0 and (printed or not needs_output)
                report(ok, page, command, f"exit {result.returncode}"
                       + ("" if ok else f": {(result.stderr or result.stdout).strip()[-300:]}"))
                time.sleep(0.2)
            collect()
        finally:
            setup.stop()
            if failed:
                print((pathlib.Path(directory) / "gateway.log").read_text()[-2000:])
    print(f"docs-commands: {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
