#!/usr/bin/env python3
"""Writes small rosbag2 seeds for the fuzzer (scripts/fuzz-smoke.sh) from a shared nebula bag:
its first packet-scan message (VelodyneScan or PandarScan) cut to its first few packets, as one
CDR message (OUT.cdr), as a one-message .db3 bag (OUT.db3) and as a one-message ROS 1 bag of the
same message in ROS 1's serialization (OUT.bag, wiki.ros.org/Bags/Format/2.0: one uncompressed
chunk of a connection and the message), each prefixed with the fuzz target's selector byte.
Usage: make-bag-seed.py NEBULA.db3 PACKETS OUT"""
import sqlite3
import struct
import sys

import rosbag_bytes

bag, packets, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
src = sqlite3.connect(f"file:{bag}?mode=ro&immutable=1", uri=True)
topic, data = src.execute("SELECT t.name || ' ' || t.type, m.data FROM messages m "
                          "JOIN topics t ON t.id = m.topic_id ORDER BY m.timestamp LIMIT 1").fetchone()
name, type_ = topic.split(" ")
# CDR: 4-byte encapsulation, Header (8-byte stamp, string frame_id aligned to 4), uint32 count,
# then the packets: VelodynePacket {Time stamp (8), uint8[1206] data} = 1214 bytes, padded to
# 1216 (the next stamp aligns to 4); PandarPacket {Time stamp, uint8[1500] data, uint32 size} =
# 1512.
stride = {"velodyne_msgs/msg/VelodyneScan": 1216, "pandar_msgs/msg/PandarScan": 1512}[type_]
count_at = rosbag_bytes.cdr_count_at(data)
cut = bytearray(data[:count_at]) + struct.pack("<I", packets)
first = count_at + 4
cut += data[first:first + packets * stride]
with open(out + ".cdr", "wb") as f:
    f.write(b"\x07" + cut)
db_path = out + ".tmp.db3"
db = sqlite3.connect(db_path)
db.executescript(
    "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL,"
    " serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL);"
    "CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL,"
    " timestamp INTEGER NOT NULL, data BLOB NOT NULL);")
db.execute("INSERT INTO topics VALUES (1, ?, ?, 'cdr', '')", (name, type_))
db.execute("INSERT INTO messages(topic_id, timestamp, data) VALUES (1, 1, ?)", (bytes(cut),))
db.commit()
db.close()
with open(db_path, "rb") as f, open(out + ".db3", "wb") as g:
    g.write(b"\x06" + f.read())
import os
os.remove(db_path)

# ROS 1: Header {uint32 seq, time stamp, string frame_id without its NUL}, then the packets
# without CDR's padding (a VelodynePacket is 1214 bytes, a PandarPacket 1512).
packet_bytes = {1216: 1214, 1512: 1512}[stride]
ros1 = rosbag_bytes.ros1_header(data, 0) + struct.pack("<I", packets)
for k in range(packets):
    ros1 += data[first + k * stride:first + k * stride + packet_bytes]
ros1_type = {"velodyne_msgs/msg/VelodyneScan": "velodyne_msgs/VelodyneScan",
             "pandar_msgs/msg/PandarScan": "hesai_lidar/PandarScan"}[type_]

bag_bytes = rosbag_bytes.MAGIC + rosbag_bytes.chunk(
    rosbag_bytes.connection(0, name, ros1_type) + rosbag_bytes.message(0, 1_000_000_000, ros1))
with open(out + ".bag", "wb") as f:
    f.write(b"\x09" + bag_bytes)
