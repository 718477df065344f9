#!/usr/bin/env python3
"""Writes a fuzz seed for the Velodyne HDL-64E path (scripts/fuzz-smoke.sh; fuzz target
fuzz_recording_files, selector byte 0: a pcap): 12 single-return packets then 12 dual-return
packets, laid out as docs/formats/velodyne-hdl64e.md gives them (upper FF EE and lower FF DD
blocks in turn, dual told by blocks 0 and 2 at one azimuth, status bytes instead of factory
bytes), with returns on a few lasers, each a UDP datagram to port 2368 in Ethernet and IPv4.
Usage: make-hdl64e-seed.py OUT"""
import struct
import sys

out = sys.argv[1]


def packet(azimuth, us, dual):
    p = bytearray(1206)
    for b in range(12):
        firing = b // 4 if dual else b // 2
        struct.pack_into("<HH", p, 100 * b, 0xEEFF if b % 2 == 0 else 0xDDFF,
                         (azimuth + 17 * firing) % 36000)
        for j in range(0, 32, 5):
            struct.pack_into("<HB", p, 100 * b + 4 + 3 * j, 3000 + 40 * j + b, 20 + j)
    struct.pack_into("<IBB", p, 1200, us, ord("H"), 21)
    return bytes(p)


def frame(payload):
    udp = struct.pack(">HHHH", 2368, 2368, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                     bytes([192, 168, 1, 201]), bytes([255, 255, 255, 255]))
    return b"\xff" * 6 + b"\x00" * 6 + b"\x08\x00" + ip + udp


records = b""
for k in range(24):
    dual = k >= 12
    us = 1000000 + (288 if not dual else 173) * k
    f = frame(packet(100 + 102 * k, us, dual))
    records += struct.pack("<IIII", 1, us % 1000000, len(f), len(f)) + f
header = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
with open(out, "wb") as g:
    g.write(b"\x00" + header + records)
