#!/usr/bin/env bash
# A simulation written as a ROS 2 bag (.mcap) is read by an independent reader written from the
# MCAP and CDR specifications (tests/python/mcap_check.py: framing, chunk and summary CRCs,
# indexes, statistics), and its clouds hold, field for field, what the same run writes as PCD;
# written in rosbag2's sqlite3 storage (.db3), Python's sqlite3 reads the same messages.
# Debian's python3 with python3-zstandard (scripts/install-deps.sh).
set -euo pipefail
cli="$1"
src="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
run=(--sensor "$src/configs/sensors/velodyne_vlp16.yaml"
     --scene "$src/configs/scenes/street_crossing.yaml" --frames 3 --seed 5)
"$cli" simulate "${run[@]}" --out "$work/sim.mcap" > /dev/null
"$cli" simulate "${run[@]}" --out "$work/sim.pcd" > /dev/null
"$cli" simulate "${run[@]}" --out "$work/sim.db3" > /dev/null
/usr/bin/python3 "$src/tests/python/mcap_check.py" "$work/sim.mcap"
/usr/bin/python3 - "$src/tests/python" "$work" << 'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import mcap_check
work = sys.argv[2]

def read_pcd(path):
    """Our binary PCD (datasets/point_clouds): the header, then packed little-endian rows."""
    data = open(path, "rb").read()
    end = data.index(b"DATA binary\n") + len(b"DATA binary\n")
    head = dict(l.split(" ", 1) for l in data[:end].decode().splitlines() if l and l[0] != "#")
    names, sizes, types = head["FIELDS"].split(), head["SIZE"].split(), head["TYPE"].split()
    fmt = "<" + "".join({("F", "4"): "f", ("F", "8"): "d", ("U", "1"): "B", ("U", "2"): "H",
                         ("U", "4"): "I"}[(t, s)] for t, s in zip(types, sizes))
    rows = list(struct.iter_unpack(fmt, data[end:end + int(head["POINTS"]) * struct.calcsize(fmt)]))
    return {n: [r[i] for r in rows] for i, n in enumerate(names)}

def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]

clouds = [c for c in mcap_check.read_point_clouds(work + "/sim.mcap") if c["topic"] == "/lidar/points"]
assert len(clouds) == 3, len(clouds)
pairs = {"x": "x", "y": "y", "z": "z", "intensity": "intensity", "ring": "channel",
         "return_type": "return_type", "return_index": "return_index", "range": "range",
         "reflectance": "reflectance",
         "column": "column", "beam_id": "beam_id", "material_id": "material_id",
         "instance_id": "instance_id", "semantic_class": "semantic_class"}
for k, cloud in enumerate(clouds):
    pcd = read_pcd("%s/sim_%06d.pcd" % (work, k))
    values = cloud["values"]
    stamp = cloud["header"]["stamp"]["sec"] + cloud["header"]["stamp"]["nanosec"] * 1e-9
    assert cloud["width"] == len(pcd["x"]) and cloud["height"] == 1
    for ours, theirs in pairs.items():
        assert values[ours] == pcd[theirs], (k, ours)
    # The VLP-16 profile reports the strongest return (nebula's code 3).
    assert set(values["return_type"]) == {3}, set(values["return_type"])
    # time: seconds after the stamp, as float32
    assert values["time"] == [f32(t - stamp) for t in pcd["timestamp"]], k
report = mcap_check.check_file(work + "/sim.mcap")
assert report["warnings"] == [], report["warnings"]  # nothing the spec only tolerates
tf = mcap_check.read_tf_messages(work + "/sim.mcap")
static = [t for t in tf if t["topic"] == "/tf_static"]
assert len(static) == 1 and static[0]["transforms"][0]["child_frame_id"] == "lidar", static
# The same run in rosbag2's sqlite3 storage: its tables as rosbag2 reads them, the same messages.
import sqlite3
db = sqlite3.connect("file:%s/sim.db3?mode=ro" % work, uri=True)
topics = {row[0]: row[1:] for row in db.execute(
    "SELECT id, name, type, serialization_format, offered_qos_profiles FROM topics")}
names = {v[0]: (k, v[1], v[2]) for k, v in topics.items()}
assert names["/lidar/points"][1:] == ("sensor_msgs/msg/PointCloud2", "cdr"), names
assert names["/tf_static"][1] == "tf2_msgs/msg/TFMessage", names
rows = db.execute("SELECT data FROM messages WHERE topic_id = ? ORDER BY timestamp",
                  (names["/lidar/points"][0],)).fetchall()
assert len(rows) == 3, len(rows)
for k, (payload,) in enumerate(rows):
    cloud = mcap_check.decode_point_cloud2(bytes(payload))
    assert mcap_check.point_cloud_field_values(cloud) == clouds[k]["values"], k
print("3 clouds field for field as the PCD, in .mcap and .db3; /tf_static base_link -> lidar")
PY
