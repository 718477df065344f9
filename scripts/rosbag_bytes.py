"""Bytes of ROS bags for the scripts that make test inputs from nebula's bags (fuzz seeds, the
bag speed bench): where a CDR packet-scan message's packets begin, and ROS 1 bag records
(wiki.ros.org/Bags/Format/2.0) with a scan's Header in ROS 1's serialization."""
import struct


def cdr_count_at(data):
    """The offset of a CDR scan message's packet count: after the 4-byte encapsulation and the
    Header (an 8-byte stamp, then frame_id as a u32 length counting its NUL and its bytes), at
    the next multiple of 4 counted from the byte after the encapsulation."""
    frame_id_len = struct.unpack_from("<I", data, 12)[0]
    at = 16 + frame_id_len
    return at + (-(at - 4)) % 4


def ros1_header(data, seq):
    """A CDR scan message's Header in ROS 1's serialization: u32 seq, the stamp, frame_id
    without its NUL."""
    frame_id_len = struct.unpack_from("<I", data, 12)[0]
    frame_id = data[16:16 + frame_id_len - 1]
    return struct.pack("<I", seq) + data[4:12] + struct.pack("<I", len(frame_id)) + frame_id


def fields(**kv):
    """A record header's fields: each a u32 length, then name=value."""
    out = b""
    for key, value in kv.items():
        field = key.encode() + b"=" + value
        out += struct.pack("<I", len(field)) + field
    return out


def record(header, body):
    return struct.pack("<I", len(header)) + header + struct.pack("<I", len(body)) + body


def connection(conn, topic, type_):
    return record(fields(op=b"\x07", conn=struct.pack("<I", conn), topic=topic.encode()),
                  fields(topic=topic.encode(), type=type_.encode()))


def message(conn, time_ns, body):
    return record(fields(op=b"\x02", conn=struct.pack("<I", conn),
                         time=struct.pack("<II", time_ns // 1_000_000_000,
                                          time_ns % 1_000_000_000)), body)


def chunk(records):
    """An uncompressed chunk record of `records` (connections and messages)."""
    return record(fields(op=b"\x05", compression=b"none", size=struct.pack("<I", len(records))),
                  records)


MAGIC = b"#ROSBAG V2.0\n"
