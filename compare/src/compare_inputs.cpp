#include "lidartwin/compare/compare_inputs.h"

#include <algorithm>
#include <string>
#include <utility>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/status.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/targets.h"

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
  for (std::string* path :
       {&real_file, &real_sidecar, &real_firetimes, &sim_file, &rois_file, &scene_file})
    if (*path == from) *path = to;
  for (Stamp& s : stamps)
    if (s.file == from) s.file = to;
}

Status CompareInputs::Validate() const {
  for (const auto& [key, frames] :
       {std::pair{"real_frames", &real_frames}, std::pair{"sim_frames", &sim_frames}}) {
    for (size_t i = 0; i < frames->size(); ++i)
      if (std::find(frames->begin(), frames->begin() + i, (*frames)[i]) != frames->begin() + i)
        return OptionError(
            key, std::string(key) + ": frame " + std::to_string((*frames)[i]) + " is listed twice");
  }
  if (Status s = CheckRoiMargin(roi_margin_m); !s.ok())
    return OptionError("roi_margin_m", "roi_margin_m: " + s.message());
  CompareOptions options;
  options.association = association;
  options.min_range_m = min_range_m;
  ConfigCheck check;
  options.Check(check);
  if (const auto& p = check.problem())
    return OptionError(p->key_path, p->key_path + ": " + p->problem);
  return {};
}

}  // namespace lt::compare
