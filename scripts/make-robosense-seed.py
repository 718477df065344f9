#!/usr/bin/env python3
"""Writes a fuzz seed for the RoboSense decoders (scripts/fuzz-smoke.sh; fuzz target
fuzz_recording_files, selector byte 11, datagrams each a u16 little-endian length and its
bytes): the first packets of nebula's Helios bag, the DIFOP packet among them, and the same MSOP packets again with an
RS-LiDAR-16's and an RS-LiDAR-32's header (its 8-byte id, a UTC date-time, model byte 30) so that
mutations reach each model's path.
Usage: make-robosense-seed.py HELIOS.db3 PACKETS OUT"""
import sqlite3
import struct
import sys

import rosbag_bytes

bag, count, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
db = sqlite3.connect(f"file:{bag}?mode=ro&immutable=1", uri=True)
msop, difop = [], []
# CDR robosense_msgs/RobosenseScan: 4-byte encapsulation, Header (stamp 8, string frame_id
# aligned to 4), uint32 count, then RobosensePacket {Time stamp 8, uint8 is_difop,
# uint8[1500] data, uint32 size at the next multiple of 4}: 1516 bytes a packet. The bag's
# DIFOP packet is in a later message than its first MSOP packets.
for (data,) in db.execute("SELECT data FROM messages ORDER BY timestamp"):
    at = rosbag_bytes.cdr_count_at(data)
    n = struct.unpack_from("<I", data, at)[0]
    at += 4
    for k in range(n):
        is_difop = data[at + 8]
        payload = data[at + 9:at + 9 + 1500]
        size = struct.unpack_from("<I", data, at + 1512)[0]
        (difop if is_difop else msop).append(bytes(payload[:size]))
        at += 1516
    if difop:
        break
packets = difop[:1] + msop[:count]
for model in (1, 2):
    for p in msop[:2]:
        q = bytearray(p)
        q[0:8] = bytes([0x55, 0xAA, 0x05, 0x0A, 0x5A, 0xA5, 0x50, 0xA0])
        q[20:30] = bytes([23, 8, 3, 11, 2, 46, 0, 123, 1, 200])
        q[30] = model
        packets.append(bytes(q))
with open(out, "wb") as f:
    f.write(b"\x0b" + b"".join(struct.pack("<H", len(p)) + p for p in packets))
