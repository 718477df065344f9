#include "internal/frame_columns.h"

namespace lt {

namespace {

// Column c of n packed points appended to v (its type the column's).
template <typename T>
void AppendColumn(const unsigned char* packed, const PackedColumns& p, uint32_t c, uint32_t n,
                  std::vector<T>& v) {
  // insert copies as a block (memmove) without first zeroing the new values as resize would.
  const T* first = reinterpret_cast<const T*>(packed + p.offset[c]);
  v.insert(v.end(), first, first + n);
}

}  // namespace

ColumnClock MakeColumnClock(const physics::ScanPattern<double>& scan, double frame_start_s,
                            const double* firing_offset_s) {
  ColumnClock clock;
  clock.frame_start_s = frame_start_s;
  if (scan.kind != physics::ScanKind::kSpinning) return clock;
  const physics::SpinningScan<double>& s = scan.spinning;
  clock.spinning = true;
  clock.channels = s.channels;
  clock.firing_offset_s = firing_offset_s;
  // As SpinningBeam computes it.
  clock.column_period_s = 1 / (static_cast<double>(s.columns) * s.rotation_rate_hz);
  return clock;
}

void AppendFrameColumns(const unsigned char* packed, uint32_t n, bool with_pulse_width,
                        const physics::ScanPattern<double>& scan, double frame_start_s, Frame& f) {
  const PackedColumns p = PackColumns(n, with_pulse_width);
  const size_t base = f.size();
  // One block copy a field: 50,000 points of 52 bytes are 2.6 MB, a fraction of the time the
  // point-by-point assembly took (frame_columns.h).
  AppendColumn(packed, p, kColTimestamp, n, f.timestamp_s);
  AppendColumn(packed, p, kColX, n, f.x_m);
  AppendColumn(packed, p, kColY, n, f.y_m);
  AppendColumn(packed, p, kColZ, n, f.z_m);
  AppendColumn(packed, p, kColRange, n, f.range_m);
  AppendColumn(packed, p, kColIntensity, n, f.intensity);
  AppendColumn(packed, p, kColReflectance, n, f.reflectance);
  AppendColumn(packed, p, kColColumn, n, f.column);
  AppendColumn(packed, p, kColInstance, n, f.instance_id);
  AppendColumn(packed, p, kColBeam, n, f.beam_id);
  if (with_pulse_width) AppendColumn(packed, p, kColPulseWidth, n, f.echo_pulse_width_ns);
  AppendColumn(packed, p, kColChannel, n, f.channel);
  AppendColumn(packed, p, kColMaterial, n, f.material_id);
  AppendColumn(packed, p, kColSemantic, n, f.semantic_class);
  AppendColumn(packed, p, kColReturnIndex, n, f.return_index);
  AppendColumn(packed, p, kColReturnType, n, f.return_type);
  if (scan.kind == physics::ScanKind::kSpinning) return;
  // Any other scan: channel, column and time through the host's ScanBeam, as the CPU backend.
  for (size_t k = base; k < f.size(); ++k) {
    const physics::BeamSample<double> b = physics::ScanBeam(scan, f.beam_id[k]);
    f.channel[k] = static_cast<uint16_t>(b.channel);
    f.column[k] = b.column;
    f.timestamp_s[k] = frame_start_s + b.time_s;
  }
}

}  // namespace lt
