// One real frame against one simulated frame, as every comparison sees it: the points that can
// be compared (finite, beyond the minimum range) and their association. Compare's metrics, the
// viewer (issue 13) and compare's --pairs table all come from this one function, so what the
// viewer marks "real only" is exactly what the metrics count as such.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/compare/association.h"

namespace lt::compare {

struct CompareOptions;

struct FramePairing {
  Frame real, sim;  // the usable points, in file order
  // Index of each usable point in its frame as read (real.size() entries).
  std::vector<uint32_t> real_in_file, sim_in_file;
  // Points left out because x, y, z, range or intensity is not finite.
  uint64_t real_non_finite = 0, sim_non_finite = 0;
  // Points at exactly (0, 0, 0): how organised clouds (PCD, PLY, KITTI-style arrays) store a
  // beam without a return. Left out, as no point can lie at the sensor's own origin.
  uint64_t real_no_return = 0, sim_no_return = 0;
  // Points left out because they lie nearer than CompareOptions::min_range_m.
  uint64_t real_too_near = 0, sim_too_near = 0;
  Association association;  // indices into real and sim (not into the files' frames)
};

// Requires x, y, z and range with one value per point in both frames; errors name which frame
// and what is wrong. Does not validate `options` (Compare does, once).
Expected<FramePairing> PairFrame(const Frame& real, const Frame& sim,
                                 const CompareOptions& options);

}  // namespace lt::compare
