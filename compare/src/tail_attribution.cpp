#include "lidartwin/compare/tail_attribution.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <cstdint>
#include "lidartwin/base/order_statistics.h"

namespace lt::compare {
namespace {

enum Cause { kUnseen, kEdge, kGrazing, kRough, kOther, kCauses };
constexpr const char* kCauseNames[kCauses] = {"unseen", "depth edge", "grazing", "rough", "other"};

// The recorded frame's range image: its returns by (row, column), first returns only, the rows
// its channels ranked by their returns' median elevation (a Velodyne numbers its lasers
// interleaved: its channels c and c + 1 are 14-20 deg apart).
constexpr int64_t kMissing = -1, kBeyond = -2;
class RangeImage {
 public:
  explicit RangeImage(const Frame& f) {
    std::map<uint16_t, std::vector<double>> elevation;
    for (uint32_t i = 0; i < f.size(); ++i)
      elevation[f.channel[i]].push_back(
          std::atan2(double(f.z_m[i]), std::hypot(double(f.x_m[i]), double(f.y_m[i]))));
    std::vector<std::pair<double, uint16_t>> order;
    for (const auto& [channel, e] : elevation)
      order.push_back({Median(e), channel});
    std::sort(order.begin(), order.end());
    for (size_t r = 0; r < order.size(); ++r)
      row_[order[r].second] = static_cast<int>(r);
    rows_ = static_cast<int>(order.size());
    for (uint32_t i = 0; i < f.size(); ++i) {
      if (!f.return_index.empty() && f.return_index[i] != 0) continue;
      at_.emplace(std::pair{Row(f.channel[i]), int64_t(f.column[i])}, i);
      first_column_ = std::min(first_column_, int64_t(f.column[i]));
      last_column_ = std::max(last_column_, int64_t(f.column[i]));
    }
  }
  int Row(uint16_t channel) const { return row_.at(channel); }
  // The return at (row, column); kMissing where the scan has the pixel but no return, kBeyond
  // outside the scan (above the top row, below the bottom one, past the first or last column).
  int64_t Find(int row, int64_t column) const {
    if (row < 0 || row >= rows_ || column < first_column_ || column > last_column_) return kBeyond;
    const auto it = at_.find({row, column});
    return it == at_.end() ? kMissing : int64_t(it->second);
  }

 private:
  std::map<uint16_t, int> row_;
  int rows_ = 0;
  int64_t first_column_ = INT64_MAX, last_column_ = INT64_MIN;
  std::map<std::pair<int, int64_t>, uint32_t> at_;
};

Cause CauseOf(const Frame& f, const RangeImage& image, uint32_t i,
              const std::function<bool(uint32_t)>& unseen, const TailAttributionOptions& o) {
  if (unseen && unseen(i)) return kUnseen;
  const double r = f.range_m[i];
  const int row = image.Row(f.channel[i]);
  const int64_t k = f.column[i];
  const int64_t n[4] = {image.Find(row, k - 1), image.Find(row, k + 1), image.Find(row - 1, k),
                        image.Find(row + 1, k)};
  // A neighbour without a return: the surface ends there. A step on one side only: likewise
  // (a smooth slope, the ground seen obliquely, steps alike on both sides and is judged by its
  // incidence below). The scan's own border says nothing.
  const double edge = std::max(o.edge_min_m, o.edge_fraction * r);
  for (int64_t j : n)
    if (j == kMissing) return kEdge;
  bool whole = true;
  for (int axis = 0; axis < 2; ++axis) {
    if (n[2 * axis] < 0 || n[2 * axis + 1] < 0) {
      whole = false;
      continue;
    }
    const double before = std::fabs(r - f.range_m[n[2 * axis]]);
    const double after = std::fabs(f.range_m[n[2 * axis + 1]] - r);
    const double big = std::max(before, after), small = std::min(before, after);
    if (big > edge && small < o.edge_one_sided * big) return kEdge;
  }
  if (!whole) return kOther;  // on the scan's border: no surface through four neighbours
  auto p = [&](int64_t j) { return std::array<double, 3>{f.x_m[j], f.y_m[j], f.z_m[j]}; };
  const auto a = p(n[0]), b = p(n[1]), d = p(n[2]), e = p(n[3]);
  const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double v[3] = {e[0] - d[0], e[1] - d[1], e[2] - d[2]};
  const double nx = u[1] * v[2] - u[2] * v[1], ny = u[2] * v[0] - u[0] * v[2],
               nz = u[0] * v[1] - u[1] * v[0];
  const double norm = std::sqrt(nx * nx + ny * ny + nz * nz);
  if (norm > 0 && r > 0) {
    const double cos_incidence =
        std::fabs(nx * f.x_m[i] + ny * f.y_m[i] + nz * f.z_m[i]) / (norm * r);
    if (cos_incidence < std::cos(o.grazing_deg * 3.14159265358979323846 / 180)) return kGrazing;
  }
  const double rough = o.rough_min_m + o.rough_fraction * r;
  if (std::fabs(f.range_m[n[0]] + f.range_m[n[1]] - 2 * r) > rough ||
      std::fabs(f.range_m[n[2]] + f.range_m[n[3]] - 2 * r) > rough)
    return kRough;
  return kOther;
}

}  // namespace

Expected<TailAttribution> AttributeRangeTail(const FramePairing& pairing,
                                             const std::function<bool(uint32_t)>& unseen,
                                             const TailAttributionOptions& o) {
  const Frame& real = pairing.real;
  if (real.channel.size() != real.size() || real.column.size() != real.size())
    return Error{
        "range-error tail: the recorded frame carries no channel and column per return, so it "
        "has no range image to judge edges and surfaces on"};
  // A frame whose points carry no column (a KITTI scan) stores them all as column 0.
  bool columns = false;
  for (size_t i = 1; i < real.size() && !columns; ++i)
    columns = real.column[i] != real.column[0];
  if (!columns)
    return Error{
        "range-error tail: the recorded frame's returns all carry one column, so it has no "
        "range image to judge edges and surfaces on"};
  const auto& pairs = pairing.association.pairs;
  if (pairs.empty()) return Error{"range-error tail: no pair of returns to attribute"};
  std::vector<double> error(pairs.size());
  for (size_t k = 0; k < pairs.size(); ++k)
    error[k] = std::fabs(double(pairing.sim.range_m[pairs[k].second]) -
                         double(real.range_m[pairs[k].first]));
  TailAttribution out;
  out.threshold_m = QuantileAt(error, o.tail_quantile);
  out.pairs = pairs.size();
  const RangeImage image(real);
  size_t all[kCauses] = {}, tail[kCauses] = {};
  for (size_t k = 0; k < pairs.size(); ++k) {
    const Cause cause = CauseOf(real, image, pairs[k].first, unseen, o);
    ++all[cause];
    if (error[k] > out.threshold_m) {
      ++tail[cause];
      ++out.tail;
    }
  }
  for (int c = 0; c < kCauses; ++c)
    out.causes.push_back(
        {kCauseNames[c], out.tail ? double(tail[c]) / out.tail : 0.0, double(all[c]) / out.pairs});
  return out;
}

}  // namespace lt::compare
