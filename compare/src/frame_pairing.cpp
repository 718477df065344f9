#include "lidartwin/compare/frame_pairing.h"

#include <fmt/core.h>

#include <cmath>

#include "lidartwin/compare/metrics.h"

namespace lt::compare {
namespace {

bool IsFinitePoint(const Frame& f, size_t i) {
  return std::isfinite(f.x_m[i]) && std::isfinite(f.y_m[i]) && std::isfinite(f.z_m[i]) &&
         std::isfinite(f.range_m[i]) &&
         (f.intensity.size() != f.size() || std::isfinite(f.intensity[i]));
}

Status CheckFrame(const Frame& f, const char* which) {
  const size_t n = f.size();
  if (f.y_m.size() != n || f.z_m.size() != n || f.range_m.size() != n)
    return Error{fmt::format("{} frame: x, y, z and range must have one value per point", which)};
  return {};
}

bool IsNoReturn(const Frame& f, size_t i) {
  return f.x_m[i] == 0 && f.y_m[i] == 0 && f.z_m[i] == 0;
}

struct LeftOut {
  uint64_t* non_finite;
  uint64_t* no_return;
  uint64_t* too_near;
};

// The frame without "no return" points, points nearer than min_range_m and non-finite points
// (echo pulse widths are not compared); the kept points' indices go to *kept.
Frame UsablePoints(const Frame& f, double min_range_m, std::vector<uint32_t>* kept,
                   const LeftOut& left_out) {
  Frame out;
  out.index = f.index;
  out.Reserve(f.size());
  kept->reserve(f.size());
  auto at = [](const auto& v, size_t i) {
    return v.size() > i ? v[i] : typename std::decay_t<decltype(v)>::value_type{};
  };
  for (size_t i = 0; i < f.size(); ++i) {
    if (!IsFinitePoint(f, i)) {
      ++*left_out.non_finite;
      continue;
    }
    if (IsNoReturn(f, i)) {
      ++*left_out.no_return;
      continue;
    }
    if (f.range_m[i] < min_range_m) {
      ++*left_out.too_near;
      continue;
    }
    kept->push_back(static_cast<uint32_t>(i));
    out.Append({f.x_m[i], f.y_m[i], f.z_m[i], f.range_m[i], at(f.intensity, i),
                at(f.reflectance, i), at(f.channel, i), at(f.column, i), at(f.timestamp_s, i),
                at(f.return_index, i), at(f.material_id, i), at(f.instance_id, i),
                at(f.semantic_class, i), at(f.beam_id, i),
                f.return_type.size() == f.size()
                    ? std::optional<physics::ReturnType>(physics::ReturnType{f.return_type[i]})
                    : std::nullopt});
  }
  return out;
}

}  // namespace

Expected<FramePairing> PairFrame(const Frame& real, const Frame& sim,
                                 const CompareOptions& options) {
  if (Status s = CheckFrame(real, "real"); !s.ok()) return s.error();
  if (Status s = CheckFrame(sim, "simulated"); !s.ok()) return s.error();
  FramePairing p;
  p.real = UsablePoints(real, options.min_range_m, &p.real_in_file,
                        {&p.real_non_finite, &p.real_no_return, &p.real_too_near});
  p.sim = UsablePoints(sim, options.min_range_m, &p.sim_in_file,
                       {&p.sim_non_finite, &p.sim_no_return, &p.sim_too_near});
  auto association = Associate(p.real, p.sim, options.association);
  if (!association.ok()) return association.error();
  p.association = std::move(*association);
  return p;
}

}  // namespace lt::compare
