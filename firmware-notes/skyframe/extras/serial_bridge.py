#!/usr/bin/env python3
"""A serial bridge for the SerialBridge example: a computer next to a board without a network.

    python3 serial_bridge.py --port /dev/ttyACM0 --device uno-desk [--host gateway.local]

Needs `pip install pyserial paho-mqtt` (paho-mqtt 2.x). Reads the board's lines at 115200 baud:
a line "REQ <text>" is published to skyframe/v1/req/{device} (QoS 1); every other line is shown
on the terminal. Every message on skyframe/v1/frame/{device} is written to the board as it is.
Not run by the repository's tests (they feed the board's image in simavr directly).
"""

import argparse
import sys

import paho.mqtt.client as mqtt
import serial


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", required=True, help="the board's serial port")
    parser.add_argument("--device", required=True, help="the device id, 1-32 of a-z A-Z 0-9 - _ .")
    parser.add_argument("--host", default="127.0.0.1", help="the gateway's broker")
    parser.add_argument("--mqtt-port", type=int, default=1883)
    args = parser.parse_args()

    board = serial.Serial(args.port, 115200, timeout=1)
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{args.device}-bridge")

    def on_connect(client, userdata, flags, reason, properties):
        client.subscribe(f"skyframe/v1/frame/{args.device}", qos=1)

    def on_message(client, userdata, message):
        board.write(message.payload)  # the board finds "SF" and the kind byte itself

    client.on_connect = on_connect
    client.on_message = on_message
    client.connect(args.host, args.mqtt_port)
    client.loop_start()
    try:
        while True:
            line = board.readline().decode("utf-8", "replace").rstrip("\r\n")
            if line.startswith("REQ "):
                client.publish(f"skyframe/v1/req/{args.device}", line[4:], qos=1)
            elif line:
                print(line, flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        client.loop_stop()
        board.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
