#!/usr/bin/env python3
"""Damage one packet of a classic pcap for the bad-ICRC tests: flip a byte
near the end of the payload of frame N (its ICRC then fails), either in place
(copy: the capture's copy was damaged, the receiver got it intact) or as an
extra damaged copy just before it (link: the receiver dropped the damaged
one and the sender sent it again); or, in place, a byte of its BTH
destination QP number instead (qpn: a damaged header), or its PSN's high byte
(psn), or a byte of its IPv4 header (ip: no RoCE packet is left to read).
Usage: corrupt_capture.py IN OUT FRAME copy|link|qpn|psn|ip"""
import struct
import sys

src, dst, frame, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
d = open(src, "rb").read()
endian = "<" if d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
out, off, n = bytearray(d[:24]), 24, 0
while off + 16 <= len(d):
    ts, frac, caplen, wirelen = struct.unpack_from(endian + "IIII", d, off)
    rec = d[off:off + 16 + caplen]
    n += 1
    if n == frame:
        bad = bytearray(rec)
        if mode == "qpn":  # Ethernet 14, IPv4 20, UDP 8, BTH: the QPN's low byte is its byte 7
            bad[16 + 14 + 20 + 8 + 7] ^= 0x5A
        elif mode == "psn":  # the PSN's high byte is BTH byte 9
            bad[16 + 14 + 20 + 8 + 9] ^= 0x5A
        elif mode == "ip":  # the IPv4 version and header length
            bad[16 + 14] ^= 0x5A
        else:
            bad[16 + caplen - 10] ^= 0x5A  # inside the payload, before the 4-byte ICRC
        if mode == "link":
            out += struct.pack(endian + "IIII", ts, max(frac - 1, 0), caplen, wirelen) + bad[16:]
            out += rec
        else:
            out += bad
    else:
        out += rec
    off += 16 + caplen
open(dst, "wb").write(out)
