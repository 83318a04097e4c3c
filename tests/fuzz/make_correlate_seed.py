#!/usr/bin/env python3
"""Makes a seed for the correlate fuzz target (tests/fuzz/fuzz_correlate.c):
the trace files, each behind its 4-byte little-endian length, then the
capture.

usage: make_correlate_seed.py OUT CAPTURE [TRACE...]   (at most 4 traces)"""
import struct
import sys


def main():
    out, capture, traces = sys.argv[1], sys.argv[2], sys.argv[3:]
    if len(traces) > 4:
        sys.exit("at most 4 traces")
    with open(out, "wb") as f:
        for t in traces:
            data = open(t, "rb").read()
            f.write(struct.pack("<I", len(data)) + data)
        if len(traces) < 4:
            f.write(struct.pack("<I", 0xFFFFFFFF))
        f.write(open(capture, "rb").read())


if __name__ == "__main__":
    main()
