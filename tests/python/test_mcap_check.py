# SPDX-License-Identifier: Apache-2.0
"""Tests for mcap_check.py.

The MCAP files are produced by a small writer defined here, written from the MCAP
specification independently of the checker (its own CRC-32, its own CDR encoder).
Runs under pytest, or without it: ``python3 test_mcap_check.py``.
"""

import json
import math
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import mcap_check  # noqa: E402
from mcap_check import McapError, UnsupportedCompression  # noqa: E402

CHECKER = os.path.join(HERE, "mcap_check.py")

# ======================================================================================
# A minimal MCAP writer for the tests
# ======================================================================================

MAGIC = b"\x89MCAP0\r\n"
HEADER, FOOTER, SCHEMA, CHANNEL, MESSAGE, CHUNK, MESSAGE_INDEX, CHUNK_INDEX = range(1, 9)
ATTACHMENT, ATTACHMENT_INDEX, STATISTICS, METADATA, METADATA_INDEX = range(9, 14)
SUMMARY_OFFSET, DATA_END = 14, 15


def _make_crc_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _make_crc_table()


def tcrc32(data):
    """Bitwise-table CRC-32/ISO-HDLC, independent of the checker's implementation."""
    c = 0xFFFFFFFF
    for b in bytes(data):
        c = _CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def u16(v):
    return struct.pack("<H", v)


def u32(v):
    return struct.pack("<I", v)


def u64(v):
    return struct.pack("<Q", v)


def mstr(text):
    b = text.encode("utf-8")
    return u32(len(b)) + b


def map_ss(d):
    body = b"".join(mstr(k) + mstr(v) for k, v in d.items())
    return u32(len(body)) + body


def map_u16_u64(d):
    body = b"".join(u16(k) + u64(v) for k, v in sorted(d.items()))
    return u32(len(body)) + body


def record(op, content):
    return bytes([op]) + u64(len(content)) + content


def schema_c(sid, name, encoding, data):
    return u16(sid) + mstr(name) + mstr(encoding) + u32(len(data)) + data


def channel_c(cid, schema_id, topic, encoding, metadata):
    return u16(cid) + u16(schema_id) + mstr(topic) + mstr(encoding) + map_ss(metadata)


def message_c(cid, seq, log_time, publish_time, data):
    return u16(cid) + u32(seq) + u64(log_time) + u64(publish_time) + data


PC2_MSG = (b"std_msgs/Header header\nuint32 height\nuint32 width\nPointField[] fields\n"
           b"bool is_bigendian\nuint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense\n"
           + b"=" * 80 + b"\nMSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n"
           + b"=" * 80 + b"\nMSG: sensor_msgs/PointField\nuint8 INT8=1\nuint8 UINT8=2\n"
           b"uint8 INT16=3\nuint8 UINT16=4\nuint8 INT32=5\nuint8 UINT32=6\nuint8 FLOAT32=7\n"
           b"uint8 FLOAT64=8\nstring name\nuint32 offset\nuint8 datatype\nuint32 count\n")
TF_MSG = b"geometry_msgs/TransformStamped[] transforms\n"
QOS = {"offered_qos_profiles": "- history: 3\n  depth: 0\n  reliability: 1\n"}

DEFAULT_SCHEMAS = [(1, "sensor_msgs/msg/PointCloud2", "ros2msg", PC2_MSG),
                   (2, "tf2_msgs/msg/TFMessage", "ros2msg", TF_MSG)]
DEFAULT_CHANNELS = [(1, 1, "/points", "cdr", QOS),
                    (2, 2, "/tf", "cdr", QOS),
                    (3, 1, "/points_organized", "cdr", QOS)]


def build_mcap(messages, chunked=False, summary=True, message_index=True, chunk_size=2,
               compression="", compress=None, crcs=True, hooks=None, profile="ros2",
               schemas=None, channels=None, data_end=True, attachment=None,
               extra_summary_channels=()):
    """Return (file bytes, layout dict).

    messages: list of (channel_id, sequence, log_time, publish_time, data bytes).
    hooks: optional callables that may alter fields before they are written:
      'chunk_index'(i, dict) -> dict, 'statistics'(dict) -> dict,
      'summary_offset'(dict) -> dict, 'message_index'(chunk_no, cid, entries) -> entries.
    """
    hooks = hooks or {}
    schemas = DEFAULT_SCHEMAS if schemas is None else schemas
    channels = DEFAULT_CHANNELS if channels is None else channels
    out = bytearray(MAGIC)
    lay = {"messages": [], "chunks": [], "message_indexes": [], "chunk_indexes": [],
           "summary_offsets": [], "attachments": []}

    def put(op, content):
        off = len(out)
        out.extend(record(op, content))
        return off

    lay["header"] = put(HEADER, mstr(profile) + mstr("mcap_check test writer"))
    chunk_infos = []
    if not chunked:
        for s in schemas:
            put(SCHEMA, schema_c(*s))
        for c in channels:
            put(CHANNEL, channel_c(*c))
        for m in messages:
            lay["messages"].append(put(MESSAGE, message_c(*m)))
    else:
        groups = [messages[i:i + chunk_size] for i in range(0, len(messages), chunk_size)]
        for no, group in enumerate(groups):
            inner = bytearray()
            if no == 0:
                for s in schemas:
                    inner += record(SCHEMA, schema_c(*s))
                for c in channels:
                    inner += record(CHANNEL, channel_c(*c))
            entries = {}
            for m in group:
                entries.setdefault(m[0], []).append((m[2], len(inner)))
                lay["messages"].append(("chunk", no, len(inner)))
                inner += record(MESSAGE, message_c(*m))
            times = [m[2] for m in group]
            start, end = (min(times), max(times)) if times else (0, 0)
            payload = compress(bytes(inner)) if compress else bytes(inner)
            content = (u64(start) + u64(end) + u64(len(inner)) + u32(tcrc32(inner) if crcs else 0)
                       + mstr(compression) + u64(len(payload)) + payload)
            chunk_off = put(CHUNK, content)
            info = {"offset": chunk_off, "length": len(out) - chunk_off, "start": start,
                    "end": end, "compressed_size": len(payload), "uncompressed_size": len(inner),
                    "mi": {}, "mi_length": 0}
            lay["chunks"].append(chunk_off)
            if message_index:
                for cid in sorted(entries):
                    ents = entries[cid]
                    if "message_index" in hooks:
                        ents = hooks["message_index"](no, cid, ents)
                    body = b"".join(u64(t) + u64(o) for t, o in ents)
                    mi_off = put(MESSAGE_INDEX, u16(cid) + u32(len(body)) + body)
                    info["mi"][cid] = mi_off
                    info["mi_length"] += len(out) - mi_off
                    lay["message_indexes"].append(mi_off)
            chunk_infos.append(info)
    if attachment is not None:
        name, media, data, good_crc = attachment
        body = u64(7) + u64(6) + mstr(name) + mstr(media) + u64(len(data)) + data
        crc = tcrc32(body)
        att_off = put(ATTACHMENT, body + u32(crc if good_crc else crc ^ 1))
        lay["attachments"].append((att_off, len(out) - att_off, name, media, len(data)))
    if data_end:
        lay["data_end"] = put(DATA_END, u32(tcrc32(out) if crcs else 0))
    summary_start = summary_offset_start = 0
    if summary:
        summary_start = len(out)
        groups = []

        def group(op, contents):
            start = len(out)
            for c in contents:
                off = put(op, c)
                if op == CHUNK_INDEX:
                    lay["chunk_indexes"].append(off)
                if op == STATISTICS:
                    lay["statistics"] = off
            groups.append((op, start, len(out) - start))

        group(SCHEMA, [schema_c(*s) for s in schemas])
        group(CHANNEL, [channel_c(*c) for c in list(channels) + list(extra_summary_channels)])
        if chunk_infos:
            cis = []
            for i, ci in enumerate(chunk_infos):
                d = {"message_start_time": ci["start"], "message_end_time": ci["end"],
                     "chunk_start_offset": ci["offset"], "chunk_length": ci["length"],
                     "message_index_offsets": dict(ci["mi"]),
                     "message_index_length": ci["mi_length"], "compression": compression,
                     "compressed_size": ci["compressed_size"],
                     "uncompressed_size": ci["uncompressed_size"]}
                if "chunk_index" in hooks:
                    d = hooks["chunk_index"](i, d)
                cis.append(u64(d["message_start_time"]) + u64(d["message_end_time"])
                           + u64(d["chunk_start_offset"]) + u64(d["chunk_length"])
                           + map_u16_u64(d["message_index_offsets"])
                           + u64(d["message_index_length"]) + mstr(d["compression"])
                           + u64(d["compressed_size"]) + u64(d["uncompressed_size"]))
            group(CHUNK_INDEX, cis)
        if lay["attachments"]:
            group(ATTACHMENT_INDEX, [u64(o) + u64(n) + u64(7) + u64(6) + u64(size) + mstr(name)
                                     + mstr(media) for o, n, name, media, size
                                     in lay["attachments"]])
        counts = {}
        for m in messages:
            counts[m[0]] = counts.get(m[0], 0) + 1
        times = [m[2] for m in messages]
        st = {"message_count": len(messages), "schema_count": len(schemas),
              "channel_count": len(channels), "attachment_count": len(lay["attachments"]),
              "metadata_count": 0, "chunk_count": len(chunk_infos),
              "message_start_time": min(times) if times else 0,
              "message_end_time": max(times) if times else 0,
              "channel_message_counts": counts}
        if "statistics" in hooks:
            st = hooks["statistics"](st)
        group(STATISTICS, [u64(st["message_count"]) + u16(st["schema_count"])
                           + u32(st["channel_count"]) + u32(st["attachment_count"])
                           + u32(st["metadata_count"]) + u32(st["chunk_count"])
                           + u64(st["message_start_time"]) + u64(st["message_end_time"])
                           + map_u16_u64(st["channel_message_counts"])])
        summary_offset_start = len(out)
        for op, start, length in groups:
            d = {"group_opcode": op, "group_start": start, "group_length": length}
            if "summary_offset" in hooks:
                d = hooks["summary_offset"](d)
            lay["summary_offsets"].append(
                put(SUMMARY_OFFSET, bytes([d["group_opcode"]]) + u64(d["group_start"])
                    + u64(d["group_length"])))
    lay["summary_start"] = summary_start
    footer_off = len(out)
    lay["footer"] = footer_off
    prefix = bytes([FOOTER]) + u64(20) + u64(summary_start) + u64(summary_offset_start)
    crc = tcrc32(bytes(out[summary_start or footer_off:]) + prefix) if crcs else 0
    out += prefix + u32(crc) + MAGIC
    return bytes(out), lay


# ======================================================================================
# A minimal CDR encoder for the ROS 2 messages
# ======================================================================================

class CdrWriter(object):
    def __init__(self, little=True):
        self.e = "<" if little else ">"
        self.b = bytearray(b"\x00\x01\x00\x00" if little else b"\x00\x00\x00\x00")

    def align(self, n):
        while (len(self.b) - 4) % n:
            self.b.append(0)

    def prim(self, code, v):
        size = struct.calcsize(code)
        self.align(size)
        self.b += struct.pack(self.e + code, v)

    def string(self, text):
        raw = text.encode("utf-8") + b"\x00"
        self.prim("I", len(raw))
        self.b += raw

    def octets(self, data):
        self.prim("I", len(data))
        self.b += data


TYPES = {"INT8": (1, "b"), "UINT8": (2, "B"), "INT16": (3, "h"), "UINT16": (4, "H"),
         "INT32": (5, "i"), "UINT32": (6, "I"), "FLOAT32": (7, "f"), "FLOAT64": (8, "d")}


def pack_points(fields, points, width, height, point_step, row_step, big_endian):
    """fields: [(name, offset, typename, count)]; points: row-major list of dicts."""
    e = ">" if big_endian else "<"
    data = bytearray(b"\xAA" * (row_step * height))   # 0xAA in every padding byte
    for idx, p in enumerate(points):
        r, col = divmod(idx, width)
        base = r * row_step + col * point_step
        for name, off, tname, count in fields:
            code = TYPES[tname][1]
            vals = p[name] if count != 1 else [p[name]]
            for k, v in enumerate(vals):
                struct.pack_into(e + code, data, base + off + k * struct.calcsize(code), v)
    return bytes(data)


def encode_pointcloud2(stamp, frame_id, height, width, fields, is_bigendian, point_step,
                       row_step, data, is_dense, cdr_little=True):
    w = CdrWriter(cdr_little)
    w.prim("i", stamp[0])
    w.prim("I", stamp[1])
    w.string(frame_id)
    w.prim("I", height)
    w.prim("I", width)
    w.prim("I", len(fields))
    for name, off, tname, count in fields:
        w.string(name)
        w.prim("I", off)
        w.prim("B", TYPES[tname][0])
        w.prim("I", count)
    w.prim("B", 1 if is_bigendian else 0)
    w.prim("I", point_step)
    w.prim("I", row_step)
    w.octets(data)
    w.prim("B", 1 if is_dense else 0)
    return bytes(w.b)


def encode_tf(transforms, cdr_little=True):
    w = CdrWriter(cdr_little)
    w.prim("I", len(transforms))
    for (sec, nsec), parent, child, t, q in transforms:
        w.prim("i", sec)
        w.prim("I", nsec)
        w.string(parent)
        w.string(child)
        for v in t:
            w.prim("d", v)
        for v in q:
            w.prim("d", v)
    return bytes(w.b)


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


# ---- the sample data --------------------------------------------------------------------

FIELDS_A = [("x", 0, "FLOAT32", 1), ("y", 4, "FLOAT32", 1), ("z", 8, "FLOAT32", 1),
            ("intensity", 12, "UINT8", 1), ("ring", 14, "UINT16", 1), ("t", 16, "FLOAT64", 1)]
POINTS_A = [{"x": 0.1 * i - 1.0, "y": -2.25 * i, "z": 1000.5 + i, "intensity": 250 + i,
             "ring": 65530 + i, "t": 1e-9 * i + 1.0} for i in range(5)]

FIELDS_B = [("a", 0, "INT8", 1), ("b", 2, "INT16", 1), ("c", 4, "INT32", 1),
            ("d", 8, "UINT32", 1), ("e", 16, "FLOAT64", 1), ("vec", 24, "FLOAT32", 3)]
POINTS_B = [{"a": -128 + 50 * i, "b": -32768 + 1000 * i, "c": -2 ** 31 + 12345 * i,
             "d": 2 ** 32 - 1 - i, "e": -1.5e300 / (i + 1), "vec": [i + 0.25, -i - 0.5, i * 3.0]}
            for i in range(6)]


def cloud_a(stamp=(1700000000, 123456789), frame="lidar"):
    data = pack_points(FIELDS_A, POINTS_A, 5, 1, 24, 120, False)
    return encode_pointcloud2(stamp, frame, 1, 5, FIELDS_A, False, 24, 120, data, True)


def cloud_b():
    # organised 3 x 2, 8 padding bytes per row, big-endian points, big-endian CDR
    data = pack_points(FIELDS_B, POINTS_B, 3, 2, 40, 128, True)
    return encode_pointcloud2((-5, 999999999), "cam_optical", 2, 3, FIELDS_B, True, 40, 128,
                              data, False, cdr_little=False)


def cloud_empty():
    return encode_pointcloud2((0, 0), "", 1, 0, FIELDS_A, False, 24, 0, b"", True)


TF_TRANSFORMS = [((10, 5), "map", "odom", (1.0, -2.0, 0.5), (0.0, 0.0, 0.0, 1.0)),
                 ((10, 6), "odom", "base_link", (0.125, 0.0, -3.75),
                  (0.0, 0.0, math.sqrt(0.5), math.sqrt(0.5)))]


def sample_messages():
    return [(1, 0, 1000, 990, cloud_a()),
            (2, 0, 1500, 1500, encode_tf(TF_TRANSFORMS)),
            (3, 0, 2000, 1999, cloud_b()),
            (1, 1, 2500, 2500, cloud_a((1700000001, 5), "lidar2")),
            (1, 2, 3000, 3000, cloud_empty())]


# ======================================================================================
# helpers
# ======================================================================================

def write_tmp(data):
    fd, path = tempfile.mkstemp(suffix=".mcap", prefix="mcap_check_test_")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return path


def check_data(data, **kw):
    path = write_tmp(data)
    try:
        return mcap_check.check_file(path, **kw)
    finally:
        os.unlink(path)


def clouds_of(data):
    path = write_tmp(data)
    try:
        return mcap_check.read_point_clouds(path)
    finally:
        os.unlink(path)


def expect_error(data, *needles, **kw):
    exc_type = kw.pop("exc_type", McapError)
    try:
        check_data(data, **kw)
    except exc_type as exc:
        text = str(exc)
        for n in needles:
            assert n in text, "expected %r in error message %r" % (n, text)
        return exc
    raise AssertionError("checker accepted a file that should be rejected (%s)" % (needles,))


def at(offset):
    return "at offset %d (" % offset


def assert_values(cloud, fields, points, width, height):
    assert cloud["width"] == width and cloud["height"] == height
    assert [(f["name"], f["offset"], f["datatype_name"], f["count"]) for f in cloud["fields"]] \
        == [(n, o, t, c) for n, o, t, c in fields]
    for f, (name, _, tname, count) in zip(cloud["fields"], fields):
        expect = []
        for p in points:
            vals = p[name] if count != 1 else [p[name]]
            for v in vals:
                expect.append(f32(v) if tname == "FLOAT32" else v)
        assert f["values"] == expect, (name, f["values"], expect)
        assert cloud["values"][name] == expect
        if tname in ("FLOAT32", "FLOAT64"):
            assert all(isinstance(v, float) for v in f["values"])
        else:
            assert all(isinstance(v, int) for v in f["values"])


def assert_sample_clouds(clouds):
    assert len(clouds) == 4
    a, b, a2, empty = clouds
    assert a["topic"] == "/points" and a["log_time"] == 1000 and a["publish_time"] == 990
    assert a["header"] == {"stamp": {"sec": 1700000000, "nanosec": 123456789},
                           "frame_id": "lidar"}
    assert a["is_bigendian"] is False and a["is_dense"] is True
    assert a["point_step"] == 24 and a["row_step"] == 120
    assert_values(a, FIELDS_A, POINTS_A, 5, 1)
    assert b["topic"] == "/points_organized"
    assert b["header"] == {"stamp": {"sec": -5, "nanosec": 999999999}, "frame_id": "cam_optical"}
    assert b["is_bigendian"] is True and b["is_dense"] is False
    assert b["point_step"] == 40 and b["row_step"] == 128
    assert_values(b, FIELDS_B, POINTS_B, 3, 2)
    assert a2["header"]["frame_id"] == "lidar2" and a2["sequence"] == 1
    assert_values(a2, FIELDS_A, POINTS_A, 5, 1)
    assert empty["width"] == 0 and all(f["values"] == [] for f in empty["fields"])
    assert empty["header"]["frame_id"] == ""


# ======================================================================================
# tests: accepted files
# ======================================================================================

def test_crc_reference_vector():
    assert tcrc32(b"123456789") == 0xCBF43926
    assert mcap_check.crc32(b"123456789") == 0xCBF43926


def test_unchunked_without_summary():
    data, lay = build_mcap(sample_messages(), chunked=False, summary=False)
    rep = check_data(data)
    assert rep["message_count"] == 5 and rep["chunk_count"] == 0
    assert rep["summary"]["present"] is False
    assert rep["crc"]["data_section_crc"] == "verified"
    assert rep["crc"]["summary_crc"] == "verified"   # covers just the footer here
    assert_sample_clouds(clouds_of(data))


def test_unchunked_with_summary():
    data, lay = build_mcap(sample_messages(), chunked=False, summary=True)
    rep = check_data(data)
    assert rep["summary"]["present"] and rep["summary"]["summary_start"] == lay["summary_start"]
    assert [g["name"] for g in rep["summary"]["groups"]] == ["Schema", "Channel", "Statistics"]
    assert rep["summary"]["statistics"]["message_count"] == 5
    assert rep["crc"] == {"data_section_crc": "verified", "summary_crc": "verified",
                          "chunks_with_crc": 0}
    counts = dict((c["topic"], c["message_count"]) for c in rep["channels"])
    assert counts == {"/points": 3, "/tf": 1, "/points_organized": 1}
    assert_sample_clouds(clouds_of(data))


def test_chunked_with_summary_and_indexes():
    data, lay = build_mcap(sample_messages(), chunked=True, summary=True)
    rep = check_data(data)
    assert rep["chunk_count"] == 3 and rep["messages_in_chunks"] == 5
    assert rep["message_index_count"] == 5
    assert rep["summary"]["chunk_indexes"] == 3
    assert rep["crc"]["chunks_with_crc"] == 3
    assert rep["warnings"] == []
    clouds = clouds_of(data)
    assert_sample_clouds(clouds)
    assert clouds[0]["chunk_offset"] == lay["chunks"][0]


def test_chunked_without_summary_or_crcs():
    data, lay = build_mcap(sample_messages(), chunked=True, summary=False, message_index=False,
                           crcs=False, chunk_size=5)
    rep = check_data(data)
    assert rep["chunk_count"] == 1 and rep["message_index_count"] == 0
    assert rep["crc"] == {"data_section_crc": "not computed", "summary_crc": "not computed",
                          "chunks_with_crc": 0}
    assert_sample_clouds(clouds_of(data))


def test_attachment_and_attachment_index():
    data, lay = build_mcap(sample_messages(), chunked=True, summary=True,
                           attachment=("calib.yaml", "text/yaml", b"k: 1\n", True))
    rep = check_data(data)
    assert rep["attachment_count"] == 1


def test_summary_only_channel_is_tolerated():
    # a channel registered with the writer but never used appears only in the summary;
    # Statistics.channel_count may count it or not
    extra = [(4, 2, "/tf_static", "cdr", QOS)]
    for delta in (0, 1):
        def hook(st, delta=delta):
            st["channel_count"] += delta
            return st
        data, _ = build_mcap(sample_messages(), chunked=True, extra_summary_channels=extra,
                             hooks={"statistics": hook})
        rep = check_data(data)
        assert any("summary Channel id 4" in w for w in rep["warnings"])
        assert [c["topic"] for c in rep["channels"]][-1] == "/tf_static"

    def hook2(st):
        st["channel_count"] += 2
        return st
    data, lay = build_mcap(sample_messages(), chunked=True, extra_summary_channels=extra,
                           hooks={"statistics": hook2})
    expect_error(data, "Statistics record", at(lay["statistics"]), "channel_count is 5")


def test_tf_messages_decoded():
    data, _ = build_mcap(sample_messages(), chunked=True)
    path = write_tmp(data)
    try:
        tfs = mcap_check.read_tf_messages(path)
    finally:
        os.unlink(path)
    assert len(tfs) == 1 and tfs[0]["topic"] == "/tf"
    got = [(t["header"]["stamp"]["sec"], t["header"]["stamp"]["nanosec"], t["header"]["frame_id"],
            t["child_frame_id"], (t["translation"]["x"], t["translation"]["y"],
                                  t["translation"]["z"]),
            (t["rotation"]["x"], t["rotation"]["y"], t["rotation"]["z"], t["rotation"]["w"]))
           for t in tfs[0]["transforms"]]
    assert got == [(s[0], s[1], p, c, tr, q) for s, p, c, tr, q in TF_TRANSFORMS]


def test_any_profile_option():
    data, lay = build_mcap(sample_messages(), profile="x-custom")
    expect_error(data, "Header record", at(lay["header"]), "profile is 'x-custom'")
    rep = check_data(data, expect_profile=None)
    assert rep["profile"] == "x-custom"


def test_compressed_chunks_supported_or_reported():
    for name, module in (("zstd", "zstandard"), ("lz4", "lz4.frame")):
        try:
            mod = __import__(module, fromlist=["x"])
        except ImportError:
            mod = None
        if mod is None:
            data, lay = build_mcap(sample_messages(), chunked=True, compression=name,
                                   compress=lambda b: b"\x00garbage" + b)
            exc = expect_error(data, "compression '%s' not supported by this checker" % name,
                               at(lay["chunks"][0]), exc_type=UnsupportedCompression)
            assert exc.offset == lay["chunks"][0]
        else:
            if name == "zstd":
                comp = mod.ZstdCompressor().compress
            else:
                comp = mod.compress
            data, lay = build_mcap(sample_messages(), chunked=True, compression=name,
                                   compress=comp)
            rep = check_data(data)
            assert rep["chunk_compressions"] == [name]
            assert_sample_clouds(clouds_of(data))


# ======================================================================================
# tests: rejected files
# ======================================================================================

def test_reject_bad_leading_magic():
    data, _ = build_mcap(sample_messages())
    bad = b"\x89MCAP1\r\n" + data[8:]
    exc = expect_error(bad, "bad leading magic", at(0))
    assert exc.offset == 0


def test_reject_bad_trailing_magic_and_truncated_file():
    data, _ = build_mcap(sample_messages(), chunked=True)
    expect_error(data[:-1] + b"X", "bad trailing magic", at(len(data) - 8))
    expect_error(data[:len(data) // 2], "bad trailing magic", at(len(data) // 2 - 8))


def test_reject_truncated_record():
    data, lay = build_mcap(sample_messages(), chunked=False, summary=False, crcs=False)
    off = lay["messages"][2]
    # a record whose length field claims more bytes than the file holds
    bad = data[:off + 1] + u64(0xFFFFFFFF) + data[off + 9:]
    expect_error(bad, "Message record", at(off), "truncated record")
    # a file cut inside a record, with magic appended so only the framing is wrong
    bad = data[:off + 20] + MAGIC
    expect_error(bad, at(off), "truncated record")


def test_reject_wrong_chunk_crc():
    data, lay = build_mcap(sample_messages(), chunked=True, crcs=True)
    off = lay["chunks"][1]
    flip = off + 200            # inside the chunk's records field
    bad = data[:flip] + bytes([data[flip] ^ 0x01]) + data[flip + 1:]
    exc = expect_error(bad, "Chunk record", at(off), "uncompressed_crc mismatch")
    assert exc.offset == off


def test_reject_wrong_data_section_crc():
    data, lay = build_mcap(sample_messages(), chunked=False, crcs=True)
    pos = lay["messages"][1] + 40          # inside a message payload: CDR stays valid
    bad = data[:pos] + bytes([data[pos] ^ 0x10]) + data[pos + 1:]
    expect_error(bad, "DataEnd record", at(lay["data_end"]), "data_section_crc mismatch")


def test_reject_wrong_summary_crc():
    data, lay = build_mcap(sample_messages(), chunked=True, crcs=True)
    pos = len(data) - 8 - 4
    bad = data[:pos] + u32(struct.unpack_from("<I", data, pos)[0] ^ 0x5A5A) + data[pos + 4:]
    expect_error(bad, "Footer record", at(lay["footer"]), "summary_crc mismatch")


def test_reject_wrong_attachment_crc():
    data, lay = build_mcap(sample_messages(), attachment=("a.bin", "x/y", b"123", False))
    expect_error(data, "Attachment record", at(lay["attachments"][0][0]), "crc mismatch")


def test_reject_chunk_index_pointing_wrong():
    def shift(i, d):
        if i == 1:
            d["chunk_start_offset"] += 1
        return d
    data, lay = build_mcap(sample_messages(), chunked=True, hooks={"chunk_index": shift})
    exc = expect_error(data, "ChunkIndex record", at(lay["chunk_indexes"][1]),
                       "does not point at a Chunk record")
    assert exc.offset == lay["chunk_indexes"][1]

    def length(i, d):
        if i == 0:
            d["chunk_length"] -= 3
        return d
    data, lay = build_mcap(sample_messages(), chunked=True, hooks={"chunk_index": length})
    expect_error(data, "ChunkIndex record", at(lay["chunk_indexes"][0]), "chunk_length")

    def mi(i, d):
        if i == 2:
            d["message_index_offsets"] = dict((k, v + 1) for k, v in
                                              d["message_index_offsets"].items())
        return d
    data, lay = build_mcap(sample_messages(), chunked=True, hooks={"chunk_index": mi})
    expect_error(data, "ChunkIndex record", at(lay["chunk_indexes"][2]), "message_index_offsets")


def test_reject_message_index_pointing_wrong():
    def hook(no, cid, entries):
        if no == 1:
            return [(t, o + 2) for t, o in entries]
        return entries
    data, lay = build_mcap(sample_messages(), chunked=True, hooks={"message_index": hook})
    expect_error(data, "MessageIndex record", at(lay["message_indexes"][2]),
                 "does not point at a Message")


def test_reject_statistics_mismatch():
    def hook(st):
        st["message_count"] += 1
        return st
    data, lay = build_mcap(sample_messages(), chunked=True, hooks={"statistics": hook})
    expect_error(data, "Statistics record", at(lay["statistics"]), "message_count is 6")

    def hook2(st):
        st["channel_message_counts"][1] = 7
        return st
    data, lay = build_mcap(sample_messages(), hooks={"statistics": hook2})
    expect_error(data, "Statistics record", at(lay["statistics"]), "channel_message_counts[1]")


def test_reject_summary_offset_pointing_wrong():
    def hook(d):
        if d["group_opcode"] == CHANNEL:
            d["group_start"] += 1
        return d
    data, lay = build_mcap(sample_messages(), chunked=True, hooks={"summary_offset": hook})
    expect_error(data, "SummaryOffset record", at(lay["summary_offsets"][1]), "group Channel")


def test_reject_message_on_unknown_channel():
    msgs = sample_messages() + [(9, 0, 4000, 4000, b"\x00\x01\x00\x00")]
    data, lay = build_mcap(msgs, summary=False)
    expect_error(data, "Message record", at(lay["messages"][5]), "channel_id 9")


def test_reject_bad_pointcloud_cdr_in_chunk():
    good = cloud_a()
    bad_cloud = good[:-5] + good[-4:]          # drop one data byte -> sizes disagree
    msgs = sample_messages()[:1] + [(1, 5, 1200, 1200, bad_cloud)]
    data, lay = build_mcap(msgs, chunked=True, chunk_size=2)
    exc = expect_error(data, "Message record", "inside Chunk at offset %d (" % lay["chunks"][0],
                       "CDR sensor_msgs/msg/PointCloud2")
    assert exc.offset == lay["chunks"][0] and exc.inner_offset == lay["messages"][1][2]


def test_reject_pointcloud_data_size_mismatch():
    data_bytes = pack_points(FIELDS_A, POINTS_A, 5, 1, 24, 120, False)
    bad_cloud = encode_pointcloud2((1, 2), "lidar", 1, 5, FIELDS_A, False, 24, 128, data_bytes,
                                   True)                 # row_step 128 x 1 != 120 bytes
    msgs = [(1, 0, 100, 100, bad_cloud)]
    data, lay = build_mcap(msgs, chunked=False)
    expect_error(data, "Message record", at(lay["messages"][0]),
                 "data holds 120 bytes but row_step 128 x height 1 = 128")
    # a field running past point_step
    fields = FIELDS_A[:-1] + [("t", 20, "FLOAT64", 1)]
    bad_cloud = encode_pointcloud2((1, 2), "lidar", 1, 5, fields, False, 24, 120, data_bytes, True)
    data, lay = build_mcap([(1, 0, 100, 100, bad_cloud)], chunked=False)
    expect_error(data, "Message record", at(lay["messages"][0]), "beyond point_step 24")


def test_reject_missing_data_end():
    data, lay = build_mcap(sample_messages(), summary=False, data_end=False)
    expect_error(data, "Footer record", at(lay["footer"]), "DataEnd")


def test_reject_wrong_channel_encoding_for_ros2():
    chans = [(1, 1, "/points", "json", QOS)] + DEFAULT_CHANNELS[1:]
    data, lay = build_mcap(sample_messages(), channels=chans, summary=False)
    expect_error(data, "Channel record", "message_encoding 'cdr'")


# ======================================================================================
# tests: command line
# ======================================================================================

def _run_cli(path, *args):
    return subprocess.run([sys.executable, CHECKER, path] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def test_cli_ok_text_and_json():
    data, _ = build_mcap(sample_messages(), chunked=True)
    path = write_tmp(data)
    try:
        p = _run_cli(path)
        assert p.returncode == 0, p.stderr
        assert "/points" in p.stdout and "sensor_msgs/msg/PointCloud2" in p.stdout
        assert "map -> odom" in p.stdout and "x:FLOAT32@0" in p.stdout
        p = _run_cli(path, "--json", "--values")
        assert p.returncode == 0, p.stderr
        rep = json.loads(p.stdout)
        assert rep["ok"] is True and rep["message_count"] == 5
        assert rep["point_clouds"][0]["values"]["ring"] == [65530 + i for i in range(5)]
    finally:
        os.unlink(path)


def test_cli_rejects_with_offset():
    data, lay = build_mcap(sample_messages(), chunked=True)
    off = lay["chunks"][0]
    flip = off + 150
    bad = data[:flip] + bytes([data[flip] ^ 0xFF]) + data[flip + 1:]
    path = write_tmp(bad)
    try:
        p = _run_cli(path)
        assert p.returncode == 1
        assert "INVALID" in p.stderr and at(off) in p.stderr
        p = _run_cli(path, "--json")
        assert p.returncode == 1
        rep = json.loads(p.stdout)
        assert rep["ok"] is False and rep["offset"] == off
    finally:
        os.unlink(path)


def test_cli_unsupported_compression_exit_code():
    try:
        import zstandard  # noqa: F401
        return            # supported here: nothing to report
    except ImportError:
        pass
    data, lay = build_mcap(sample_messages(), chunked=True, compression="zstd",
                           compress=lambda b: b)
    path = write_tmp(data)
    try:
        p = _run_cli(path)
        assert p.returncode == 3
        assert "compression 'zstd' not supported by this checker" in p.stderr
        assert at(lay["chunks"][0]) in p.stderr
    finally:
        os.unlink(path)


# ======================================================================================
# runner for machines without pytest
# ======================================================================================

def _main():
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_") and callable(f)]
    failed = 0
    for name, fn in tests:
        try:
            fn()
        except Exception as exc:  # report and continue
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(exc).__name__, exc))
        else:
            print("ok   %s" % name)
    print("%d passed, %d failed" % (len(tests) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(_main())
