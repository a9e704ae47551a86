#!/usr/bin/env python3
"""The CoAP way in tried with aiocoap, an implementation the project did not write, against the
gateway as `make run` starts it (config/skyframe.example.yaml, on free loopback ports, the
Open-Meteo stand-in of the virtual display): a GET from a new source is answered 4.01 with an
Echo value no larger than three times the request (RFC 9175); sent back, the frame comes (2.05,
192 bytes, ETag = its content check, Max-Age); the ETag answers 2.03; 64-byte blocks give the
same frame; a bad request is 4.00 with its error frame; an observation's first answer carries
Observe.

Run by Tests/run-all.sh with .build-coap/venv's Python (Tests/CoAP/install.sh);
SKYFRAME_BIN as in Tests/Docs/commands.py. Last line: "aiocoap: N passed, M failed".
"""
import asyncio
import pathlib
import sys
import tempfile
import zlib

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests/Docs"))
import commands  # noqa: E402  (the docs check's setup: mosquitto, the stand-in, the gateway)

import aiocoap  # noqa: E402
from aiocoap import Code, Message  # noqa: E402
from aiocoap.numbers.optionnumbers import OptionNumber  # noqa: E402

passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + what)
    if ok:
        passed += 1
    else:
        failed += 1


def content_check(frame):
    """frame-profiles.md §5 for a standard frame: CRC-32 with bytes 4-8, 20-28, 186-188 as 0."""
    data = bytearray(frame[:188])
    for start, end in ((4, 8), (20, 28), (186, 188)):
        data[start:end] = bytes(end - start)
    return zlib.crc32(bytes(data)) & 0xFFFFFFFF


def datagram_size(message):
    """Header, token, options, and the payload with its marker: the message's size on the wire."""
    payload = len(message.payload) + 1 if message.payload else 0
    return 4 + len(message.token or b"") + len(message.opt.encode()) + payload


async def main(port):
    context = await aiocoap.Context.create_client_context()
    uri = f"coap://127.0.0.1:{port}/v1/frame/aio-1?q=52.52,13.41"
    request = Message(code=Code.GET, uri=uri)
    first = await context.request(request).response
    echo = first.opt.get_option(OptionNumber.ECHO)
    size = datagram_size(first.request if getattr(first, "request", None) else request)
    check(first.code == Code.UNAUTHORIZED and echo, f"a new source gets 4.01 with Echo ({first.code})")
    check(datagram_size(first) <= 3 * size,
          f"that answer is {datagram_size(first)} bytes, within 3 x the request's {size}")
    again = Message(code=Code.GET, uri=uri)
    again.opt.add_option(echo[0])
    answer = await context.request(again).response
    check(answer.code == Code.CONTENT, f"with the Echo value sent back: {answer.code}")
    check(len(answer.payload) == 192 and answer.payload[:2] == b"SF",
          f"the standard frame ({len(answer.payload)} bytes)")
    tag = answer.opt.etag
    check(tag is not None and int.from_bytes(tag, "big") == content_check(answer.payload),
          "the ETag is the frame's content check")
    check(answer.opt.max_age is not None and answer.opt.max_age > 0,
          f"Max-Age is next_update ({answer.opt.max_age})")
    valid = Message(code=Code.GET, uri=uri, etag=tag)
    valid_answer = await context.request(valid).response
    check(valid_answer.code == Code.VALID and not valid_answer.payload,
          f"the same ETag: 2.03 Valid ({valid_answer.code})")
    small = Message(code=Code.GET, uri=uri + "&b=1")
    small.opt.block2 = aiocoap.optiontypes.BlockOption.BlockwiseTuple(0, False, 2)
    blocks = await context.request(small).response
    check(blocks.payload == answer.payload,
          f"64-byte blocks give the same frame ({len(blocks.payload)} bytes)")
    bad = await context.request(
        Message(code=Code.GET, uri=f"coap://127.0.0.1:{port}/v1/frame/aio-1?q=999,13")).response
    check(bad.code == Code.BAD_REQUEST and len(bad.payload) == 192 and bad.payload[3] == 3,
          f"a bad request: 4.00 with the bad_request frame ({bad.code}, {len(bad.payload)} bytes)")
    observation = context.request(Message(code=Code.GET, uri=uri, observe=0))
    observed = await observation.response
    check(observed.opt.observe is not None, f"the device's resource is observed ({observed.opt.observe})")
    observation.observation.cancel()
    await context.shutdown()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as directory:
        setup = commands.Setup(pathlib.Path(directory))
        try:
            asyncio.run(asyncio.wait_for(main(setup.coap), 60))
        except Exception as error:  # a failure to talk at all is one failed check
            check(False, f"aiocoap: {error!r}")
        finally:
            setup.stop()
    print(f"aiocoap: {passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)
