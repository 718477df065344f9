#include "lidartwin/reconstruct/visibility_carving.h"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <future>
#include <map>
#include <numbers>
#include <thread>
#include <utility>

#include "lidartwin/base/beside_this_thread.h"
#include "lidartwin/base/order_statistics.h"
#include "lidartwin/base/parallel_for.h"
#include "lidartwin/reconstruct/mesh_caster.h"
#include "lidartwin/reconstruct/range_image_mesh.h"
#include "lidartwin/sim/ray_caster.h"
#include "lidartwin/sim/ray_query.h"

namespace lt {

using physics::Vec3;

namespace {

// Removes the triangles whose votes reach min_votes (and their reflectances).
size_t RemoveVoted(ReconstructedSurface& surface, const std::vector<uint16_t>& votes,
                   int min_votes) {
  size_t kept = 0;
  for (size_t t = 0; t < surface.triangles.size(); ++t) {
    if (votes[t] >= min_votes) continue;
    surface.triangles[kept] = surface.triangles[t];
    surface.triangle_reflectance[kept] = surface.triangle_reflectance[t];
    ++kept;
  }
  const size_t removed = surface.triangles.size() - kept;
  surface.triangles.resize(kept);
  surface.triangle_reflectance.resize(kept);
  return removed;
}

// The four rays footprint_rad beside a ray, across and along world z (the spin axis of a level
// mount), from its origin.
void FootprintRays(const RayQuery& centre, double footprint_rad, RayQuery out[4]) {
  const Vec3<double> u = centre.unit_direction;
  Vec3<double> across = Cross(Vec3<double>{0, 0, 1}, u);
  const double n = std::sqrt(Dot(across, across));
  if (n < 1e-9)
    across = Vec3<double>{1, 0, 0};  // straight up or down
  else
    across = (1.0 / n) * across;
  const Vec3<double> along = Cross(u, across);
  const double t = std::tan(footprint_rad);
  const Vec3<double> offsets[4] = {t * across, -t * across, t * along, -t * along};
  for (int i = 0; i < 4; ++i) {
    const Vec3<double> d = u + offsets[i];
    out[i] = {centre.origin, (1.0 / std::sqrt(Dot(d, d))) * d, centre.t_min, centre.t_max};
  }
}

// A frame's azimuth step [rad]: its revolution's columns, or where it has no column count, the
// median azimuth gap between neighbouring first returns of a channel (0: none measured).
double AzimuthStepRad(const PosedFrames& frames, size_t k) {
  if (frames.columns_per_frame > 0) return 2 * std::numbers::pi / frames.columns_per_frame;
  const Frame& f = frames.frames[k];
  std::map<uint16_t, std::vector<double>> azimuths;
  for (size_t i = 0; i < f.size(); ++i)
    if (f.channel.size() == f.size() && (f.return_index.empty() || f.return_index[i] == 0))
      azimuths[f.channel[i]].push_back(std::atan2(f.y_m[i], f.x_m[i]));
  std::vector<double> gaps;
  for (auto& [channel, a] : azimuths) {
    std::sort(a.begin(), a.end());
    for (size_t i = 1; i < a.size(); ++i)
      if (a[i] > a[i - 1]) gaps.push_back(a[i] - a[i - 1]);
  }
  if (gaps.empty()) return 0;
  const size_t middle = gaps.size() / 2;
  return NthSmallest(std::move(gaps), middle);
}

// One frame as its sensor saw it: its own range-image surface (mesh and surfels) in the world,
// and when in its revolution it looked in each direction (the mean column fraction of its
// returns per degree of azimuth, to put the ray's origin where the sensor was).
struct FrameView {
  MeshCaster mesh;
  std::vector<double> fraction_at_degree;  // 360 entries, NaN where no return
  physics::Pose<double> start, end;

  Vec3<double> OriginLookingAt(const Vec3<double>& world) const {
    const Vec3<double> local = physics::InverseTransformPoint(start, world);
    double deg = std::atan2(local.y, local.x) * 180 / std::numbers::pi;
    const int bin = static_cast<int>(std::floor(deg + 360)) % 360;
    const double s = std::isnan(fraction_at_degree[bin]) ? 0.5 : fraction_at_degree[bin];
    return physics::InterpolatePose(start, end, s).translation;
  }
};

Expected<FrameView> ViewOf(const PosedFrames& frames, size_t k, const VisibilityCarvingOptions& o) {
  FrameView view;
  view.start = frames.start_poses[k];
  view.end = frames.end_poses[k];
  PosedFrames one;
  one.frames = {frames.frames[k]};
  one.start_poses = {view.start};
  one.end_poses = {view.end};
  one.columns_per_frame = frames.columns_per_frame;
  RangeImageMeshOptions mo;
  mo.min_range_m = o.min_range_m;
  mo.max_range_m = o.max_range_m;
  mo.consensus_window_m = 0;  // as the frame saw it
  // Its triangles whole: the split at the vertices subdivides each in its own plane for the
  // reflectance alone, and six times the triangles made the view's mesh and tree a third of an
  // OS-1-128 fold's carving (2.3 s -> 1.0 s, the same triangles carved).
  mo.reflectance_at_vertices = false;
  auto seen = MeshRangeImages(one, mo);
  if (!seen.ok()) return seen.error();
  view.mesh = CasterOfMesh(std::move(seen->vertices), std::move(seen->triangles));
  if (!view.mesh.caster)
    return Error{fmt::format("Embree cannot hold frame {}'s surface (out of memory)", k)};
  const Frame& f = frames.frames[k];
  std::vector<double> sum(360, 0.0), count(360, 0.0);
  for (size_t i = 0; i < f.size(); ++i) {
    const double s = frames.columns_per_frame && f.column.size() == f.size()
                         ? std::min(1.0, double(f.column[i]) / frames.columns_per_frame)
                         : 0.0;
    const double deg = std::atan2(f.y_m[i], f.x_m[i]) * 180 / std::numbers::pi;
    if (!std::isfinite(deg)) continue;
    const int bin = static_cast<int>(std::floor(deg + 360)) % 360;
    sum[bin] += s;
    count[bin] += 1;
  }
  view.fraction_at_degree.resize(360);
  for (int b = 0; b < 360; ++b)
    view.fraction_at_degree[b] = count[b] > 0 ? sum[b] / count[b] : NAN;
  return view;
}

}  // namespace

Expected<VisibilityCarvingSummary> CarveSeenThrough(ReconstructedSurface& surface,
                                                    const PosedFrames& frames,
                                                    const VisibilityCarvingOptions& o) {
  VisibilityCarvingSummary summary;
  if (surface.triangles.empty()) return summary;
  // Every frame has the channels its range image needs: the field, and more than one laser
  // (a KITTI .bin or a PCD cloud read in has none, or all 0).
  bool ranged = true;
  for (const Frame& f : frames.frames)
    ranged = ranged && f.channel.size() == f.size() &&
             std::any_of(f.channel.begin(), f.channel.end(),
                         [&](uint16_t c) { return c != f.channel.front(); });
  if (!ranged) return CarveByReturnRays(surface, frames, o);
  // At most two frames' views at a time (the one casting and the next being made): every
  // frame's mesh and caster at once grew with the capture (issue 36). The votes are counts, so
  // the order in which frames cast does not matter.
  const double cos_max = std::cos(o.max_incidence_deg * std::numbers::pi / 180);
  std::vector<uint16_t> votes(surface.triangles.size(), 0);
  std::vector<Vec3<double>> centroids(surface.triangles.size());
  for (size_t t = 0; t < surface.triangles.size(); ++t) {
    Vec3<double> c{0, 0, 0};
    for (uint32_t v : surface.triangles[t])
      c = c + Vec3<double>{surface.vertices[v][0], surface.vertices[v][1], surface.vertices[v][2]};
    centroids[t] = (1.0 / 3.0) * c;
  }
  std::atomic<size_t> crossings{0};
  size_t views = 0;
  // Frame k + 1's view is made while frame k's casts, and frames 0 and 1's side by side: making
  // one is mostly one core's work (its range image's mesh), the casting every core's (an
  // OS-1-128 fold's carving: 1.2-1.6 s -> 1.1-1.2 s). At most two views are held at once
  // (issue 36 bounds the memory), and each casts as it did alone.
  const size_t n = frames.frames.size();
  const auto view_of = [&](size_t k) { return ViewOf(frames, k, o); };
  const auto policy = BesideThisThread();
  std::future<Expected<FrameView>> next;
  if (n > 1) next = std::async(policy, view_of, size_t{1});
  Expected<FrameView> view = view_of(0);
  for (size_t k = 0; k < n; ++k) {
    if (k > 0) {
      view = next.get();
      if (k + 1 < n) next = std::async(policy, view_of, k + 1);
    }
    if (!view.ok()) {
      // A frame whose returns join into no surface shows nothing to carve with: one whose
      // returns are too few, or all of one laser (a capture's last, partial frame: the few
      // returns of its last packet past the wrap).
      if (view.message().find("no two neighbouring returns") != std::string::npos ||
          view.message().find("carry one channel") != std::string::npos) {
        continue;
      }
      return Error{"visibility carving: " + view.message()};
    }
    ++views;
    const double footprint_rad = o.footprint_columns * AzimuthStepRad(frames, k);
    // Neighbouring triangles (one ring's, in order) in packets: their rays from the view are
    // coherent, and RayCaster::ClosestBatch traces them about four times as fast as one by one
    // (the triangles' rays were a third of an OS-1-128 fold's reconstruction).
    constexpr size_t kPacket = 64;
    ParallelFor((surface.triangles.size() + kPacket - 1) / kPacket, [&](size_t packet) {
      const size_t begin = packet * kPacket;
      const size_t end = std::min(surface.triangles.size(), begin + kPacket);
      RayQuery queries[kPacket];
      RayHit hits[kPacket];
      uint32_t which[kPacket];
      double distance[kPacket];
      size_t n = 0;
      for (size_t t = begin; t < end; ++t) {
        const Vec3<double> c = centroids[t];
        const Vec3<double> origin = view->OriginLookingAt(c);
        const Vec3<double> dir = c - origin;
        const double d = std::sqrt(Dot(dir, dir));
        if (!(d >= o.min_range_m && d <= o.max_range_m)) continue;
        queries[n] = {origin, (1.0 / d) * dir, o.min_range_m, o.max_range_m};
        which[n] = static_cast<uint32_t>(t - begin);
        distance[n++] = d;
      }
      view->mesh.caster->ClosestBatch(queries, n, hits);
      // The rays the frame saw through: candidates, checked around their centroid (the four
      // rays beside each traced together, as coherent as the packet's). A frame that saw through
      // a triangle votes only if it saw nothing at the triangle's distance (within the margin) a
      // little to either side of the ray, footprint_rad off: its own surface ends at its returns'
      // beam centres, so a ray to a triangle on the rim of what it saw (an object's silhouette
      // seen from a little way off) passes just beside it and meets the background, which took
      // that rim away a pixel at a time. A surface nearer than the triangle there still votes (a
      // mixed return floating in front of the background).
      uint32_t candidate[kPacket];
      size_t candidates = 0;
      for (size_t q = 0; q < n; ++q) {
        // The first surface this frame saw along the ray: in front of the triangle (it hid it)
        // or at it (it saw it) says nothing against it; beyond it, the frame saw through it.
        const RayHit& hit = hits[q];
        const double margin = o.margin_m + o.margin_fraction * distance[q];
        if (hit.hit && hit.distance_m > distance[q] + margin &&
            std::fabs(Dot(hit.normal, queries[q].unit_direction)) >= cos_max &&
            votes[begin + which[q]] < UINT16_MAX)
          candidate[candidates++] = static_cast<uint32_t>(q);
      }
      RayQuery beside[4 * kPacket];
      RayHit beside_hits[4 * kPacket];
      if (footprint_rad > 0) {
        // Each side's rays together (neighbouring candidates' rays of one side run parallel).
        for (size_t c = 0; c < candidates; ++c) {
          RayQuery four[4];
          FootprintRays(queries[candidate[c]], footprint_rad, four);
          for (size_t i = 0; i < 4; ++i)
            beside[i * candidates + c] = four[i];
        }
        view->mesh.caster->ClosestBatch(beside, 4 * candidates, beside_hits);
      }
      for (size_t c = 0; c < candidates; ++c) {
        const size_t q = candidate[c];
        const double margin = o.margin_m + o.margin_fraction * distance[q];
        bool saw_it = false;
        for (size_t i = 0; footprint_rad > 0 && i < 4; ++i) {
          const RayHit& h = beside_hits[i * candidates + c];
          saw_it = saw_it || (h.hit && std::fabs(h.distance_m - distance[q]) <= margin);
        }
        if (saw_it) continue;
        ++votes[begin + which[q]];
        ++crossings;
      }
    });
  }
  summary.rays = surface.triangles.size() * views;
  summary.crossings = crossings;
  summary.triangles_removed = RemoveVoted(surface, votes, o.min_votes);
  return summary;
}

// The fallback for frames without channels (point clouds): each return's ray votes against
// the triangles it crosses short of the return.
Expected<VisibilityCarvingSummary> CarveByReturnRays(ReconstructedSurface& surface,
                                                     const PosedFrames& frames,
                                                     const VisibilityCarvingOptions& o) {
  VisibilityCarvingSummary summary;
  if (surface.triangles.empty()) return summary;
  const MeshCaster mesh = CasterOfMesh(surface.vertices, surface.triangles);
  const RayCaster* caster = mesh.caster.get();
  if (!caster)
    return Error{fmt::format("visibility carving: Embree cannot hold {} triangles (out of memory)",
                             surface.triangles.size())};
  const double cos_max = std::cos(o.max_incidence_deg * std::numbers::pi / 180);
  constexpr int kMaxCrossingsPerRay = 16;  // a ray through more layers than this is an outlier
  std::vector<std::atomic<uint16_t>> votes(surface.triangles.size());
  std::atomic<size_t> rays{0}, crossings{0};
  // Every return's ray, over the machine's threads (Closest is thread-safe).
  for (size_t k = 0; k < frames.frames.size(); ++k) {
    const Frame& f = frames.frames[k];
    ParallelFor(f.size(), [&](size_t i) {
      const double r = f.range_m[i];
      if (!(r >= o.min_range_m && r <= o.max_range_m)) return;
      const Vec3<double> p{f.x_m[i], f.y_m[i], f.z_m[i]};
      const double norm = std::sqrt(Dot(p, p));
      if (!std::isfinite(norm) || !(norm > 0)) return;
      const auto pose = PoseOfPoint(frames, k, i);
      const Vec3<double> dir = physics::Rotate(pose.rotation, (1.0 / norm) * p);
      const double stop = norm - o.margin_m - o.margin_fraction * norm;
      ++rays;
      double t = o.min_range_m;
      for (int n = 0; n < kMaxCrossingsPerRay && t < stop; ++n) {
        const RayHit hit = caster->Closest(pose.translation, dir, t, stop);
        if (!hit.hit) break;
        if (std::fabs(Dot(hit.normal, dir)) >= cos_max) {
          uint16_t v = votes[hit.triangle].load(std::memory_order_relaxed);
          while (v < UINT16_MAX && !votes[hit.triangle].compare_exchange_weak(v, v + 1)) {
          }
          ++crossings;
        }
        t = hit.distance_m + 1e-4;  // on to the next layer
      }
    });
  }
  summary.rays = rays;
  summary.crossings = crossings;
  std::vector<uint16_t> counts(votes.size());
  for (size_t t = 0; t < votes.size(); ++t)
    counts[t] = votes[t].load();
  summary.triangles_removed = RemoveVoted(surface, counts, o.min_votes);
  return summary;
}

}  // namespace lt
