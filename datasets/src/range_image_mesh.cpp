#include "lidartwin/datasets/range_image_mesh.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

namespace lt {
namespace {

using physics::Vec3;
constexpr double kPi = std::numbers::pi;

struct RingPoint {
  double azimuth;   // [rad], in the sensor frame at the point's firing time
  uint32_t vertex;  // index into the surface's vertices
};

// One frame's returns in the sensor frame, the unit direction and range of each vertex.
struct FrameGeometry {
  std::vector<Vec3<double>> direction;
  std::vector<double> range;
};

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  const size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m), v.end());
  return v[m];
}

Vec3<double> Cross(const Vec3<double>& a, const Vec3<double>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

class FrameMesher {
 public:
  FrameMesher(const RangeImageMeshOptions& o, double azimuth_step)
      : o_(o),
        tan_max_(std::tan(o.max_incidence_deg * kPi / 180)),
        cos_max_(std::cos(o.max_incidence_deg * kPi / 180)),
        max_azimuth_gap_(o.max_gap_steps * azimuth_step) {}

  // Could one plane seen at up to max_incidence hold both returns?
  bool Joinable(const FrameGeometry& g, uint32_t a, uint32_t b) const {
    const double c = std::clamp(Dot(g.direction[a], g.direction[b]), -1.0, 1.0);
    const double alpha = std::acos(c);
    const double near = std::min(g.range[a], g.range[b]);
    return std::fabs(g.range[a] - g.range[b]) <= near * tan_max_ * alpha + o_.range_tolerance_m;
  }

  // The triangle faces the sensor within max_incidence (its normal against the view ray).
  bool FacesSensor(const FrameGeometry& g, uint32_t a, uint32_t b, uint32_t c) const {
    const Vec3<double> pa = g.range[a] * g.direction[a], pb = g.range[b] * g.direction[b],
                       pc = g.range[c] * g.direction[c];
    const Vec3<double> n = Cross(pb - pa, pc - pa);
    const double n_len = std::sqrt(Dot(n, n));
    const Vec3<double> centroid = (1.0 / 3.0) * (pa + pb + pc);
    const double c_len = std::sqrt(Dot(centroid, centroid));
    if (!(n_len > 0) || !(c_len > 0)) return false;
    return std::fabs(Dot(n, centroid)) / (n_len * c_len) >= cos_max_;
  }

  // Two rings (adjacent in elevation), each sorted by azimuth with its first point repeated at
  // +2 pi, joined by the strip advance: always step the ring whose next point comes first.
  void JoinRings(const FrameGeometry& g, const std::vector<RingPoint>& lo,
                 const std::vector<RingPoint>& hi, std::vector<std::array<uint32_t, 3>>& out) const {
    size_t i = 0, j = 0;
    while (i + 1 < lo.size() || j + 1 < hi.size()) {
      const bool step_lo =
          j + 1 >= hi.size() || (i + 1 < lo.size() && lo[i + 1].azimuth <= hi[j + 1].azimuth);
      const RingPoint& a = lo[i];
      const RingPoint& b = hi[j];
      const RingPoint& c = step_lo ? lo[i + 1] : hi[j + 1];
      const RingPoint& along_from = step_lo ? a : b;  // the edge along a ring
      (step_lo ? i : j)++;
      if (c.azimuth - along_from.azimuth > max_azimuth_gap_) continue;
      if (std::fabs(a.azimuth - b.azimuth) > max_azimuth_gap_) continue;
      if (a.vertex == c.vertex || b.vertex == c.vertex) continue;  // a ring of one point
      if (!Joinable(g, a.vertex, b.vertex) || !Joinable(g, a.vertex, c.vertex) ||
          !Joinable(g, b.vertex, c.vertex) || !FacesSensor(g, a.vertex, b.vertex, c.vertex))
        continue;
      out.push_back({a.vertex, c.vertex, b.vertex});
    }
  }

 private:
  const RangeImageMeshOptions& o_;
  double tan_max_, cos_max_, max_azimuth_gap_;
};

}  // namespace

Expected<ReconstructedSurface> MeshRangeImages(const PosedFrames& input,
                                               const RangeImageMeshOptions& o) {
  ReconstructedSurface surface;
  std::vector<double> vertex_intensity, vertex_range;
  std::vector<Vec3<double>> vertex_origin;  // where the sensor was when it fired
  for (size_t k = 0; k < input.frames.size(); ++k) {
    const Frame& f = input.frames[k];
    if (f.channel.size() != f.size())
      return Error{fmt::format(
          "range-image meshing: frame {} has no channel field (the laser of each return), so "
          "its returns cannot be joined ring to ring; a point cloud without one needs method "
          "poisson or ball-pivoting (--method)",
          k)};
    // 1. Valid first returns, grouped by channel.
    FrameGeometry g;
    std::map<uint16_t, std::vector<RingPoint>> rings;
    std::map<uint16_t, std::vector<double>> elevations;
    const uint32_t first_vertex = static_cast<uint32_t>(surface.vertices.size());
    for (size_t i = 0; i < f.size(); ++i) {
      const double r = f.range_m[i];
      if (!(r >= o.min_range_m && r <= o.max_range_m)) continue;
      if (!f.return_index.empty() && f.return_index[i] != 0) continue;
      const Vec3<double> p{f.x_m[i], f.y_m[i], f.z_m[i]};
      const double norm = std::sqrt(Dot(p, p));
      if (!std::isfinite(norm) || !(norm > 0)) continue;
      const auto pose = PoseOfPoint(input, k, i);
      const auto w = physics::TransformPoint(pose, p);
      if (!std::isfinite(w.x) || !std::isfinite(w.y) || !std::isfinite(w.z)) continue;
      const uint32_t v = static_cast<uint32_t>(surface.vertices.size());
      surface.vertices.push_back({w.x, w.y, w.z});
      vertex_origin.push_back(pose.translation);
      vertex_intensity.push_back(f.intensity.size() == f.size() ? f.intensity[i] : NAN);
      vertex_range.push_back(norm);
      g.direction.push_back((1.0 / norm) * p);
      g.range.push_back(norm);
      rings[f.channel[i]].push_back({std::atan2(p.y, p.x), v - first_vertex});
      elevations[f.channel[i]].push_back(std::atan2(p.z, std::hypot(p.x, p.y)));
    }
    // 2. Rings by elevation, each by azimuth; the azimuth step from the data.
    std::vector<std::pair<double, uint16_t>> order;
    std::vector<double> steps;
    for (auto& [channel, ring] : rings) {
      if (ring.size() < 2) continue;
      std::sort(ring.begin(), ring.end(),
                [](const RingPoint& a, const RingPoint& b) { return a.azimuth < b.azimuth; });
      for (size_t i = 1; i < ring.size(); ++i)
        if (ring[i].azimuth > ring[i - 1].azimuth) steps.push_back(ring[i].azimuth - ring[i - 1].azimuth);
      order.emplace_back(Median(elevations[channel]), channel);
    }
    if (order.size() < 2) continue;  // nothing to join (a frame of one ring, or empty)
    std::sort(order.begin(), order.end());
    const double azimuth_step = Median(steps);
    if (!(azimuth_step > 0)) continue;
    for (auto& [channel, ring] : rings)
      if (!ring.empty()) ring.push_back({ring.front().azimuth + 2 * kPi, ring.front().vertex});
    // 3. Join each ring with the next one up.
    const FrameMesher mesher(o, azimuth_step);
    std::vector<std::array<uint32_t, 3>> local;
    for (size_t r = 0; r + 1 < order.size(); ++r)
      mesher.JoinRings(g, rings[order[r].second], rings[order[r + 1].second], local);
    for (const auto& t : local)
      surface.triangles.push_back({t[0] + first_vertex, t[1] + first_vertex, t[2] + first_vertex});
  }
  if (surface.triangles.empty())
    return Error{
        "range-image meshing: no two neighbouring returns lie on one surface in any frame "
        "(too few returns, or frames with fewer than two lasers)"};

  // 4. Reflectance: each vertex's normal from the triangles around it (area-weighted), then
  // R0 from its return; each triangle the mean of its vertices that have one.
  std::vector<Vec3<double>> normal(surface.vertices.size(), Vec3<double>{0, 0, 0});
  auto at = [&](uint32_t v) {
    const auto& p = surface.vertices[v];
    return Vec3<double>{p[0], p[1], p[2]};
  };
  for (const auto& t : surface.triangles) {
    const Vec3<double> n = Cross(at(t[1]) - at(t[0]), at(t[2]) - at(t[0]));
    for (uint32_t v : t)
      normal[v] = normal[v] + n;
  }
  std::vector<double> r0(surface.vertices.size(), NAN);
  for (size_t v = 0; v < surface.vertices.size(); ++v) {
    const Vec3<double> to_sensor = vertex_origin[v] - at(static_cast<uint32_t>(v));
    const double len = std::sqrt(Dot(normal[v], normal[v]) * Dot(to_sensor, to_sensor));
    if (!(len > 0)) continue;
    r0[v] = o.reading.Reflectance(vertex_intensity[v], vertex_range[v],
                                  std::fabs(Dot(normal[v], to_sensor)) / len,
                                  o.reflectance_max_incidence_deg);
  }
  surface.triangle_reflectance.reserve(surface.triangles.size());
  for (const auto& t : surface.triangles) {
    double sum = 0;
    int n = 0;
    for (uint32_t v : t)
      if (std::isfinite(r0[v])) sum += r0[v], ++n;
    surface.triangle_reflectance.push_back(n ? static_cast<float>(sum / n) : NAN);
  }
  return surface;
}

}  // namespace lt
