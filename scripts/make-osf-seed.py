#!/usr/bin/env python3
"""Writes a small OSF seed for the fuzzer (scripts/fuzz-smoke.sh) from the shared OSF recording:
its one chunk cut to its first scan (the others' bytes removed, the messages vector and the
offsets that cross them mended, the header's metadata offset and length moved, every block's
CRC-32 made again), prefixed with the fuzz target's selector byte. The cut assumes the shared
file's layout (docs/formats/ouster-osf.md: three messages, the first scan's table and its
vtable after the other two) and checks it.
Usage: make-osf-seed.py SHARED.osf OUT"""
import struct
import sys
import zlib

src, out = sys.argv[1], sys.argv[2]
d = bytearray(open(src, "rb").read())
u32 = lambda o: struct.unpack_from("<I", d, o)[0]
i32 = lambda o: struct.unpack_from("<i", d, o)[0]
chunk_at = 4 + u32(0) + 4                   # after the header block
root = chunk_at + 4 + u32(chunk_at + 4)      # the Chunk table
vtable = root - i32(root)
vec = root + struct.unpack_from("<H", d, vtable + 4)[0]
vec += u32(vec)                              # messages: count, then uoffsets
assert u32(vec) == 3, "expected the shared file's three messages"
first = vec + 4
scan0 = first + u32(first)                   # the first message's table
scan0_vtable = scan0 - i32(scan0)
cut_to = scan0_vtable                        # the first message's vtable and table on
cut_from = vec + 4 + 4 * 3                   # after the vector: the other messages begin
cut_from += (cut_to - cut_from) % 8          # what follows keeps its 8-byte alignment
assert cut_from < cut_to
removed = cut_to - cut_from
struct.pack_into("<I", d, vec, 1)
struct.pack_into("<I", d, first, scan0 - removed - first)
struct.pack_into("<I", d, chunk_at, u32(chunk_at) - removed)
del d[cut_from:cut_to]
# Header.metadata_offset and file_length: the header table's u64 fields 2 and 3.
h = 4 + u32(4)
hv = h - i32(h)
for field in (2, 3):
    at = h + struct.unpack_from("<H", d, hv + 4 + 2 * field)[0]
    struct.pack_into("<Q", d, at, struct.unpack_from("<Q", d, at)[0] - removed)
struct.pack_into("<Q", d, h + struct.unpack_from("<H", d, hv + 4 + 2 * 3)[0], len(d))
at = 0
while at + 8 <= len(d):                      # header, chunk, metadata: each block's CRC again
    size = u32(at)
    struct.pack_into("<I", d, at + 4 + size, zlib.crc32(bytes(d[at:at + 4 + size])))
    at += 8 + size
assert at == len(d)
with open(out, "wb") as f:
    f.write(b"\x0a" + bytes(d))
