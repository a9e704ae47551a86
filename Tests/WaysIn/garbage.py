#!/usr/bin/env python3
"""Garbage at the HTTP and CoAP ways in, against the gateway as `make run` starts it
(config/skyframe.example.yaml on free loopback ports, the Open-Meteo stand-in; the setup of
Tests/Docs/commands.py):

  - 100,000 UDP datagrams at the CoAP port: random bytes of random length (0-1,400), and
    CoAP-shaped ones (version 1, any type and code, token lengths up to 15, random options and
    payloads), from 16 source ports;
  - 1,100 HTTP connections with malformed requests (100 of each kind): random bytes, request lines that are no
    request line, headers without a colon, a 100 kB header, bodies longer than said, a request
    cut off and the connection closed, queries of random percent-escapes, POSTs of random bodies.

Then the gateway must still run, answer a GET over HTTP and over CoAP (libcoap's coap-client)
with a 192-byte frame, and its resident memory must not have grown by more than 48 MB (its
tables are bounded by the configuration: sources that echoed, CoAP sessions, devices, cells).
Last line: "garbage: N passed, M failed". SKYFRAME_BIN as in Tests/Docs/commands.py.
"""
import os
import pathlib
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests/Docs"))
import commands  # noqa: E402

passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + what)
    if ok:
        passed += 1
    else:
        failed += 1


def rss_kb(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def coap_shaped(rng):
    token = rng.randrange(16)
    head = bytes([0x40 | rng.randrange(4) << 4 | token, rng.randrange(256),
                  rng.randrange(256), rng.randrange(256)])
    body = rng.randbytes(min(token, 8)) + rng.randbytes(rng.randrange(0, 120))
    if rng.random() < 0.5:
        body += b"\xff" + rng.randbytes(rng.randrange(0, 300))
    return head + body


def datagrams(port, count, rng):
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(16)]
    for s in sockets:
        s.setblocking(False)
    sent = 0
    for index in range(count):
        data = coap_shaped(rng) if index % 2 else rng.randbytes(rng.randrange(0, 1401))
        try:
            sockets[index % 16].sendto(data, ("127.0.0.1", port))
            sent += 1
        except (BlockingIOError, OSError):
            time.sleep(0.001)
        if index % 2000 == 1999:
            time.sleep(0.01)  # the kernel's socket buffer, not the gateway, would drop the rest
            for s in sockets:  # what came back is not looked at
                try:
                    while s.recv(2048):
                        pass
                except (BlockingIOError, OSError):
                    pass
    for s in sockets:
        s.close()
    return sent


def malformed_requests(rng):
    escapes = "".join(rng.choice("%0123456789abcdefXYZ+&=;~#") for _ in range(200))
    yield rng.randbytes(rng.randrange(1, 2000))
    yield b"GARBAGE\r\n\r\n"
    yield b"GET /v1/frame/x?q=52.52,13.41 HTTP/9.9\r\n\r\n"
    yield b"GET /v1/frame/x HTTP/1.1\r\nHost x\r\nno colon here\r\n\r\n"
    yield b"GET /v1/frame/x HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n"
    yield b"POST /v1/frame/x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n" + rng.randbytes(64)
    yield b"POST /v1/frame/x HTTP/1.1\r\nHost: x\r\nContent-Length: 64\r\n\r\n" + rng.randbytes(64)
    yield b"GET /v1/frame/x?q=" + escapes.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"GET /v1/frame/" + rng.randbytes(40).hex().encode() + b"?q=1,2 HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"GET /v1/frame/x?q=52.52,13.41 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
    yield b"GET /v1/fra"  # cut off, then closed


def http_garbage(port, connections, rng):
    made = 0
    for index in range(connections):
        requests = list(malformed_requests(rng))
        data = requests[index % len(requests)]
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(data)
                s.shutdown(socket.SHUT_WR)
                s.settimeout(2)
                try:
                    while s.recv(65536):
                        pass
                except OSError:
                    pass
            made += 1
        except OSError:
            pass
    return made


def main(setup):
    gateway = next(p for p in setup.processes if "run" in p.args)
    rng = random.Random(20261202)
    get = f"http://127.0.0.1:{setup.http}/v1/frame/garbage-1?q=52.52,13.41"
    with urllib.request.urlopen(get, timeout=10) as response:
        check(len(response.read()) == 192, "before: a GET is answered with a frame")
    before = rss_kb(gateway.pid)

    started = time.time()
    sent = datagrams(setup.coap, 100_000, rng)
    check(gateway.poll() is None, f"{sent} garbage datagrams at the CoAP port "
          f"({time.time() - started:.1f} s): the gateway runs")
    started = time.time()
    made = http_garbage(setup.http, 1_100, rng)
    check(gateway.poll() is None, f"{made} connections of malformed HTTP "
          f"({time.time() - started:.1f} s): the gateway runs")

    with urllib.request.urlopen(get, timeout=10) as response:
        check(response.status == 200 and len(response.read()) == 192,
              "after: a GET over HTTP is answered with a frame")
    out = pathlib.Path(setup.tmp) / "coap-frame"
    subprocess.run(["coap-client-notls", "-B", "10", "-m", "get", "-o", str(out),
                    f"coap://127.0.0.1:{setup.coap}/v1/frame/garbage-2?q=52.52,13.41"],
                   capture_output=True, timeout=30)
    size = out.stat().st_size if out.exists() else 0
    check(size == 192, f"after: a GET over CoAP is answered with a frame ({size} bytes)")
    after = rss_kb(gateway.pid)
    check(after - before <= 48 * 1024,
          f"resident memory {before / 1024:.1f} MB before, {after / 1024:.1f} MB after (at most 48 MB more)")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as directory:
        setup = commands.Setup(pathlib.Path(directory))
        try:
            main(setup)
        except Exception as error:  # a failure to talk at all is one failed check
            check(False, f"garbage: {error!r}")
        finally:
            setup.stop()
    print(f"garbage: {passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)
