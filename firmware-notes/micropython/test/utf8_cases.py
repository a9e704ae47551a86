"""Names with bytes that are not valid UTF-8, for test_vectors.py (CPython) and
test_micropython.py (MicroPython). schemas/frame-v1.md 6.1: decoders SHOULD tolerate such bytes
(show U+FFFD or '?'). skyframe.py shows U+FFFD for each maximal ill-formed part, as CPython's
bytes.decode("utf-8", "replace") does, so CPython gives the expected text.

Each case is (label, field, bytes): the bytes written into FIELD (zero padded, or filling it) of
a valid frame, whose CRC is then made again.
"""

import zlib

CASES = [
    ("a Latin-1 byte", "name", b"Z\xfcrich"),
    ("a 2-byte character cut at the end", "name", b"Caf\xc3"),
    ("a 3-byte character cut before ASCII", "name", b"\xe2\x82Euro"),
    ("a UTF-16 surrogate (ED A0 80)", "name", b"\xed\xa0\x80x"),
    ("an overlong '/' (C0 AF)", "name", b"\xc0\xafslash"),
    ("a 4-byte character cut before ASCII", "name", b"\xf0\x9f\x98Emoji"),
    ("a code point above U+10FFFF", "name", b"\xf4\x90\x80\x80"),
    ("bytes FF FE", "name", b"\xff\xfe"),
    ("24 bytes, no terminator, a cut character last", "name",
     b"Frankfurt am Main \xe2\x80\x94a\xe2\x80"),
    ("valid UTF-8 (unchanged)", "name", b"Z\xc3\xbcrich"),
    ("an alert's event (large)", "alert_event", b"Sturmb\xf6en"),
]

# (offset, length) of each field in the message kind CASES use it with.
FIELDS = {"name": (40, 24), "alert_event": (700, 64)}


def message(hex_text, field, data):
    """The message HEX_TEXT with DATA written into FIELD (zero padded) and its CRC made again."""
    raw = bytearray(bytes.fromhex(hex_text))
    offset, length = FIELDS[field]
    assert len(data) <= length and 0 not in data
    raw[offset:offset + length] = data + bytes(length - len(data))
    raw[-4:] = (zlib.crc32(bytes(raw[:-4])) & 0xFFFFFFFF).to_bytes(4, "little")
    return bytes(raw)


def expected(data):
    return data.decode("utf-8", "replace")
