// The CPU backend's trace-ahead: the first query of every sub-ray of a block of beams
// (FirstQueries, beam_pipeline.h) traced in Embree packets before the pipeline runs, then
// handed to the pipeline when it asks exactly that query. Queries it did not foresee (a
// threshold sub-ray's surfaces past the first) are traced one at a time. Packets run about four
// times the rate of single rays (bench/RESULTS.md), and the frame is the one single rays give
// (RayCaster::ClosestBatch), but for which of two coincident surfaces is reported; the CPU
// backend forms its packets the same way whatever its thread count, so frames stay
// deterministic.
#pragma once

#include <cstdint>
#include <vector>

#include "internal/beam_pipeline.h"
#include "lidartwin/sim/ray_caster.h"

namespace lt {

// A caster's hit as the beam pipeline takes it.
inline SurfaceHit ToSurfaceHit(const RayHit& h) {
  return {h.hit, h.distance_m, h.normal, h.object};
}

class PrefetchedHits {
 public:
  PrefetchedHits(const RayCaster& caster, uint32_t sub_rays);
  // Traces the first queries of beams [begin, end) (what came before is dropped).
  void Prefetch(const FrameContext& c, uint32_t begin, uint32_t end);
  // The closest hit of a query of `beam`: the prefetched one when the query is one of the
  // beam's first queries, else traced now.
  RayHit Closest(uint32_t beam, const physics::Vec3<double>& origin,
                 const physics::Vec3<double>& unit_direction, double t_min, double t_max);
  // The beam's setup as FirstQueries computed it for the prefetch (so the pipeline does not
  // compute it again), or null when it has none (outside the block, a raster-gathered beam).
  const BeamSetup* Setup(uint32_t beam) const {
    return beam >= begin_ && beam < end_ && has_setup_[beam - begin_] ? &setups_[beam - begin_]
                                                                      : nullptr;
  }
  // Queries answered from the prefetch, and traced on their own.
  uint64_t answered_ahead() const { return ahead_; }
  uint64_t traced_alone() const { return alone_; }

 private:
  const RayCaster& caster_;
  uint32_t per_beam_;  // room for one beam's first queries
  uint32_t begin_ = 0, end_ = 0;
  std::vector<RayQuery> packed_;                // the beams' first queries, one after another
  std::vector<RayHit> hits_;                    // for packed_
  std::vector<uint32_t> first_, count_, next_;  // per beam: into packed_, how many, cursor
  std::vector<BeamSetup> setups_;               // per beam, where has_setup_
  std::vector<uint8_t> has_setup_;
  uint64_t ahead_ = 0, alone_ = 0;
};

}  // namespace lt
