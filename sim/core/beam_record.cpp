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
    f.x_m.push_back(r.x_m);
    f.y_m.push_back(r.y_m);
    f.z_m.push_back(r.z_m);
    f.range_m.push_back(r.range_m);
    f.intensity.push_back(r.intensity);
    f.reflectance.push_back(r.reflectance);
    f.channel.push_back(static_cast<uint16_t>(r.channel));
    f.column.push_back(r.column);
    f.timestamp_s.push_back(r.time_s);
    f.return_index.push_back(0);
    f.material_id.push_back(static_cast<uint16_t>(r.material));
    f.instance_id.push_back(r.instance);
    f.semantic_class.push_back(static_cast<uint16_t>(r.semantic));
    f.beam_id.push_back(r.beam);
  }
}

}  // namespace lt
