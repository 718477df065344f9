#include "cpu/prefetched_hits.h"

#include <algorithm>

namespace lt {

namespace {

bool SameQuery(const RayQuery& q, const physics::Vec3<double>& o, const physics::Vec3<double>& d,
               double t_min, double t_max) {
  return q.origin.x == o.x && q.origin.y == o.y && q.origin.z == o.z && q.unit_direction.x == d.x &&
         q.unit_direction.y == d.y && q.unit_direction.z == d.z && q.t_min == t_min &&
         q.t_max == t_max;
}

}  // namespace

PrefetchedHits::PrefetchedHits(const RayCaster& caster, uint32_t sub_rays)
    : caster_(caster), per_beam_(std::max(1u, sub_rays)) {}

void PrefetchedHits::Prefetch(const FrameContext& c, uint32_t begin, uint32_t end) {
  begin_ = begin;
  end_ = end;
  const uint32_t beams = end - begin;
  first_.resize(beams);
  count_.resize(beams);
  next_.assign(beams, 0);
  setups_.resize(beams);
  has_setup_.assign(beams, 0);
  packed_.clear();
  for (uint32_t i = 0; i < beams; ++i) {
    const size_t at = packed_.size();
    packed_.resize(at + per_beam_);
    bool has_setup = false;
    count_[i] = FirstQueries(c, begin + i, &packed_[at], &setups_[i], &has_setup);
    has_setup_[i] = has_setup;
    packed_.resize(at + count_[i]);
    first_[i] = static_cast<uint32_t>(at);
  }
  hits_.resize(packed_.size());
  caster_.ClosestBatch(packed_.data(), packed_.size(), hits_.data());
}

RayHit PrefetchedHits::Closest(uint32_t beam, const physics::Vec3<double>& origin,
                               const physics::Vec3<double>& unit_direction, double t_min,
                               double t_max) {
  if (beam >= begin_ && beam < end_) {
    const uint32_t i = beam - begin_;
    // The pipeline asks them in order; a query it skips is passed over.
    for (uint32_t k = next_[i]; k < count_[i]; ++k) {
      if (SameQuery(packed_[first_[i] + k], origin, unit_direction, t_min, t_max)) {
        next_[i] = k + 1;
        ++ahead_;
        return hits_[first_[i] + k];
      }
    }
  }
  ++alone_;
  return caster_.Closest(origin, unit_direction, t_min, t_max);
}

}  // namespace lt
