#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Independent, dependency-free checker for MCAP files holding ROS 2 data.

Written from the public specifications only:

* MCAP format specification (https://mcap.dev/spec) and its registry
  (https://mcap.dev/spec/registry, profile ``ros2``);
* ROS 2 message definitions sensor_msgs/msg/PointCloud2, sensor_msgs/msg/PointField,
  std_msgs/msg/Header, builtin_interfaces/msg/Time, tf2_msgs/msg/TFMessage,
  geometry_msgs/msg/TransformStamped, Transform, Vector3, Quaternion;
* OMG CDR (plain CDR / XCDR1, encapsulation CDR_BE 0x0000 and CDR_LE 0x0001) as
  used by ROS 2: a 4-byte encapsulation header, then primitives aligned to their
  own size counted from the end of that header.

Usage as a program::

    python3 mcap_check.py FILE.mcap [--json] [--values] [--any-profile]

Exit status: 0 valid, 1 a violation (the message names the record offset),
2 the file cannot be read / bad usage, 3 a chunk uses a compression this
checker cannot decompress here ("compression X not supported by this checker").

Usage as a module::

    import mcap_check
    report = mcap_check.check_file("out.mcap")          # raises McapError
    clouds = mcap_check.read_point_clouds("out.mcap")   # per-field value lists
    tfs = mcap_check.read_tf_messages("out.mcap")

Only the Python standard library is used.  Chunks compressed with ``zstd`` or
``lz4`` are checked only when the optional ``zstandard`` / ``lz4`` modules can be
imported; otherwise UnsupportedCompression is raised.
"""

import argparse
import binascii
import json
import struct
import sys

__all__ = [
    "McapError",
    "UnsupportedCompression",
    "check_file",
    "check_bytes",
    "read_point_clouds",
    "read_tf_messages",
    "point_cloud_field_values",
    "crc32",
    "main",
]

MAGIC = b"\x89MCAP0\r\n"

OP_HEADER = 0x01
OP_FOOTER = 0x02
OP_SCHEMA = 0x03
OP_CHANNEL = 0x04
OP_MESSAGE = 0x05
OP_CHUNK = 0x06
OP_MESSAGE_INDEX = 0x07
OP_CHUNK_INDEX = 0x08
OP_ATTACHMENT = 0x09
OP_ATTACHMENT_INDEX = 0x0A
OP_STATISTICS = 0x0B
OP_METADATA = 0x0C
OP_METADATA_INDEX = 0x0D
OP_SUMMARY_OFFSET = 0x0E
OP_DATA_END = 0x0F

OPCODE_NAMES = {
    OP_HEADER: "Header",
    OP_FOOTER: "Footer",
    OP_SCHEMA: "Schema",
    OP_CHANNEL: "Channel",
    OP_MESSAGE: "Message",
    OP_CHUNK: "Chunk",
    OP_MESSAGE_INDEX: "MessageIndex",
    OP_CHUNK_INDEX: "ChunkIndex",
    OP_ATTACHMENT: "Attachment",
    OP_ATTACHMENT_INDEX: "AttachmentIndex",
    OP_STATISTICS: "Statistics",
    OP_METADATA: "Metadata",
    OP_METADATA_INDEX: "MetadataIndex",
    OP_SUMMARY_OFFSET: "SummaryOffset",
    OP_DATA_END: "DataEnd",
}

DATA_SECTION_OPS = frozenset([OP_SCHEMA, OP_CHANNEL, OP_MESSAGE, OP_ATTACHMENT, OP_CHUNK,
                              OP_MESSAGE_INDEX, OP_METADATA, OP_DATA_END])
SUMMARY_SECTION_OPS = frozenset([OP_SCHEMA, OP_CHANNEL, OP_CHUNK_INDEX, OP_ATTACHMENT_INDEX,
                                 OP_STATISTICS, OP_METADATA_INDEX])
CHUNK_OPS = frozenset([OP_SCHEMA, OP_CHANNEL, OP_MESSAGE])

RECORD_PREFIX = 1 + 8          # opcode + uint64 content length
FOOTER_CONTENT_LEN = 8 + 8 + 4
FOOTER_RECORD_LEN = RECORD_PREFIX + FOOTER_CONTENT_LEN

POINTCLOUD2_SCHEMAS = frozenset(["sensor_msgs/msg/PointCloud2", "sensor_msgs/PointCloud2"])
TFMESSAGE_SCHEMAS = frozenset(["tf2_msgs/msg/TFMessage", "tf2_msgs/TFMessage"])

# sensor_msgs/msg/PointField datatype constants -> (name, struct code, size)
POINTFIELD_TYPES = {
    1: ("INT8", "b", 1),
    2: ("UINT8", "B", 1),
    3: ("INT16", "h", 2),
    4: ("UINT16", "H", 2),
    5: ("INT32", "i", 4),
    6: ("UINT32", "I", 4),
    7: ("FLOAT32", "f", 4),
    8: ("FLOAT64", "d", 8),
}


def crc32(data, value=0):
    """CRC-32 (ISO-HDLC: reflected polynomial 0xEDB88320, init and xor-out 0xFFFFFFFF)."""
    return binascii.crc32(data, value) & 0xFFFFFFFF


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------

def _where(offset, chunk_offset=None):
    if offset is None:
        return "unknown offset"
    if chunk_offset is None:
        return "offset %d (0x%x)" % (offset, offset)
    return "uncompressed offset %d inside Chunk at offset %d (0x%x)" % (
        offset, chunk_offset, chunk_offset)


class McapError(Exception):
    """A violation of the MCAP / profile / CDR rules.

    ``offset`` is the file offset of the offending record (for records inside a
    chunk: the file offset of the enclosing Chunk record, and ``inner_offset`` is
    the offset within the chunk's uncompressed records).
    """

    def __init__(self, message, offset=None, record=None, chunk_offset=None):
        self.detail = message
        self.record = record
        if chunk_offset is not None:
            self.offset = chunk_offset
            self.inner_offset = offset
        else:
            self.offset = offset
            self.inner_offset = None
        if record:
            text = "%s record at %s: %s" % (record, _where(offset, chunk_offset), message)
        else:
            text = "at %s: %s" % (_where(offset, chunk_offset), message)
        Exception.__init__(self, text)


class UnsupportedCompression(McapError):
    """A chunk uses a compression whose module is not importable here."""


# --------------------------------------------------------------------------------------
# Low-level record framing and field parsing
# --------------------------------------------------------------------------------------

class _Rec(object):
    """One framed record ``<opcode><uint64 length><content>``."""

    __slots__ = ("op", "offset", "chunk", "buf", "start", "end")

    def __init__(self, op, offset, chunk, buf, start, end):
        self.op = op
        self.offset = offset      # of the opcode byte (file offset, or inside chunk)
        self.chunk = chunk        # file offset of the enclosing chunk, or None
        self.buf = buf
        self.start = start        # content start (index into buf)
        self.end = end            # content end (exclusive)

    @property
    def name(self):
        return OPCODE_NAMES.get(self.op, "opcode 0x%02x" % self.op)

    @property
    def total_len(self):
        return self.end - self.offset

    @property
    def content_len(self):
        return self.end - self.start

    def error(self, message):
        return McapError(message, self.offset, self.name, self.chunk)

    def cursor(self):
        return _Cursor(self)


class _Cursor(object):
    """Reads little-endian MCAP fields from one record's content."""

    def __init__(self, rec):
        self.rec = rec
        self.buf = rec.buf
        self.pos = rec.start
        self.end = rec.end

    def _need(self, n, what):
        left = self.end - self.pos
        if n > left:
            raise self.rec.error("field '%s' needs %d bytes but only %d remain in the record "
                                 "(content length %d)" % (what, n, left, self.rec.content_len))

    def u8(self, what):
        self._need(1, what)
        v = self.buf[self.pos]
        self.pos += 1
        return v

    def u16(self, what):
        self._need(2, what)
        v = struct.unpack_from("<H", self.buf, self.pos)[0]
        self.pos += 2
        return v

    def u32(self, what):
        self._need(4, what)
        v = struct.unpack_from("<I", self.buf, self.pos)[0]
        self.pos += 4
        return v

    def u64(self, what):
        self._need(8, what)
        v = struct.unpack_from("<Q", self.buf, self.pos)[0]
        self.pos += 8
        return v

    def raw(self, n, what):
        self._need(n, what)
        v = self.buf[self.pos:self.pos + n]
        self.pos += n
        return bytes(v)

    def string(self, what):
        n = self.u32(what + " length")
        data = self.raw(n, what)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.rec.error("field '%s' is not valid UTF-8 (%s)" % (what, exc))

    def bytes32(self, what):
        return self.raw(self.u32(what + " length"), what)

    def bytes64_span(self, what):
        """uint64 length-prefixed bytes; returns (start index, length) without copying."""
        n = self.u64(what + " length")
        self._need(n, what)
        start = self.pos
        self.pos += n
        return start, n

    def rest(self):
        v = bytes(self.buf[self.pos:self.end])
        self.pos = self.end
        return v

    def _sized_block(self, what):
        n = self.u32(what + " byte length")
        self._need(n, what)
        return self.pos + n

    def map_str_str(self, what):
        stop = self._sized_block(what)
        saved_end, self.end = self.end, stop
        out = {}
        try:
            while self.pos < stop:
                k = self.string(what + " key")
                v = self.string(what + " value")
                if k in out:
                    raise self.rec.error("field '%s' has duplicate key %r" % (what, k))
                out[k] = v
        finally:
            self.end = saved_end
        return out

    def map_u16_u64(self, what):
        stop = self._sized_block(what)
        if (stop - self.pos) % 10:
            raise self.rec.error("field '%s' byte length %d is not a multiple of 10 "
                                 "(uint16 key + uint64 value)" % (what, stop - self.pos))
        out = {}
        while self.pos < stop:
            k = struct.unpack_from("<H", self.buf, self.pos)[0]
            v = struct.unpack_from("<Q", self.buf, self.pos + 2)[0]
            self.pos += 10
            if k in out:
                raise self.rec.error("field '%s' has duplicate key %d" % (what, k))
            out[k] = v
        return out

    def tuples_u64_u64(self, what):
        stop = self._sized_block(what)
        if (stop - self.pos) % 16:
            raise self.rec.error("field '%s' byte length %d is not a multiple of 16 "
                                 "(Timestamp + uint64)" % (what, stop - self.pos))
        out = []
        while self.pos < stop:
            out.append(struct.unpack_from("<QQ", self.buf, self.pos))
            self.pos += 16
        return out


def _frame(buf, start, end, chunk, section):
    """Yield _Rec for each record tiling buf[start:end]; raise on bad framing."""
    pos = start
    while pos < end:
        left = end - pos
        if left < RECORD_PREFIX:
            raise McapError("truncated record: %d bytes remain in the %s but an opcode and "
                            "uint64 length need 9" % (left, section), pos, None, chunk)
        op = buf[pos]
        length = struct.unpack_from("<Q", buf, pos + 1)[0]
        cstart = pos + RECORD_PREFIX
        if length > end - cstart:
            raise McapError("truncated record: content length %d overruns the %s (only %d "
                            "bytes remain after the length field)" % (length, section, end - cstart),
                            pos, OPCODE_NAMES.get(op, "opcode 0x%02x" % op), chunk)
        yield _Rec(op, pos, chunk, buf, cstart, cstart + length)
        pos = cstart + length


# --------------------------------------------------------------------------------------
# CDR decoding (plain CDR, XCDR version 1) of the ROS 2 types we care about
# --------------------------------------------------------------------------------------

class _CdrError(Exception):
    pass


class _Cdr(object):
    def __init__(self, data):
        if len(data) < 4:
            raise _CdrError("payload of %d bytes is too short for the 4-byte CDR "
                            "encapsulation header" % len(data))
        if data[0] != 0 or data[1] not in (0, 1):
            raise _CdrError("unsupported CDR encapsulation identifier 0x%02x%02x (supported: "
                            "0x0000 CDR_BE, 0x0001 CDR_LE)" % (data[0], data[1]))
        self.data = data
        self.little = data[1] == 1
        self.e = "<" if self.little else ">"
        self.options = (data[2] << 8) | data[3]
        self.pos = 4

    def _need(self, n, what):
        if self.pos + n > len(self.data):
            raise _CdrError("%s needs %d bytes at payload offset %d but the payload has only "
                            "%d bytes" % (what, n, self.pos, len(self.data)))

    def align(self, n, what):
        pad = (-(self.pos - 4)) % n
        if pad:
            self._need(pad, what + " (alignment padding)")
            self.pos += pad

    def prim(self, code, size, what):
        self.align(size, what)
        self._need(size, what)
        v = struct.unpack_from(self.e + code, self.data, self.pos)[0]
        self.pos += size
        return v

    def u8(self, what):
        return self.prim("B", 1, what)

    def boolean(self, what):
        v = self.prim("B", 1, what)
        if v not in (0, 1):
            raise _CdrError("%s: boolean octet must be 0 or 1, found %d" % (what, v))
        return bool(v)

    def u32(self, what):
        return self.prim("I", 4, what)

    def i32(self, what):
        return self.prim("i", 4, what)

    def f64(self, what):
        return self.prim("d", 8, what)

    def string(self, what):
        n = self.u32(what + " length")
        if n == 0:
            raise _CdrError("%s: CDR string length is 0, but the length counts the terminating "
                            "NUL so it must be >= 1" % what)
        self._need(n, what)
        raw = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        if raw[-1] != 0:
            raise _CdrError("%s: CDR string is not NUL-terminated" % what)
        body = raw[:-1]
        if b"\x00" in body:
            raise _CdrError("%s: CDR string has an embedded NUL" % what)
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _CdrError("%s: string is not valid UTF-8 (%s)" % (what, exc))

    def octets(self, what):
        n = self.u32(what + " length")
        self._need(n, what)
        v = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        return v

    def sequence_length(self, what, min_element_size):
        n = self.u32(what + " length")
        left = len(self.data) - self.pos
        if n * min_element_size > left:
            raise _CdrError("%s: sequence length %d cannot fit in the %d bytes left"
                            % (what, n, left))
        return n

    def finish(self, what):
        left = len(self.data) - self.pos
        # XTypes lets the last two bits of the options hold the count of padding bytes
        # added at the end; accept up to 3 zero bytes of end padding.
        if left > 3 or any(self.data[self.pos:]):
            raise _CdrError("%s: %d unexpected bytes after the end of the message" % (what, left))


def _decode_time(c, what):
    return {"sec": c.i32(what + ".stamp.sec"), "nanosec": c.u32(what + ".stamp.nanosec")}


def _decode_header(c, what):
    stamp = _decode_time(c, what)
    frame_id = c.string(what + ".frame_id")
    return {"stamp": stamp, "frame_id": frame_id}


def decode_point_cloud2(payload):
    """Decode a CDR-encoded sensor_msgs/msg/PointCloud2 and check its consistency.

    Returns a dict; the point bytes are kept under ``data`` (use
    point_cloud_field_values() to get per-field numbers).  Raises ValueError.
    """
    try:
        return _decode_point_cloud2(payload)
    except _CdrError as exc:
        raise ValueError(str(exc))


def _decode_point_cloud2(payload):
    c = _Cdr(payload)
    header = _decode_header(c, "header")
    height = c.u32("height")
    width = c.u32("width")
    nfields = c.sequence_length("fields", 4 + 1 + 4 + 1 + 4)
    fields = []
    for i in range(nfields):
        w = "fields[%d]" % i
        name = c.string(w + ".name")
        offset = c.u32(w + ".offset")
        datatype = c.u8(w + ".datatype")
        count = c.u32(w + ".count")
        fields.append({"name": name, "offset": offset, "datatype": datatype, "count": count})
    is_bigendian = c.boolean("is_bigendian")
    point_step = c.u32("point_step")
    row_step = c.u32("row_step")
    data = c.octets("data")
    is_dense = c.boolean("is_dense")
    c.finish("PointCloud2")

    warnings = []
    seen = set()
    for i, f in enumerate(fields):
        t = POINTFIELD_TYPES.get(f["datatype"])
        if t is None:
            raise _CdrError("fields[%d] (%r): datatype %d is not one of the PointField constants "
                            "1..8" % (i, f["name"], f["datatype"]))
        f["datatype_name"] = t[0]
        if f["name"] in seen:
            raise _CdrError("fields[%d]: duplicate field name %r" % (i, f["name"]))
        seen.add(f["name"])
        if f["count"] == 0:
            warnings.append("field %r has count 0" % f["name"])
        end = f["offset"] + t[2] * f["count"]
        if end > point_step:
            raise _CdrError("fields[%d] (%r): offset %d + %d x %s ends at byte %d, beyond "
                            "point_step %d" % (i, f["name"], f["offset"], f["count"], t[0],
                                               end, point_step))
    if width and height and point_step == 0:
        raise _CdrError("point_step is 0 for a %d x %d cloud" % (width, height))
    if row_step < width * point_step:
        raise _CdrError("row_step %d is smaller than width %d x point_step %d"
                        % (row_step, width, point_step))
    if len(data) != row_step * height:
        raise _CdrError("data holds %d bytes but row_step %d x height %d = %d"
                        % (len(data), row_step, height, row_step * height))
    return {
        "header": header,
        "height": height,
        "width": width,
        "fields": fields,
        "is_bigendian": is_bigendian,
        "point_step": point_step,
        "row_step": row_step,
        "data": data,
        "is_dense": is_dense,
        "cdr_little_endian": c.little,
        "warnings": warnings,
    }


def decode_tf_message(payload):
    """Decode a CDR-encoded tf2_msgs/msg/TFMessage.  Raises ValueError."""
    try:
        c = _Cdr(payload)
        n = c.sequence_length("transforms", 4 + 4 + 5 + 5 + 56)
        transforms = []
        for i in range(n):
            w = "transforms[%d]" % i
            header = _decode_header(c, w + ".header")
            child = c.string(w + ".child_frame_id")
            t = [c.f64(w + ".transform.translation." + k) for k in "xyz"]
            q = [c.f64(w + ".transform.rotation." + k) for k in "xyzw"]
            transforms.append({
                "header": header,
                "child_frame_id": child,
                "translation": {"x": t[0], "y": t[1], "z": t[2]},
                "rotation": {"x": q[0], "y": q[1], "z": q[2], "w": q[3]},
            })
        c.finish("TFMessage")
    except _CdrError as exc:
        raise ValueError(str(exc))
    return {"transforms": transforms}


_FMT_CACHE = {}


def point_cloud_field_values(cloud):
    """Per-field value lists for a decoded cloud (dict from decode_point_cloud2).

    Returns {field name: [numbers]}; points are taken row by row, column by column
    (row r, column c at byte r*row_step + c*point_step); a field with count k yields
    k consecutive numbers per point.  Byte order follows is_bigendian.
    """
    data = cloud["data"]
    width, height = cloud["width"], cloud["height"]
    step, row_step = cloud["point_step"], cloud["row_step"]
    endian = ">" if cloud["is_bigendian"] else "<"
    out = {}
    for f in cloud["fields"]:
        _, code, size = POINTFIELD_TYPES[f["datatype"]]
        count = f["count"]
        values = []
        if width and count:
            pad = step - size * count
            key = (endian, code, count, pad, width)
            fmt = _FMT_CACHE.get(key)
            if fmt is None:
                one = "%d%s" % (count, code)
                fmt = struct.Struct(endian + ("%s%dx" % (one, pad)) * (width - 1) + one)
                if len(_FMT_CACHE) > 256:
                    _FMT_CACHE.clear()
                _FMT_CACHE[key] = fmt
            for r in range(height):
                values.extend(fmt.unpack_from(data, r * row_step + f["offset"]))
        out[f["name"]] = values
    return out


# --------------------------------------------------------------------------------------
# The checker
# --------------------------------------------------------------------------------------

class _Checker(object):
    def __init__(self, buf, expect_profile="ros2", decode=True):
        self.buf = buf
        self.size = len(buf)
        self.expect_profile = expect_profile
        self.decode = decode
        self.warnings = []
        self.header = None
        self.footer = None
        self.footer_offset = None
        self.data_end = None
        self.schemas = {}            # id -> dict (data section, incl. chunks)
        self.channels = {}           # id -> dict
        self.summary_schemas = {}
        self.summary_channels = {}
        self.messages = []
        self.chunks = {}             # file offset -> dict
        self.chunk_order = []
        self.attachments = {}        # offset -> dict
        self.metadata = {}           # offset -> dict
        self.message_indexes = {}    # offset -> dict
        self.chunk_indexes = []
        self.attachment_indexes = []
        self.metadata_indexes = []
        self.statistics = None
        self.summary_offsets = []
        self.summary_groups = []     # [opcode, start, length]
        self.summary_first = None
        self.summary_offset_first = None
        self.app_records = 0
        self.data_section_crc_status = "absent"
        self.summary_crc_status = "not computed"
        self.point_clouds = []
        self.tf_messages = []

    def warn(self, text):
        if text not in self.warnings:
            self.warnings.append(text)

    # ---------------------------------------------------------------- structure
    def run(self):
        self._check_magic()
        self._scan()
        self._check_chunks_and_indexes()
        self._check_summary()
        if self.decode:
            self._decode_messages()
        return self._report()

    def _check_magic(self):
        buf = self.buf
        if self.size < len(MAGIC) or bytes(buf[:8]) != MAGIC:
            raise McapError("bad leading magic: expected %s, found %s" % (
                MAGIC.hex(), bytes(buf[:8]).hex() or "(empty file)"), 0)
        minimum = 8 + RECORD_PREFIX + 8 + FOOTER_RECORD_LEN + 8
        if self.size < minimum:
            raise McapError("file is %d bytes, too short for magic, Header, Footer and trailing "
                            "magic (at least %d)" % (self.size, minimum), 0)
        if bytes(buf[-8:]) != MAGIC:
            raise McapError("bad trailing magic: expected %s, found %s (file truncated?)" % (
                MAGIC.hex(), bytes(buf[-8:]).hex()), self.size - 8)

    def _scan(self):
        end = self.size - 8
        state = "header"
        mi_chunk = None           # chunk whose Message Index run is open
        group = None
        closed_groups = set()
        for rec in _frame(self.buf, 8, end, None, "file (before the trailing magic)"):
            op = rec.op
            if op == OP_FOOTER:
                if rec.end != end:
                    raise rec.error("the Footer must be the last record before the trailing "
                                    "magic, but %d bytes follow it" % (end - rec.end))
                if state == "header":
                    raise rec.error("the first record after the magic must be a Header")
                if state == "data":
                    raise rec.error("the data section must end with a DataEnd record, but the "
                                    "Footer came first")
                self._footer(rec)
                break
            if state == "header":
                if op != OP_HEADER:
                    raise rec.error("the first record after the leading magic must be a Header "
                                    "(op 0x01)")
                self._header(rec)
                state = "data"
                continue
            if op == 0x00 or (0x10 <= op <= 0x7F) or op == OP_HEADER:
                if op == OP_HEADER:
                    raise rec.error("a second Header record")
                raise rec.error("invalid or unknown opcode 0x%02x (0x00 is invalid; 0x10-0x7F "
                                "are reserved and not defined by MCAP major version 0)" % op)
            if op >= 0x80:
                self.app_records += 1
                self.warn("application-specific record(s) (opcode 0x80-0xFF) were skipped, "
                          "first at offset %d" % rec.offset)
                mi_chunk = None
                continue
            if state == "data":
                if op not in DATA_SECTION_OPS:
                    raise rec.error("not allowed in the data section")
                if op == OP_MESSAGE_INDEX:
                    if mi_chunk is None:
                        raise rec.error("a Message Index record must directly follow a Chunk "
                                        "or another Message Index record")
                    self._message_index(rec, mi_chunk)
                    continue
                mi_chunk = None
                if op == OP_SCHEMA:
                    self._schema(rec, False)
                elif op == OP_CHANNEL:
                    self._channel(rec, False)
                elif op == OP_MESSAGE:
                    self._message(rec)
                elif op == OP_CHUNK:
                    self._chunk(rec)
                    mi_chunk = rec.offset
                elif op == OP_ATTACHMENT:
                    self._attachment(rec)
                elif op == OP_METADATA:
                    self._metadata(rec)
                elif op == OP_DATA_END:
                    self._data_end(rec)
                    state = "summary"
                continue
            if state == "summary" and op != OP_SUMMARY_OFFSET:
                if op not in SUMMARY_SECTION_OPS:
                    raise rec.error("not allowed in the summary section")
                if self.summary_first is None:
                    self.summary_first = rec.offset
                if group is not None and group[0] == op:
                    group[2] += rec.total_len
                else:
                    if op in closed_groups:
                        raise rec.error("summary records must be grouped by opcode, but a second "
                                        "run of %s records starts here" % rec.name)
                    if group is not None:
                        closed_groups.add(group[0])
                    group = [op, rec.offset, rec.total_len]
                    self.summary_groups.append(group)
                if op == OP_SCHEMA:
                    self._schema(rec, True)
                elif op == OP_CHANNEL:
                    self._channel(rec, True)
                elif op == OP_CHUNK_INDEX:
                    self._chunk_index(rec)
                elif op == OP_ATTACHMENT_INDEX:
                    self._attachment_index(rec)
                elif op == OP_STATISTICS:
                    self._statistics(rec)
                elif op == OP_METADATA_INDEX:
                    self._metadata_index(rec)
                continue
            # summary offset section
            if op != OP_SUMMARY_OFFSET:
                raise rec.error("only Summary Offset records may follow the first Summary "
                                "Offset record")
            if state != "summary_offset":
                state = "summary_offset"
                self.summary_offset_first = rec.offset
            self._summary_offset(rec)
        else:
            raise McapError("no Footer record before the trailing magic", end)

    # ---------------------------------------------------------------- records
    def _header(self, rec):
        c = rec.cursor()
        profile = c.string("profile")
        library = c.string("library")
        self.header = {"profile": profile, "library": library, "offset": rec.offset}
        if self.expect_profile is not None and profile != self.expect_profile:
            raise rec.error("profile is %r, expected %r" % (profile, self.expect_profile))

    def _ros2(self):
        return self.header is not None and self.header["profile"] == "ros2"

    def _schema(self, rec, in_summary):
        c = rec.cursor()
        sid = c.u16("id")
        name = c.string("name")
        encoding = c.string("encoding")
        data = c.bytes32("data")
        if sid == 0:
            raise rec.error("Schema id 0 is invalid")
        if encoding == "" and data:
            self.warn("Schema id %d at %s: encoding is empty but data holds %d bytes (should be "
                      "empty)" % (sid, _where(rec.offset, rec.chunk), len(data)))
        if self._ros2() and encoding not in ("ros2msg", "ros2idl"):
            raise rec.error("profile ros2 requires schema encoding 'ros2msg' or 'ros2idl', "
                            "found %r" % encoding)
        info = {"id": sid, "name": name, "encoding": encoding, "data": data,
                "offset": rec.offset, "chunk": rec.chunk}
        known = self.schemas.get(sid)
        if known is not None and (known["name"], known["encoding"], known["data"]) != (
                name, encoding, data):
            raise rec.error("Schema id %d differs from the Schema with the same id at %s"
                            % (sid, _where(known["offset"], known["chunk"])))
        if in_summary:
            prev = self.summary_schemas.get(sid)
            if prev is not None and (prev["name"], prev["encoding"], prev["data"]) != (
                    name, encoding, data):
                raise rec.error("Schema id %d differs from an earlier summary Schema" % sid)
            if known is None:
                self.warn("summary Schema id %d (offset %d) duplicates no Schema of the data "
                          "section" % (sid, rec.offset))
            self.summary_schemas[sid] = info
        elif known is None:
            self.schemas[sid] = info

    def _channel(self, rec, in_summary):
        c = rec.cursor()
        cid = c.u16("id")
        schema_id = c.u16("schema_id")
        topic = c.string("topic")
        encoding = c.string("message_encoding")
        metadata = c.map_str_str("metadata")
        if schema_id != 0 and schema_id not in self.schemas and schema_id not in self.summary_schemas:
            raise rec.error("Channel %d refers to Schema id %d, which has not appeared earlier "
                            "in the file" % (cid, schema_id))
        if self._ros2():
            if encoding != "cdr":
                raise rec.error("profile ros2 requires message_encoding 'cdr', found %r" % encoding)
            if schema_id == 0:
                self.warn("channel %d (%s) has no schema (schema_id 0)" % (cid, topic))
            if "offered_qos_profiles" not in metadata:
                self.warn("channel %d (%s): metadata lacks 'offered_qos_profiles', which the ros2 "
                          "profile lists as required" % (cid, topic))
        info = {"id": cid, "schema_id": schema_id, "topic": topic, "message_encoding": encoding,
                "metadata": metadata, "offset": rec.offset, "chunk": rec.chunk}
        key = (schema_id, topic, encoding, metadata)
        known = self.channels.get(cid)
        if known is not None and (known["schema_id"], known["topic"], known["message_encoding"],
                                  known["metadata"]) != key:
            raise rec.error("Channel id %d differs from the Channel with the same id at %s"
                            % (cid, _where(known["offset"], known["chunk"])))
        if in_summary:
            prev = self.summary_channels.get(cid)
            if prev is not None and (prev["schema_id"], prev["topic"], prev["message_encoding"],
                                     prev["metadata"]) != key:
                raise rec.error("Channel id %d differs from an earlier summary Channel" % cid)
            if known is None:
                self.warn("summary Channel id %d (offset %d) duplicates no Channel of the data "
                          "section" % (cid, rec.offset))
            self.summary_channels[cid] = info
        elif known is None:
            self.channels[cid] = info

    def _message(self, rec, chunk_info=None):
        if rec.content_len < 22:
            raise rec.error("content length %d is below the 22 bytes of channel_id, sequence, "
                            "log_time and publish_time" % rec.content_len)
        c = rec.cursor()
        cid = c.u16("channel_id")
        seq = c.u32("sequence")
        log_time = c.u64("log_time")
        publish_time = c.u64("publish_time")
        data = c.rest()
        if cid not in self.channels:
            raise rec.error("channel_id %d has no Channel record earlier in the file" % cid)
        msg = {"channel_id": cid, "sequence": seq, "log_time": log_time,
               "publish_time": publish_time, "data": data, "offset": rec.offset,
               "chunk": rec.chunk}
        self.messages.append(msg)
        if chunk_info is not None:
            chunk_info["messages"].append(msg)
            chunk_info["by_offset"][rec.offset] = msg

    def _decompress(self, rec, compression, payload, uncompressed_size):
        if compression == "":
            return payload
        if compression == "zstd":
            try:
                import zstandard  # optional
            except ImportError:
                raise UnsupportedCompression(
                    "compression 'zstd' not supported by this checker (the optional 'zstandard' "
                    "module is not importable)", rec.offset, rec.name, rec.chunk)
            try:
                return zstandard.ZstdDecompressor().decompressobj().decompress(payload)
            except Exception as exc:  # zstandard.ZstdError
                raise rec.error("zstd decompression failed: %s" % exc)
        if compression == "lz4":
            try:
                import lz4.frame  # optional
            except ImportError:
                raise UnsupportedCompression(
                    "compression 'lz4' not supported by this checker (the optional 'lz4' module "
                    "is not importable)", rec.offset, rec.name, rec.chunk)
            try:
                if payload[:4] == b"\x04\x22\x4d\x18":       # LZ4 frame magic 0x184D2204
                    return lz4.frame.decompress(payload)
                import lz4.block
                self.warn("Chunk at offset %d: lz4 data has no LZ4 frame header; decoded as a "
                          "raw LZ4 block" % rec.offset)
                return lz4.block.decompress(payload, uncompressed_size=uncompressed_size)
            except Exception as exc:
                raise rec.error("lz4 decompression failed: %s" % exc)
        raise rec.error("unknown compression %r (well-known: '', 'lz4', 'zstd')" % compression)

    def _chunk(self, rec):
        c = rec.cursor()
        start_time = c.u64("message_start_time")
        end_time = c.u64("message_end_time")
        usize = c.u64("uncompressed_size")
        ucrc = c.u32("uncompressed_crc")
        compression = c.string("compression")
        rstart, rlen = c.bytes64_span("records")
        payload = bytes(self.buf[rstart:rstart + rlen])
        raw = self._decompress(rec, compression, payload, usize)
        if len(raw) != usize:
            raise rec.error("uncompressed_size is %d but the records field holds %d bytes "
                            "uncompressed" % (usize, len(raw)))
        if ucrc != 0:
            actual = crc32(raw)
            if actual != ucrc:
                raise rec.error("uncompressed_crc mismatch: stored 0x%08x, computed 0x%08x"
                                % (ucrc, actual))
        info = {"offset": rec.offset, "length": rec.total_len, "message_start_time": start_time,
                "message_end_time": end_time, "uncompressed_size": usize,
                "uncompressed_crc": ucrc, "compression": compression, "compressed_size": rlen,
                "messages": [], "by_offset": {}, "message_indexes": []}
        for inner in _frame(raw, 0, len(raw), rec.offset, "chunk records"):
            if inner.op not in CHUNK_OPS:
                raise inner.error("only Schema, Channel and Message records may appear in a Chunk")
            if inner.op == OP_SCHEMA:
                self._schema(inner, False)
            elif inner.op == OP_CHANNEL:
                self._channel(inner, False)
            else:
                self._message(inner, info)
        if info["messages"]:
            lo = min(m["log_time"] for m in info["messages"])
            hi = max(m["log_time"] for m in info["messages"])
        else:
            lo = hi = 0
        if (start_time, end_time) != (lo, hi):
            raise rec.error("message_start_time/message_end_time are %d/%d but the chunk's "
                            "messages span log_time %d..%d" % (start_time, end_time, lo, hi))
        self.chunks[rec.offset] = info
        self.chunk_order.append(rec.offset)

    def _message_index(self, rec, chunk_offset):
        c = rec.cursor()
        cid = c.u16("channel_id")
        entries = c.tuples_u64_u64("records")
        chunk = self.chunks[chunk_offset]
        for other in chunk["message_indexes"]:
            if self.message_indexes[other]["channel_id"] == cid:
                raise rec.error("a second Message Index for channel %d after the Chunk at offset "
                                "%d" % (cid, chunk_offset))
        for i, (log_time, off) in enumerate(entries):
            msg = chunk["by_offset"].get(off)
            if msg is None:
                raise rec.error("entry %d: offset %d does not point at a Message record in the "
                                "Chunk at offset %d" % (i, off, chunk_offset))
            if msg["channel_id"] != cid:
                raise rec.error("entry %d: the Message at chunk offset %d is on channel %d, not "
                                "%d" % (i, off, msg["channel_id"], cid))
            if msg["log_time"] != log_time:
                raise rec.error("entry %d: log_time %d differs from the Message's log_time %d"
                                % (i, log_time, msg["log_time"]))
        if len(set(off for _, off in entries)) != len(entries):
            raise rec.error("the same message offset is listed twice")
        self.message_indexes[rec.offset] = {"channel_id": cid, "entries": entries,
                                            "chunk": chunk_offset, "length": rec.total_len}
        chunk["message_indexes"].append(rec.offset)

    def _attachment(self, rec):
        c = rec.cursor()
        log_time = c.u64("log_time")
        create_time = c.u64("create_time")
        name = c.string("name")
        media_type = c.string("media_type")
        dstart, dlen = c.bytes64_span("data")
        crc_pos = c.pos
        stored = c.u32("crc")
        if stored != 0:
            actual = crc32(self.buf[rec.start:crc_pos])
            if actual != stored:
                raise rec.error("crc mismatch: stored 0x%08x, computed 0x%08x" % (stored, actual))
        self.attachments[rec.offset] = {"log_time": log_time, "create_time": create_time,
                                        "name": name, "media_type": media_type,
                                        "data_size": dlen, "length": rec.total_len}

    def _metadata(self, rec):
        c = rec.cursor()
        name = c.string("name")
        md = c.map_str_str("metadata")
        self.metadata[rec.offset] = {"name": name, "metadata": md, "length": rec.total_len}

    def _data_end(self, rec):
        c = rec.cursor()
        stored = c.u32("data_section_crc")
        self.data_end = {"offset": rec.offset, "data_section_crc": stored}
        if stored == 0:
            self.data_section_crc_status = "not computed"
            return
        actual = crc32(self.buf[0:rec.offset])
        if actual != stored:
            raise rec.error("data_section_crc mismatch: stored 0x%08x, computed 0x%08x over "
                            "bytes 0..%d" % (stored, actual, rec.offset))
        self.data_section_crc_status = "verified"

    def _footer(self, rec):
        if rec.content_len != FOOTER_CONTENT_LEN:
            raise rec.error("content length is %d, the Footer has exactly %d"
                            % (rec.content_len, FOOTER_CONTENT_LEN))
        c = rec.cursor()
        self.footer = {"summary_start": c.u64("summary_start"),
                       "summary_offset_start": c.u64("summary_offset_start"),
                       "summary_crc": c.u32("summary_crc"), "offset": rec.offset}
        self.footer_offset = rec.offset

    def _chunk_index(self, rec):
        c = rec.cursor()
        ci = {"offset": rec.offset,
              "message_start_time": c.u64("message_start_time"),
              "message_end_time": c.u64("message_end_time"),
              "chunk_start_offset": c.u64("chunk_start_offset"),
              "chunk_length": c.u64("chunk_length"),
              "message_index_offsets": c.map_u16_u64("message_index_offsets"),
              "message_index_length": c.u64("message_index_length"),
              "compression": c.string("compression"),
              "compressed_size": c.u64("compressed_size"),
              "uncompressed_size": c.u64("uncompressed_size")}
        self.chunk_indexes.append(ci)

    def _attachment_index(self, rec):
        c = rec.cursor()
        self.attachment_indexes.append({
            "offset": rec.offset, "attachment_offset": c.u64("offset"), "length": c.u64("length"),
            "log_time": c.u64("log_time"), "create_time": c.u64("create_time"),
            "data_size": c.u64("data_size"), "name": c.string("name"),
            "media_type": c.string("media_type")})

    def _statistics(self, rec):
        if self.statistics is not None:
            raise rec.error("a second Statistics record (the file should contain at most one)")
        c = rec.cursor()
        self.statistics = {
            "offset": rec.offset,
            "message_count": c.u64("message_count"),
            "schema_count": c.u16("schema_count"),
            "channel_count": c.u32("channel_count"),
            "attachment_count": c.u32("attachment_count"),
            "metadata_count": c.u32("metadata_count"),
            "chunk_count": c.u32("chunk_count"),
            "message_start_time": c.u64("message_start_time"),
            "message_end_time": c.u64("message_end_time"),
            "channel_message_counts": c.map_u16_u64("channel_message_counts"),
        }

    def _metadata_index(self, rec):
        c = rec.cursor()
        self.metadata_indexes.append({"offset": rec.offset, "metadata_offset": c.u64("offset"),
                                      "length": c.u64("length"), "name": c.string("name")})

    def _summary_offset(self, rec):
        c = rec.cursor()
        self.summary_offsets.append({"offset": rec.offset, "group_opcode": c.u8("group_opcode"),
                                     "group_start": c.u64("group_start"),
                                     "group_length": c.u64("group_length")})

    # ---------------------------------------------------------------- cross checks
    def _check_chunks_and_indexes(self):
        for off in self.chunk_order:
            chunk = self.chunks[off]
            if not chunk["message_indexes"]:
                continue
            per_channel = {}
            for m in chunk["messages"]:
                per_channel[m["channel_id"]] = per_channel.get(m["channel_id"], 0) + 1
            indexed = {}
            for mi_off in chunk["message_indexes"]:
                mi = self.message_indexes[mi_off]
                indexed[mi["channel_id"]] = (mi_off, len(mi["entries"]))
            for cid, n in sorted(per_channel.items()):
                if cid not in indexed:
                    raise McapError("channel %d has %d message(s) in this chunk but no Message "
                                    "Index record follows it" % (cid, n), off, "Chunk")
                mi_off, got = indexed[cid]
                if got != n:
                    raise McapError("lists %d message(s) of channel %d but the Chunk at offset %d "
                                    "holds %d" % (got, cid, off, n), mi_off, "MessageIndex")
            for cid, (mi_off, got) in indexed.items():
                if cid not in per_channel and got:
                    raise McapError("indexes channel %d, which has no message in the chunk"
                                    % cid, mi_off, "MessageIndex")

    def _check_summary(self):
        f = self.footer
        fo = self.footer_offset
        # Footer offsets.  With no records in a section the field "should be 0"; a value
        # pointing exactly at where the (empty) section would start is tolerated with a warning.
        empty_summary_at = self.summary_offset_first or fo
        if self.summary_first is not None:
            if f["summary_start"] != self.summary_first:
                raise McapError("summary_start is %d but the first summary record is at %d"
                                % (f["summary_start"], self.summary_first), fo, "Footer")
        elif f["summary_start"] not in (0, empty_summary_at):
            raise McapError("summary_start is %d but there are no summary records (should be 0)"
                            % f["summary_start"], fo, "Footer")
        elif f["summary_start"]:
            self.warn("Footer summary_start is %d although the summary section is empty (should "
                      "be 0)" % f["summary_start"])
        if self.summary_offset_first is not None:
            if f["summary_offset_start"] != self.summary_offset_first:
                raise McapError("summary_offset_start is %d but the first Summary Offset record "
                                "is at %d" % (f["summary_offset_start"],
                                              self.summary_offset_first), fo, "Footer")
        elif f["summary_offset_start"] not in (0, fo):
            raise McapError("summary_offset_start is %d but there are no Summary Offset records "
                            "(should be 0)" % f["summary_offset_start"], fo, "Footer")
        elif f["summary_offset_start"]:
            self.warn("Footer summary_offset_start is %d although there are no Summary Offset "
                      "records (should be 0)" % f["summary_offset_start"])
        if f["summary_crc"] != 0:
            start = f["summary_start"] or f["summary_offset_start"] or fo
            stop = fo + RECORD_PREFIX + 16
            actual = crc32(self.buf[start:stop])
            if actual != f["summary_crc"]:
                raise McapError("summary_crc mismatch: stored 0x%08x, computed 0x%08x over bytes "
                                "%d..%d" % (f["summary_crc"], actual, start, stop), fo, "Footer")
            self.summary_crc_status = "verified"

        # Summary Offset records
        groups = dict((g[0], g) for g in self.summary_groups)
        seen_ops = set()
        for so in self.summary_offsets:
            op = so["group_opcode"]
            name = OPCODE_NAMES.get(op, "opcode 0x%02x" % op)
            if op in seen_ops:
                raise McapError("a second Summary Offset for group %s" % name, so["offset"],
                                "SummaryOffset")
            seen_ops.add(op)
            g = groups.get(op)
            if g is None:
                raise McapError("group_opcode 0x%02x (%s): the summary section has no such group"
                                % (op, name), so["offset"], "SummaryOffset")
            if so["group_start"] != g[1] or so["group_length"] != g[2]:
                raise McapError("group %s is at offset %d with length %d, but the record says "
                                "start %d length %d" % (name, g[1], g[2], so["group_start"],
                                                        so["group_length"]),
                                so["offset"], "SummaryOffset")

        # Chunk Index records
        indexed_chunks = {}
        for ci in self.chunk_indexes:
            where = ci["offset"]

            def bad(msg, where=where):
                return McapError(msg, where, "ChunkIndex")

            chunk = self.chunks.get(ci["chunk_start_offset"])
            if chunk is None:
                raise bad("chunk_start_offset %d does not point at a Chunk record (chunks are at "
                          "%s)" % (ci["chunk_start_offset"],
                                   ", ".join(str(o) for o in self.chunk_order) or "none"))
            if ci["chunk_start_offset"] in indexed_chunks:
                raise bad("a second Chunk Index for the Chunk at offset %d"
                          % ci["chunk_start_offset"])
            indexed_chunks[ci["chunk_start_offset"]] = ci
            for key, ckey in (("chunk_length", "length"),
                              ("message_start_time", "message_start_time"),
                              ("message_end_time", "message_end_time"),
                              ("compression", "compression"),
                              ("compressed_size", "compressed_size"),
                              ("uncompressed_size", "uncompressed_size")):
                if ci[key] != chunk[ckey]:
                    raise bad("%s is %r but the Chunk at offset %d has %r" % (
                        key, ci[key], chunk["offset"], chunk[ckey]))
            mio = ci["message_index_offsets"]
            actual = dict((self.message_indexes[o]["channel_id"], o)
                          for o in chunk["message_indexes"])
            mi_total = sum(self.message_indexes[o]["length"] for o in chunk["message_indexes"])
            if mio:
                for cid, off in sorted(mio.items()):
                    if actual.get(cid) != off:
                        raise bad("message_index_offsets[%d] = %d does not point at the Message "
                                  "Index of channel %d after the Chunk at offset %d (%s)" % (
                                      cid, off, cid, chunk["offset"],
                                      "it is at %d" % actual[cid] if cid in actual
                                      else "there is none"))
                if set(mio) != set(actual):
                    raise bad("message_index_offsets covers channels %s but Message Index "
                              "records follow the chunk for channels %s"
                              % (sorted(mio), sorted(actual)))
                if ci["message_index_length"] != mi_total:
                    raise bad("message_index_length is %d but the Message Index records after "
                              "the chunk take %d bytes" % (ci["message_index_length"], mi_total))
            elif ci["message_index_length"] not in (0, mi_total):
                raise bad("message_index_length is %d but the Message Index records after the "
                          "chunk take %d bytes" % (ci["message_index_length"], mi_total))
            for cid in mio:
                ch = self.summary_channels.get(cid)
                if ch is None:
                    raise bad("channel %d is referenced but the summary section has no Channel "
                              "record for it" % cid)
                if ch["schema_id"] and ch["schema_id"] not in self.summary_schemas:
                    raise bad("channel %d's Schema %d is missing from the summary section"
                              % (cid, ch["schema_id"]))
        if self.chunk_indexes:
            for off in self.chunk_order:
                if off not in indexed_chunks:
                    raise McapError("has no Chunk Index record although the summary section holds "
                                    "Chunk Index records", off, "Chunk")
            if any(m["chunk"] is None for m in self.messages):
                self.warn("messages outside chunks in a file with Chunk Index records cannot be "
                          "found through the index")
        elif self.chunk_order and self.summary_first is not None:
            self.warn("the file has chunks and a summary section but no Chunk Index records")

        # Attachment / Metadata indexes
        seen = set()
        for ai in self.attachment_indexes:
            att = self.attachments.get(ai["attachment_offset"])
            if att is None:
                raise McapError("offset %d does not point at an Attachment record"
                                % ai["attachment_offset"], ai["offset"], "AttachmentIndex")
            seen.add(ai["attachment_offset"])
            for key in ("length", "log_time", "create_time", "data_size", "name", "media_type"):
                if ai[key] != att[key]:
                    raise McapError("%s is %r but the Attachment at offset %d has %r" % (
                        key, ai[key], ai["attachment_offset"], att[key]), ai["offset"],
                        "AttachmentIndex")
        if self.summary_first is not None and set(self.attachments) - seen:
            self.warn("attachment(s) without Attachment Index records: offsets %s"
                      % sorted(set(self.attachments) - seen))
        for mi in self.metadata_indexes:
            md = self.metadata.get(mi["metadata_offset"])
            if md is None:
                raise McapError("offset %d does not point at a Metadata record"
                                % mi["metadata_offset"], mi["offset"], "MetadataIndex")
            if mi["length"] != md["length"] or mi["name"] != md["name"]:
                raise McapError("length/name %d/%r differ from the Metadata record's %d/%r" % (
                    mi["length"], mi["name"], md["length"], md["name"]), mi["offset"],
                    "MetadataIndex")

        # Statistics
        st = self.statistics
        if st is not None:
            def bad(msg):
                return McapError(msg, st["offset"], "Statistics")

            times = [m["log_time"] for m in self.messages]
            expect = {
                "message_count": len(self.messages),
                "schema_count": len(self.schemas),
                "channel_count": len(self.channels),
                "attachment_count": len(self.attachments),
                "metadata_count": len(self.metadata),
                "chunk_count": len(self.chunk_order),
                "message_start_time": min(times) if times else 0,
                "message_end_time": max(times) if times else 0,
            }
            for key in ("message_count", "schema_count", "channel_count", "attachment_count",
                        "metadata_count", "chunk_count", "message_start_time",
                        "message_end_time"):
                if st[key] == expect[key]:
                    continue
                # A Schema/Channel present only as a summary copy (registered, never used)
                # may or may not be counted as "in the file": accept both readings.
                if key == "schema_count" and st[key] == len(
                        set(self.schemas) | set(self.summary_schemas)):
                    continue
                if key == "channel_count" and st[key] == len(
                        set(self.channels) | set(self.summary_channels)):
                    continue
                raise bad("%s is %d but the file has %d" % (key, st[key], expect[key]))
            cmc = st["channel_message_counts"]
            if cmc:
                counts = self._channel_counts()
                for cid, n in sorted(counts.items()):
                    if cmc.get(cid) != n:
                        raise bad("channel_message_counts[%d] is %s but channel %d has %d "
                                  "message(s)" % (cid, cmc.get(cid, "missing"), cid, n))
                for cid, n in sorted(cmc.items()):
                    if cid not in self.channels and cid not in self.summary_channels:
                        raise bad("channel_message_counts names unknown channel %d" % cid)
                    if n != counts.get(cid, 0):
                        raise bad("channel_message_counts[%d] is %d but the channel has %d "
                                  "message(s)" % (cid, n, counts.get(cid, 0)))
                for cid in sorted(set(self.channels) | set(cmc)):
                    ch = self.summary_channels.get(cid)
                    if ch is None or ch["offset"] > st["offset"]:
                        raise bad("non-empty channel_message_counts requires a summary copy of "
                                  "every Channel before the Statistics record; channel %d has "
                                  "none" % cid)

    def _channel_counts(self):
        counts = {}
        for m in self.messages:
            counts[m["channel_id"]] = counts.get(m["channel_id"], 0) + 1
        return counts

    # ---------------------------------------------------------------- decoding
    def _decode_messages(self):
        for m in self.messages:
            ch = self.channels[m["channel_id"]]
            schema = self.schemas.get(ch["schema_id"]) or self.summary_schemas.get(ch["schema_id"])
            sname = schema["name"] if schema else ""
            if ch["message_encoding"] != "cdr":
                continue
            if sname in POINTCLOUD2_SCHEMAS:
                kind = "PointCloud2"
            elif sname in TFMESSAGE_SCHEMAS:
                kind = "TFMessage"
            else:
                continue
            try:
                if kind == "PointCloud2":
                    decoded = _decode_point_cloud2(m["data"])
                else:
                    decoded = decode_tf_message(m["data"])
            except (_CdrError, ValueError) as exc:
                raise McapError("CDR %s on topic %r: %s" % (sname, ch["topic"], exc),
                                m["offset"], "Message", m["chunk"])
            base = {"topic": ch["topic"], "channel_id": m["channel_id"],
                    "sequence": m["sequence"], "log_time": m["log_time"],
                    "publish_time": m["publish_time"], "offset": m["offset"],
                    "chunk_offset": m["chunk"]}
            if kind == "PointCloud2":
                for w in decoded.pop("warnings"):
                    self.warn("PointCloud2 at %s: %s" % (_where(m["offset"], m["chunk"]), w))
                base.update(decoded)
                self.point_clouds.append(base)
            else:
                base.update(decoded)
                self.tf_messages.append(base)

    # ---------------------------------------------------------------- report
    def _report(self):
        counts = self._channel_counts()
        channels = []
        for cid in sorted(set(self.channels) | set(self.summary_channels)):
            ch = self.channels.get(cid) or self.summary_channels[cid]
            schema = self.schemas.get(ch["schema_id"]) or self.summary_schemas.get(ch["schema_id"])
            channels.append({
                "id": cid, "topic": ch["topic"], "message_encoding": ch["message_encoding"],
                "schema_id": ch["schema_id"],
                "schema_name": schema["name"] if schema else "",
                "schema_encoding": schema["encoding"] if schema else "",
                "metadata": ch["metadata"], "message_count": counts.get(cid, 0)})
        times = [m["log_time"] for m in self.messages]
        comp = sorted(set(self.chunks[o]["compression"] for o in self.chunk_order))
        return {
            "file_size": self.size,
            "profile": self.header["profile"],
            "library": self.header["library"],
            "message_count": len(self.messages),
            "messages_in_chunks": sum(1 for m in self.messages if m["chunk"] is not None),
            "message_start_time": min(times) if times else 0,
            "message_end_time": max(times) if times else 0,
            "chunk_count": len(self.chunk_order),
            "chunk_compressions": comp,
            "message_index_count": len(self.message_indexes),
            "attachment_count": len(self.attachments),
            "metadata_count": len(self.metadata),
            "channels": channels,
            "schemas": [{"id": s["id"], "name": s["name"], "encoding": s["encoding"]}
                        for _, s in sorted(self.schemas.items())],
            "summary": {
                "present": self.summary_first is not None,
                "summary_start": self.footer["summary_start"],
                "summary_offset_start": self.footer["summary_offset_start"],
                "groups": [{"opcode": g[0], "name": OPCODE_NAMES.get(g[0], "?"),
                            "start": g[1], "length": g[2]} for g in self.summary_groups],
                "summary_offsets": len(self.summary_offsets),
                "chunk_indexes": len(self.chunk_indexes),
                "statistics": dict((k, v) for k, v in (self.statistics or {}).items()
                                   if k != "offset") or None,
            },
            "crc": {
                "data_section_crc": self.data_section_crc_status,
                "summary_crc": self.summary_crc_status,
                "chunks_with_crc": sum(1 for o in self.chunk_order
                                       if self.chunks[o]["uncompressed_crc"]),
            },
            "point_clouds": self.point_clouds,
            "tf_messages": self.tf_messages,
            "warnings": list(self.warnings),
        }


# --------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------

def check_bytes(data, expect_profile="ros2"):
    """Validate an in-memory MCAP file; return a report dict or raise McapError."""
    return _Checker(bytes(data), expect_profile).run()


def check_file(path, expect_profile="ros2"):
    """Validate the MCAP file at ``path``; return a report dict or raise McapError.

    ``expect_profile``: the Header profile required ('ros2' by default; None accepts
    any profile, the ros2-specific rules then apply only when the profile is 'ros2').
    """
    with open(path, "rb") as fh:
        data = fh.read()
    return _Checker(data, expect_profile).run()


def read_point_clouds(path, expect_profile="ros2"):
    """Validate ``path`` and return its PointCloud2 messages, in file order.

    Each item is a dict::

        {"topic", "channel_id", "sequence", "log_time", "publish_time",
         "offset", "chunk_offset",
         "header": {"stamp": {"sec", "nanosec"}, "frame_id"},
         "height", "width", "is_bigendian", "point_step", "row_step", "is_dense",
         "data": bytes,
         "fields": [{"name", "offset", "datatype", "datatype_name", "count",
                     "values": [numbers]}, ...],
         "values": {field name: [numbers]}}

    ``values`` lists every point of the cloud (row-major; count numbers per point).
    """
    report = check_file(path, expect_profile)
    out = []
    for cloud in report["point_clouds"]:
        values = point_cloud_field_values(cloud)
        item = dict(cloud)
        item["fields"] = [dict(f, values=values[f["name"]]) for f in cloud["fields"]]
        item["values"] = values
        out.append(item)
    return out


def read_tf_messages(path, expect_profile="ros2"):
    """Validate ``path`` and return its tf2_msgs/msg/TFMessage messages, in file order."""
    return check_file(path, expect_profile)["tf_messages"]


# --------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------

def _stamp(h):
    sec, nsec = h["stamp"]["sec"], h["stamp"]["nanosec"]
    if sec >= 0 and nsec < 1000000000:
        return "%d.%09d" % (sec, nsec)
    return "(sec %d, nanosec %d)" % (sec, nsec)


def _json_ready(report, with_values):
    rep = dict(report)
    clouds = []
    for cloud in report["point_clouds"]:
        c = dict((k, v) for k, v in cloud.items() if k != "data")
        c["data_length"] = len(cloud["data"])
        if with_values:
            c["values"] = point_cloud_field_values(cloud)
        clouds.append(c)
    rep["point_clouds"] = clouds
    return rep


def _print_text(path, rep, out):
    w = out.write
    w("OK: %s is a valid MCAP file (%d bytes), profile %r, library %r\n"
      % (path, rep["file_size"], rep["profile"], rep["library"]))
    w("  messages: %d (%d in chunks), log_time %d..%d\n" % (
        rep["message_count"], rep["messages_in_chunks"], rep["message_start_time"],
        rep["message_end_time"]))
    w("  chunks: %d%s, message indexes: %d, attachments: %d, metadata: %d\n" % (
        rep["chunk_count"],
        " (compression %s)" % ", ".join(repr(c) for c in rep["chunk_compressions"])
        if rep["chunk_count"] else "", rep["message_index_count"], rep["attachment_count"],
        rep["metadata_count"]))
    s = rep["summary"]
    if s["present"]:
        w("  summary: groups %s; %d summary offset record(s); statistics %s\n" % (
            ", ".join("%s x%dB" % (g["name"], g["length"]) for g in s["groups"]),
            s["summary_offsets"], "present" if s["statistics"] else "absent"))
    else:
        w("  summary: none\n")
    w("  crc: data section %s, summary %s, %d/%d chunk(s) with CRC verified\n" % (
        rep["crc"]["data_section_crc"], rep["crc"]["summary_crc"],
        rep["crc"]["chunks_with_crc"], rep["chunk_count"]))
    w("channels:\n")
    for ch in rep["channels"]:
        w("  [%d] %s  schema %s (%s)  encoding %s  messages %d\n" % (
            ch["id"], ch["topic"], ch["schema_name"] or "-", ch["schema_encoding"] or "-",
            ch["message_encoding"], ch["message_count"]))
    if rep["point_clouds"]:
        w("PointCloud2 messages:\n")
        for pc in rep["point_clouds"]:
            w("  %s log_time %d stamp %s frame %r: %d x %d, point_step %d, row_step %d, %s, "
              "dense %s, fields %s\n" % (
                  pc["topic"], pc["log_time"], _stamp(pc["header"]), pc["header"]["frame_id"],
                  pc["width"], pc["height"], pc["point_step"], pc["row_step"],
                  "big-endian" if pc["is_bigendian"] else "little-endian", pc["is_dense"],
                  ", ".join("%s:%s@%d%s" % (f["name"], f["datatype_name"], f["offset"],
                                            "x%d" % f["count"] if f["count"] != 1 else "")
                            for f in pc["fields"])))
    if rep["tf_messages"]:
        pairs = {}
        for tf in rep["tf_messages"]:
            for t in tf["transforms"]:
                key = (tf["topic"], t["header"]["frame_id"], t["child_frame_id"])
                pairs[key] = pairs.get(key, 0) + 1
        w("tf frames:\n")
        for (topic, parent, child), n in sorted(pairs.items()):
            w("  %s: %s -> %s (%d transform(s))\n" % (topic, parent, child, n))
    for text in rep["warnings"]:
        w("warning: %s\n" % text)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Validate an MCAP file (ROS 2 profile) and decode its "
                    "sensor_msgs/msg/PointCloud2 and tf2_msgs/msg/TFMessage messages.")
    ap.add_argument("file")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--values", action="store_true",
                    help="with --json: include every point's field values")
    ap.add_argument("--any-profile", action="store_true",
                    help="accept any Header profile (default: require 'ros2')")
    args = ap.parse_args(argv)
    try:
        rep = check_file(args.file, None if args.any_profile else "ros2")
    except UnsupportedCompression as exc:
        _fail(args, exc, "unsupported")
        return 3
    except McapError as exc:
        _fail(args, exc, "invalid")
        return 1
    except (OSError, MemoryError) as exc:
        sys.stderr.write("mcap_check: cannot read %s: %s\n" % (args.file, exc))
        return 2
    if args.json:
        rep = _json_ready(rep, args.values)
        rep["ok"] = True
        rep["file"] = args.file
        json.dump(rep, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    else:
        _print_text(args.file, rep, sys.stdout)
    return 0


def _fail(args, exc, status):
    label = "UNSUPPORTED" if status == "unsupported" else "INVALID"
    sys.stderr.write("mcap_check: %s: %s: %s\n" % (args.file, label, exc))
    if args.json:
        json.dump({"ok": False, "status": status, "file": args.file, "error": str(exc),
                   "offset": exc.offset, "inner_offset": exc.inner_offset,
                   "record": exc.record}, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")


if __name__ == "__main__":
    sys.exit(main())
