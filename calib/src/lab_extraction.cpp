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
#include "lidartwin/physics/vec3.h"
#include "sample_statistics.h"

namespace lt::calib {
namespace {

using Vec = physics::Vec3<double>;

Vec At(const std::array<double, 3>& a) {
  return {a[0], a[1], a[2]};
}

// A target's plane and edges: a point is on it within the tolerance of the plane and at least
// the margin inside every edge.
struct TargetGeometry {
  Vec centre{0, 0, 0}, normal{0, 0, 0};
  std::array<Vec, 4> corner{}, inward{};  // inward: unit, in the plane, across each edge

  explicit TargetGeometry(const LabTarget& t) {
    for (int k = 0; k < 4; ++k)
      corner[k] = At(t.corners[k]);
    for (const Vec& c : corner)
      centre = centre + 0.25 * c;
    // Newell's normal of the quadrilateral (robust to a slightly skewed one).
    for (int k = 0; k < 4; ++k) {
      const Vec& a = corner[k];
      const Vec& b = corner[(k + 1) % 4];
      normal = normal +
               Vec{(a.y - b.y) * (a.z + b.z), (a.z - b.z) * (a.x + b.x), (a.x - b.x) * (a.y + b.y)};
    }
    normal = Normalized(normal);
    for (int k = 0; k < 4; ++k) {
      Vec m = Cross(normal, corner[(k + 1) % 4] - corner[k]);
      if (Dot(m, centre - corner[k]) < 0) m = -1.0 * m;
      inward[k] = Normalized(m);
    }
  }
  bool Holds(const Vec& p, double tolerance, double margin) const {
    if (std::fabs(Dot(p - centre, normal)) > tolerance) return false;
    for (int k = 0; k < 4; ++k)
      if (Dot(p - corner[k], inward[k]) < margin) return false;
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
  // The reflectance as given (shortest exact form): two boards of 0.5001 and 0.5004 are two
  // tables, as a table holds one reflectance.
  return fmt::format("r{}_i{:02d}", reflectance, static_cast<int>(std::lround(incidence_deg)));
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
    if (target.name.empty() || target.material.empty())
      m.Fail(target.name.empty() ? "name" : "material", "must not be empty");
    for (const LabTarget& other : t.targets)
      if (other.name == target.name && !target.name.empty())
        m.Fail("name", "'" + target.name + "' names another target too");
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
        edge = std::min(edge, Norm(g.corner[(k + 1) % 4] - g.corner[k]));
        off_plane = std::max(off_plane, std::fabs(Dot(g.corner[k] - g.centre, g.normal)));
      }
      // In order around a convex board: every turn from one edge to the next the same way.
      bool convex = std::isfinite(g.normal.x);
      for (int k = 0; k < 4 && convex; ++k) {
        const Vec e1 = g.corner[(k + 1) % 4] - g.corner[k];
        const Vec e2 = g.corner[(k + 2) % 4] - g.corner[(k + 1) % 4];
        convex = Dot(Cross(e1, e2), g.normal) > 0;
      }
      if (!convex)
        m.Fail("corners",
               "must go around a convex board in order (these cross, fold or turn "
               "back)");
      else if (!(edge > 2 * t.edge_margin_m))
        m.Fail("corners",
               "make a board no wider than twice edge_margin_m: no return would be "
               "inside its margin");
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

struct LabExtractor::Target {
  const LabTarget* spec;
  TargetGeometry geometry;
  double range_m, incidence_deg;
  size_t best = 0;  // most returns on it in one frame
};

LabExtractor::LabExtractor(const LabTargets& targets, const SensorProfile* profile, bool calibrated)
    : targets_(targets), profile_(profile), calibrated_(calibrated) {
  out_.lab.name = targets.name;
  out_.lab.sensor_serial = targets.sensor_serial;
  out_.lab.wavelength_nm = targets.wavelength_nm;
  origin_ = profile ? profile->beam_origin_m : std::array<double, 3>{0, 0, 0};
  for (const LabTarget& t : targets.targets) {
    const TargetGeometry g(t);
    const Vec to_centre = g.centre - At(origin_);
    const double range = Norm(to_centre);
    const double incidence =
        std::acos(std::min(1.0, std::fabs(Dot(to_centre, g.normal)) / range)) / physics::kDegToRad;
    state_.push_back({&t, g, range, incidence, 0});
  }
}

LabExtractor::~LabExtractor() = default;

Status LabExtractor::Add(const Frame& f) {
  const uint32_t fi = frames_++;
  if (f.size() > 0 && f.intensity.size() != f.size())
    return Error{fmt::format("frame {}: its returns carry no intensity", fi)};
  // Detection rows go with range-intensity rows: `calibrate` fits a detection sweep against the
  // link constant those give, so a calibrated recording's lab holds reflectance rows alone.
  const bool beams = profile_ != nullptr && !calibrated_;
  if (beams && f.size() > 0 && f.channel.size() != f.size())
    return Error{
        fmt::format("frame {}: its returns carry no channel (laser), so the beams a "
                    "target should have returned cannot be counted",
                    fi)};
  // The azimuths the frame swept, in 1 deg bins (a partial revolution counts only those).
  std::vector<bool> swept(360, false);
  const auto bin = [](double azimuth) {
    return static_cast<size_t>(std::clamp<long>(
        std::lround(std::floor((azimuth + physics::kPi) / physics::kDegToRad)), 0, 359));
  };
  if (beams)
    for (size_t i = 0; i < f.size(); ++i)
      swept[bin(std::atan2(f.y_m[i] - origin_[1], f.x_m[i] - origin_[0]))] = true;
  for (Target& target : state_) {
    const LabTarget& spec = *target.spec;
    if (!spec.frames.empty() &&
        std::find(spec.frames.begin(), spec.frames.end(), fi) == spec.frames.end())
      continue;
    const TargetGeometry& g = target.geometry;
    std::vector<double> intensity;
    std::map<uint16_t, std::vector<double>> on_target;  // channel -> azimuths of its returns
    for (size_t i = 0; i < f.size(); ++i) {
      if (!f.return_index.empty() && f.return_index[i] != 0) continue;
      if (!std::isfinite(f.intensity[i])) continue;
      if (!g.Holds({f.x_m[i], f.y_m[i], f.z_m[i]}, targets_.plane_tolerance_m,
                   targets_.edge_margin_m))
        continue;
      intensity.push_back(f.intensity[i]);
      if (beams)
        on_target[f.channel[i]].push_back(std::atan2(f.y_m[i] - origin_[1], f.x_m[i] - origin_[0]));
    }
    target.best = std::max(target.best, intensity.size());
    if (intensity.size() < targets_.min_returns) continue;
    TargetObservation obs{
        spec.name, fi, target.range_m, target.incidence_deg, intensity.size(), 0, 0, 0, 0};
    obs.mean_intensity = Mean(intensity);
    obs.intensity_sd = SampleSd(intensity);
    // Readings that all agree (an integer intensity on a uniform board) have no spread to give
    // an uncertainty: the rounding of one reading to a whole count, 1 / sqrt(12), is the least.
    const double standard_error =
        std::max(obs.intensity_sd, 1 / std::sqrt(12.0)) / std::sqrt(double(intensity.size()));
    const double incidence = target.incidence_deg;
    const std::string group = GroupName(spec.reflectance, incidence);
    if (calibrated_) {
      // One table per material and distance (to 0.1 m): a reflectance curve holds one range,
      // and a lab names each curve's material once, so a material at two distances is two
      // (`<material>_d<range>`), fitted apart.
      const std::string at = fmt::format("_d{:.1f}", target.range_m);
      ReflectanceCurve& c = reflectances_[spec.material + at];
      c.file = "reflectance_" + FileSafe(spec.material) + at + ".csv";
      c.material = spec.material + at;
      c.range_m = target.range_m;
      c.samples.push_back({incidence, obs.mean_intensity, standard_error});
    } else if (obs.mean_intensity > 0) {
      RangeIntensityCurve& c = ranges_[group];
      c.file = "range_intensity_" + group + ".csv";
      c.signal_unit = SignalUnit::kCounts;  // the conversion fitted
      // A table holds one incidence: the row referred to its table's (to 1 deg) through the
      // range-intensity model's own cos(theta) (range_intensity_fit.h), a change under 3 %.
      const double table_deg = std::round(incidence);
      const double to_table =
          std::cos(table_deg * physics::kDegToRad) / std::cos(incidence * physics::kDegToRad);
      c.samples.push_back({target.range_m, spec.reflectance, table_deg,
                           obs.mean_intensity * to_table, standard_error * to_table});
    }
    if (beams) {
      for (auto& [channel, azimuths] : on_target)
        std::sort(azimuths.begin(), azimuths.end());
      // A beam that crosses the board is detected when its laser returned from the board within
      // half a column of its direction: packet captures number their columns from wherever a
      // frame began, so channel and column alone do not name a direction.
      const double half_column = physics::kPi / std::max<uint32_t>(1, profile_->columns);
      const Vec origin = At(origin_);
      const Vec to_centre = g.centre - origin;
      for (uint32_t b = 0; b < profile_->BeamCount(); ++b) {
        const auto beam = profile_->Beam(b);
        const double ce = std::cos(beam.elevation_rad);
        const Vec d{ce * std::cos(beam.azimuth_rad), ce * std::sin(beam.azimuth_rad),
                    std::sin(beam.elevation_rad)};
        const double dn = Dot(d, g.normal);
        if (std::fabs(dn) < 1e-9) continue;
        const double t = Dot(to_centre, g.normal) / dn;
        if (!(t > 0)) continue;
        const Vec p = origin + t * d;
        if (!g.Holds(p, targets_.plane_tolerance_m, targets_.edge_margin_m)) continue;
        const double azimuth = std::atan2(d.y, d.x);
        if (!swept[bin(azimuth)]) continue;
        ++obs.beams;
        const auto it = on_target.find(static_cast<uint16_t>(beam.channel));
        if (it == on_target.end()) continue;
        for (double a : it->second)
          if (std::fabs(std::remainder(a - azimuth, 2 * physics::kPi)) <= half_column) {
            ++obs.detected;
            break;
          }
      }
      if (obs.beams > 0) {
        ThresholdSweep& sweep = detections_[group];
        sweep.file = "detection_" + group + ".csv";
        sweep.target_reflectance = spec.reflectance;
        sweep.incidence_deg = std::round(incidence);
        sweep.range_m.push_back(target.range_m);
        sweep.attenuation_db.push_back(0);
        sweep.trials.push_back(obs.beams);
        sweep.detections.push_back(std::min(obs.detected, obs.beams));
      }
    }
    out_.observations.push_back(obs);
  }
  return {};
}

Expected<ExtractedLab> LabExtractor::Finish() {
  for (const Target& t : state_)
    for (uint32_t f : t.spec->frames)
      if (f >= frames_)
        return Error{fmt::format("target '{}': frame {} is listed, the recording has {} (0..{})",
                                 t.spec->name, f, frames_, frames_ ? frames_ - 1 : 0)};
  if (out_.observations.empty()) {
    std::string seen;
    for (const Target& t : state_)
      seen += fmt::format("{}{} {}", seen.empty() ? "" : ", ", t.spec->name, t.best);
    return Error{fmt::format(
        "no target holds {} returns in any frame (most returns on each: {}); are the corners in "
        "the sensor's frame, in metres, and the frames the ones that show the targets?",
        targets_.min_returns, seen)};
  }
  for (auto& [k, c] : ranges_)
    out_.lab.range_intensity_curves.push_back(std::move(c));
  // Materials whose names differ only in characters a file name cannot carry ("paint a",
  // "paint_a") would share a file: the later ones numbered.
  std::map<std::string, int> taken;
  for (auto& [k, c] : reflectances_) {
    if (const int n = taken[c.file]++; n > 0)
      c.file = c.file.substr(0, c.file.size() - 4) + "_" + std::to_string(n + 1) + ".csv";
    out_.lab.reflectance_curves.push_back(std::move(c));
  }
  for (auto& [k, sweep] : detections_)
    out_.lab.threshold_sweeps.push_back(std::move(sweep));
  return std::move(out_);
}

Expected<ExtractedLab> ExtractLab(const std::vector<Frame>& frames, const LabTargets& targets,
                                  const SensorProfile* profile, bool calibrated) {
  LabExtractor extractor(targets, profile, calibrated);
  for (const Frame& f : frames)
    if (Status s = extractor.Add(f); !s.ok()) return s.error();
  return extractor.Finish();
}

}  // namespace lt::calib
