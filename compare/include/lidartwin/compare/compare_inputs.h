// What a comparison was made of, as compare's command line gave it: the files, the frames
// chosen, the regions of interest and the association settings. compare writes it into
// metrics.json so that report can read the same frames again and show the worst of them in
// the viewer (issue 13); view and compare take the same flags.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lidartwin/base/config_check.h"
#include "lidartwin/compare/association.h"

namespace lt::compare {

struct CompareInputs {
  std::string real_file, sim_file;
  std::string real_sidecar;    // Ouster metadata (.json) or Velodyne calibration (.yaml) of a pcap
  std::string real_format;     // "", "kitti" or "nuscenes" (headerless .bin)
  std::string real_topic;      // a bag's or OSF file's lidar topic; empty: its only one
  std::string real_firetimes;  // a Hesai unit's fire-time file; empty: none
  // Frames chosen, by position in the file; empty: every frame.
  std::vector<uint32_t> real_frames, sim_frames;
  std::string rois_file;   // targets YAML; empty: none (or the scene's objects)
  std::string scene_file;  // scene YAML naming materials (and, without rois_file, the targets)
  double roi_margin_m = 0.05;
  AssociationOptions association;
  double min_range_m = 0;
  // With scene_file and no rois_file: one target per scene object (TargetsFromScene), as
  // compare --scene does; false: the scene names materials only (reproduce compares none).
  bool scene_targets = true;
  // Size and modification time of every input file when it was compared (StampInputs); empty:
  // not recorded. A reader checks them before showing the files as this comparison's.
  struct Stamp {
    std::string file;
    uint64_t bytes = 0;
    int64_t mtime_ns = 0;
  };
  std::vector<Stamp> stamps;

  // Says that the file at `from` (as recorded) now lives at `to`, stamps included: a file
  // written in a staging folder and moved into place unchanged (reproduce).
  void Relocate(const std::string& from, const std::string& to);

  // The real and simulated frame position of compared pair k (its position in the file);
  // k must be below the lists' size where they are given (metrics.json is checked for it).
  uint32_t RealFrameOfPair(size_t k) const;
  uint32_t SimFrameOfPair(size_t k) const;

  // No frame listed twice (real_frames, sim_frames), roi_margin_m within [0, kMaxRoiMarginM],
  // the association's gates and min_range_m as CompareOptions::Check has them; an error
  // begins with its key.
  Status Validate() const;
};

}  // namespace lt::compare
