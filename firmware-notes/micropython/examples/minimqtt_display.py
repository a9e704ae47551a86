# CircuitPython (ESP32-S2/S3, Pico W): ask a Skyframe gateway with adafruit_minimqtt and print each
# answer. Copy skyframe.py to CIRCUITPY/lib/ and this file as code.py; install the client with
# circup install adafruit_minimqtt; put CIRCUITPY_WIFI_SSID/PASSWORD in settings.toml.
import os
import time
import socketpool
import wifi
import adafruit_minimqtt.adafruit_minimqtt as MQTT
import skyframe

DEVICE = "kitchen"
PLACE = "Berlin,DE"
BROKER = "gateway.local"

wifi.radio.connect(os.getenv("CIRCUITPY_WIFI_SSID"), os.getenv("CIRCUITPY_WIFI_PASSWORD"))
pool = socketpool.SocketPool(wifi.radio)


def on_message(client, topic, payload):
    # minimqtt hands over a str unless use_binary_mode=True: then bytes, as decode() needs
    try:
        m = skyframe.decode(payload)
    except skyframe.FrameError as e:
        print("dropped:", e.error)
        return
    if m.kind == skyframe.KIND_UNCHANGED:
        print("unchanged")
    elif m.has_weather():
        print("temperature (0.1 C):", m.get("temperature"), "code:", m.get("weather_code"))
    else:
        print("status", m.status_name())


mqtt = MQTT.MQTT(broker=BROKER, port=1883, socket_pool=pool, client_id=DEVICE,
                 use_binary_mode=True)
mqtt.on_message = on_message
mqtt.connect()
mqtt.subscribe("skyframe/v1/frame/" + DEVICE, qos=1)
request_id = 1
mqtt.publish("skyframe/v1/req/" + DEVICE, skyframe.request_text(PLACE, request_id=request_id), qos=1)
asked = time.monotonic()
while True:
    mqtt.loop(timeout=1)
    if time.monotonic() - asked > 900:
        request_id = request_id % 65535 + 1
        mqtt.publish("skyframe/v1/req/" + DEVICE, skyframe.request_text(PLACE, request_id=request_id), qos=1)
        asked = time.monotonic()
