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
  f.Reserve(f.size() + count);
  if (with_pulse_width) f.echo_pulse_width_ns.reserve(f.size() + count);
  for (uint32_t i = 0; i < count; ++i) {
    const CompactRecord& r = records[i];
    const physics::BeamSample<double> b = physics::ScanBeam(scan, r.beam);
    f.Append({r.x_m, r.y_m, r.z_m, r.range_m, r.intensity, r.reflectance,
              static_cast<uint16_t>(b.channel), b.column, frame_start_s + b.time_s, r.return_index,
              r.material, r.instance, r.semantic, r.beam});
    if (with_pulse_width) f.echo_pulse_width_ns.push_back(r.echo_pulse_width_ns);
  }
}

}  // namespace lt
