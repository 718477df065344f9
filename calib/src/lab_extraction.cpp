// Lab tables from recordings of flat targets (lab_extraction.h).
#include "lidartwin/calib/lab_extraction.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_set>

#include "lidartwin/base/config_reader.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/physics/units.h"
#include "sample_statistics.h"

namespace lt::calib {
namespace {

using V3 = std::array<double, 3>;

V3 Sub(const V3& a, const V3& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
double Dot(const V3& a, const V3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
V3 Cross(const V3& a, const V3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
V3 Scaled(const V3& a, double s) {
  return {a[0] * s, a[1] * s, a[2] * s};
}
double Norm(const V3& a) {
  return std::sqrt(Dot(a, a));
}

// A target's plane and edges: a point is on it within the tolerance of the plane and at least
// the margin inside every edge.
struct TargetGeometry {
  V3 centre{}, normal{};
  std::array<V3, 4> corner{}, inward{};  // inward: unit, in the plane, across each edge

  explicit TargetGeometry(const LabTarget& t) {
    for (const V3& c : t.corners)
      for (int k = 0; k < 3; ++k)
        centre[k] += 0.25 * c[k];
    // Newell's normal of the quadrilateral (robust to a slightly skewed one).
    for (int k = 0; k < 4; ++k) {
      const V3& a = t.corners[k];
      const V3& b = t.corners[(k + 1) % 4];
      normal = {normal[0] + (a[1] - b[1]) * (a[2] + b[2]),
                normal[1] + (a[2] - b[2]) * (a[0] + b[0]),
                normal[2] + (a[0] - b[0]) * (a[1] + b[1])};
    }
    normal = Scaled(normal, 1 / Norm(normal));
    for (int k = 0; k < 4; ++k) {
      corner[k] = t.corners[k];
      V3 m = Cross(normal, Sub(t.corners[(k + 1) % 4], t.corners[k]));
      if (Dot(m, Sub(centre, t.corners[k])) < 0) m = Scaled(m, -1);
      inward[k] = Scaled(m, 1 / Norm(m));
    }
  }
  bool Holds(const V3& p, double tolerance, double margin) const {
    if (std::fabs(Dot(Sub(p, centre), normal)) > tolerance) return false;
    for (int k = 0; k < 4; ++k)
      if (Dot(Sub(p, corner[k]), inward[k]) < margin) return false;
    return true;
  }
};

std::string FileSafe(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// The table a row goes to: one per target reflectance and incidence to 1 deg.
std::string GroupName(double reflectance, double incidence_deg) {
  return fmt::format("r{:.3f}_i{:02d}", reflectance, static_cast<int>(std::lround(incidence_deg)));
}

}  // namespace

Expected<LabTargets> ReadLabTargets(const std::filesystem::path& file) {
  auto text = ReadTextFile(file, " targets file", 1 << 20);
  if (!text.ok()) return text.error();
  auto parsed = ConfigMap::FromText(*text, file.string());
  if (!parsed.ok()) return parsed.error();
  ConfigMap& root = *parsed;
  LabTargets t;
  t.name = root.String("name", "lab extracted from recordings");
  t.sensor_serial = root.String("sensor_serial", "");
  t.wavelength_nm = root.Number("wavelength_nm");
  if (!(t.wavelength_nm >= 200 && t.wavelength_nm <= 20000))
    root.Fail("wavelength_nm", "must be the unit's wavelength in 200..20000 nm");
  t.plane_tolerance_m = root.Number("plane_tolerance_m", 0.05);
  if (!(t.plane_tolerance_m > 0 && t.plane_tolerance_m <= 1))
    root.Fail("plane_tolerance_m", "must be in (0, 1] m");
  t.edge_margin_m = root.Number("edge_margin_m", 0.05);
  if (!(t.edge_margin_m >= 0 && t.edge_margin_m <= 10))
    root.Fail("edge_margin_m", "must be in [0, 10] m");
  const double min_returns = root.Number("min_returns", 10);
  if (!(min_returns >= 1 && min_returns <= 1e6 && min_returns == std::floor(min_returns)))
    root.Fail("min_returns", "must be a whole number in 1..1e6");
  t.min_returns = static_cast<size_t>(std::max(1.0, min_returns));
  for (ConfigMap& m : root.MapList("targets")) {
    LabTarget target;
    target.name = m.String("name");
    target.material = m.String("material", target.name);
    target.reflectance = m.Number("reflectance");
    if (!(target.reflectance > 0 && target.reflectance <= 1))
      m.Fail("reflectance", "must be a fraction in (0, 1] (a percentage?)");
    const std::vector<double> xyz = m.NumberRows("corners", 3);
    if (xyz.size() != 12) {
      if (m.FirstError().ok())  // else NumberRows said what is wrong
        m.Fail("corners", fmt::format("must be four corners [x, y, z] in the sensor's frame, in "
                                      "metres and in order around the target, got {}",
                                      xyz.size() / 3));
    } else {
      for (int k = 0; k < 12; ++k) {
        if (!std::isfinite(xyz[k]) || std::fabs(xyz[k]) > 1e5)
          m.Fail("corners", "must be finite coordinates within 1e5 m");
        target.corners[k / 3][k % 3] = xyz[k];
      }
      const TargetGeometry g(target);
      double edge = 1e300, off_plane = 0;
      for (int k = 0; k < 4; ++k) {
        edge = std::min(edge, Norm(Sub(target.corners[(k + 1) % 4], target.corners[k])));
        off_plane = std::max(off_plane, std::fabs(Dot(Sub(target.corners[k], g.centre), g.normal)));
      }
      if (!(edge > 2 * t.edge_margin_m) || !std::isfinite(g.normal[0]))
        m.Fail("corners", "make no quadrilateral wider than twice edge_margin_m");
      else if (off_plane > t.plane_tolerance_m)
        m.Fail("corners", fmt::format("do not lie in one plane: a corner is {:.3g} m off it "
                                      "(plane_tolerance_m {:g})",
                                      off_plane, t.plane_tolerance_m));
    }
    if (m.Has("frames")) {
      for (double f : m.Numbers("frames")) {
        if (!(f >= 0 && f < 1e9 && f == std::floor(f))) {
          m.Fail("frames", "must list whole frame numbers >= 0");
          break;
        }
        target.frames.push_back(static_cast<uint32_t>(f));
      }
    }
    t.targets.push_back(std::move(target));
  }
  if (t.targets.empty() && root.FirstError().ok())
    root.Fail("targets", "must list at least one target");
  if (Status s = root.Finish(); !s.ok()) return s.error();
  return t;
}

Expected<ExtractedLab> ExtractLab(const std::vector<Frame>& frames, const LabTargets& targets,
                                  const SensorProfile* profile, bool calibrated) {
  ExtractedLab out;
  out.lab.name = targets.name;
  out.lab.sensor_serial = targets.sensor_serial;
  out.lab.wavelength_nm = targets.wavelength_nm;
  const V3 origin = profile ? profile->beam_origin_m : V3{0, 0, 0};
  std::map<std::string, RangeIntensityCurve> ranges;
  std::map<std::string, ReflectanceCurve> reflectances;
  std::map<std::string, ThresholdSweep> detections;
  std::vector<size_t> best(targets.targets.size(), 0);
  for (size_t ti = 0; ti < targets.targets.size(); ++ti) {
    const LabTarget& target = targets.targets[ti];
    const TargetGeometry g(target);
    const V3 to_centre = Sub(g.centre, origin);
    const double range = Norm(to_centre);
    const double incidence =
        std::acos(std::min(1.0, std::fabs(Dot(to_centre, g.normal)) / range)) / physics::kDegToRad;
    for (uint32_t fi = 0; fi < frames.size(); ++fi) {
      if (!target.frames.empty() &&
          std::find(target.frames.begin(), target.frames.end(), fi) == target.frames.end())
        continue;
      const Frame& f = frames[fi];
      const bool beams = profile && f.channel.size() == f.size() && f.column.size() == f.size();
      if (profile && !beams)
        return Error{
            fmt::format("frame {}: its returns carry no channel and column, so the "
                        "beams a target should have returned cannot be counted",
                        fi)};
      std::vector<double> intensity;
      std::unordered_set<uint64_t> hit;  // (channel, column) of the returns on the target
      for (size_t i = 0; i < f.size(); ++i) {
        if (!f.return_index.empty() && f.return_index[i] != 0) continue;
        if (!std::isfinite(f.intensity[i])) continue;
        if (!g.Holds({f.x_m[i], f.y_m[i], f.z_m[i]}, targets.plane_tolerance_m,
                     targets.edge_margin_m))
          continue;
        intensity.push_back(f.intensity[i]);
        if (beams) hit.insert((uint64_t{f.channel[i]} << 32) | f.column[i]);
      }
      best[ti] = std::max(best[ti], intensity.size());
      if (intensity.size() < targets.min_returns) continue;
      TargetObservation obs{target.name, fi, range, incidence, intensity.size(), 0, 0, 0, 0};
      obs.mean_intensity = Mean(intensity);
      obs.intensity_sd = SampleSd(intensity);
      const double standard_error =
          obs.intensity_sd / std::sqrt(static_cast<double>(intensity.size()));
      const std::string group = GroupName(target.reflectance, incidence);
      if (calibrated) {
        ReflectanceCurve& c = reflectances[target.material];
        c.file = "reflectance_" + FileSafe(target.material) + ".csv";
        c.material = target.material;
        c.range_m = range;  // the last; a material's targets stand at one distance
        c.samples.push_back({incidence, obs.mean_intensity, std::max(standard_error, 1e-6)});
      } else {
        RangeIntensityCurve& c = ranges[group];
        c.file = "range_intensity_" + group + ".csv";
        c.signal_unit = SignalUnit::kCounts;  // the conversion fitted
        // A table holds one incidence: the row referred to its table's (to 1 deg) through the
        // range-intensity model's own cos(theta) (range_intensity_fit.h), a change under 3 %.
        const double table_deg = std::round(incidence);
        const double to_table =
            std::cos(table_deg * physics::kDegToRad) / std::cos(incidence * physics::kDegToRad);
        if (obs.mean_intensity > 0)
          c.samples.push_back({range, target.reflectance, table_deg, obs.mean_intensity * to_table,
                               std::max(standard_error, 1e-9 * obs.mean_intensity) * to_table});
      }
      if (beams) {
        // The frame's own columns (a partial revolution counts only what it swept).
        const auto [lo, hi] = std::minmax_element(f.column.begin(), f.column.end());
        for (uint32_t b = 0; b < profile->BeamCount(); ++b) {
          const auto beam = profile->Beam(b);
          if (beam.column < *lo || beam.column > *hi) continue;
          const double ce = std::cos(beam.elevation_rad);
          const V3 d{ce * std::cos(beam.azimuth_rad), ce * std::sin(beam.azimuth_rad),
                     std::sin(beam.elevation_rad)};
          const double dn = Dot(d, g.normal);
          if (std::fabs(dn) < 1e-9) continue;
          const double t = Dot(to_centre, g.normal) / dn;
          if (!(t > 0)) continue;
          const V3 p{origin[0] + t * d[0], origin[1] + t * d[1], origin[2] + t * d[2]};
          if (!g.Holds(p, targets.plane_tolerance_m, targets.edge_margin_m)) continue;
          ++obs.beams;
          obs.detected += hit.count((uint64_t{beam.channel} << 32) | beam.column) ? 1 : 0;
        }
        if (obs.beams > 0) {
          ThresholdSweep& s = detections[group];
          s.file = "detection_" + group + ".csv";
          s.target_reflectance = target.reflectance;
          s.incidence_deg = std::round(incidence);
          s.range_m.push_back(range);
          s.attenuation_db.push_back(0);
          s.trials.push_back(obs.beams);
          s.detections.push_back(std::min(obs.detected, obs.beams));
        }
      }
      out.observations.push_back(obs);
    }
  }
  if (out.observations.empty()) {
    std::string seen;
    for (size_t ti = 0; ti < targets.targets.size(); ++ti)
      seen += fmt::format("{}{} {}", seen.empty() ? "" : ", ", targets.targets[ti].name, best[ti]);
    return Error{fmt::format(
        "no target holds {} returns in any frame (most returns on each: {}); are the corners in "
        "the sensor's frame, in metres, and the frames the ones that show the targets?",
        targets.min_returns, seen)};
  }
  for (auto& [k, c] : ranges)
    if (!c.samples.empty()) out.lab.range_intensity_curves.push_back(std::move(c));
  for (auto& [k, c] : reflectances)
    out.lab.reflectance_curves.push_back(std::move(c));
  for (auto& [k, s] : detections)
    out.lab.threshold_sweeps.push_back(std::move(s));
  return out;
}

}  // namespace lt::calib
