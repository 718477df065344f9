// A batch's returns as the frame's own columns (Frame's fields, one array each), packed by the
// GPU into one buffer so that the host's part of a frame is one copy back and one memcpy a
// field. Written by the same function on both sides (PutFrameColumns), so the host's tests run
// what the CUDA kernel runs.
//
// Why: the OS0-128 street frame's GPU work takes 0.16 ms, and writing its 50,000 compact
// records into the frame's fields one point at a time took the host 0.7 ms (bench/RESULTS.md,
// "Instanced models and two-level trees"). Columns are written by 50,000 GPU threads, and the
// host copies each field as a block.
#pragma once

#include <cstdint>

#include "internal/beam_record.h"
#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/vec3.h"

namespace lt {

// The packed fields, widest first so that every column is aligned to its element whatever the
// count: the 8-byte one, then the 4-byte ones, the 2-byte ones, the 1-byte ones.
enum FrameColumn : uint32_t {
  kColTimestamp,
  kColX,
  kColY,
  kColZ,
  kColRange,
  kColIntensity,
  kColReflectance,
  kColColumn,
  kColInstance,
  kColBeam,
  kColPulseWidth,  // empty unless the detector models the echo pulse width
  kColChannel,
  kColMaterial,
  kColSemantic,
  kColReturnIndex,
  kColReturnType,
  kFrameColumns
};

LT_HD constexpr uint32_t FrameColumnBytes(uint32_t column) {
  return column == kColTimestamp ? 8 : column < kColChannel ? 4 : column < kColReturnIndex ? 2 : 1;
}

// Where each column of n points starts in the packed buffer, and the buffer's size [bytes].
struct PackedColumns {
  uint64_t offset[kFrameColumns];
  uint64_t bytes;
};

LT_HD inline PackedColumns PackColumns(uint32_t n, bool with_pulse_width) {
  PackedColumns p{};
  uint64_t at = 0;
  for (uint32_t c = 0; c < kFrameColumns; ++c) {
    p.offset[c] = at;
    if (c != kColPulseWidth || with_pulse_width) at += uint64_t{n} * FrameColumnBytes(c);
  }
  p.bytes = at;
  return p;
}

// A spinning scan's channel, column and firing time from the beam index, as SpinningBeam
// computes them (scan_pattern.h); `spinning` false for any other scan, whose three fields the
// host fills from its own ScanBeam (AppendFrameColumns) so that both backends' times agree to the
// bit.
struct ColumnClock {
  bool spinning = false;
  uint32_t channels = 1;
  const double* firing_offset_s = nullptr;  // per channel, in the memory of the side writing
  double column_period_s = 0;               // 1 / (columns x rotation rate)
  double frame_start_s = 0;
};

template <typename T>
LT_HD inline void PutColumn(unsigned char* out, const PackedColumns& p, uint32_t column, uint32_t i,
                            T value) {
  reinterpret_cast<T*>(out + p.offset[column])[i] = value;
}

// Point i of n (record r) into the packed columns `out` laid out by p.
LT_HD inline void PutFrameColumns(const CompactRecord& r, uint32_t i, const PackedColumns& p,
                                  bool with_pulse_width, const ColumnClock& clock,
                                  unsigned char* out) {
  uint32_t channel = 0, column = 0;
  double time_s = 0;
  if (clock.spinning) {
    channel = r.beam % clock.channels;
    column = r.beam / clock.channels;
    // SpinningBeam's sum, as the CPU backend's records carry it (frame start + firing time),
    // its product rounded on the GPU as well (DMulRn: no fused multiply-add), so the two
    // backends give the same bits.
    time_s =
        clock.frame_start_s + (physics::DMulRn(static_cast<double>(column), clock.column_period_s) +
                               clock.firing_offset_s[channel]);
  }
  PutColumn(out, p, kColTimestamp, i, time_s);
  PutColumn(out, p, kColX, i, r.x_m);
  PutColumn(out, p, kColY, i, r.y_m);
  PutColumn(out, p, kColZ, i, r.z_m);
  PutColumn(out, p, kColRange, i, r.range_m);
  PutColumn(out, p, kColIntensity, i, r.intensity);
  PutColumn(out, p, kColReflectance, i, r.reflectance);
  PutColumn(out, p, kColColumn, i, column);
  PutColumn(out, p, kColInstance, i, r.instance);
  PutColumn(out, p, kColBeam, i, r.beam);
  if (with_pulse_width) PutColumn(out, p, kColPulseWidth, i, r.echo_pulse_width_ns);
  PutColumn(out, p, kColChannel, i, static_cast<uint16_t>(channel));
  PutColumn(out, p, kColMaterial, i, r.material);
  PutColumn(out, p, kColSemantic, i, r.semantic);
  PutColumn(out, p, kColReturnIndex, i, r.return_index);
  PutColumn(out, p, kColReturnType, i, r.return_type);
}

// The clock of `scan` for a frame starting at frame_start_s, its firing offsets where
// firing_offset_s points (the device's copy for the kernel, the host's for the host).
ColumnClock MakeColumnClock(const physics::ScanPattern<double>& scan, double frame_start_s,
                            const double* firing_offset_s);

// The n points packed in `packed` appended to the frame's fields; a scan that is not spinning
// has its channel, column and time filled here from ScanBeam (what AppendCompactRecords did).
void AppendFrameColumns(const unsigned char* packed, uint32_t n, bool with_pulse_width,
                        const physics::ScanPattern<double>& scan, double frame_start_s, Frame& f);

}  // namespace lt
