#include "internal/beam_record.h"

#include "lidartwin/physics/philox.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt {

namespace {

// A record's fields into point k of f (sized already); channel, column and time are the
// caller's.
void PutRecordFields(const BeamRecord& r, size_t k, bool with_pulse_width, Frame& f) {
  f.x_m[k] = r.x_m;
  f.y_m[k] = r.y_m;
  f.z_m[k] = r.z_m;
  f.range_m[k] = r.range_m;
  f.intensity[k] = r.intensity;
  f.reflectance[k] = r.reflectance;
  f.return_index[k] = static_cast<uint8_t>(r.return_index);
  f.material_id[k] = static_cast<uint16_t>(r.material);
  f.instance_id[k] = r.instance;
  f.semantic_class[k] = static_cast<uint16_t>(r.semantic);
  f.beam_id[k] = r.beam;
  f.return_type[k] = r.return_type;
  if (with_pulse_width) f.echo_pulse_width_ns[k] = r.echo_pulse_width_ns;
}

}  // namespace

void AppendRecords(const BeamRecord* records, uint32_t count, bool with_pulse_width, Frame& f) {
  size_t n = 0;
  for (uint32_t i = 0; i < count; ++i)
    n += records[i].valid != 0;
  // Sized once and written by index.
  size_t k = f.size();
  f.Resize(k + n);
  f.return_type.resize(k + n);  // every tier says what kind of return it reports
  if (with_pulse_width) f.echo_pulse_width_ns.resize(k + n);
  for (uint32_t i = 0; i < count; ++i) {
    const BeamRecord& r = records[i];
    if (!r.valid) continue;
    PutRecordFields(r, k, with_pulse_width, f);
    f.channel[k] = static_cast<uint16_t>(r.channel);
    f.column[k] = r.column;
    f.timestamp_s[k] = r.time_s;
    ++k;
  }
}

void ApplyIntensityGains(const ChannelIntensityGains& gains, size_t first, Frame& f) {
  if (gains.empty()) return;
  for (size_t k = first; k < f.size(); ++k)
    f.intensity[k] = static_cast<float>(f.intensity[k] * gains.At(f.channel[k], f.range_m[k]));
}

void ApplyRayDrop(const SensorProfile& profile, uint64_t seed, uint32_t frame_index, Frame& f) {
  const RayDropTable& drop = profile.ray_drop;
  const BlockedDirections& blocked = profile.blocked_directions;
  if ((drop.empty() && blocked.empty()) || f.size() == 0) return;
  std::vector<bool> keep(f.size(), true);
  size_t dropped = 0;
  for (size_t k = 0; k < f.size(); ++k) {
    if (!blocked.empty() && blocked.Blocked(f.channel[k], profile.Beam(f.beam_id[k]).azimuth_rad)) {
      keep[k] = false;
      ++dropped;
      continue;
    }
    if (drop.empty()) continue;
    const double p = drop.At(f.range_m[k], f.intensity[k] / 100.0);
    bool drop_it = false;
    if (drop.decision == RayDropTable::Decision::kMostLikely) {
      drop_it = p > 0.5;
    } else {
      // One draw per return: its beam and its echo index name it, whatever else was dropped.
      const physics::Philox4x32 w = physics::RandomWords(physics::RandomKey{
          seed, frame_index, f.beam_id[k], f.return_index[k], physics::kStreamRayDrop});
      drop_it = physics::UniformOpen01<double>(w.v[0]) < p;
    }
    keep[k] = !drop_it;
    dropped += drop_it;
  }
  if (dropped) KeepPoints(f, keep);
}

}  // namespace lt
