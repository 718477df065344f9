// Where the tail of a re-simulation's range error lies (issue 41): of the pairs whose |range
// error| exceeds the p90 over all pairs, the share at each cause a reconstruction may not
// follow, judged on what the reconstruction frames saw and on the recorded frame's own range
// image (its channel and column):
//   unseen: the return lies farther than the caller's bound from every return of the
//     reconstruction frames (a moving object, or what they did not see);
//   depth edge: a neighbouring pixel (left, right, above, below) returned nothing, or the
//     range steps by more than max(edge_min_m, edge_fraction R) to one side and by less than
//     edge_one_sided of that to the other (a surface ends there: mixed returns, a beam
//     straddling two surfaces);
//   grazing: the surface through the four neighbours is seen at more than grazing_deg;
//   rough: the second difference of range along the row or the column exceeds
//     rough_min_m + rough_fraction R (foliage, railings, thin structures the beams cross);
//   other.
// A pair counts for its first cause in that order. Beside each share, the cause's share among
// all pairs: a cause the tail holds no more often than the whole is not what makes it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/compare/frame_pairing.h"

namespace lt::compare {

struct TailAttributionOptions {
  double tail_quantile = 0.9;
  double edge_min_m = 0.1, edge_fraction = 0.03, edge_one_sided = 0.25;
  double grazing_deg = 75;
  double rough_min_m = 0.03, rough_fraction = 0.005;
};

struct TailCause {
  std::string name;
  double tail_share = 0, all_share = 0;
};

struct TailAttribution {
  double threshold_m = 0;  // the tail's |range error| bound (the tail_quantile over pairs)
  size_t pairs = 0, tail = 0;
  std::vector<TailCause> causes;  // unseen, depth edge, grazing, rough, other
};

// unseen(i): whether real point i of pairing.real (in the world: the caller's poses) lies
// beyond the reconstruction frames' returns; empty: no pair is unseen. Errors: a real frame
// without channel and column, no pair.
Expected<TailAttribution> AttributeRangeTail(const FramePairing& pairing,
                                             const std::function<bool(uint32_t)>& unseen,
                                             const TailAttributionOptions& options = {});

}  // namespace lt::compare
