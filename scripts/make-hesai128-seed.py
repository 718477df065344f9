#!/usr/bin/env python3
"""Writes fuzz seeds for the Hesai 128-channel decoders (scripts/fuzz-smoke.sh; fuzz target
fuzz_recording_files): OUT.packets (selector byte 11: datagrams, each a u16 little-endian length
and its bytes) holds one packet of protocol 1.4 (Pandar128E3X, flags 0x07), 3.2 (QT128, flags
0x05) and 4.3 (AT128, flags 0x01), laid out as docs/formats/hesai-answer-keys.md gives them,
with returns on a few channels; OUT.dat (selector byte 2) an AT128 angle correction, version
1.5, resolution 2.
Usage: make-hesai128-seed.py OUT"""
import struct
import sys

out = sys.argv[1]


def packet(major, minor, unit, flags, tail, fine=False):
    block = 2 + (1 if fine else 0) + 128 * unit
    size = 12 + 2 * block + 4 + tail
    p = bytearray(size)
    p[0:4] = bytes([0xEE, 0xFF, major, minor])
    p[6:12] = bytes([128, 2, 0, 4, 1, flags])
    for b in range(2):
        at = 12 + b * block
        struct.pack_into("<H", p, at, 4100 + 20 * b)
        first = at + 2 + (1 if fine else 0)
        for c in range(0, 128, 9):
            struct.pack_into("<HB", p, first + c * unit, 2500 + c, 50)
    return p


v14 = packet(1, 4, 3, 0x07, 17 + 26 + 4 + 22 + 4)  # 861 bytes
tail14 = 12 + 2 * 386 + 4 + 17
v14[tail14 + 12] = 0x37
v14[tail14 + 15:tail14 + 21] = bytes([124, 1, 15, 12, 30, 45])
v32 = packet(3, 2, 4, 0x05, 17 + 26 + 4 + 4)  # 1095 bytes
tail32 = 12 + 2 * 514 + 4 + 17
v32[tail32 + 12] = 0x39
v32[tail32 + 15:tail32 + 21] = bytes([124, 1, 15, 12, 30, 45])
v43 = packet(4, 3, 4, 0x01, 32 + 4 + 4, fine=True)  # 1086 bytes
v43[1070] = 0x37
v43[1072:1078] = bytes([0, 0, 0x65, 0xA5, 0x29, 0x75])
with open(out + ".packets", "wb") as f:
    f.write(b"\x0b" + b"".join(struct.pack("<H", len(p)) + bytes(p) for p in (v14, v32, v43)))

dat = bytearray([0xEE, 0xFF, 1, 5, 128, 3, 3] + [0] * 8 + [2])
for deg in (30, 150, 270):
    dat += struct.pack("<I", deg * 25600 // 2)
for deg in (90, 210, 330):
    dat += struct.pack("<I", deg * 25600 // 2)
for c in range(128):
    dat += struct.pack("<i", (1 if c % 2 else -1) * 25600 // 2)
for c in range(128):
    dat += struct.pack("<i", (13 - c // 5) * 25600 // 2)
dat += bytes([(c * 7) % 11 for c in range(128 * 180)])
dat += bytes([(c * 5) % 9 for c in range(128 * 180)])
dat += bytes(32)
with open(out + ".dat", "wb") as f:
    f.write(b"\x02" + dat)
