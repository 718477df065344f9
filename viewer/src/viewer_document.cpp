#include "lidartwin/viewer/viewer_document.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>

namespace lt::viewer {

Expected<ViewerDocument> LoadViewerDocument(const compare::CompareInputs& in,
                                            const MeshLoader& meshes) {
  auto loaded = compare::LoadComparison(in, meshes);
  if (!loaded.ok()) return loaded.error();
  return BuildViewerDocument(*loaded, in);
}

std::string InputsSignature(const compare::CompareInputs& in) {
  std::string signature;
  for (const std::string& file :
       {in.real_file, in.real_sidecar, in.sim_file, in.rois_file, in.scene_file}) {
    if (file.empty()) continue;
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    const auto time = std::filesystem::last_write_time(file, ec);
    signature +=
        fmt::format("{}:{}:{};", file, ec ? 0 : size, ec ? 0 : time.time_since_epoch().count());
  }
  return signature;
}

std::string IntensityUnitOf(const Recording& r) {
  // As the reader recorded it (intensity_unit.h): Ouster's signal photons or reflectivity by
  // profile, Velodyne's reflectivity byte, a simulation's percent or counts, ...
  return r.intensity_unit == kIntensityUnknown ? "" : r.intensity_unit;
}

PresentFields PresentFieldsOf(const Frame& f) {
  const size_t n = f.size();
  PresentFields p;
  p.intensity = f.intensity.size() == n;
  p.reflectance = f.reflectance.size() == n;
  p.channel = f.channel.size() == n;
  p.column = f.column.size() == n;
  p.time = f.timestamp_s.size() == n;
  p.return_index = f.return_index.size() == n;
  p.material = f.material_id.size() == n;
  p.instance = f.instance_id.size() == n;
  p.semantic = f.semantic_class.size() == n;
  return p;
}

Expected<ViewerDocument> BuildViewerDocument(const compare::LoadedComparison& loaded,
                                             const compare::CompareInputs& in,
                                             const std::vector<size_t>& pairs) {
  ViewerDocument doc;
  auto source = [](const Recording& r, const std::string& file) {
    return ViewerSource{file, r.reader, r.sensor, IntensityUnitOf(r)};
  };
  doc.real = source(loaded.real, in.real_file);
  doc.sim = source(loaded.sim, in.sim_file);
  doc.title = fmt::format("{} vs {}", std::filesystem::path(in.real_file).filename().string(),
                          std::filesystem::path(in.sim_file).filename().string());
  doc.materials = loaded.options.material_names;
  doc.targets = loaded.options.targets;
  for (const Recording* r : {&loaded.real, &loaded.sim})
    doc.notes.insert(doc.notes.end(), r->notes.begin(), r->notes.end());

  // The pairs both sides hold (a real frame without its simulated one is no pair).
  const size_t held = std::min(loaded.real.frames.size(), loaded.sim.frames.size());
  std::vector<size_t> chosen = pairs;
  if (chosen.empty())
    for (size_t k = 0; k < held; ++k)
      chosen.push_back(k);
  uint64_t points = 0;
  for (size_t k : chosen) {
    if (k >= held) return Error{fmt::format("frame pair {} does not exist ({} compared)", k, held)};
    points += loaded.real.frames[k].size() + loaded.sim.frames[k].size();
  }
  if (points > kMaxViewerPoints)
    return Error{fmt::format(
        "the {} frame pair(s) chosen hold {} points, more than the viewer's {} at once; choose "
        "fewer frames (real_frames, sim_frames)",
        chosen.size(), points, kMaxViewerPoints)};

  for (size_t k : chosen) {
    auto pairing = compare::PairFrame(loaded.real.frames[k], loaded.sim.frames[k], loaded.options);
    if (!pairing.ok()) return Error{fmt::format("frame pair {}: {}", k, pairing.message())};
    ViewerFrame f;
    f.real_index = in.RealFrameOfPair(k);
    f.sim_index = in.SimFrameOfPair(k);
    f.label = f.real_index == f.sim_index
                  ? fmt::format("frame {}", f.real_index)
                  : fmt::format("real frame {}, sim frame {}", f.real_index, f.sim_index);
    for (const compare::Target& t : doc.targets)
      f.rois.push_back(
          compare::MeasureTarget(t, pairing->real, pairing->sim, static_cast<uint32_t>(k)));
    if (doc.frames.empty()) {
      doc.association_method = compare::AssociationMethodName(pairing->association.method);
      doc.association_reason = pairing->association.reason;
    }
    f.real_fields = PresentFieldsOf(loaded.real.frames[k]);
    f.sim_fields = PresentFieldsOf(loaded.sim.frames[k]);
    f.pairing = std::move(*pairing);
    doc.frames.push_back(std::move(f));
  }
  return doc;
}

}  // namespace lt::viewer
