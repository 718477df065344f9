#include "lidartwin/compare/echo_effects.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "lidartwin/physics/units.h"

namespace lt {

namespace {

void Extend(AngularExtent& e, double x, double y, double z) {
  const double az = std::atan2(y, x) / physics::kDegToRad;
  const double el = std::atan2(z, std::hypot(x, y)) / physics::kDegToRad;
  if (e.count++ == 0) {
    e.azimuth_min_deg = e.azimuth_max_deg = az;
    e.elevation_min_deg = e.elevation_max_deg = el;
    return;
  }
  e.azimuth_min_deg = std::min(e.azimuth_min_deg, az);
  e.azimuth_max_deg = std::max(e.azimuth_max_deg, az);
  e.elevation_min_deg = std::min(e.elevation_min_deg, el);
  e.elevation_max_deg = std::max(e.elevation_max_deg, el);
}

}  // namespace

AngularExtent PointExtent(const Frame& f, uint32_t instance) {
  AngularExtent e;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f.instance_id[i] == instance) Extend(e, f.x_m[i], f.y_m[i], f.z_m[i]);
  }
  return e;
}

AngularExtent ObjectExtent(const SceneObject& o) {
  AngularExtent e;
  for (const auto& v : VerticesAt(o, 0))
    Extend(e, v[0], v[1], v[2]);
  return e;
}

ThroughEchoes CountThroughEchoes(const Frame& f, uint32_t front, uint32_t behind) {
  // Per beam: the nearest echo on `front` and the next one on `behind` after it.
  struct Pair {
    int front = -1, behind = -1;
  };
  std::map<uint32_t, Pair> beams;
  for (size_t i = 0; i < f.size(); ++i) {
    Pair& p = beams[f.beam_id[i]];
    if (f.instance_id[i] == front && (p.front < 0 || f.range_m[i] < f.range_m[p.front])) {
      p.front = static_cast<int>(i);
    } else if (f.instance_id[i] == behind) {
      p.behind = static_cast<int>(i);
    }
  }
  ThroughEchoes t;
  for (const auto& [beam, p] : beams) {
    if (p.front < 0 || p.behind < 0 || f.range_m[p.behind] <= f.range_m[p.front]) continue;
    ++t.beams;
    t.front_range_m += f.range_m[p.front];
    t.front_intensity += f.intensity[p.front];
    t.behind_range_m += f.range_m[p.behind];
    t.behind_intensity += f.intensity[p.behind];
  }
  if (t.beams > 0) {
    const double n = static_cast<double>(t.beams);
    t.front_range_m /= n;
    t.front_intensity /= n;
    t.behind_range_m /= n;
    t.behind_intensity /= n;
  }
  return t;
}

}  // namespace lt
