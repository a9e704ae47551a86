# MicroPython (ESP32, Pico W): a display that asks a Skyframe gateway over HTTP
# (docs/devices/http.md) and sleeps until the weather can have changed.
# Each wake: one GET with the ETag of what the screen shows as If-None-Match; 200 brings the
# frames (decoded with skyframe.py, drawn, the new ETag kept), 304 means the screen is still right
# (no redraw), an error status brings an error frame (printed; the screen keeps its weather).
# Then it sleeps Cache-Control's max-age (or Retry-After) seconds: machine.deepsleep() where the
# port has it (the board resets and main.py runs again), time.sleep() elsewhere.
# The ETag survives deep sleep in RTC memory (ESP32, ESP8266) or, on ports without it, a file.
#
# Copy skyframe.py and this file to the board (mpremote cp ../skyframe.py http_display.py :),
# join Wi-Fi first, then: import http_display; http_display.main()
# HTTP: micropython-lib's `requests`, frozen into current firmware (older firmware: `urequests`;
# else mpremote mip install requests). Change GATEWAY, DEVICE and PLACE below.
import time

try:
    import requests
except ImportError:
    import urequests as requests
import skyframe

GATEWAY = "http://gateway.local:8080"
DEVICE = "kitchen"
PLACE = "Berlin,DE"  # the MQTT request text: "~tiny Berlin,DE" (48 bytes), "52.52,13.41"
MIN_SLEEP_S = 60
MAX_SLEEP_S = 3600
ETAG_FILE = "skyframe.etag"


def url():
    # In a URL the text's spaces are '+' and '#' is %23 (a '+' of its own would be %2B).
    q = PLACE.replace("%", "%25").replace("+", "%2B").replace("#", "%23").replace(" ", "+")
    return "%s/v1/frame/%s?q=%s" % (GATEWAY, DEVICE, q)


def load_etag():
    try:
        import machine

        kept = machine.RTC().memory()
        return kept.decode() if kept else None
    except (ImportError, AttributeError):  # no RTC memory on this port: a file
        try:
            with open(ETAG_FILE) as f:
                return f.read() or None
        except OSError:
            return None


def save_etag(etag):
    data = etag or ""
    try:
        import machine

        machine.RTC().memory(data.encode())
    except (ImportError, AttributeError):
        with open(ETAG_FILE, "w") as f:
            f.write(data)


def header(headers, name):
    """A response header by name, whatever its case; None when absent."""
    for key in headers or ():
        if key.lower() == name:
            return headers[key]
    return None


def seconds(value, prefix=""):
    """The number after prefix in a header value ("max-age=593", "60"); 0 when there is none."""
    if not value or prefix not in value:
        return 0
    digits = ""
    for c in value[value.index(prefix) + len(prefix):]:
        if not "0" <= c <= "9":
            break
        digits += c
    return int(digits) if digits else 0


def frames(body):
    """The messages of a body (several places come back to back), each checked (CRC)."""
    view, out, at = memoryview(body), [], 0
    while at + 3 <= len(body):
        size = skyframe.SIZES.get(body[at + 2], len(body) - at)
        out.append(skyframe.decode(view[at:at + size]))
        at += size
    return out


def draw(m):
    if not m.has_weather():
        print("status", m.status_name())  # an error frame: the screen keeps its weather
        return
    name = m.text("name") if m.kind != skyframe.KIND_TINY else "(tiny)"
    print("draw", name, m.value("temperature"), "C, weather code", m.get("weather_code"))


def wake():
    """One request: draws what changed, keeps the ETag; returns the seconds to sleep."""
    etag = load_etag()
    try:
        r = requests.get(url(), headers={"If-None-Match": etag} if etag else {})
    except OSError as e:
        print("request failed:", e)
        return MIN_SLEEP_S
    try:
        status, headers = r.status_code, getattr(r, "headers", None)
        body = r.content if status != 304 else b""
    finally:
        r.close()
    print("HTTP", status, len(body), "bytes")
    if status == 304:
        print("not modified: the screen is still right, no redraw")
    elif body:
        try:
            messages = frames(body)
        except skyframe.FrameError as e:
            print("dropped:", e.error)  # keep the last screen
            messages = []
        for m in messages:
            draw(m)
        if status == 200 and messages:
            save_etag(header(headers, "etag"))
    wait = seconds(header(headers, "retry-after")) or seconds(header(headers, "cache-control"),
                                                               "max-age=")
    return min(max(wait, MIN_SLEEP_S), MAX_SLEEP_S)


def sleep(s):
    try:
        import machine

        machine.deepsleep(s * 1000)  # does not return: the board resets, main.py runs again
    except (ImportError, AttributeError):
        time.sleep(s)


def main():
    while True:
        sleep(wake())


if __name__ == "__main__":
    main()
