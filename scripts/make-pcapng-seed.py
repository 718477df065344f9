#!/usr/bin/env python3
"""Writes a pcapng copy of a classic pcap's first records, as a fuzzer seed
(scripts/fuzz-smoke.sh): a section header, one Ethernet interface, an Enhanced Packet Block a
record; prefixed with the fuzz target's selector byte (0: the capture readers).
Usage: make-pcapng-seed.py IN.pcap MAX_BYTES OUT"""
import struct
import sys

src, limit, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = open(src, "rb").read()
magic = struct.unpack_from("<I", data, 0)[0]
end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
nanos = magic in (0xA1B23C4D, 0x4D3CB2A1)


def block(kind, body):
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", kind, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))


ng = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
ng += block(1, struct.pack("<HHI", 1, 0, 262144) + struct.pack("<HHB3x", 9, 1, 9 if nanos else 6)
            + struct.pack("<HH", 0, 0))
at = 24
while at + 16 <= len(data) and len(ng) < limit:
    sec, frac, incl, orig = struct.unpack_from(end + "IIII", data, at)
    frame = data[at + 16:at + 16 + incl]
    at += 16 + incl
    ticks = sec * (10**9 if nanos else 10**6) + frac
    ng += block(6, struct.pack("<IIIII", 0, ticks >> 32, ticks & 0xFFFFFFFF, len(frame), orig) + frame)
open(out, "wb").write(b"\x00" + ng)
