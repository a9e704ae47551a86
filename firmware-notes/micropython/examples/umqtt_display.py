# MicroPython (ESP32, Pico W): ask a Skyframe gateway with umqtt.simple and print each answer.
# Copy skyframe.py and this file to the board (mpremote cp ../skyframe.py umqtt_display.py :),
# install umqtt.simple (mpremote mip install umqtt.simple), join Wi-Fi first, then
# import umqtt_display. Change DEVICE, PLACE and BROKER below.
import time
from umqtt.simple import MQTTClient
import skyframe

DEVICE = "kitchen"
PLACE = "Berlin,DE"
BROKER = "gateway.local"
FRAME_TOPIC = b"skyframe/v1/frame/" + DEVICE.encode()
REQ_TOPIC = b"skyframe/v1/req/" + DEVICE.encode()


def show(topic, payload):
    try:
        m = skyframe.decode(payload)
    except skyframe.FrameError as e:
        print("dropped:", e.error)  # keep the last screen
        return
    if m.kind == skyframe.KIND_UNCHANGED:
        print("unchanged: the screen is still right")
    elif not m.has_weather():
        print("status", m.status_name())
    else:
        # value(): degrees C (a float); get() would give the wire integer, 0.1 C
        print("temperature:", m.value("temperature"), "weather code:", m.get("weather_code"))


def ask(request_id):
    # As bytes: umqtt.simple takes a message's length from len(), which counts the characters of
    # a str, not its UTF-8 bytes, so "Zürich,CH" as a str would arrive as "Zürich,C".
    client.publish(REQ_TOPIC, skyframe.request_text(PLACE, request_id=request_id).encode(), qos=1)


client = MQTTClient(DEVICE, BROKER)
client.set_callback(show)
client.connect()
client.subscribe(FRAME_TOPIC, qos=1)
request_id = 1
ask(request_id)
asked = time.time()
while True:
    client.check_msg()  # calls show() for each frame
    if time.time() - asked > 900:
        request_id = request_id % 65535 + 1
        ask(request_id)
        asked = time.time()
    time.sleep(0.1)
