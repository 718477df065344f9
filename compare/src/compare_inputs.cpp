#include "lidartwin/compare/compare_inputs.h"

#include "lidartwin/base/status.h"

namespace lt::compare {

uint32_t CompareInputs::RealFrameOfPair(size_t k) const {
  LT_CHECK(real_frames.empty() || k < real_frames.size());
  return real_frames.empty() ? static_cast<uint32_t>(k) : real_frames[k];
}

uint32_t CompareInputs::SimFrameOfPair(size_t k) const {
  LT_CHECK(sim_frames.empty() || k < sim_frames.size());
  return sim_frames.empty() ? static_cast<uint32_t>(k) : sim_frames[k];
}

void CompareInputs::Relocate(const std::string& from, const std::string& to) {
  for (std::string* path : {&real_file, &real_sidecar, &sim_file, &rois_file, &scene_file})
    if (*path == from) *path = to;
  for (Stamp& s : stamps)
    if (s.file == from) s.file = to;
}

}  // namespace lt::compare
