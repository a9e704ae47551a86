#!/usr/bin/env python3
"""Writes the fuzzers' seed inputs from the golden vectors, as binary files:

    seeds.py OUT_DIR [REPO]

OUT_DIR/frames/           every schemas/vectors/frames/*.json "hex" (192-byte frames)
OUT_DIR/large/            every schemas/vectors/large/*.json "hex" (960-byte large frames)
OUT_DIR/tiny/             every schemas/vectors/tiny/*.json "hex" (48-byte tiny frames)
OUT_DIR/unchanged/        every schemas/vectors/unchanged/*.json "hex" (16-byte unchanged messages)
OUT_DIR/requests-text/    every text request of schemas/vectors/requests/*.json
OUT_DIR/requests-binary/  every binary request (starts "SQ" and a control byte)

Prints how many files each directory got; exits non-zero if one gets none.
"""
import json
import pathlib
import sys


def main():
    out = pathlib.Path(sys.argv[1])
    repo = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else pathlib.Path(__file__).parents[2]
    counts = {"frames": 0, "large": 0, "tiny": 0, "unchanged": 0, "requests-text": 0,
              "requests-binary": 0}
    for kind in counts:
        (out / kind).mkdir(parents=True, exist_ok=True)
        for old in (out / kind).iterdir():
            old.unlink()

    for kind in ("frames", "large", "tiny", "unchanged"):
        for path in sorted((repo / "schemas/vectors" / kind).glob("*.json")):
            data = bytes.fromhex(json.loads(path.read_text())["hex"])
            (out / kind / (path.stem + ".bin")).write_bytes(data)
            counts[kind] += 1

    for path in sorted((repo / "schemas/vectors/requests").glob("*.json")):
        data = bytes.fromhex(json.loads(path.read_text())["hex"])
        binary = len(data) >= 3 and data[:2] == b"SQ" and data[2] < 0x20 and data[2] not in b"\t\n\r"
        kind = "requests-binary" if binary else "requests-text"
        (out / kind / (path.stem + ".bin")).write_bytes(data)
        counts[kind] += 1

    print("seeds: " + ", ".join(f"{count} {kind}" for kind, count in counts.items()))
    return 0 if all(counts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
