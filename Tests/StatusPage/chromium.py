#!/usr/bin/env python3
"""A headless Chromium for tests, driven over the DevTools protocol on a pipe (stdlib only).

Starts Debian's Chromium binary (/usr/lib/chromium/chromium, not the /usr/bin/chromium wrapper,
which adds options of its own) headless with --remote-debugging-pipe: the protocol's JSON
messages, each ended by a NUL byte, go in on the browser's file descriptor 3 and come out on 4;
no port is opened. Every start gets a fresh profile (and HOME) in a temporary directory, removed
on close. Nothing leaves loopback: --host-resolver-rules maps every name except localhost,
127.0.0.1 and ::1 to "not found", and every connection that is not to loopback goes to a dead
proxy (a port on 127.0.0.1 this process holds bound but never listens on, so it is refused).
As root, --no-sandbox.

The browser runs in a process group of its own; close() stops what is left of that group and
reaps it. While a browser runs, this process is a "child subreaper" (Linux prctl), so the
browser's helpers that outlive it become this process's children and are reaped too, instead of
staying zombies under an init that does not reap (as in some containers).

    from chromium import Chromium

    with Chromium() as browser:
        browser.navigate("http://127.0.0.1:9464/")          # waits for the load event
        title = browser.evaluate("document.title")          # the expression's JSON value
        browser.wait_for("document.images.length > 0", timeout=10)
        browser.screenshot("page.png")                      # the whole page, not just the viewport

Command line (prints each --eval's value as JSON, one a line):

    chromium.py URL [--wait EXPR] [--eval EXPR]... [--screenshot FILE] [--timeout S]

Install: apt-get install -y chromium fonts-dejavu-core (make test-deps does).
"""

import argparse
import atexit
import base64
import collections
import ctypes
import fcntl
import json
import math
import os
import select
import shutil
import signal
import socket
import sys
import tempfile
import time

CHROMIUM = "/usr/lib/chromium/chromium"

# Every name resolves to "not found" but loopback's (a bracketed [::1] does not work here).
HOST_RESOLVER_RULES = "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE ::1"


class ChromiumError(Exception):
    """The browser failed to start, went away, or answered a command with an error."""


class NavigationError(ChromiumError):
    """A page did not load (errorText of Page.navigate: net::ERR_CONNECTION_REFUSED, ...)."""


class JavaScriptError(ChromiumError):
    """An evaluated expression threw (or its promise was rejected)."""


class WaitTimeout(ChromiumError, TimeoutError):
    """Something did not happen in time: an answer, the load event, an expression's truth."""


_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
_subreaper = {"running": 0, "before": None}  # browsers running; the flag before the first


def _child_subreaper(starting):
    """Turns the subreaper flag on for the first running browser, back for the last one."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return  # not Linux: the helpers go to init as usual
    if starting:
        _subreaper["running"] += 1
        if _subreaper["running"] == 1:
            before = ctypes.c_int(0)
            prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(before), ctypes.c_ulong(0),
                  ctypes.c_ulong(0), ctypes.c_ulong(0))
            _subreaper["before"] = before.value
            prctl(_PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0),
                  ctypes.c_ulong(0))
    else:
        _subreaper["running"] -= 1
        if _subreaper["running"] == 0 and not _subreaper["before"]:
            prctl(_PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0),
                  ctypes.c_ulong(0))


class Chromium:
    """One headless Chromium with one page. Not thread-safe: use it from one thread.

    timeout: seconds for each protocol command and for a page's load (navigate's own timeout
    overrides it); viewport: the page's (width, height) in CSS pixels, at 1 device pixel each;
    binary: the Chromium executable; extra_args: more command-line options.
    """

    def __init__(self, timeout=30.0, viewport=(1280, 800), binary=CHROMIUM, extra_args=()):
        self.timeout = timeout
        self.viewport = viewport
        self.binary = binary
        self.extra_args = list(extra_args)
        self.console = []  # ("error", "text") from console.*, uncaught exceptions and the Log
        self.pid = None
        self.startup_seconds = None
        self._dir = None
        self._dead_proxy = None
        self._to_browser = None
        self._from_browser = None
        self._buffer = bytearray()
        self._next_id = 0
        self._events = collections.deque(maxlen=10000)
        self._session = None

    # ---- Life cycle ---------------------------------------------------------------------------

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def arguments(self, profile, proxy_port):
        """The command line (without the binary) for a profile directory and the dead proxy."""
        width, height = self.viewport
        args = [
            "--headless",
            "--remote-debugging-pipe",
            "--user-data-dir=" + profile,
            "--host-resolver-rules=" + HOST_RESOLVER_RULES,
            "--proxy-server=http://127.0.0.1:%d" % proxy_port,
            "--window-size=%d,%d" % (width, height),
            "--force-device-scale-factor=1",
            "--hide-scrollbars",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-default-apps",
            "--disable-extensions",
            "--disable-sync",
            "--disable-breakpad",
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--mute-audio",
            "--password-store=basic",
        ]
        if os.geteuid() == 0:
            args.append("--no-sandbox")
        return args + self.extra_args

    def start(self):
        """Starts the browser and opens its page (about:blank). Raises ChromiumError."""
        if self.pid is not None:
            raise ChromiumError("already started")
        if not os.access(self.binary, os.X_OK):
            raise ChromiumError(
                "no Chromium at %s (apt-get install -y chromium fonts-dejavu-core)" % self.binary
            )
        started = time.monotonic()
        self._dir = tempfile.mkdtemp(prefix="skyframe-chromium-")
        profile = os.path.join(self._dir, "profile")
        os.mkdir(profile)
        # The dead proxy: bound, never listening, so every connection to it is refused.
        self._dead_proxy = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._dead_proxy.bind(("127.0.0.1", 0))
        proxy_port = self._dead_proxy.getsockname()[1]

        to_read, self._to_browser = os.pipe()
        self._from_browser, from_write = os.pipe()
        # The browser's ends above 9, so that moving them to 3 and 4 cannot overwrite each other.
        child_in = fcntl.fcntl(to_read, fcntl.F_DUPFD_CLOEXEC, 10)
        child_out = fcntl.fcntl(from_write, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_read)
        os.close(from_write)
        env = dict(os.environ)
        for name in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
            env[name] = self._dir  # nothing of the browser's lands in the real home
        log = os.path.join(self._dir, "chromium.log")
        _child_subreaper(True)
        try:
            self.pid = os.posix_spawn(
                self.binary,
                [self.binary] + self.arguments(profile, proxy_port),
                env,
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 1, log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
                    (os.POSIX_SPAWN_DUP2, 1, 2),
                    (os.POSIX_SPAWN_DUP2, child_in, 3),
                    (os.POSIX_SPAWN_DUP2, child_out, 4),
                ],
                setsid=True,  # its own process group: close() stops the helpers it starts too
            )
        except OSError as error:
            _child_subreaper(False)
            self._cleanup()
            raise ChromiumError("cannot start %s: %s" % (self.binary, error)) from None
        finally:
            os.close(child_in)
            os.close(child_out)
        atexit.register(self.close)
        try:
            target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            self._session = self.send(
                "Target.attachToTarget", {"targetId": target, "flatten": True}
            )["sessionId"]
            for method in ("Page.enable", "Runtime.enable", "Log.enable"):
                self.send(method, session=True)
            self.send("Page.setLifecycleEventsEnabled", {"enabled": True}, session=True)
            # The window's size includes the browser's frame: the viewport is set exactly.
            width, height = self.viewport
            self.send(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                session=True,
            )
        except BaseException:
            self.close()
            raise
        self.startup_seconds = time.monotonic() - started

    def close(self):
        """Closes the browser (Browser.close, then SIGKILL to its process group after 5 s) and
        removes the profile. Safe to call twice."""
        atexit.unregister(self.close)
        if self.pid is not None:
            try:
                self.send("Browser.close", timeout=5)
            except (ChromiumError, OSError):
                pass
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and not self._exited():
                time.sleep(0.02)
            # The browser is not reaped yet (a zombie keeps its id), so its process group id is
            # still ours: stop whatever of the group is left, then reap the group: the browser
            # and, this process being their subreaper, the helpers that outlived it.
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            while True:
                try:
                    os.waitpid(-self.pid, 0)
                except ChildProcessError:
                    break
            _child_subreaper(False)
            self.pid = None
        self._cleanup()

    def _exited(self):
        try:
            return os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True

    def _cleanup(self):
        for fd in (self._to_browser, self._from_browser):
            if fd is not None:
                os.close(fd)
        self._to_browser = self._from_browser = None
        if self._dead_proxy is not None:
            self._dead_proxy.close()
            self._dead_proxy = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        self._session = None

    def log_tail(self, lines=15):
        """The last lines the browser wrote to stdout and stderr ("" when there are none)."""
        try:
            with open(os.path.join(self._dir, "chromium.log"), errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except (OSError, TypeError):
            return ""

    # ---- The protocol -------------------------------------------------------------------------

    def send(self, method, params=None, session=False, timeout=None):
        """Sends a command and returns its result (a dict). session=True sends it to the page;
        events that arrive meanwhile are kept for wait_event(). Raises ChromiumError for an
        error answer, WaitTimeout when no answer comes within timeout (default self.timeout)."""
        if self._to_browser is None:
            raise ChromiumError("the browser is not running")
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_browser, data):]
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            answer = self._read(deadline, method)
            if answer.get("id") == message["id"]:
                if "error" in answer:
                    raise ChromiumError("%s: %s" % (method, answer["error"].get("message")))
                return answer.get("result", {})
            if "method" in answer:
                self._event(answer)

    def _read(self, deadline, waiting_for):
        while True:
            end = self._buffer.find(b"\0")
            if end >= 0:
                message = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return json.loads(message)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WaitTimeout("no answer to %s in time" % waiting_for)
            ready, _, _ = select.select([self._from_browser], [], [], remaining)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise ChromiumError(
                        "the browser closed the pipe (it exited?); its last lines:\n"
                        + self.log_tail()
                    )
                self._buffer += chunk

    def _event(self, event):
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(
                str(a.get("value", a.get("description", a.get("type"))))
                for a in params.get("args", [])
            )
            self.console.append((params.get("type", "log"), text))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text", "")
            self.console.append(("exception", text))
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            self.console.append((entry.get("level", "info"), entry.get("text", "")))
        self._events.append(event)

    def wait_event(self, predicate, timeout=None, what="an event"):
        """Returns the first kept or arriving event (a dict with method and params) for which
        predicate(event) is true, removing it. Raises WaitTimeout."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            for event in list(self._events):
                if predicate(event):
                    self._events.remove(event)
                    return event
            self._events.clear()  # none of them matched
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WaitTimeout("%s did not come in time" % what)
            message = self._read(deadline, what)
            if "method" in message:
                self._event(message)

    # ---- The page -----------------------------------------------------------------------------

    def navigate(self, url, timeout=None):
        """Loads url and waits for its load event (images and the like loaded). Raises
        NavigationError when it does not load, WaitTimeout when the load event does not come."""
        self._events.clear()
        result = self.send("Page.navigate", {"url": url}, session=True, timeout=timeout)
        if result.get("errorText"):
            raise NavigationError("%s: %s" % (url, result["errorText"]))
        loader = result.get("loaderId")
        if loader is None:  # the same document (a #fragment): no new load
            return
        self.wait_event(
            lambda e: e.get("method") == "Page.lifecycleEvent"
            and e["params"].get("name") == "load"
            and e["params"].get("loaderId") == loader,
            timeout,
            "the load event of " + url,
        )

    def evaluate(self, expression, timeout=None):
        """The JSON value of a JavaScript expression in the page (a promise is awaited; undefined
        is None; NaN, Infinity and -0 are floats). Raises JavaScriptError when it throws."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=True,
            timeout=timeout,
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise JavaScriptError("%s: %s" % (expression, text))
        value = result.get("result", {})
        if "unserializableValue" in value:
            special = value["unserializableValue"]
            return float(special) if special in ("NaN", "Infinity", "-Infinity", "-0") else special
        return value.get("value")

    def wait_for(self, expression, timeout=10.0, interval=0.05):
        """Evaluates expression every interval seconds until its value is truthy and returns that
        value. An expression that throws counts as not yet true. Raises WaitTimeout with the
        last value (or error) after timeout seconds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.evaluate(expression, timeout=max(1.0, deadline - time.monotonic()))
                last = repr(value)
                if value:
                    return value
            except JavaScriptError as error:
                last = str(error)
            if time.monotonic() >= deadline:
                raise WaitTimeout("%s not true after %g s (last: %s)" % (expression, timeout, last))
            time.sleep(interval)

    def screenshot(self, path=None, full_page=True):
        """A PNG of the page: the whole document (full_page) or the viewport. Writes it to path
        when given; returns its bytes."""
        params = {"format": "png", "captureBeyondViewport": full_page}
        if full_page:
            metrics = self.send("Page.getLayoutMetrics", session=True)
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            params["clip"] = {
                "x": 0,
                "y": 0,
                "width": math.ceil(size["width"]),
                "height": math.ceil(size["height"]),
                "scale": 1,
            }
        png = base64.b64decode(self.send("Page.captureScreenshot", params, session=True)["data"])
        if path is not None:
            with open(path, "wb") as f:
                f.write(png)
        return png


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Loads URL in a headless Chromium (loopback only) and prints each --eval's "
        "JSON value, one a line."
    )
    parser.add_argument("url")
    parser.add_argument("--wait", metavar="EXPR", help="wait until EXPR is true (after load)")
    parser.add_argument("--eval", metavar="EXPR", action="append", default=[])
    parser.add_argument("--screenshot", metavar="FILE", help="a full-page PNG into FILE")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="S")
    args = parser.parse_args(argv)
    try:
        with Chromium(timeout=args.timeout) as browser:
            browser.navigate(args.url)
            if args.wait:
                browser.wait_for(args.wait, timeout=args.timeout)
            for expression in args.eval:
                print(json.dumps(browser.evaluate(expression)))
            if args.screenshot:
                browser.screenshot(args.screenshot)
    except ChromiumError as error:
        print("chromium.py: %s" % error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
