#include "lidartwin/compare/association.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <tuple>
#include <unordered_map>

#include "lidartwin/compare/nearest_neighbour.h"

namespace lt::compare {
namespace {

constexpr double kDegToRad = std::numbers::pi / 180.0;

using Vec3 = std::array<double, 3>;

Vec3 PointOf(const Frame& f, size_t i) {
  return {f.x_m[i], f.y_m[i], f.z_m[i]};
}

double Norm(const Vec3& v) {
  return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

// Unit direction from the sensor origin; false for a point at the origin (no direction).
bool DirectionOf(const Frame& f, size_t i, Vec3* u) {
  const Vec3 p = PointOf(f, i);
  const double n = Norm(p);
  if (!(n > 0)) return false;
  *u = {p[0] / n, p[1] / n, p[2] / n};
  return true;
}

double AngleBetween(const Vec3& a, const Vec3& b) {
  // atan2 of |a x b| and a.b: accurate for small angles, unlike acos.
  const Vec3 c{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  return std::atan2(Norm(c), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
}

uint8_t ReturnIndexOf(const Frame& f, size_t i) {
  return f.return_index.size() == f.size() ? f.return_index[i] : 0;
}

bool HasBeamIds(const Frame& f) {
  return f.size() > 0 && f.channel.size() == f.size() && f.column.size() == f.size();
}

uint64_t BeamKey(const Frame& f, size_t i) {
  return (static_cast<uint64_t>(f.channel[i]) << 40) | (static_cast<uint64_t>(f.column[i]) << 8) |
         ReturnIndexOf(f, i);
}

std::vector<std::pair<uint32_t, uint32_t>> PairByBeam(const Frame& real, const Frame& sim) {
  std::unordered_map<uint64_t, uint32_t> sim_by_key;
  sim_by_key.reserve(sim.size());
  for (size_t i = 0; i < sim.size(); ++i)
    sim_by_key.emplace(BeamKey(sim, i), i);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (size_t i = 0; i < real.size(); ++i) {
    auto it = sim_by_key.find(BeamKey(real, i));
    if (it == sim_by_key.end()) continue;
    pairs.emplace_back(static_cast<uint32_t>(i), it->second);
    sim_by_key.erase(it);  // one-to-one even if a frame repeats a key
  }
  return pairs;
}

double MedianDirectionDifferenceDeg(const Frame& real, const Frame& sim,
                                    const std::vector<std::pair<uint32_t, uint32_t>>& pairs) {
  std::vector<double> angles;
  angles.reserve(pairs.size());
  for (auto [r, s] : pairs) {
    Vec3 a, b;
    if (DirectionOf(real, r, &a) && DirectionOf(sim, s, &b))
      angles.push_back(AngleBetween(a, b) / kDegToRad);
  }
  if (angles.empty()) return INFINITY;
  auto mid = angles.begin() + static_cast<std::ptrdiff_t>(angles.size() / 2);
  std::nth_element(angles.begin(), mid, angles.end());
  return *mid;
}

// One-to-one pairing from nearest-neighbour candidates in both directions: candidates sorted
// by distance, each accepted while neither end is used up (greedy; ties broken by index so
// the result is deterministic). Coincident points are one candidate end holding several
// points, paired lowest index first: N copies of a point against N copies pair fully in
// O(N log N), where a candidate per copy was O(N^2) (issue 36).
using Points = std::vector<Vec3>;
std::vector<std::pair<uint32_t, uint32_t>> PairNearest(const Points& real, const Points& sim,
                                                       const std::vector<uint32_t>& real_ids,
                                                       const std::vector<uint32_t>& sim_ids,
                                                       double gate) {
  const auto sim_index = NearestNeighbourIndex::OfGroups(GroupCoincident(sim));
  const auto real_index = NearestNeighbourIndex::OfGroups(GroupCoincident(real));
  const CoincidentGroups& rg = real_index.groups();
  const CoincidentGroups& sg = sim_index.groups();
  std::vector<std::tuple<double, uint32_t, uint32_t>> candidates;  // (d2, real group, sim group)
  const double gate2 = gate * gate;
  for (uint32_t g = 0; g < rg.size(); ++g) {
    double d2 = 0;
    const int h = sim_index.NearestGroup(rg.positions[g], &d2);
    if (h >= 0 && d2 <= gate2) candidates.emplace_back(d2, g, h);
  }
  for (uint32_t h = 0; h < sg.size(); ++h) {
    double d2 = 0;
    const int g = real_index.NearestGroup(sg.positions[h], &d2);
    if (g >= 0 && d2 <= gate2) candidates.emplace_back(d2, g, h);
  }
  std::sort(candidates.begin(), candidates.end());
  // Members of each group already paired (they are taken in ascending order).
  std::vector<uint32_t> real_used(rg.size()), sim_used(sg.size());
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (auto [d2, g, h] : candidates) {
    const uint32_t n = std::min(rg.Count(g) - real_used[g], sg.Count(h) - sim_used[h]);
    for (uint32_t k = 0; k < n; ++k)
      pairs.emplace_back(real_ids[rg.members[rg.begin[g] + real_used[g] + k]],
                         sim_ids[sg.members[sg.begin[h] + sim_used[h] + k]]);
    real_used[g] += n;
    sim_used[h] += n;
  }
  return pairs;
}

// Nearest neighbours within each return index (a second echo pairs with a second echo), on
// unit directions (angular) or on positions (3-D).
std::vector<std::pair<uint32_t, uint32_t>> PairByNeighbour(const Frame& real, const Frame& sim,
                                                           bool angular, double gate) {
  struct Group {
    Points real, sim;
    std::vector<uint32_t> real_ids, sim_ids;
  };
  std::map<uint8_t, Group> groups;
  auto add = [&](const Frame& f, bool is_real) {
    for (size_t i = 0; i < f.size(); ++i) {
      Vec3 v = PointOf(f, i);
      if (angular && !DirectionOf(f, i, &v)) continue;
      if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2])) continue;
      Group& g = groups[ReturnIndexOf(f, i)];
      (is_real ? g.real : g.sim).push_back(v);
      (is_real ? g.real_ids : g.sim_ids).push_back(static_cast<uint32_t>(i));
    }
  };
  add(real, true);
  add(sim, false);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (auto& [ret, g] : groups) {
    auto p = PairNearest(g.real, g.sim, g.real_ids, g.sim_ids, gate);
    pairs.insert(pairs.end(), p.begin(), p.end());
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace

const char* AssociationMethodName(AssociationMethod m) {
  switch (m) {
    case AssociationMethod::kAuto:
      return "auto";
    case AssociationMethod::kBeam:
      return "beam";
    case AssociationMethod::kAngular:
      return "angular";
    case AssociationMethod::kNearest3d:
      return "nearest3d";
  }
  return "?";
}

Expected<AssociationMethod> ParseAssociationMethod(const std::string& text) {
  for (auto m : {AssociationMethod::kAuto, AssociationMethod::kBeam, AssociationMethod::kAngular,
                 AssociationMethod::kNearest3d})
    if (text == AssociationMethodName(m)) return m;
  return Error{
      fmt::format("unknown association '{}' (expected auto, beam, angular or nearest3d)", text)};
}

void AssociationOptions::Check(ConfigCheck& check) const {
  for (const auto& [key, v] : {std::pair<const char*, double>{"max_angle_deg", max_angle_deg},
                               {"max_distance_m", max_distance_m},
                               {"beam_direction_tolerance_deg", beam_direction_tolerance_deg}}) {
    if (!(v > 0 && std::isfinite(v))) check.Fail(key, "must be positive, got " + NumberText(v));
  }
  // Directions differ by at most 180 degrees; a larger gate would only hide a typo.
  if (max_angle_deg > 180)
    check.Fail("max_angle_deg", "must be in (0, 180] deg, got " + NumberText(max_angle_deg));
}

Status AssociationOptions::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("association options");
}

Expected<Association> Associate(const Frame& real, const Frame& sim,
                                const AssociationOptions& options) {
  if (Status s = options.Validate(); !s.ok()) return s.error();
  Association a;
  const double chord_gate = 2 * std::sin(0.5 * options.max_angle_deg * kDegToRad);
  switch (options.method) {
    case AssociationMethod::kBeam:
      if (!HasBeamIds(real) || !HasBeamIds(sim))
        return Error{"beam association needs channel and column in both frames"};
      a.method = AssociationMethod::kBeam;
      a.reason = "requested";
      a.pairs = PairByBeam(real, sim);
      return a;
    case AssociationMethod::kAngular:
      a.method = AssociationMethod::kAngular;
      a.reason = "requested";
      a.pairs = PairByNeighbour(real, sim, true, chord_gate);
      return a;
    case AssociationMethod::kNearest3d:
      a.method = AssociationMethod::kNearest3d;
      a.reason = "requested";
      a.pairs = PairByNeighbour(real, sim, false, options.max_distance_m);
      return a;
    case AssociationMethod::kAuto:
      break;
  }
  if (HasBeamIds(real) && HasBeamIds(sim)) {
    auto pairs = PairByBeam(real, sim);
    const double median_deg = MedianDirectionDifferenceDeg(real, sim, pairs);
    const size_t smaller = std::min(real.size(), sim.size());
    // Accept when a tenth of the smaller frame pairs up and the pairs point the same way.
    if (pairs.size() * 10 >= smaller && median_deg <= options.beam_direction_tolerance_deg) {
      a.method = AssociationMethod::kBeam;
      a.reason = fmt::format("channel and column agree (median direction difference {:.3f} deg)",
                             median_deg);
      a.pairs = std::move(pairs);
      return a;
    }
    a.reason = fmt::format(
        "channel/column pairs {} of {} points with median direction difference {:.3f} deg, so "
        "not the same beams; ",
        pairs.size(), smaller, median_deg);
  }
  a.method = AssociationMethod::kAngular;
  a.reason += fmt::format("nearest direction within {} deg", options.max_angle_deg);
  a.pairs = PairByNeighbour(real, sim, true, chord_gate);
  return a;
}

}  // namespace lt::compare
