#include "lidartwin/calib/virtual_lab.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "lidartwin/base/cancellation.h"
#include "lidartwin/base/config_check.h"

#include "lidartwin/physics/beam_profile.h"
#include "lidartwin/physics/detection_probability.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/units.h"
#include "sample_statistics.h"

namespace lt::calib {

namespace {

using physics::kDegToRad;
using physics::kPi;

constexpr uint32_t kStageBeams = 16;
constexpr double kStageHalfSpreadDeg = 0.05;

// The unit on the lab stage: its beam model, 16 beams within +-0.05 deg of +x (so that their
// incidence differs from the stage's by under 1 mrad), one column per frame.
SensorProfile StageSensor(const SensorProfile& truth) {
  SensorProfile p = truth;
  p.scan = ScanKind::kSpinning;
  p.elevation_rad.clear();
  p.azimuth_offset_rad.clear();
  p.firing_offset_s.clear();
  for (uint32_t k = 0; k < kStageBeams; ++k) {
    p.elevation_rad.push_back(
        (kStageHalfSpreadDeg - 2 * kStageHalfSpreadDeg * k / (kStageBeams - 1)) * kDegToRad);
    p.azimuth_offset_rad.push_back(0);
    p.firing_offset_s.push_back(0);
  }
  p.columns = 1;
  p.rotation_rate_hz = 10;
  p.clockwise = false;
  p.start_azimuth_rad = 0;
  p.min_range_m = std::min(truth.min_range_m, 0.05);
  return p;
}

// A 20 m x 20 m flat target at `range` along +x, turned by `yaw_deg` about z.
Scene TargetScene(double range, double yaw_deg, const Material& material) {
  Scene s;
  s.materials.materials.push_back(material);
  SceneObject o;
  o.name = "target";
  o.type = "plate";
  o.material_id = 0;
  o.instance_id = 1;
  o.pose = {physics::QuatFromRollPitchYaw(0.0, 0.0, yaw_deg * kDegToRad), {range, 0, 0}};
  o.mesh = MakePlate(20, 20);
  for (auto& v : o.mesh.vertices) {
    const auto w = physics::TransformPoint(o.pose, physics::Vec3<double>{v[0], v[1], v[2]});
    v = {w.x, w.y, w.z};
  }
  s.objects.push_back(std::move(o));
  return s;
}

Material Diffuse(const std::string& name, double r0) {
  Material m;
  m.name = name;
  m.wavelength_nm = {1.0};
  m.reflectance = {r0};
  m.source = "virtual lab";
  return m;
}

// Pulses fired at a target and the echoes' signals [W] (peak power, from the calibrated
// intensity and the white-target power at the stage distance) of those detected.
struct Shots {
  uint32_t fired = 0;
  std::vector<double> signal_w;
  std::vector<double> intensity;
};

Expected<Shots> Fire(const SensorProfile& stage, const Scene& scene, double range,
                     const VirtualLabOptions& o, uint32_t setting) {
  if (Status s = CheckCancelled(); !s.ok()) return s.error();  // a caller asked to stop
  // Each setting its own seed: the noise of one setting does not repeat in the next.
  auto sim = CreateSimulator(o.backend, scene, stage, Trajectory::Static(),
                             {o.seed * 1000003ull + setting, 1, 16, 0, 0});
  if (!sim.ok()) return sim.error();
  Shots s;
  // The calibrated intensity is referred to the white target through the overlap
  // (link_budget.h): the signal is that again.
  const double white =
      physics::CalibratedWhiteTargetPower(stage.detector.link, stage.detector.overlap, range);
  for (uint32_t f = 0; f < o.frames_per_setting; ++f) {
    auto frame = (*sim)->Simulate(f);
    if (!frame.ok()) return frame.error();
    s.fired += kStageBeams;
    std::vector<bool> seen(kStageBeams, false);
    for (size_t i = 0; i < frame->size(); ++i) {
      const uint32_t b = frame->channel[i];
      if (b >= kStageBeams || seen[b]) continue;  // one echo per pulse: the target's
      seen[b] = true;
      s.intensity.push_back(frame->intensity[i]);
      s.signal_w.push_back(physics::ReflectanceEquivalent<double>(frame->intensity[i]) * white);
    }
  }
  return s;
}

// Expected signal [W] of a diffuse target of reflectance rho at normal incidence.
double ExpectedSignal(const SensorProfile& p, double rho, double range) {
  return physics::ReceivedPower(p.detector.link, rho / kPi, 1.0, range) *
         physics::OverlapShare(p.detector.overlap, range);
}

// The range-intensity target and the lab's ranges for it [m].
constexpr double kRangeIntensityReflectance = 0.5;
constexpr double kRangeIntensityRanges[] = {0.3, 0.4, 0.5,  0.7,  1.0,  1.4,  2.0,  3.0, 4.0,
                                            6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0};
constexpr size_t kMinRangeIntensityRanges = 4;
// The threshold sweep's dark target.
constexpr double kSweepReflectance = 0.05;
// The capability rail: its reflectances, its step and the farthest of its random starts [m].
constexpr double kCapabilityReflectances[] = {0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0};
constexpr double kCapabilityStepM = 0.5;
constexpr double kCapabilityLastStartM = 1 + kCapabilityStepM;
// The range-intensity fit tells the overlap only from two rows or more that it dims (the
// OS0-128 unit: an overlap of 0.2 m, k 2, leaves 0.895 at 0.3 m and is rank-deficient).
// The share of the light the two nearest rows may see at most: the range-intensity fit needs
// two rows where its fitted overlap is below 0.9, and a margin keeps a lab just inside that from
// being refused by the noise; and the least the farthest row must see.
constexpr double kOverlapVisibleInLab = 0.8, kLeastFarOverlap = 0.99;

// The ranges of the range-intensity curve where every pulse should be detected (a 50 % target
// returning twice T + 4 sigma) within the stage's reach: a mean of the detected ones alone
// would be biased upward near the threshold.
std::vector<double> AlwaysDetectedRanges(const SensorProfile& stage) {
  std::vector<double> out;
  const double t = stage.detector.threshold_w + 4 * stage.detector.signal_noise_w;
  for (double range : kRangeIntensityRanges) {
    if (range > 0.9 * stage.max_range_m || range < stage.min_range_m) continue;
    if (ExpectedSignal(stage, kRangeIntensityReflectance, range) < 2 * t) continue;
    out.push_back(range);
  }
  return out;
}

// The threshold sweep's distance: where the dark target returns 10 T unattenuated, but not
// nearer than 3 overlap ranges (where the overlap is within 1e-4 of 1 for k >= 2) nor beyond
// 0.8 x max_range_m. Needs 3 R_o <= 0.8 max_range_m (CheckVirtualLabProfile).
double SweepRange(const SensorProfile& stage) {
  const DetectorConfig& d = stage.detector;
  const double range =
      std::sqrt(ExpectedSignal(stage, kSweepReflectance, 1.0) / (10 * d.threshold_w));
  return std::clamp(range, 3 * d.overlap.range_m, 0.8 * stage.max_range_m);
}

// Problems of a threshold-detector profile, each as a key and what to add or change.
void CheckThresholdLab(const SensorProfile& stage, std::vector<ConfigProblem>& problems) {
  const DetectorConfig& d = stage.detector;
  const double t_nw = d.threshold_w * 1e9, sigma_nw = d.signal_noise_w * 1e9;
  if (!(d.signal_noise_w > 0)) {
    problems.push_back(
        {"detector.signal_noise_nw",
         "is 0: the detection-threshold sweep measures the receiver noise that blurs the "
         "threshold, and a noiseless detector has no detection curve; add "
         "detector.signal_noise_nw in (0, " +
             NumberText(t_nw / 3) + "] nW (threshold_nw / 3), e.g. " + NumberText(t_nw / 8)});
  }
  const std::vector<double> ranges = AlwaysDetectedRanges(stage);
  if (ranges.size() < kMinRangeIntensityRanges) {
    problems.push_back(
        {"detector.threshold_nw",
         "threshold_nw + 4 x signal_noise_nw = " + NumberText(t_nw + 4 * sigma_nw) + " nW leaves " +
             std::to_string(ranges.size()) +
             " of the lab's ranges (0.3..64 m, within min_range_m..0.9 x max_range_m) where a "
             "50 % target returns twice that; " +
             std::to_string(kMinRangeIntensityRanges) +
             " are needed: lower threshold_nw or raise detector.peak_power_w"});
    return;  // the checks below read those ranges
  }
  // A sensor without a near-field overlap has its range-intensity rows fitted with the overlap
  // declared complete (fit: {overlap: none}); one with an overlap needs rows inside it and
  // beyond it.
  const physics::Overlap& ov = d.overlap;
  const double far = physics::OverlapShare(ov, ranges.back());
  if (!(ov.range_m > 0)) {
    // Nothing to see in the rows: the overlap is declared.
  } else if (ranges.size() < 2 || physics::OverlapShare(ov, ranges[1]) >= kOverlapVisibleInLab) {
    // The fit needs two rows dimmed by the overlap (range_intensity_fit.h).
    problems.push_back(
        {"detector.overlap_range_m",
         NumberText(ov.range_m) + " m (overlap_sharpness " + NumberText(ov.sharpness) +
             ") lets the second-nearest lab range " + NumberText(ranges[1]) + " m see " +
             NumberText(physics::OverlapShare(ov, ranges[1])) + " of the light, not below " +
             NumberText(kOverlapVisibleInLab) +
             ": the range-intensity fit needs two rows inside the overlap; raise it to at least " +
             NumberText(ranges[1] /
                        std::pow(-std::log(1 - kOverlapVisibleInLab), 1 / ov.sharpness)) +
             " m, or set it to 0 (no near-field overlap)"});
  } else if (far < kLeastFarOverlap) {
    problems.push_back(
        {"detector.overlap_range_m",
         NumberText(ov.range_m) + " m (overlap_sharpness " + NumberText(ov.sharpness) +
             ") lets the farthest always-detected lab range " + NumberText(ranges.back()) +
             " m see only " + NumberText(far) + " of the light, below " +
             NumberText(kLeastFarOverlap) +
             ": ranges beyond the overlap are needed; lower it or raise detector.peak_power_w"});
  }
  if (3 * ov.range_m > 0.8 * stage.max_range_m) {
    problems.push_back({"detector.overlap_range_m",
                        NumberText(ov.range_m) +
                            " m leaves no distance for the threshold sweep (3 x overlap_range_m) "
                            "below 0.8 x max_range_m; lower it or raise max_range_m"});
    return;
  }
  const double s0_nw = ExpectedSignal(stage, kSweepReflectance, SweepRange(stage)) * 1e9;
  if (s0_nw < t_nw + 2 * sigma_nw) {
    problems.push_back({"detector.threshold_nw",
                        "a 5 % target returns at most " + NumberText(s0_nw) +
                            " nW at the threshold sweep's distances (3 x overlap_range_m .. 0.8 x "
                            "max_range_m), below threshold_nw + 2 x signal_noise_nw = " +
                            NumberText(t_nw + 2 * sigma_nw) +
                            " nW: the sweep would not cross the threshold; lower threshold_nw or "
                            "detector.overlap_range_m, or raise detector.peak_power_w"});
  }
}

// Problems of a capability-detector profile.
void CheckCapabilityLab(const SensorProfile& truth, std::vector<ConfigProblem>& problems) {
  const DetectorConfig& d = truth.detector;
  if (d.max_range_m > truth.max_range_m) {
    problems.push_back(
        {"detector.max_range_m",
         NumberText(d.max_range_m) + " m lies beyond max_range_m " + NumberText(truth.max_range_m) +
             " m, where the rays and the lab's rail end: every target that reaches d_max would "
             "read " +
             NumberText(truth.max_range_m) +
             " m and the fit would be biased; set "
             "max_range_m to at least " +
             NumberText(d.max_range_m)});
  }
  bool short_target = false;
  for (double rho : kCapabilityReflectances) {
    const double reach = std::min(d.max_range_m, truth.max_range_m);
    if (rho < d.reflectance_at_max_range &&
        d.max_range_m * rho / d.reflectance_at_max_range >=
            kCapabilityLastStartM + kCapabilityStepM &&
        d.max_range_m * rho / d.reflectance_at_max_range < reach)
      short_target = true;
  }
  if (!short_target) {
    problems.push_back(
        {"detector.reflectance_at_max_range",
         NumberText(d.reflectance_at_max_range) + " with max_range_m " + NumberText(d.max_range_m) +
             " m: none of the lab's targets (5..100 %) stops between 2 m and d_max, and the "
             "capability fit needs some that do; reflectance_at_max_range must exceed 0.05 "
             "and max_range_m x 0.05 / reflectance_at_max_range must reach 2 m"});
  }
}

const char* FootprintName(physics::FootprintKind k) {
  switch (k) {
    case physics::FootprintKind::kCone:
      return "cone";
    case physics::FootprintKind::kGaussian:
      return "gaussian";
    case physics::FootprintKind::kTable:
      return "table";
  }
  return "?";
}

Status RangeIntensity(const SensorProfile& stage, const VirtualLabOptions& o, LabFolder& lab,
                      uint32_t& setting) {
  RangeIntensityCurve c;
  c.file = "range_intensity.csv";
  c.overlap = stage.detector.overlap.range_m > 0 ? OverlapFit::kFitted : OverlapFit::kNone;
  const double rho = kRangeIntensityReflectance;
  for (double range : AlwaysDetectedRanges(stage)) {
    auto shots =
        Fire(stage, TargetScene(range, 0, Diffuse("lab_white_50", rho)), range, o, setting++);
    if (!shots.ok()) return shots.error();
    if (shots->signal_w.size() != shots->fired || shots->fired < 2) continue;
    const double sigma = StandardError(shots->signal_w);
    const double n = static_cast<double>(shots->signal_w.size());
    c.samples.push_back({range, rho, 0.0, Mean(shots->signal_w) * 1e9,
                         std::max(sigma, 1e-12 * Mean(shots->signal_w)) * 1e9,
                         sigma * std::sqrt(n) * 1e9, shots->fired});
  }
  // CheckVirtualLabProfile counted the ranges from the expected signal; the pulses' noise
  // can still miss one.
  if (c.samples.size() < kMinRangeIntensityRanges) {
    return Error{
        "virtual lab: fewer than 4 ranges where a 50 % target is always detected; the "
        "profile's threshold is too high for a lab at 0.3..64 m"};
  }
  lab.range_intensity_curves.push_back(std::move(c));
  return {};
}

Status Reflectance(const SensorProfile& stage, const VirtualLabOptions& o, LabFolder& lab,
                   uint32_t& setting) {
  // At 2 m and up to 60 deg: the pulse stretched across the inclined footprint lowers the
  // echo's peak by under 1.2e-4 (a 3.8 mrad beam; 1.7e-3 at 5 m and 70 deg), an effect the
  // angular models leave out, well below the pulse-energy jitter's spread of the mean.
  const double range = 2;
  for (const LabMaterial& lm : kLabMaterials) {
    Material m = Diffuse(lm.name, lm.r0);
    m.specular_albedo = lm.specular_albedo;
    m.specular_exponent = lm.specular_exponent;
    ReflectanceCurve c;
    c.file = std::string("reflectance_") + lm.name + ".csv";
    c.material = lm.name;
    c.range_m = range;
    c.model = lm.specular_albedo > 0 ? "lambert_specular" : "lambert";
    for (int deg = 0; deg <= 60; deg += 4) {
      auto shots = Fire(stage, TargetScene(range, deg, m), range, o, setting++);
      if (!shots.ok()) return shots.error();
      if (shots->intensity.size() != shots->fired || shots->fired < 2) continue;
      c.samples.push_back({static_cast<double>(deg), Mean(shots->intensity),
                           std::max(StandardError(shots->intensity), 1e-9)});
    }
    lab.reflectance_curves.push_back(std::move(c));
  }
  return {};
}

Status Threshold(const SensorProfile& stage, const VirtualLabOptions& o, LabFolder& lab,
                 uint32_t& setting) {
  // CheckVirtualLabProfile has seen signal_noise_nw > 0 and room for the sweep's distance.
  const DetectorConfig& d = stage.detector;
  ThresholdSweep c;
  c.file = "detection_threshold.csv";
  c.target_reflectance = kSweepReflectance;
  // The dark target at SweepRange...
  const double range = SweepRange(stage);
  const double s0 = ExpectedSignal(stage, c.target_reflectance, range);
  // ...and filters that step the signal across T - 3 sigma .. T + 3 sigma.
  for (double z = -3; z <= 3.0001; z += 0.5) {
    const double s = d.threshold_w + z * d.signal_noise_w;
    if (!(s > 0) || s > s0) continue;
    const double att = 10 * std::log10(s0 / s);
    auto shots =
        Fire(stage,
             TargetScene(range, 0,
                         Diffuse("lab_dark_5", c.target_reflectance * std::pow(10, -att / 10))),
             range, o, setting++);
    if (!shots.ok()) return shots.error();
    c.range_m.push_back(range);
    c.attenuation_db.push_back(att);
    c.trials.push_back(shots->fired);
    c.detections.push_back(static_cast<uint32_t>(shots->signal_w.size()));
  }
  lab.threshold_sweeps.push_back(std::move(c));
  return {};
}

Status Capability(const SensorProfile& stage, const VirtualLabOptions& o, LabFolder& lab,
                  uint32_t& setting) {
  // The stage moves in 0.5 m steps from a random start; the range reported is the midpoint of
  // the last step detected and the first missed (uniform error, sigma = step / sqrt 12).
  const double step = kCapabilityStepM;
  std::mt19937_64 rng(o.seed ^ 0xcafef00dull);
  std::uniform_real_distribution<double> u(0, step);
  CapabilityCurve c;
  c.file = "capability.csv";
  for (double rho : kCapabilityReflectances) {
    const double start = 1 + u(rng);
    auto detected = [&](double range) -> Expected<bool> {
      auto shots = Fire(stage, TargetScene(range, 0, Diffuse("lab_target", rho)), range,
                        {o.seed, o.backend, 1, o.serial}, setting++);
      if (!shots.ok()) return shots.error();
      return !shots->intensity.empty();
    };
    // Bisection over the grid start + k step, k in [0, n); the rail runs a step past the
    // profile's reach, where nothing is detected, so a target seen to the reach still has a
    // first missed step.
    const auto n = static_cast<int64_t>((stage.max_range_m + step - start) / step) + 1;
    int64_t lo = 0, hi = n;  // lo detected, hi missed (or beyond the reach)
    auto first = detected(start);
    if (!first.ok()) return first.error();
    if (!*first) continue;
    while (hi - lo > 1) {
      const int64_t mid = (lo + hi) / 2;
      auto hit = detected(start + static_cast<double>(mid) * step);
      if (!hit.ok()) return hit.error();
      (*hit ? lo : hi) = mid;
    }
    if (hi == n) continue;  // detected to the end of the rail (cannot happen past the reach)
    c.samples.push_back(
        {rho, start + (static_cast<double>(lo) + 0.5) * step, step / std::sqrt(12.0)});
  }
  lab.capability_curves.push_back(std::move(c));
  return {};
}

// Goniometer images of the emitter and the collector's two slices, rendered from the
// profile's Gaussian footprint (see kLabCollectorWidthFactor) with a camera's noise.
Status BeamKernel(const SensorProfile& truth, const VirtualLabOptions& o, LabFolder& lab) {
  const physics::BeamFootprint& f = truth.footprint;
  std::mt19937_64 rng(o.seed ^ 0x6b65726e656cull);
  std::normal_distribution<double> normal(0, 1);
  double wide_h = 0, wide_v = 0, reach_h = 0, reach_v = 0;
  for (uint32_t s = 0; s < f.spot_count; ++s) {
    wide_h = std::max(wide_h, f.spots[s].sigma_h_rad * 1e3);
    wide_v = std::max(wide_v, f.spots[s].sigma_v_rad * 1e3);
    reach_h = std::max(reach_h,
                       std::abs(f.spots[s].h_offset_rad * 1e3) + 3 * f.spots[s].sigma_h_rad * 1e3);
    reach_v = std::max(reach_v,
                       std::abs(f.spots[s].v_offset_rad * 1e3) + 3 * f.spots[s].sigma_v_rad * 1e3);
  }
  const double sch = kLabCollectorWidthFactor * wide_h, scv = kLabCollectorWidthFactor * wide_v;
  // Emitter spots whose product with the collector is the profile's (GaussianTimesSlice
  // inverted per axis: s_e^2 = s^2 s_c^2 / (s_c^2 - s^2), mu = mu' (s_e^2 + s_c^2) / s_c^2).
  struct Spot {
    double h0, v0, sh, sv, power;
  };
  std::vector<Spot> emitter;
  for (uint32_t s = 0; s < f.spot_count; ++s) {
    const auto& g = f.spots[s];
    const double sh = g.sigma_h_rad * 1e3, sv = g.sigma_v_rad * 1e3;
    double h0, v0, seh, sev;
    physics::GaussianBehindSlice(g.h_offset_rad * 1e3, sh, sch, &h0, &seh);
    physics::GaussianBehindSlice(g.v_offset_rad * 1e3, sv, scv, &v0, &sev);
    double mh, s1, mv, s2;
    const double share = physics::GaussianTimesSlice(h0, seh, 0.0, sch, &mh, &s1) *
                         physics::GaussianTimesSlice(v0, sev, 0.0, scv, &mv, &s2);
    emitter.push_back({h0, v0, seh, sev, g.power / share});
  }
  BeamKernelImages k;
  k.file = "beam_kernel.h5";
  k.model = "gaussian";
  k.spots = f.spot_count;
  k.dark_counts = 64;
  k.saturation_counts = 4095;
  k.read_noise_counts = 3;
  k.exposure_us = {1, 30, 900, 27000};
  const int n = 61;
  const double eh = 1.5 * reach_h * (sch * sch + wide_h * wide_h) / (sch * sch);
  const double ev = 1.5 * reach_v * (scv * scv + wide_v * wide_v) / (scv * scv);
  for (int i = 0; i < n; ++i) {
    k.h_mrad.push_back(-eh + 2 * eh * i / (n - 1));
    k.v_mrad.push_back(-ev + 2 * ev * i / (n - 1));
  }
  double peak = 0;
  std::vector<double> radiance(n * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (const Spot& s : emitter)
        sum += physics::GaussianSpotIntensity(k.h_mrad[i], k.v_mrad[j], s.h0, s.v0, s.sh, s.sv,
                                              s.power);
      radiance[j * n + i] = sum;
      peak = std::max(peak, sum);
    }
  // Speckle (static over the exposures: a lognormal factor of 5 % per pixel), hot pixels
  // (0.2 %), photo-electron shot noise (gain 1) and read noise. The brightest pixel reaches
  // 3000 counts in the shortest exposure.
  const double gain = 3000 / (peak * k.exposure_us[0]);
  std::vector<double> speckle(n * n), hot(n * n, 0.0);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int p = 0; p < n * n; ++p) {
    speckle[p] = std::exp(0.05 * normal(rng));
    if (unit(rng) < 0.002) hot[p] = 200 + 1800 * unit(rng);
  }
  for (double t : k.exposure_us) {
    for (int p = 0; p < n * n; ++p) {
      const double electrons = gain * radiance[p] * speckle[p] * t;
      const double counts = k.dark_counts + hot[p] + electrons +
                            std::sqrt(electrons) * normal(rng) + k.read_noise_counts * normal(rng);
      k.counts.push_back(
          static_cast<float>(std::clamp(std::round(counts), 0.0, k.saturation_counts)));
    }
  }
  lab.beam_kernels.push_back(std::move(k));
  for (bool horizontal : {true, false}) {
    CollectorSlice c;
    c.file = horizontal ? "collector_horizontal.csv" : "collector_vertical.csv";
    c.horizontal = horizontal;
    const double s = horizontal ? sch : scv;
    for (int i = 0; i < 81; ++i) {
      const double a = -4 * s + 8 * s * i / 80;
      c.angle_mrad.push_back(a);
      c.sensitivity.push_back(std::exp(-0.5 * a * a / (s * s)) + 0.005 * normal(rng));
    }
    lab.collector_slices.push_back(std::move(c));
  }
  return {};
}

}  // namespace

Status CheckVirtualLabProfile(const SensorProfile& truth) {
  std::vector<ConfigProblem> problems;
  const bool kernel = truth.footprint.kind == physics::FootprintKind::kGaussian;
  switch (truth.detector.kind) {
    case DetectorKind::kIdeal:
      if (!kernel) {
        problems.push_back(
            {"detector.type",
             std::string("is ideal (it reports the true range: no signal to measure) and "
                         "beam.footprint is ") +
                 FootprintName(truth.footprint.kind) +
                 " (the lab images Gaussian beams only), so the lab would hold no measurement; "
                 "add one of: detector.type threshold with peak_power_w, aperture_diameter_mm, "
                 "optics_transmission, pulse_width_ns and threshold_nw, signal_noise_nw > 0 "
                 "(range-intensity, detection threshold, reflectance); "
                 "detector.type capability with max_range_m and reflectance_at_max_range "
                 "(farthest range per reflectance); detector.type waveform with its chain "
                 "(single-target records); beam.footprint gaussian with divergence_h_fwhm_mrad "
                 "and divergence_v_fwhm_mrad (beam kernel, collector slices). "
                 "configs/sensors/ouster_os0_128_threshold_lab_example.yaml has every "
                 "measurement"});
      }
      break;
    case DetectorKind::kThreshold:
      CheckThresholdLab(StageSensor(truth), problems);
      break;
    case DetectorKind::kCapability:
      CheckCapabilityLab(truth, problems);
      break;
    case DetectorKind::kWaveform:
      break;
  }
  if (problems.empty()) return {};
  std::string m = "virtual lab of sensor profile '" + truth.name + "'";
  if (!truth.source_file.empty()) m += " (" + truth.source_file + ")";
  for (size_t i = 0; i < problems.size(); ++i)
    m += (i ? "; key '" : ": key '") + problems[i].key_path + "': " + problems[i].problem;
  return Error{m};
}

SensorProfile ExampleUnitAsBuilt(SensorProfile p) {
  p.name += "_unit_sn0042";
  p.detector.link.peak_power_w = 16;
  p.detector.walk_reference_power_w *= 700e-9 / p.detector.threshold_w;
  p.detector.threshold_w = 700e-9;
  p.detector.signal_noise_w = 90e-9;
  p.detector.pulse_energy_jitter = 0.02;
  p.detector.overlap = {0.8, 2.5};
  p.footprint.spots[0].sigma_h_rad = 3.8e-3 / physics::kFwhmPerSigma;
  p.footprint.spots[0].sigma_v_rad = 2.6e-3 / physics::kFwhmPerSigma;
  return p;
}

// Records of single Lambertian targets (seed 002 sec. 6.1, Fig. 12): 10 % plates at 10..40 m
// and 80 % plates at 5 and 8 m, near enough to saturate the SiPM (its recovery time shows only
// there); 4 x frames_per_setting records each, from the chain with its noise.
Status Waveforms(const SensorProfile& truth, const VirtualLabOptions& o, LabFolder& lab) {
  const std::pair<double, double> targets[] = {{5, 0.8},  {8, 0.8},  {10, 0.1},
                                               {20, 0.1}, {30, 0.1}, {40, 0.1}};
  uint32_t k = 0;
  for (const auto& [range, rho] : targets) {
    WaveformSet s;
    s.file = "waveforms_r" + std::to_string(static_cast<int>(100 * rho)) + "_d" +
             std::to_string(static_cast<int>(range)) + ".h5";
    s.range_m = range;
    s.reflectance = rho;
    s.dt_ns = truth.detector.waveform.sample_interval_ns;
    s.samples = truth.detector.waveform.samples;
    s.records = std::max(2 * kWaveformGroups, 4 * o.frames_per_setting);
    s.volts = MeasuredWaveforms(truth, range, rho, s.records, o.seed * 1000 + k++);
    lab.waveform_sets.push_back(std::move(s));
  }
  return {};
}

Expected<LabFolder> SimulateLab(const SensorProfile& truth, const VirtualLabOptions& options) {
  if (Status s = CheckVirtualLabProfile(truth); !s.ok()) return s.error();
  LabFolder lab;
  lab.name =
      "virtual lab of " + truth.name + " (labgen, seed " + std::to_string(options.seed) + ")";
  lab.sensor_serial = options.serial;
  lab.wavelength_nm = truth.wavelength_nm;
  const SensorProfile stage = StageSensor(truth);
  uint32_t setting = 0;
  if (truth.footprint.kind == physics::FootprintKind::kGaussian) {
    if (auto s = BeamKernel(truth, options, lab); !s.ok()) return s.error();
  }
  if (truth.detector.kind == DetectorKind::kThreshold) {
    if (auto s = RangeIntensity(stage, options, lab, setting); !s.ok()) return s.error();
    if (auto s = Threshold(stage, options, lab, setting); !s.ok()) return s.error();
  }
  if (truth.detector.kind == DetectorKind::kCapability) {
    if (auto s = Capability(stage, options, lab, setting); !s.ok()) return s.error();
  }
  if (truth.detector.kind == DetectorKind::kWaveform) {
    if (auto s = Waveforms(truth, options, lab); !s.ok()) return s.error();
  }
  // The ideal and capability detectors report R(theta) itself, without noise: nothing to
  // measure. The threshold detector's intensity is a measured signal.
  if (truth.detector.kind == DetectorKind::kThreshold) {
    if (auto s = Reflectance(stage, options, lab, setting); !s.ok()) return s.error();
  }
  return lab;
}

}  // namespace lt::calib
