#include "lidartwin/sim/beam_record.h"

namespace lt {

void AppendRecords(const BeamRecord* records, uint32_t count, Frame& f) {
  size_t n = 0;
  for (uint32_t i = 0; i < count; ++i)
    n += records[i].valid != 0;
  f.Reserve(f.size() + n);
  for (uint32_t i = 0; i < count; ++i) {
    const BeamRecord& r = records[i];
    if (!r.valid) continue;
    f.Append({r.x_m, r.y_m, r.z_m, r.range_m, r.intensity, r.reflectance,
              static_cast<uint16_t>(r.channel), r.column, r.time_s, 0,
              static_cast<uint16_t>(r.material), r.instance, static_cast<uint16_t>(r.semantic),
              r.beam});
  }
}

}  // namespace lt
