#include "lidartwin/compare/metrics.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "lidartwin/compare/frame_pairing.h"
#include "lidartwin/compare/nearest_neighbour.h"

namespace lt::compare {
namespace {

using Vec3 = std::array<double, 3>;

std::vector<Vec3> Positions(const Frame& f) {
  std::vector<Vec3> p(f.size());
  for (size_t i = 0; i < f.size(); ++i)
    p[i] = {f.x_m[i], f.y_m[i], f.z_m[i]};
  return p;
}

void AddChamfer(const Frame& from, const Frame& to, RunningStats* stats,
                uint64_t within[kFScoreThresholds]) {
  const NearestNeighbourIndex index(Positions(to));
  if (index.size() == 0) return;
  for (size_t i = 0; i < from.size(); ++i) {
    double d2 = 0;
    if (index.Nearest({from.x_m[i], from.y_m[i], from.z_m[i]}, &d2) < 0) continue;
    const double d = std::sqrt(d2);
    stats->Add(d);
    for (int k = 0; k < kFScoreThresholds; ++k)
      within[k] += d <= kFScoreThresholdsM[k] ? 1 : 0;
  }
}

std::string MaterialLabel(const CompareOptions& o, uint16_t id) {
  return id < o.material_names.size() && !o.material_names[id].empty() ? o.material_names[id]
                                                                       : fmt::format("id {}", id);
}

std::string DistanceLabel(double lo, double hi) {
  return std::isfinite(hi) ? fmt::format("{:g}-{:g} m", lo, hi) : fmt::format(">= {:g} m", lo);
}

struct TargetSums {
  uint64_t n = 0;
  double intensity = 0, range = 0;
};

TargetSums SumInTarget(const Frame& f, const Target& t) {
  TargetSums s;
  for (size_t i = 0; i < f.size(); ++i) {
    if (!t.Contains(f.x_m[i], f.y_m[i], f.z_m[i])) continue;
    ++s.n;
    s.intensity += f.intensity.size() == f.size() ? f.intensity[i] : 0.0;
    s.range += f.range_m[i];
  }
  return s;
}

}  // namespace

double ReturnAgreement::Agreement() const {
  const uint64_t all = both + real_only + sim_only;
  return all == 0 ? 1.0 : static_cast<double>(both) / static_cast<double>(all);
}

double FrameAgreement::Agreement() const {
  return ReturnAgreement{both, real_points - both, sim_points - both, 0}.Agreement();
}

double ReturnAgreement::DropAccuracy() const {
  if (beams == 0) return NAN;
  const uint64_t neither = beams - (both + real_only + sim_only);
  return static_cast<double>(both + neither) / static_cast<double>(beams);
}

double ReturnAgreement::DropF1() const {
  if (beams == 0) return NAN;
  const double neither = static_cast<double>(beams - (both + real_only + sim_only));
  const double denominator =
      2 * neither + static_cast<double>(real_only) + static_cast<double>(sim_only);
  return denominator > 0 ? 2 * neither / denominator : NAN;
}

double ChamferMetrics::FScore(int k) const {
  if (real_to_sim_m.n == 0 || sim_to_real_m.n == 0) return 0;
  const double recall = static_cast<double>(real_within[k]) / static_cast<double>(real_to_sim_m.n);
  const double precision =
      static_cast<double>(sim_within[k]) / static_cast<double>(sim_to_real_m.n);
  return precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0;
}

double ChamferMetrics::Symmetric() const {
  return 0.5 * (real_to_sim_m.mean + sim_to_real_m.mean);
}

double Mape(const std::vector<double>& simulated, const std::vector<double>& measured,
            size_t* skipped) {
  LT_CHECK(simulated.size() == measured.size());
  double sum = 0;
  size_t n = 0, skip = 0;
  for (size_t i = 0; i < simulated.size(); ++i) {
    if (simulated[i] == 0) {
      ++skip;
      continue;
    }
    sum += std::fabs((simulated[i] - measured[i]) / simulated[i]);
    ++n;
  }
  if (skipped) *skipped = skip;
  return n == 0 ? NAN : sum / static_cast<double>(n);
}

namespace {
// Ranges beyond 100 km are no lidar's (airborne units reach a few km).
constexpr double kMaxCompareRangeM = 100000;
}  // namespace

void CompareOptions::Check(ConfigCheck& check) const {
  ConfigCheck gates = check.Sub("association");
  association.Check(gates);
  const auto& edges = distance_edges_m;
  if (edges.size() < 2) {
    check.Fail("distance_edges_m",
               "must list at least two edges (one bin), got " + std::to_string(edges.size()));
  }
  for (size_t i = 0; i < edges.size(); ++i) {
    if (!(edges[i] >= 0 && edges[i] <= kMaxCompareRangeM)) {
      check.Fail("distance_edges_m", "edge " + NumberText(edges[i]) + " m is outside 0.." +
                                         NumberText(kMaxCompareRangeM) + " m");
    } else if (i > 0 && !(edges[i] > edges[i - 1])) {
      check.Fail("distance_edges_m", "must be a strictly increasing list (" + NumberText(edges[i]) +
                                         " m after " + NumberText(edges[i - 1]) + " m)");
    }
  }
  if (!(min_range_m >= 0 && min_range_m <= kMaxCompareRangeM)) {
    check.Fail("min_range_m", "must be in 0.." + NumberText(kMaxCompareRangeM) + " m, got " +
                                  NumberText(min_range_m));
  }
}

Status CompareOptions::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("compare options");
}

const char* TargetMetrics::PointsStatus() const {
  if (n_real == 0 && n_sim == 0) return "no points";
  if (n_real == 0) return "no real points";
  if (n_sim == 0) return "no simulated points";
  return "ok";
}

TargetMetrics MeasureTarget(const Target& t, const Frame& real, const Frame& sim, uint32_t frame) {
  const TargetSums a = SumInTarget(real, t), b = SumInTarget(sim, t);
  TargetMetrics tm;
  tm.name = t.name;
  tm.material = t.material;
  tm.frame = frame;
  tm.d_gt_m = t.GroundTruthDistance();
  tm.n_real = a.n;
  tm.n_sim = b.n;
  if (a.n) {
    tm.i_mean_real = a.intensity / a.n;
    tm.d_mean_real = a.range / a.n;
  }
  if (b.n) {
    tm.i_mean_sim = b.intensity / b.n;
    tm.d_mean_sim = b.range / b.n;
  }
  return tm;
}

PairwiseComparison::PairwiseComparison(const CompareOptions& options)
    : options_(options), waveforms_(options.waveform_window) {
  const auto& edges = options_.distance_edges_m;
  distance_bins_.resize(edges.size());
  for (size_t b = 0; b < edges.size(); ++b) {
    distance_bins_[b].lo_m = edges[b];
    distance_bins_[b].hi_m = b + 1 < edges.size() ? edges[b + 1] : INFINITY;
    distance_bins_[b].label = DistanceLabel(distance_bins_[b].lo_m, distance_bins_[b].hi_m);
  }
}

Expected<PairwiseComparison> PairwiseComparison::Start(const CompareOptions& options) {
  if (Status s = options.Validate(); !s.ok()) return s.error();
  return PairwiseComparison(options);
}

namespace {

// One frame pair's beams as range-image pixels (ComparisonMetrics::range_image_abs_m): pairs,
// the returns of one side alone (the other reads 0), and the beams neither returned (0).
void AddRangeImagePixels(const Frame& r, const Frame& s, const Association& association,
                         uint64_t beams, ComparisonMetrics* m) {
  std::vector<bool> real_paired(r.size(), false), sim_paired(s.size(), false);
  auto add = [m](double error) {
    m->range_image_abs_m.Add(error);
    m->range_image_sum_sq_m2 += error * error;
  };
  for (auto [ri, si] : association.pairs) {
    real_paired[ri] = sim_paired[si] = true;
    add(double(s.range_m[si]) - double(r.range_m[ri]));
  }
  for (size_t i = 0; i < r.size(); ++i)
    if (!real_paired[i]) add(r.range_m[i]);
  for (size_t i = 0; i < s.size(); ++i)
    if (!sim_paired[i]) add(s.range_m[i]);
  m->range_image_abs_m.Add(0, beams - (r.size() + s.size() - association.pairs.size()));
}

// The full scale of an intensity unit, for errors on the 0-1 scale of the re-simulation papers:
// 100 for percent (a white Lambertian target, KITTI's remission x 100), N for a unit whose name
// ends in "0-N" (the 8-bit reflectivity bytes, the waveform's counts); 0 where it has none
// (Ouster's signal photons, unknown).
double FullScale(const std::string& unit) {
  if (unit == "percent") return 100;
  const size_t dash = unit.rfind(" 0-");
  if (dash == std::string::npos) return 0;
  const std::string n = unit.substr(dash + 3);
  // A unit is read from metrics files and frames files: at most 9 digits, nothing after them.
  uint32_t scale = 0;
  const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), scale);
  if (n.empty() || n.size() > 9 || ec != std::errc() || end != n.data() + n.size()) return 0;
  return static_cast<double>(scale);
}

// The mean of the squares of a running statistic's values: population variance + mean^2.
double MeanSquare(const RunningStats& s) {
  return s.n == 0 ? 0 : s.m2 / static_cast<double>(s.n) + s.mean * s.mean;
}

}  // namespace

Status PairwiseComparison::Add(const Frame& real, const Frame& sim, const PairingSink& on_pairing) {
  const size_t k = m_.frames;
  const auto& edges = options_.distance_edges_m;
  auto pairing = PairFrame(real, sim, options_);
  if (!pairing.ok()) return Error{fmt::format("frame {}: {}", k, pairing.message())};
  if (on_pairing) {
    if (Status st = on_pairing(k, *pairing); !st.ok()) return st;
  }
  const Frame& r = pairing->real;
  const Frame& s = pairing->sim;
  const Association* association = &pairing->association;
  ComparisonMetrics& m = m_;
  m.real_non_finite += pairing->real_non_finite;
  m.sim_non_finite += pairing->sim_non_finite;
  m.real_no_return += pairing->real_no_return;
  m.sim_no_return += pairing->sim_no_return;
  if (k == 0) {
    m.association = AssociationMethodName(association->method);
    m.association_reason = association->reason;
  }
  m.real_points += r.size();
  m.sim_points += s.size();
  const bool sim_has_material = sim.material_id.size() == sim.size();
  for (auto [ri, si] : association->pairs) {
    const double depth_error = double(s.range_m[si]) - double(r.range_m[ri]);
    const double intensity_error = double(s.intensity[si]) - double(r.intensity[ri]);
    m.depth_m.Add(depth_error);
    m.depth_abs_m.Add(depth_error);
    m.intensity.Add(intensity_error);
    const double range = r.range_m[ri];
    auto bin = std::upper_bound(edges.begin(), edges.end(), range) - edges.begin() - 1;
    if (bin >= 0) {
      distance_bins_[bin].depth_m.Add(depth_error);
      distance_bins_[bin].intensity.Add(intensity_error);
    }
    if (sim_has_material) {
      BinMetrics& mb = material_bins_[s.material_id[si]];
      mb.depth_m.Add(depth_error);
      mb.intensity.Add(intensity_error);
    }
  }
  const uint64_t both = association->pairs.size();
  m.returns.both += both;
  m.returns.real_only += r.size() - both;
  m.returns.sim_only += s.size() - both;
  if (options_.beams_per_frame > 0) {
    if (r.size() + s.size() - both > options_.beams_per_frame)
      return Error{fmt::format(
          "frame {}: {} beams returned in one frame or the other, more than the {} beams per "
          "frame given for the drop accuracy (dual returns? a different sensor?)",
          k, r.size() + s.size() - both, options_.beams_per_frame)};
    m.returns.beams += options_.beams_per_frame;
    AddRangeImagePixels(r, s, *association, options_.beams_per_frame, &m);
  }
  AddChamfer(r, s, &m.chamfer.real_to_sim_m, m.chamfer.real_within);
  AddChamfer(s, r, &m.chamfer.sim_to_real_m, m.chamfer.sim_within);

  m.per_frame.push_back({static_cast<uint32_t>(k), r.size(), s.size(), both});
  for (const Target& t : options_.targets)
    m.targets.push_back(MeasureTarget(t, r, s, static_cast<uint32_t>(k)));
  if (Status st = waveforms_.Add(k, real, sim); !st.ok()) return st;
  ++m.frames;
  return {};
}

Expected<ComparisonMetrics> PairwiseComparison::Finish() && {
  if (m_.frames == 0) return Error{"no frames to compare"};
  ComparisonMetrics m = std::move(m_);
  for (BinMetrics& b : distance_bins_)
    if (b.depth_m.n() > 0) m.by_distance.push_back(std::move(b));
  for (auto& [id, b] : material_bins_) {
    b.label = MaterialLabel(options_, id);
    m.by_material.push_back(std::move(b));
  }
  m.waveforms = waveforms_.Finish();
  return m;
}

Expected<ComparisonMetrics> Compare(const std::vector<Frame>& real, const std::vector<Frame>& sim,
                                    const CompareOptions& options, const CompareProgress& on_frame,
                                    const PairingSink& on_pairing) {
  if (real.size() != sim.size())
    return Error{
        fmt::format("the real recording has {} frame(s) and the simulation {}; compare "
                    "needs one simulated frame per real frame",
                    real.size(), sim.size())};
  if (real.empty()) return Error{"no frames to compare"};
  auto comparison = PairwiseComparison::Start(options);
  if (!comparison.ok()) return comparison.error();
  for (size_t k = 0; k < real.size(); ++k) {
    if (Status s = comparison->Add(real[k], sim[k], on_pairing); !s.ok()) return s.error();
    if (on_frame) on_frame(k + 1, real.size());
  }
  return std::move(*comparison).Finish();
}

std::vector<std::string> TargetNotes(const ComparisonMetrics& m, size_t max_lines) {
  std::vector<std::string> notes;
  size_t without = 0, no_sim = 0;
  for (const TargetMetrics& t : m.targets) {
    no_sim += t.n_sim == 0;
    if (t.n_real > 0 && t.n_sim > 0) continue;
    if (++without <= max_lines)
      notes.push_back(fmt::format("target {} (frame {}): {}", t.name, t.frame, t.PointsStatus()));
  }
  if (without > max_lines)
    notes.push_back(fmt::format("... and {} more target(s) without points", without - max_lines));
  if (without == 0) return notes;
  const size_t n = m.targets.size();
  // Seed 002 eq. (12) divides by the simulated value, so a target without simulated points
  // cannot enter either MAPE; one without real points cannot enter I_mean's.
  if (no_sim == n) {
    notes.push_back(fmt::format(
        "n_points_mape and i_mean_mape not computed: none of the {} target(s) has simulated "
        "points (the MAPE divides by the simulated value)",
        n));
  } else {
    if (no_sim > 0)
      notes.push_back(fmt::format(
          "n_points_mape leaves out {} of {} target(s) without simulated points", no_sim, n));
    const size_t i_left_out = [&] {
      size_t c = 0;
      for (const TargetMetrics& t : m.targets)
        c += t.n_real == 0 || t.n_sim == 0;
      return c;
    }();
    if (i_left_out == n)
      notes.push_back(fmt::format(
          "i_mean_mape not computed: none of the {} target(s) has points in both clouds", n));
    else
      notes.push_back(
          fmt::format("i_mean_mape leaves out {} of {} target(s) without points in both clouds",
                      i_left_out, n));
  }
  return notes;
}

const std::vector<SummaryMetricInfo>& SummaryMetrics() {
  static const std::vector<SummaryMetricInfo> kMetrics = {
      {"associated_fraction", false, "real points with a simulated partner"},
      {"return_agreement", false, "both returned / (either returned), Jaccard"},
      {"drop_accuracy", false, "beams where both or neither returned / all beams"},
      {"drop_f1", false, "F1 of the simulated drops as a prediction of the real ones"},
      {"depth_abs_mean_m", true, "mean |range error| over pairs [m]"},
      {"depth_abs_std_m", true, "std of |range error| over pairs [m]"},
      {"depth_bias_m", true, "|mean signed range error| [m]"},
      {"depth_rmse_m", true, "root mean square range error over pairs [m]"},
      {"depth_abs_median_m", true, "median |range error| over pairs (to 1.2 %) [m]"},
      {"depth_abs_p90_m", true, "90th percentile of |range error| (to 1.2 %) [m]"},
      {"depth_abs_p95_m", true, "95th percentile of |range error| (to 1.2 %) [m]"},
      {"intensity_abs_mean", true, "mean |intensity error| over pairs"},
      {"intensity_abs_std", true, "std of |intensity error| over pairs"},
      {"chamfer_m", true, "symmetric Chamfer distance [m]"},
      {"fscore_5cm", false, "F-score of the point clouds at 5 cm"},
      {"fscore_10cm", false, "F-score of the point clouds at 10 cm"},
      {"range_image_medae_m", true,
       "median |range error| over every beam, a drop reading 0 (range-image MedAE) [m]"},
      {"range_image_rmse_m", true, "root mean square of the same (range-image RMSE) [m]"},
      {"fscore_sq_0_05", false,
       "F-score with the squared nearest distance within 0.05 m^2 (0.224 m), the "
       "re-simulation papers'"},
      {"chamfer_sq_m2", true,
       "mean squared nearest distance real->sim plus sim->real (squared Chamfer) [m^2]"},
      {"intensity_rmse_01", true,
       "root mean square intensity error over pairs on the unit's 0-1 full scale"},
      {"n_points_mape", true, "MAPE of N_points over targets, seed 002 eq. 12"},
      {"i_mean_mape", true, "MAPE of I_mean over targets, seed 002 eq. 12"},
      {"d_error_sim_abs_mean_m", true, "mean |d_GT - d_mean,sim| over targets, eq. 13 [m]"},
      {"d_error_difference_m", true, "mean |d_error,sim - d_error,real| over targets [m]"},
      {"waveform_amplitude_mape", true,
       "MAPE of the voltage records' target peak amplitudes, seed 002 eq. 11-12"},
  };
  return kMetrics;
}

const SummaryMetricInfo* FindSummaryMetric(const std::string& name) {
  for (const auto& m : SummaryMetrics())
    if (name == m.name) return &m;
  return nullptr;
}

std::map<std::string, double> Summarize(const std::vector<ComparisonMetrics>& runs) {
  ErrorStats depth, intensity;
  MagnitudeQuantiles depth_abs;
  ReturnAgreement returns;
  ChamferMetrics chamfer;
  uint64_t real_points = 0;
  bool beams_known = true;  // pooled only where every run knows its beams
  MagnitudeQuantiles range_image;
  double range_image_sum_sq = 0;
  bool squared_counts = true;  // every run counted its points within sqrt(0.05) m
  const double scale = runs.empty() ? 0 : FullScale(runs[0].real_intensity_unit);
  bool same_scale = true;
  std::vector<double> n_sim, n_real, i_sim, i_real;
  RunningStats d_error_sim, d_error_difference;
  double waveform_mape_sum = 0;  // weighted by the records that entered each run's MAPE
  uint64_t waveform_records = 0;
  for (const auto& r : runs) {
    const uint64_t entered = r.waveforms.records - r.waveforms.skipped;
    if (entered > 0 && std::isfinite(r.waveforms.amplitude_mape)) {
      waveform_mape_sum += r.waveforms.amplitude_mape * static_cast<double>(entered);
      waveform_records += entered;
    }
    depth.Merge(r.depth_m);
    depth_abs.Merge(r.depth_abs_m);
    intensity.Merge(r.intensity);
    returns.both += r.returns.both;
    returns.real_only += r.returns.real_only;
    returns.sim_only += r.returns.sim_only;
    returns.beams += r.returns.beams;
    beams_known = beams_known && r.returns.beams > 0;
    range_image.Merge(r.range_image_abs_m);
    squared_counts = squared_counts && r.chamfer.has_squared_counts;
    range_image_sum_sq += r.range_image_sum_sq_m2;
    same_scale = same_scale && FullScale(r.real_intensity_unit) == scale;
    chamfer.real_to_sim_m.Merge(r.chamfer.real_to_sim_m);
    chamfer.sim_to_real_m.Merge(r.chamfer.sim_to_real_m);
    for (int k = 0; k < kFScoreThresholds; ++k) {
      chamfer.real_within[k] += r.chamfer.real_within[k];
      chamfer.sim_within[k] += r.chamfer.sim_within[k];
    }
    real_points += r.real_points;
    for (const auto& t : r.targets) {
      n_sim.push_back(static_cast<double>(t.n_sim));
      n_real.push_back(static_cast<double>(t.n_real));
      if (t.n_sim > 0 && t.n_real > 0) {
        i_sim.push_back(t.i_mean_sim);
        i_real.push_back(t.i_mean_real);
      }
      if (t.d_gt_m && t.n_sim > 0) {
        d_error_sim.Add(std::fabs(*t.d_gt_m - t.d_mean_sim));
        if (t.n_real > 0) d_error_difference.Add(std::fabs(t.d_mean_real - t.d_mean_sim));
      }
    }
  }
  std::map<std::string, double> s;
  s["associated_fraction"] =
      real_points ? static_cast<double>(returns.both) / static_cast<double>(real_points) : 0.0;
  s["return_agreement"] = returns.Agreement();
  if (beams_known && returns.beams > 0) {
    s["drop_accuracy"] = returns.DropAccuracy();
    if (std::isfinite(returns.DropF1())) s["drop_f1"] = returns.DropF1();
  }
  if (depth.n() > 0) {
    s["depth_abs_mean_m"] = depth.abs_error.mean;
    s["depth_abs_std_m"] = depth.abs_error.Std();
    s["depth_bias_m"] = std::fabs(depth.signed_error.mean);
    // Root mean square of the signed error, from its moments.
    s["depth_rmse_m"] = std::sqrt(MeanSquare(depth.signed_error));
    if (depth_abs.n > 0) {
      s["depth_abs_median_m"] = depth_abs.Quantile(0.5);
      s["depth_abs_p90_m"] = depth_abs.Quantile(0.9);
      s["depth_abs_p95_m"] = depth_abs.Quantile(0.95);
    }
    s["intensity_abs_mean"] = intensity.abs_error.mean;
    s["intensity_abs_std"] = intensity.abs_error.Std();
    if (same_scale && scale > 0)
      s["intensity_rmse_01"] = std::sqrt(MeanSquare(intensity.signed_error)) / scale;
  }
  if (beams_known && range_image.n > 0) {
    s["range_image_medae_m"] = range_image.Quantile(0.5);
    s["range_image_rmse_m"] = std::sqrt(range_image_sum_sq / static_cast<double>(range_image.n));
  }
  if (chamfer.real_to_sim_m.n > 0 && chamfer.sim_to_real_m.n > 0) {
    s["chamfer_m"] = chamfer.Symmetric();
    s["chamfer_sq_m2"] = MeanSquare(chamfer.real_to_sim_m) + MeanSquare(chamfer.sim_to_real_m);
    s["fscore_5cm"] = chamfer.FScore(0);
    s["fscore_10cm"] = chamfer.FScore(1);
    if (squared_counts) s["fscore_sq_0_05"] = chamfer.FScore(2);
  }
  if (waveform_records > 0) {
    s["waveform_amplitude_mape"] = waveform_mape_sum / static_cast<double>(waveform_records);
  }
  if (!n_sim.empty()) {
    const double mape = Mape(n_sim, n_real, nullptr);
    if (std::isfinite(mape)) s["n_points_mape"] = mape;
  }
  if (!i_sim.empty()) {
    const double mape = Mape(i_sim, i_real, nullptr);
    if (std::isfinite(mape)) s["i_mean_mape"] = mape;
  }
  if (d_error_sim.n > 0) s["d_error_sim_abs_mean_m"] = d_error_sim.mean;
  if (d_error_difference.n > 0) s["d_error_difference_m"] = d_error_difference.mean;
  return s;
}

}  // namespace lt::compare
