#!/usr/bin/env bash
# Issue 38's speed target: `convert` of a ROS 2 bag against `convert` of a pcap holding the same
# packets (the bag's cost is the container and CDR; the decoding is shared), and of a ROS 1 bag
# of them too (hesai_lidar/PandarScan in ROS 1's serialization, uncompressed chunks of about
# 1 MB). Builds all three from the shared Pandar64 bag (its 4 revolutions repeated to REPEAT x
# 4), then times each convert
# to .h5, best of RUNS, and prints the ratio and each one's peak memory. Usage: bench/bag_convert_speed.sh LIDARTWIN
# [REPEAT] [RUNS]. Needs ../shared/real-data and Debian's python3.
set -euo pipefail
cli="$1"
repeat="${2:-25}"
runs="${3:-5}"
src="$(cd "$(dirname "$0")/.." && pwd)"
case="$src/../shared/real-data/nebula/hesai-pandar64"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$case/1673403880599376836_0.db3" "$repeat" "$work" "$src/scripts" << 'PY'
import sqlite3, struct, sys
bag, repeat, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sys.path.insert(0, sys.argv[4])
import rosbag_bytes
src = sqlite3.connect(f"file:{bag}?mode=ro&immutable=1", uri=True)
topic = src.execute("SELECT name, type FROM topics").fetchone()
rows = src.execute("SELECT timestamp, data FROM messages ORDER BY timestamp").fetchall()
span = rows[-1][0] - rows[0][0] + 100_000_000
db = sqlite3.connect(work + "/big.db3")
db.executescript(
    "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL,"
    " serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL);"
    "CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL,"
    " timestamp INTEGER NOT NULL, data BLOB NOT NULL);")
db.execute("INSERT INTO topics VALUES (1, ?, ?, 'cdr', '')", topic)
pcap = open(work + "/big.pcap", "wb")
pcap.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
ros1 = open(work + "/big.bag", "wb")
ros1.write(rosbag_bytes.MAGIC)
chunk = rosbag_bytes.connection(0, topic[0], "hesai_lidar/PandarScan")
seq = 0
for k in range(repeat):
    for stamp, data in rows:
        t = stamp + k * span
        db.execute("INSERT INTO messages(topic_id, timestamp, data) VALUES (1, ?, ?)", (t, data))
        # ROS 1: the Header, then the same count and packets (a CDR PandarPacket has no padding).
        at = rosbag_bytes.cdr_count_at(data)
        chunk += rosbag_bytes.message(0, t, rosbag_bytes.ros1_header(data, seq) + data[at:])
        seq += 1
        if len(chunk) > 1_000_000:
            ros1.write(rosbag_bytes.chunk(chunk))
            chunk = b""
        # The scan's packets (PandarScan: 8-byte stamp, uint8[1500], uint32 size; 1512 each).
        count = struct.unpack_from("<I", data, at)[0]
        at += 4
        for i in range(count):
            sec, nsec = struct.unpack_from("<iI", data, at)
            size = struct.unpack_from("<I", data, at + 8 + 1500)[0]
            payload = data[at + 8:at + 8 + size]
            at += 1512
            udp = struct.pack(">HHHH", 2368, 2368, 8 + len(payload), 0) + payload
            ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                             bytes([192, 168, 1, 201]), bytes([192, 168, 1, 100])) + udp
            eth = b"\xff" * 6 + b"\x00\x11\x22\x33\x44\x55" + b"\x08\x00" + ip
            t_us = sec * 1_000_000 + nsec // 1000 + k * span // 1000
            pcap.write(struct.pack("<IIII", t_us // 1_000_000, t_us % 1_000_000, len(eth), len(eth)))
            pcap.write(eth)
if chunk:
    ros1.write(rosbag_bytes.chunk(chunk))
ros1.close()
db.commit()
PY
best() {
  local best_s=999
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$cli" convert "$@" --calibration "$case/Pandar64.csv" --out "$work/out.h5" > /dev/null 2>&1 ||
      { echo "bag_convert_speed: convert $* failed" >&2; exit 1; }
    t1=$(date +%s.%N)
    best_s=$(echo "$t1 - $t0" | bc -l | awk -v b="$best_s" '{print ($1 < b ? $1 : b)}')
  done
  echo "$best_s"
}
# Peak memory (KiB) of one convert of each: frames stream, so it does not grow with REPEAT.
peak() {
  /usr/bin/time -f %M "$cli" convert "$1" --calibration "$case/Pandar64.csv" \
    --out "$work/out.h5" 2>&1 > /dev/null | tail -1
}
bag_s=$(best "$work/big.db3") || exit 1
ros1_s=$(best "$work/big.bag") || exit 1
pcap_s=$(best "$work/big.pcap") || exit 1
echo "packets: $(( repeat * 4 )) revolutions of a Pandar64; bag $(du -b "$work/big.db3" | cut -f1) bytes, pcap $(du -b "$work/big.pcap" | cut -f1) bytes"
echo "peak memory: bag $(peak "$work/big.db3") KiB, ROS 1 bag $(peak "$work/big.bag") KiB, pcap $(peak "$work/big.pcap") KiB"
echo "convert to .h5, best of $runs: bag ${bag_s} s, pcap ${pcap_s} s; the bag at $(echo "100 * $pcap_s / $bag_s" | bc -l | xargs printf '%.0f') % of the pcap's speed"
echo "ROS 1 bag (.bag) ${ros1_s} s: at $(echo "100 * $pcap_s / $ros1_s" | bc -l | xargs printf '%.0f') % of the pcap's speed"
