#!/usr/bin/env python3
"""Writes a pcapng that holds every frame of a capture twice, as a capture
on two interfaces of one host would (tcpdump -i any over a veth pair,
dumpcap on both ends of a link): frame k of the input becomes frames 2k-1
(interface 0) and 2k (interface 1, 1 us later).

usage: copy_capture.py IN.pcap|IN.pcapng OUT.pcapng
The input is a pcap file or a one-section little-endian pcapng file with
enhanced packet blocks, as the tests' fixtures are.
"""
import struct
import sys


def read_frames(path):
    data = open(path, "rb").read()
    magic = struct.unpack_from("<I", data)[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):  # pcap, little-endian
        nano = magic == 0xA1B23C4D
        linktype = struct.unpack_from("<I", data, 20)[0]
        off = 24
        while off + 16 <= len(data):
            sec, frac, caplen, wirelen = struct.unpack_from("<IIII", data, off)
            ts = sec * 10**9 + (frac if nano else frac * 1000)
            yield linktype, ts, wirelen, data[off + 16:off + 16 + caplen]
            off += 16 + caplen
        return
    assert magic == 0x0A0D0D0A, "not a pcap or pcapng file"
    off, links, tsres = 0, [], []
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        body = data[off + 8:off + blen - 4]
        if btype == 1:  # interface description: link type, options for the time resolution
            links.append(struct.unpack_from("<H", body)[0])
            res, o = 6, 8
            while o + 4 <= len(body):
                code, ln = struct.unpack_from("<HH", body, o)
                if code == 0:
                    break
                if code == 9:
                    res = body[o + 4]
                o += 4 + ((ln + 3) & ~3)
            tsres.append(res)
        elif btype == 6:  # enhanced packet
            ifid, hi, lo, caplen, wirelen = struct.unpack_from("<IIIII", body)
            ticks = hi << 32 | lo
            res = tsres[ifid]
            ts = ticks * 10**9 // (2 ** (res & 0x7F) if res & 0x80 else 10 ** res)
            yield links[ifid], ts, wirelen, body[20:20 + caplen]
        off += blen


def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def main():
    frames = list(read_frames(sys.argv[1]))
    linktype = frames[0][0] if frames else 1
    out = [block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))]
    tsres = struct.pack("<HHB", 9, 1, 9) + b"\0\0\0" + struct.pack("<HH", 0, 0)  # nanoseconds
    for _ in range(2):
        out.append(block(1, struct.pack("<HHI", linktype, 0, 0) + tsres))
    for _, ts, wirelen, pkt in frames:
        for ifid, t in ((0, ts), (1, ts + 1000)):
            out.append(block(6, struct.pack("<IIIII", ifid, t >> 32, t & 0xFFFFFFFF, len(pkt), wirelen) + pkt))
    open(sys.argv[2], "wb").write(b"".join(out))


main()
