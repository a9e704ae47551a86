# A stand-in for umqtt.simple (micropython-lib), for running examples/umqtt_display.py in
# MicroPython without a network. It keeps what a broker would receive.
#
# publish() counts as umqtt.simple 1.3 does: the packet's remaining length is
# 2 + len(topic) + len(msg) (+ 2 for the packet id at QoS 1), and then msg goes to the socket as
# it is, which for a str means its UTF-8 bytes. len() of a str counts characters, so a request
# with "ü" in it announces one byte fewer than it sends: the broker takes the announced length
# as the payload ("#1 Zürich,C") and the byte left over as the start of the next packet.

PUBLISHED = []  # (topic bytes, the payload the broker reads, bytes left over after the packet)


class StopExample(Exception):
    """Raised by check_msg(): the example's loop has started, its request is out."""


def _wire(data):
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


class MQTTClient:
    def __init__(self, client_id, server, port=0, user=None, password=None, keepalive=0,
                 ssl=None):
        self.client_id = client_id
        self.server = server
        self.cb = None

    def set_callback(self, f):
        self.cb = f

    def connect(self, clean_session=True):
        return 0

    def subscribe(self, topic, qos=0):
        assert self.cb is not None, "Subscribe callback is not set"

    def publish(self, topic, msg, retain=False, qos=0):
        announced = 2 + len(topic) + len(msg) + (2 if qos > 0 else 0)
        sent = 2 + len(_wire(topic)) + len(_wire(msg)) + (2 if qos > 0 else 0)
        payload_length = announced - 2 - len(_wire(topic)) - (2 if qos > 0 else 0)
        PUBLISHED.append((_wire(topic), _wire(msg)[:payload_length], sent - announced))

    def check_msg(self):
        raise StopExample()
