#include "lidartwin/reconstruct/range_image_mesh.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <thread>

#include "edge_table.h"
#include "lidartwin/base/order_statistics.h"
#include "lidartwin/base/parallel_for.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/reconstruct/mesh_caster.h"
#include "lidartwin/sim/ray_caster.h"

namespace lt {
namespace {

using physics::kPi;
using physics::Vec3;

struct RingPoint {
  double azimuth;   // [rad], in the sensor frame at the point's firing time
  uint32_t vertex;  // index into the surface's vertices
};

// One frame's returns in the sensor frame, the unit direction and range of each vertex.
struct FrameGeometry {
  std::vector<Vec3<double>> direction;
  std::vector<double> range;
};

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
                 const std::vector<RingPoint>& hi,
                 std::vector<std::array<uint32_t, 3>>& out) const {
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

// Appends the parallelogram centre +- along +- across: two triangles.
void AppendParallelogram(const Vec3<double>& centre, const Vec3<double>& along,
                         const Vec3<double>& across, std::vector<std::array<double, 3>>& vertices,
                         std::vector<std::array<uint32_t, 3>>& triangles) {
  const uint32_t first = static_cast<uint32_t>(vertices.size());
  for (const auto& [a, b] : {std::pair{-1.0, -1.0}, {1.0, -1.0}, {1.0, 1.0}, {-1.0, 1.0}}) {
    const Vec3<double> corner = centre + a * along + b * across;
    vertices.push_back({corner.x, corner.y, corner.z});
  }
  triangles.push_back({first, first + 1, first + 2});
  triangles.push_back({first, first + 2, first + 3});
}

// Appends a square surfel centred on `centre`, facing `origin`, half_w wide along the
// horizontal (perpendicular to `up` and the view ray) and half_h high: two triangles.
void AppendSurfel(const Vec3<double>& centre, const Vec3<double>& origin, const Vec3<double>& up,
                  double half_w, double half_h, std::vector<std::array<double, 3>>& vertices,
                  std::vector<std::array<uint32_t, 3>>& triangles) {
  Vec3<double> view = centre - origin;
  view = (1.0 / std::sqrt(Dot(view, view))) * view;
  Vec3<double> across = Cross(up, view);
  const double across_len = std::sqrt(Dot(across, across));
  // Straight up or down the spin axis: any horizontal will do.
  across = across_len > 1e-9 ? (1.0 / across_len) * across : Vec3<double>{1, 0, 0};
  const Vec3<double> rise = Cross(view, across);
  const uint32_t first = static_cast<uint32_t>(vertices.size());
  for (const auto& [a, b] : {std::pair{-1.0, -1.0}, {1.0, -1.0}, {1.0, 1.0}, {-1.0, 1.0}}) {
    const Vec3<double> corner = centre + (a * half_w) * across + (b * half_h) * rise;
    vertices.push_back({corner.x, corner.y, corner.z});
  }
  triangles.push_back({first, first + 1, first + 2});
  triangles.push_back({first, first + 2, first + 3});
}

// The ground under a frame's sensor, which its blind cone hides: a disc in the plane fitted
// to the nearest returns of its lowest rings, reaching out to the lowest ring.
struct GroundDisc {
  Vec3<double> centre;            // world
  std::vector<Vec3<double>> rim;  // world, kGroundDiscSegments points in order round it
  float reflectance;
};

constexpr int kGroundDiscSegments = 96;

// The disc's rim in the sensor frame: in each direction as far out as the lowest ring's returns
// there and at their height, so that the disc meets the ring's own mesh without standing in
// front of it. A circle through the blind cone's edge left a band between them wherever the
// ring lies farther out (the ground not flat, the sensor tilted): beams of another frame a
// little way off passed through it (the OS-1-128's frame 0: 150 returns of its lowest rings
// lost); a flat circle 0.3 m farther out, or a flat rim at the ring, stood in front of the
// ground (p90 +0.5-0.7 cm, docs/validation.md). Each rim point lies at the distance of the
// nearest of the ring's returns in the two sectors beside it, so that the chord between two rim
// points stays inside the ring, and off the plane by their mean height above it. Only the
// ring's returns within kGroundRimBandM of the plane count (a car, a kerb or a wall the lowest
// ring meets near the sensor would pull the rim in and lift it into a ramp); a sector without
// one (the vehicle's shadow, an obstacle) takes fallback_m, on the plane.
constexpr double kGroundRimBandM = 0.1;  // twice the plane fit's largest accepted RMS

std::vector<Vec3<double>> GroundDiscRim(const std::vector<Vec3<double>>& lowest_ring,
                                        const Vec3<double>& centre, const Vec3<double>& normal,
                                        double fallback_m) {
  Vec3<double> u = Cross(normal, Vec3<double>{1, 0, 0});
  if (Dot(u, u) < 1e-6) u = Cross(normal, Vec3<double>{0, 1, 0});
  u = (1 / std::sqrt(Dot(u, u))) * u;
  const Vec3<double> v = Cross(normal, u);
  constexpr int n = kGroundDiscSegments;
  std::vector<double> nearest(n, std::numeric_limits<double>::infinity()), height_sum(n, 0.0),
      count(n, 0.0);
  for (const Vec3<double>& p : lowest_ring) {
    const Vec3<double> d = p - centre;
    const double height = Dot(d, normal);
    if (!(std::fabs(height) <= kGroundRimBandM)) continue;
    const double x = Dot(d, u), y = Dot(d, v);
    const double angle = std::atan2(y, x);
    const double phi = angle < 0 ? angle + 2 * kPi : angle;
    const int sector = std::min(n - 1, static_cast<int>(phi / (2 * kPi) * n));
    nearest[sector] = std::min(nearest[sector], std::hypot(x, y));
    height_sum[sector] += height;
    count[sector] += 1;
  }
  for (double& r : nearest)
    if (!std::isfinite(r)) r = fallback_m;
  std::vector<Vec3<double>> rim(n);
  for (int s = 0; s < n; ++s) {
    const int before = (s + n - 1) % n;
    const double r = std::min(nearest[before], nearest[s]);
    const double c = count[before] + count[s];
    const double h = c > 0 ? (height_sum[before] + height_sum[s]) / c : 0;
    const double phi = 2 * kPi * s / n;
    rim[s] = centre + (r * std::cos(phi)) * u + (r * std::sin(phi)) * v + h * normal;
  }
  return rim;
}

// Least-squares plane z = a x + b y + c through points (sensor frame): fitted to all, refitted
// to the half nearest it, then fitted once more to every point within 3 times that fit's RMS
// (at least 2 cm). The trimmed refit is for what stands on the ground near the sensor: a car
// beside it holds a fifth of the lowest rings' returns, 0.6 m up, and pulled a plain fit's RMS
// to 0.3 m, its 3-RMS band keeping them all (no disc at all); refitted to the nearest 70 % the
// plane still stood 1-2 cm high (tests/reconstruct/range_image_mesh_test.cpp). False when fewer
// than 50 points remain, the RMS exceeds 5 cm, or the plane tilts more than 15 deg.
bool FitGroundPlane(std::vector<Vec3<double>> points, double* a, double* b, double* c) {
  const auto fit = [&](const std::vector<Vec3<double>>& in) {
    double sxx = 0, sxy = 0, syy = 0, sx = 0, sy = 0, n = 0, sxz = 0, syz = 0, sz = 0;
    for (const auto& p : in) {
      sxx += p.x * p.x, sxy += p.x * p.y, syy += p.y * p.y, sx += p.x, sy += p.y, n += 1;
      sxz += p.x * p.z, syz += p.y * p.z, sz += p.z;
    }
    // Normal equations [sxx sxy sx; sxy syy sy; sx sy n] [a b c] = [sxz syz sz], by Cramer.
    const auto det3 = [](double m00, double m01, double m02, double m10, double m11, double m12,
                         double m20, double m21, double m22) {
      return m00 * (m11 * m22 - m12 * m21) - m01 * (m10 * m22 - m12 * m20) +
             m02 * (m10 * m21 - m11 * m20);
    };
    const double d = det3(sxx, sxy, sx, sxy, syy, sy, sx, sy, n);
    if (!(std::fabs(d) > 1e-12)) return false;
    *a = det3(sxz, sxy, sx, syz, syy, sy, sz, sy, n) / d;
    *b = det3(sxx, sxz, sx, sxy, syz, sy, sx, sz, n) / d;
    *c = det3(sxx, sxy, sxz, sxy, syy, syz, sx, sy, sz) / d;
    return true;
  };
  const auto residual = [&](const Vec3<double>& p) {
    return std::fabs(p.z - (*a * p.x + *b * p.y + *c));
  };
  const auto rms = [&](const std::vector<Vec3<double>>& in) {
    double ss = 0;
    for (const auto& p : in)
      ss += residual(p) * residual(p);
    return std::sqrt(ss / double(in.size()));
  };
  if (points.size() < 50 || !fit(points)) return false;
  std::vector<double> r(points.size());
  for (size_t i = 0; i < points.size(); ++i)
    r[i] = residual(points[i]);
  const double trim = NthSmallest(r, points.size() / 2);
  std::vector<Vec3<double>> nearest;
  for (size_t i = 0; i < points.size(); ++i)
    if (r[i] <= trim) nearest.push_back(points[i]);
  if (nearest.size() < 50 || !fit(nearest)) return false;
  const double keep = std::max(0.02, 3 * rms(nearest));
  std::erase_if(points, [&](const Vec3<double>& p) { return residual(p) > keep; });
  if (points.size() < 50 || !fit(points)) return false;
  return rms(points) <= 0.05 && std::hypot(*a, *b) <= std::tan(15 * kPi / 180);
}

// A return that gets a surfel, and the scan's spacing around it.
struct SurfelWanted {
  uint32_t vertex;
  double azimuth_step_rad, ring_step_rad;
  Vec3<double> up;  // the sensor's spin axis in the world
  // On a smooth surface: half-axes to the midpoints of its neighbours (world), so the surfel
  // lies on the surface and tiles the scan's grid; zero: a square facing the sensor.
  Vec3<double> along{0, 0, 0}, across{0, 0, 0};
};

// The return of `ring` (sorted by azimuth, first entry repeated at +2 pi) nearest in azimuth
// to `azimuth`, or nullptr when none lies within max_gap.
const RingPoint* NearestInRing(const std::vector<RingPoint>& ring, double azimuth, double max_gap) {
  auto it = std::lower_bound(ring.begin(), ring.end(), azimuth,
                             [](const RingPoint& p, double a) { return p.azimuth < a; });
  const RingPoint* best = nullptr;
  double best_gap = max_gap;
  auto consider = [&](const RingPoint& p, double shift) {
    const double gap = std::fabs(p.azimuth + shift - azimuth);
    if (gap <= best_gap) best = &p, best_gap = gap;
  };
  if (it != ring.end()) consider(*it, 0);
  if (it != ring.begin()) consider(*std::prev(it), 0);
  // Across the seam at -pi: the last return before the repeated first one, a turn earlier.
  if (ring.size() >= 2) consider(ring[ring.size() - 2], -2 * kPi);
  return best;
}

// Moves every vertex along its ray (from vertex_origin) to the mean range of the surfaces the
// frames' meshes put within consensus_window_m of it there, its own frame's included; the
// other frames are cast against one caster per frame, built and dropped one frame at a time
// with only the vertices its triangles use (every frame's caster over every vertex at once
// grew with the square of the frames, issue 36). Sums run over the frames in order, as before.
// Updates vertex_range and the vertices.
void FuseAlongRays(const RangeImageMeshOptions& o, const std::vector<uint32_t>& vertex_frame,
                   const std::vector<Vec3<double>>& vertex_origin,
                   std::vector<double>& vertex_range,
                   const std::vector<std::vector<std::array<uint32_t, 3>>>& frame_triangles,
                   ReconstructedSurface& surface) {
  const size_t frames = frame_triangles.size();
  const double cos_max = std::cos(o.max_incidence_deg * kPi / 180);
  const size_t n = vertex_range.size();
  std::vector<double> sum(vertex_range.begin(), vertex_range.end());
  std::vector<int> count(n, 1);
  for (size_t k = 0; k < frames; ++k) {
    const auto& triangles = frame_triangles[k];
    if (triangles.empty()) continue;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (const auto& t : triangles)
      for (uint32_t v : t) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    std::vector<std::array<uint32_t, 3>> local = triangles;
    for (auto& t : local)
      for (uint32_t& v : t)
        v -= lo;
    const MeshCaster mesh = CasterOfMesh(
        {surface.vertices.begin() + lo, surface.vertices.begin() + hi + 1}, std::move(local));
    if (!mesh.caster) continue;  // out of memory: the frame is left out
    const RayCaster* caster = mesh.caster.get();
    ParallelFor(n, [&](size_t v) {
      if (k == vertex_frame[v]) return;
      const Vec3<double> origin = vertex_origin[v];
      const auto& p = surface.vertices[v];
      const double r = vertex_range[v];
      const Vec3<double> dir = (1.0 / r) * (Vec3<double>{p[0], p[1], p[2]} - origin);
      const RayHit hit = caster->Closest(origin, dir, std::max(0.0, r - o.consensus_window_m),
                                         r + o.consensus_window_m);
      if (hit.hit && std::fabs(Dot(hit.normal, dir)) >= cos_max) {
        sum[v] += hit.distance_m;
        ++count[v];
      }
    });
  }
  for (size_t v = 0; v < n; ++v) {
    const double fused = sum[v] / count[v];
    const auto& p = surface.vertices[v];
    const Vec3<double> origin = vertex_origin[v];
    const Vec3<double> q =
        origin + (fused / vertex_range[v]) * (Vec3<double>{p[0], p[1], p[2]} - origin);
    surface.vertices[v] = {q.x, q.y, q.z};
    vertex_range[v] = fused;
  }
}

// Each measured triangle split into the three regions nearest its corners, each corner's
// region (the corner, its two edges' midpoints and the centroid: two triangles) taking its
// corner's own R0. The reflectance then follows the returns themselves rather than their
// three-vertex means: neighbouring lasers of one
// column meet a surface centimetres apart (a Pandar64's lasers up to 3 deg apart in azimuth)
// and read it differently, and averaging them tripled the intensity error of a static capture
// (docs/validation.md). A ray through a return's place meets its own corner. The earlier split
// into four at the midpoints left a middle quarter at the mean, which pulled the simulated
// intensities towards their neighbours' (the XT16 bag's frame 2: 3.01 -> 2.87 with these
// regions, 100 classes both). Midpoints are shared along an edge, so the mesh stays as closed
// as it was. Triangles with a fixed R0
// (surfels, ground discs) are kept whole.
template <typename CornerReflectance>
void SplitAtVertices(const std::vector<float>& fixed_reflectance,
                     CornerReflectance&& corner_reflectance, ReconstructedSurface& surface) {
  const size_t n = surface.triangles.size();
  // Sized once: about 1.5 new midpoints and one centre a triangle, six triangles for each (the
  // table's and the arrays' regrowth was a third of the split's time on an OS-1-128 fold).
  EdgeTable midpoint(n * 3 / 2 + 16);
  const auto mid = [&](uint32_t a, uint32_t b) {
    const auto [index, added] = midpoint.TryEmplace(a, b, uint32_t(surface.vertices.size()));
    if (added) {
      const auto p = surface.vertices[a], q = surface.vertices[b];
      surface.vertices.push_back({0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1]), 0.5 * (p[2] + q[2])});
    }
    return index;
  };
  surface.vertices.reserve(surface.vertices.size() + n * 5 / 2 + 16);
  surface.triangles.reserve(n * 6);
  surface.triangle_reflectance.reserve(n * 6);
  for (size_t k = 0; k < n; ++k) {
    const auto t = surface.triangles[k];
    const float mean = surface.triangle_reflectance[k];
    // Every measured triangle, those without a reading too (beyond the incidence limit: their
    // parts stay without one), so that no split edge meets an unsplit one.
    if (std::isfinite(fixed_reflectance[k])) continue;
    const uint32_t ab = mid(t[0], t[1]), bc = mid(t[1], t[2]), ca = mid(t[2], t[0]);
    const auto corner = [&](uint32_t v) {
      const double r = corner_reflectance(v, t);
      return std::isfinite(r) ? static_cast<float>(r) : mean;
    };
    const uint32_t centre = static_cast<uint32_t>(surface.vertices.size());
    const auto p = surface.vertices[t[0]], q = surface.vertices[t[1]], s = surface.vertices[t[2]];
    surface.vertices.push_back(
        {(p[0] + q[0] + s[0]) / 3, (p[1] + q[1] + s[1]) / 3, (p[2] + q[2] + s[2]) / 3});
    // Corner c's region, c -> the midpoint after it -> centre -> the midpoint before it, in
    // the triangle's own winding.
    const std::array<std::array<uint32_t, 3>, 3> regions = {
        {{t[0], ab, ca}, {t[1], bc, ab}, {t[2], ca, bc}}};
    for (int c = 0; c < 3; ++c) {
      const auto& [v, after, before] = regions[c];
      const float r = corner(v);
      if (c == 0) {
        surface.triangles[k] = {v, after, centre};
        surface.triangle_reflectance[k] = r;
      } else {
        surface.triangles.push_back({v, after, centre});
        surface.triangle_reflectance.push_back(r);
      }
      surface.triangles.push_back({v, centre, before});
      surface.triangle_reflectance.push_back(r);
    }
  }
}

// Whether each of `vertices` returns lies on the mesh's edge: on a triangle side that no other
// triangle shares. The mesh joins returns at their beams' centres, so there it covers half the
// return's pixel or less (the top ring, a wall's end, the rim of a hole) and a beam a little
// off the recorded one passes by.
std::vector<bool> OnMeshEdge(const std::vector<std::array<uint32_t, 3>>& triangles,
                             size_t vertices) {
  EdgeTable sides(triangles.size() * 3 / 2 + 16);  // the triangles on each side
  for (const auto& t : triangles)
    for (int e = 0; e < 3; ++e)
      ++sides.TryEmplace(t[e], t[(e + 1) % 3], 0).first;
  std::vector<bool> on_edge(vertices, false);
  for (const auto& t : triangles)
    for (int e = 0; e < 3; ++e)
      if (sides.At(t[e], t[(e + 1) % 3]) == 1) on_edge[t[e]] = on_edge[t[(e + 1) % 3]] = true;
  return on_edge;
}

// How far the sensor went from where the first frame began [m]: the farthest start or end pose.
double SensorTravel(const PosedFrames& input) {
  double most = 0;
  if (input.start_poses.empty()) return most;
  const Vec3<double> from = input.start_poses.front().translation;
  for (const auto* poses : {&input.start_poses, &input.end_poses})
    for (const physics::Pose<double>& pose : *poses) {
      const Vec3<double> d = pose.translation - from;
      most = std::max(most, std::sqrt(Dot(d, d)));
    }
  return most;
}

}  // namespace

Expected<ReconstructedSurface> MeshRangeImages(const PosedFrames& input,
                                               const RangeImageMeshOptions& o) {
  // A sensor that stayed put sees under itself from no frame: no ground to fill in. One frame
  // alone (meshed frame by frame: the streaming reconstruction, a carving view) keeps its disc.
  const bool fill_ground =
      o.fill_ground && (input.frames.size() < 2 || SensorTravel(input) >= o.ground_min_travel_m);
  ReconstructedSurface surface;
  // R0 of each triangle fixed when it was made (surfels); NaN: from its vertices (step 4).
  std::vector<float> fixed_reflectance;
  std::vector<double> vertex_intensity, vertex_range;
  // The sensor's own range less vertex_range (an Ouster measures from its lidar origin, a
  // Helios from its lens): the reading's G(R) was fitted on the reported ranges, and the
  // simulator reports them.
  std::vector<double> vertex_range_offset;
  std::vector<Vec3<double>> vertex_origin;  // where the beam left from (world)
  std::vector<uint32_t> vertex_frame;
  std::vector<std::vector<std::array<uint32_t, 3>>> frame_triangles(input.frames.size());
  std::vector<SurfelWanted> wanted;
  std::vector<GroundDisc> discs;
  size_t one_ring_frames = 0;  // frames whose returns all carry one channel
  for (size_t k = 0; k < input.frames.size(); ++k) {
    const Frame& f = input.frames[k];
    if (f.channel.size() != f.size())
      return Error{fmt::format(
          "range-image meshing: frame {} has no channel field (the laser of each return), so "
          "its returns cannot be joined ring to ring; a point cloud without one needs method "
          "poisson, ball-pivoting or tsdf",
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
      const Vec3<double> beam_origin = o.beam_origins.Of(p);
      const double beam_range = std::sqrt(Dot(p - beam_origin, p - beam_origin));
      vertex_origin.push_back(physics::TransformPoint(pose, beam_origin));
      vertex_intensity.push_back(f.intensity.size() == f.size() ? f.intensity[i] : NAN);
      vertex_range.push_back(beam_range);
      vertex_range_offset.push_back(std::isfinite(r) ? r - beam_range : 0.0);
      vertex_frame.push_back(static_cast<uint32_t>(k));
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
        if (ring[i].azimuth > ring[i - 1].azimuth)
          steps.push_back(ring[i].azimuth - ring[i - 1].azimuth);
      order.emplace_back(Median(elevations[channel]), channel);
    }
    if (order.size() < 2) {  // nothing to join (a frame of one ring, or empty)
      ++one_ring_frames;
      continue;
    }
    std::sort(order.begin(), order.end());
    const double azimuth_step = Median(steps);
    if (!(azimuth_step > 0)) continue;
    for (auto& [channel, ring] : rings)
      if (!ring.empty()) ring.push_back({ring.front().azimuth + 2 * kPi, ring.front().vertex});
    // 3. Join each ring with the next one up.
    const FrameMesher mesher(o, azimuth_step);
    RangeImageMeshOptions grazing_options = o;
    grazing_options.max_incidence_deg = 89;
    const FrameMesher grazing(grazing_options, azimuth_step);
    std::vector<std::array<uint32_t, 3>> local;
    if (o.surfels != RangeImageMeshOptions::Surfels::kOnly)
      for (size_t r = 0; r + 1 < order.size(); ++r)
        mesher.JoinRings(g, rings[order[r].second], rings[order[r + 1].second], local);
    std::vector<int> fan(g.range.size(), 0);  // triangles around each return
    for (const auto& t : local) {
      surface.triangles.push_back({t[0] + first_vertex, t[1] + first_vertex, t[2] + first_vertex});
      frame_triangles[k].push_back(surface.triangles.back());
      fixed_reflectance.push_back(NAN);
      for (uint32_t v : t)
        ++fan[v];
    }
    // 3a. The ground in the blind cone: the nearest returns of the three lowest rings (sensor
    // frame at the frame's start), a plane through them, a disc out to the lowest ring.
    if (fill_ground && order.size() >= 3) {
      std::vector<Vec3<double>> near, lowest_ring;
      std::vector<double> horizontal, intensity;
      for (size_t r = 0; r < 3; ++r)
        for (const RingPoint& q : rings[order[r].second])
          if (g.range[q.vertex] <= o.ground_max_range_m) {
            const Vec3<double> p = g.range[q.vertex] * g.direction[q.vertex];
            near.push_back(p);
            if (r == 0) lowest_ring.push_back(p);
            horizontal.push_back(std::hypot(p.x, p.y));
            intensity.push_back(vertex_intensity[q.vertex + first_vertex]);
          }
      double a = 0, b = 0, c = 0;
      if (FitGroundPlane(near, &a, &b, &c) && c < 0) {
        const physics::Pose<double>& at = input.start_poses[k];
        Vec3<double> n{-a, -b, 1};
        n = (1 / std::sqrt(Dot(n, n))) * n;
        // R0 of the ground: the median over the returns, each read at its incidence on the
        // plane.
        std::vector<double> r0;
        for (size_t i = 0; i < near.size(); ++i) {
          const double range = std::sqrt(Dot(near[i], near[i]));
          const double v =
              o.reading.Reflectance(intensity[i], range, std::fabs(Dot(n, near[i])) / range, 89.9);
          if (std::isfinite(v)) r0.push_back(v);
        }
        // The blind cone's edge: the nearest tenth of the returns.
        const double inner = NthSmallest(horizontal, horizontal.size() / 10);
        // No reading (NaN): the scene writer gives the disc the median.
        const auto reflectance = static_cast<float>(Median(r0));
        std::vector<Vec3<double>> rim =
            GroundDiscRim(lowest_ring, Vec3<double>{0, 0, c}, n, inner + o.ground_margin_m);
        for (Vec3<double>& p : rim)
          p = physics::TransformPoint(at, p);
        discs.push_back(
            {physics::TransformPoint(at, Vec3<double>{0, 0, c}), std::move(rim), reflectance});
      }
    }
    if (o.surfels == RangeImageMeshOptions::Surfels::kNone) continue;
    // Surfels wanted for the returns no triangle covers: a ring's height is half the elevation
    // gaps to its neighbours above and below. Made after the consensus has moved the points.
    const std::vector<bool> on_edge = o.surfels_at_mesh_edges ? OnMeshEdge(local, g.range.size())
                                                              : std::vector<bool>(g.range.size());
    auto covered = [&](uint32_t v) { return fan[v] >= o.min_fan_triangles && !on_edge[v]; };
    const Vec3<double> up =
        physics::Rotate(input.start_poses[k].rotation, Vec3<double>{0, 0, 1});  // spin axis
    for (size_t r = 0; r < order.size(); ++r) {
      const double below = r > 0 ? order[r].first - order[r - 1].first : NAN;
      const double above = r + 1 < order.size() ? order[r + 1].first - order[r].first : NAN;
      const double ring_step = std::isnan(below)   ? above
                               : std::isnan(above) ? below
                                                   : (below + above) / 2;
      const auto& ring = rings[order[r].second];
      const double max_gap = o.max_gap_steps * azimuth_step;
      for (size_t i = 0; i + 1 < ring.size(); ++i) {  // the last entry repeats the first
        const RingPoint& p = ring[i];
        if (covered(p.vertex)) continue;
        SurfelWanted w{p.vertex + first_vertex, azimuth_step, ring_step, up};
        // Its neighbours left and right, below and above: if the ranges run on smoothly
        // through it both ways (small second differences, as on ground seen at grazing
        // incidence), the surfel spans half-way to each of them.
        // Left of the first return is the last one, a turn earlier (the seam at -pi).
        const RingPoint& before = i > 0 ? ring[i - 1] : ring[ring.size() - 2];
        const double before_azimuth = i > 0 ? before.azimuth : before.azimuth - 2 * kPi;
        const RingPoint* left =
            ring.size() > 2 && p.azimuth - before_azimuth <= max_gap ? &before : nullptr;
        const RingPoint* right =
            ring[i + 1].azimuth - p.azimuth <= max_gap ? &ring[i + 1] : nullptr;
        const RingPoint* down =
            r > 0 ? NearestInRing(rings[order[r - 1].second], p.azimuth, max_gap) : nullptr;
        const RingPoint* up_n = r + 1 < order.size()
                                    ? NearestInRing(rings[order[r + 1].second], p.azimuth, max_gap)
                                    : nullptr;
        const double tolerance = o.range_tolerance_m + o.surfel_smoothness * g.range[p.vertex];
        // The ranges run on smoothly through the return: a second difference small against
        // the range, or against the steps themselves (ground at grazing incidence bends by
        // ~9 cm at 16 m on an OS-1-128, by a fifth of its 3-4 m steps at 36 m; foliage and
        // depth edges jump back and forth by metres).
        auto smooth = [&](const RingPoint* a, const RingPoint* b) {
          if (!a || !b || a->vertex == b->vertex) return false;
          const double ra = g.range[a->vertex], rp = g.range[p.vertex], rb = g.range[b->vertex];
          const double steps = 0.5 * (std::fabs(ra - rp) + std::fabs(rb - rp));
          return std::fabs(ra - 2 * rp + rb) <= std::max(tolerance, o.surfel_bend * steps);
        };
        // Half-axis towards a pair of neighbours: half-way to each when both exist and the
        // return is on their line; half-way to the one there is (a ring at the edge of the
        // field of view, a gap) when the other axis is smooth; else none.
        auto world = [&](const RingPoint* q) {
          const auto& v = surface.vertices[q->vertex + first_vertex];
          return Vec3<double>{v[0], v[1], v[2]};
        };
        const Vec3<double> here = world(&p);
        const bool smooth_along = smooth(left, right), smooth_across = smooth(down, up_n);
        auto half_axis = [&](const RingPoint* a, const RingPoint* b, bool both_smooth,
                             bool other_smooth, Vec3<double>* axis) {
          if (both_smooth) {
            *axis = 0.25 * (world(b) - world(a));
            return true;
          }
          if (!other_smooth || (a && b)) return false;
          // One neighbour: only if one plane seen at up to 89 deg could hold both.
          if ((a || b) && grazing.Joinable(g, p.vertex, (a ? a : b)->vertex)) {
            *axis = 0.5 * (world(a ? a : b) - here);
            return true;
          }
          return false;
        };
        Vec3<double> along, across;
        if (half_axis(left, right, smooth_along, smooth_across, &along) &&
            half_axis(down, up_n, smooth_across, smooth_along, &across)) {
          w.along = along;
          w.across = across;
        }
        wanted.push_back(w);
      }
    }
  }
  if (surface.triangles.empty() && wanted.empty() && one_ring_frames == input.frames.size())
    return Error{
        "range-image meshing: every frame's returns carry one channel (laser), so they cannot "
        "be joined ring to ring (a cloud without the laser of each "
        "return); use method poisson, ball-pivoting or tsdf"};
  if (surface.triangles.empty() && wanted.empty())
    return Error{
        "range-image meshing: no two neighbouring returns lie on one surface in any frame "
        "(too few returns, or frames with fewer than two lasers)"};

  // 4. Consensus: each return moved along its ray to the mean of where every frame's mesh
  // crosses that ray near it, so the frames' surfaces fuse into one instead of lying in
  // front of each other by their noise.
  if (o.consensus_window_m > 0 && input.frames.size() > 1)
    FuseAlongRays(o, vertex_frame, vertex_origin, vertex_range, frame_triangles, surface);

  // 5. The surfels.
  for (const SurfelWanted& w : wanted) {
    const auto& c = surface.vertices[w.vertex];
    const double range = vertex_range[w.vertex];
    const size_t before = surface.triangles.size();
    const Vec3<double> centre{c[0], c[1], c[2]};
    double cos_incidence = 1;  // a square facing the sensor
    if (Dot(w.along, w.along) > 0) {
      AppendParallelogram(centre, w.along, w.across, surface.vertices, surface.triangles);
      const Vec3<double> n = Cross(w.along, w.across), view = centre - vertex_origin[w.vertex];
      cos_incidence = std::fabs(Dot(n, view)) / std::sqrt(Dot(n, n) * Dot(view, view));
    } else {
      AppendSurfel(centre, vertex_origin[w.vertex], w.up, 0.5 * range * w.azimuth_step_rad,
                   0.5 * range * w.ring_step_rad, surface.vertices, surface.triangles);
    }
    const float r0 = static_cast<float>(
        o.reading.Reflectance(vertex_intensity[w.vertex], range + vertex_range_offset[w.vertex],
                              cos_incidence, o.own_face_max_incidence_deg));
    for (size_t t = before; t < surface.triangles.size(); ++t)
      fixed_reflectance.push_back(r0);
    for (int corner = 0; corner < 4; ++corner) {  // keep the per-vertex arrays aligned
      vertex_origin.push_back(vertex_origin[w.vertex]);
      vertex_intensity.push_back(NAN);
      vertex_range.push_back(NAN);
      vertex_range_offset.push_back(0);
    }
  }
  // 5b. The ground discs: a fan of triangles from the centre to the rim.
  for (const GroundDisc& d : discs) {
    const uint32_t centre = static_cast<uint32_t>(surface.vertices.size());
    const auto segments = static_cast<uint32_t>(d.rim.size());
    surface.vertices.push_back({d.centre.x, d.centre.y, d.centre.z});
    for (const Vec3<double>& p : d.rim)
      surface.vertices.push_back({p.x, p.y, p.z});
    for (uint32_t s = 0; s < segments; ++s) {
      surface.triangles.push_back({centre, centre + 1 + s, centre + 1 + (s + 1) % segments});
      fixed_reflectance.push_back(d.reflectance);
    }
    for (uint32_t s = 0; s <= segments; ++s) {  // keep the per-vertex arrays aligned
      vertex_origin.push_back(d.centre);
      vertex_intensity.push_back(NAN);
      vertex_range.push_back(NAN);
      vertex_range_offset.push_back(0);
    }
  }

  // 6. Reflectance: each vertex's normal from the triangles around it (area-weighted), then
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
    r0[v] = o.reading.Reflectance(vertex_intensity[v], vertex_range[v] + vertex_range_offset[v],
                                  std::fabs(Dot(normal[v], to_sensor)) / len,
                                  o.reflectance_max_incidence_deg);
  }
  surface.triangle_reflectance.reserve(surface.triangles.size());
  for (size_t k = 0; k < surface.triangles.size(); ++k) {
    if (std::isfinite(fixed_reflectance[k])) {
      surface.triangle_reflectance.push_back(fixed_reflectance[k]);
      continue;
    }
    const auto& t = surface.triangles[k];
    double sum = 0;
    int n = 0;
    for (uint32_t v : t)
      if (std::isfinite(r0[v])) sum += r0[v], ++n;
    surface.triangle_reflectance.push_back(n ? static_cast<float>(sum / n) : NAN);
  }
  // A corner's R0 is read through its triangle's own normal, the one the simulator's ray will
  // meet: a ray from where the return was seen then reads back its intensity, however noisy
  // the triangle's normal (two returns 7 mm apart with 2 cm of range noise each).
  const auto corner_reflectance = [&](uint32_t v, const std::array<uint32_t, 3>& t) {
    const Vec3<double> n = Cross(at(t[1]) - at(t[0]), at(t[2]) - at(t[0]));
    const Vec3<double> to_sensor = vertex_origin[v] - at(v);
    const double len = std::sqrt(Dot(n, n) * Dot(to_sensor, to_sensor));
    if (!(len > 0)) return double(NAN);
    return o.reading.Reflectance(vertex_intensity[v], vertex_range[v] + vertex_range_offset[v],
                                 std::fabs(Dot(n, to_sensor)) / len, o.own_face_max_incidence_deg);
  };
  if (o.reflectance_at_vertices) SplitAtVertices(fixed_reflectance, corner_reflectance, surface);
  return surface;
}

}  // namespace lt
