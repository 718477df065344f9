#include "internal/beam_record.h"

namespace lt {

void AppendRecords(const BeamRecord* records, uint32_t count, bool with_pulse_width, Frame& f) {
  size_t n = 0;
  for (uint32_t i = 0; i < count; ++i)
    n += records[i].valid != 0;
  f.Reserve(f.size() + n);
  if (with_pulse_width) f.echo_pulse_width_ns.reserve(f.size() + n);
  for (uint32_t i = 0; i < count; ++i) {
    const BeamRecord& r = records[i];
    if (!r.valid) continue;
    f.Append({r.x_m, r.y_m, r.z_m, r.range_m, r.intensity, r.reflectance,
              static_cast<uint16_t>(r.channel), r.column, r.time_s,
              static_cast<uint8_t>(r.return_index), static_cast<uint16_t>(r.material), r.instance,
              static_cast<uint16_t>(r.semantic), r.beam});
    if (with_pulse_width) f.echo_pulse_width_ns.push_back(r.echo_pulse_width_ns);
  }
}

void AppendCompactRecords(const physics::ScanPattern<double>& scan, double frame_start_s,
                          const CompactRecord* records, uint32_t count, bool with_pulse_width,
                          Frame& f) {
  // Every field sized once and written by index: at 40,000 points a frame (the lab scene on
  // OS0-128) fourteen push_backs a point and a whole ScanBeam took 0.72 ms on one core of the
  // build machine, against 0.2 ms this way; the CUDA simulator's host thread does this for
  // every frame.
  const size_t base = f.size();
  const size_t n = base + count;
  f.x_m.resize(n);
  f.y_m.resize(n);
  f.z_m.resize(n);
  f.range_m.resize(n);
  f.intensity.resize(n);
  f.reflectance.resize(n);
  f.channel.resize(n);
  f.column.resize(n);
  f.timestamp_s.resize(n);
  f.return_index.resize(n);
  f.material_id.resize(n);
  f.instance_id.resize(n);
  f.semantic_class.resize(n);
  f.beam_id.resize(n);
  if (with_pulse_width) f.echo_pulse_width_ns.resize(n);
  for (uint32_t i = 0; i < count; ++i) {
    const CompactRecord& r = records[i];
    const size_t k = base + i;
    f.x_m[k] = r.x_m;
    f.y_m[k] = r.y_m;
    f.z_m[k] = r.z_m;
    f.range_m[k] = r.range_m;
    f.intensity[k] = r.intensity;
    f.reflectance[k] = r.reflectance;
    f.return_index[k] = r.return_index;
    f.material_id[k] = r.material;
    f.instance_id[k] = r.instance;
    f.semantic_class[k] = r.semantic;
    f.beam_id[k] = r.beam;
    if (with_pulse_width) f.echo_pulse_width_ns[k] = r.echo_pulse_width_ns;
  }
  // Channel, column and time: a spinning scan's from its tables as SpinningBeam computes them
  // (the direction is not needed here), any other scan's through ScanBeam.
  if (scan.kind == physics::ScanKind::kSpinning) {
    const physics::SpinningScan<double>& s = scan.spinning;
    const double column_period_s = 1 / (static_cast<double>(s.columns) * s.rotation_rate_hz);
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t beam = records[i].beam;
      const uint32_t channel = beam % s.channels;
      const uint32_t column = beam / s.channels;
      const size_t k = base + i;
      f.channel[k] = static_cast<uint16_t>(channel);
      f.column[k] = column;
      f.timestamp_s[k] = frame_start_s + (static_cast<double>(column) * column_period_s +
                                          s.firing_offset_s[channel]);
    }
  } else {
    for (uint32_t i = 0; i < count; ++i) {
      const physics::BeamSample<double> b = physics::ScanBeam(scan, records[i].beam);
      const size_t k = base + i;
      f.channel[k] = static_cast<uint16_t>(b.channel);
      f.column[k] = b.column;
      f.timestamp_s[k] = frame_start_s + b.time_s;
    }
  }
}

}  // namespace lt
