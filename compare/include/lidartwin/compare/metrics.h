// Simulation-vs-real fidelity metrics (DESIGN.md sec. 6) for one recording pair: depth and
// intensity error per distance bin and per material (seed 000 Tables I-II), per-target
// N_points, I_mean and d_error (seed 002 sec. 6.2.1, eq. 13-14) with their MAPE (eq. 12),
// return/drop agreement and the Chamfer distance.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/compare/association.h"
#include "lidartwin/compare/compare_inputs.h"
#include "lidartwin/compare/error_stats.h"
#include "lidartwin/compare/frame_pairing.h"
#include "lidartwin/compare/targets.h"
#include "lidartwin/compare/waveform_metrics.h"

namespace lt::compare {

struct CompareOptions {
  AssociationOptions association;
  // Distance bin edges by the real point's range [m]; the last bin is open-ended. The default
  // brackets seed 000 Table I's distances (2.5 .. 33 m) and goes on to 100 m.
  std::vector<double> distance_edges_m{0, 2.5, 5, 7.5, 10, 15, 20, 30, 40, 60, 100};
  std::vector<std::string> material_names;  // by material id; ids without a name print as "id N"
  std::vector<Target> targets;
  // Ignore points nearer than this in both frames (the sensor's own housing, blind zone).
  double min_range_m = 0;
  // Beams each frame fired (returned or not), for the drop accuracy; 0: unknown, no drop
  // accuracy. A frame whose returns outnumber its beams is an error.
  uint64_t beams_per_frame = 0;
  // Where records' baselines and target peaks lie (the simulated profile's waveform window);
  // baseline_samples 0: the records are not compared.
  WaveformWindow waveform_window;

  // Keys by field: the association gates (`association.max_angle_deg`, ...), distance edges
  // a strictly increasing list of finite numbers >= 0, min_range_m >= 0. Compare calls it.
  // Targets are checked where they are made (LoadTargets; TargetsFromScene boxes a flat
  // object with its margin, which may be 0).
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

// Errors are simulated minus real: depth in metres (range), intensity in the frames' own
// intensity unit (the comparison is meaningful when both use the same one).
struct BinMetrics {
  std::string label;
  double lo_m = 0, hi_m = 0;  // distance bins only
  ErrorStats depth_m;
  ErrorStats intensity;
};

struct TargetMetrics {
  std::string name;
  std::string material;
  uint32_t frame = 0;
  std::optional<double> d_gt_m;
  uint64_t n_real = 0, n_sim = 0;
  double i_mean_real = 0, i_mean_sim = 0;  // 0 when there are no points
  double d_mean_real = 0, d_mean_sim = 0;

  // "ok", "no real points", "no simulated points" or "no points": a target without points
  // stays in the output, marked, instead of vanishing from the MAPE (it cannot enter it).
  const char* PointsStatus() const;
};

struct ReturnAgreement {
  uint64_t both = 0;       // associated pairs
  uint64_t real_only = 0;  // the real sensor returned, the simulation did not
  uint64_t sim_only = 0;   // the simulation returned, the real sensor did not
  uint64_t beams = 0;      // beams fired over all frames; 0: not known
  // Jaccard index: both / (both + real_only + sim_only).
  double Agreement() const;
  // Drop accuracy per beam (issue 12): beams where both returned or neither did, over all
  // beams; NaN when beams is not known.
  double DropAccuracy() const;
  // F1 of the simulated drops as a prediction of the real ones (issue 41; the re-simulation
  // papers' ray-drop F1): 2 TP / (2 TP + FP + FN), TP the beams neither returned, FP those only
  // the real sensor returned, FN those only the simulation returned; NaN when beams is not known
  // or no beam dropped on either side.
  double DropF1() const;
};

// One frame pair's share of ReturnAgreement, for finding the worst frames (report's viewer).
struct FrameAgreement {
  uint32_t pair = 0;  // position in the compared lists (0: the first real and simulated frame)
  uint64_t real_points = 0, sim_points = 0, both = 0;
  double Agreement() const;  // Jaccard, as ReturnAgreement::Agreement
};

// The F-score thresholds: 5 and 10 cm (issue 12), and the re-simulation papers' 0.05 on the
// squared distance (issue 41: the LiDAR-NeRF line's evaluation compares squared nearest
// distances with 0.05, a distance of sqrt(0.05) = 0.224 m).
inline constexpr int kFScoreThresholds = 3;
inline constexpr double kFScoreThresholdsM[kFScoreThresholds] = {0.05, 0.10, 0.22360679774997896};

struct ChamferMetrics {
  RunningStats real_to_sim_m;  // each real point to its nearest simulated point
  RunningStats sim_to_real_m;
  // Points whose nearest partner lies within kFScoreThresholdsM[k].
  uint64_t real_within[kFScoreThresholds] = {}, sim_within[kFScoreThresholds] = {};
  // False for a metrics file of before issue 41, which has no counts for the third threshold.
  bool has_squared_counts = true;
  // (mean real->sim + mean sim->real) / 2
  double Symmetric() const;
  // F-score at threshold k: 2 P R / (P + R), P the share of simulated points near a real one,
  // R the share of real points near a simulated one; 0 when either is 0.
  double FScore(int k) const;
};

struct ComparisonMetrics {
  std::string label;
  std::string real_file, sim_file;
  // What each side's intensity holds (Recording::intensity_unit); empty in metrics files
  // written before units were carried. Intensity errors subtract the two: meaningful only
  // where they agree (or both are reflectivity in percent, IsReflectivityPercent).
  std::string real_intensity_unit, sim_intensity_unit;
  std::string association;  // method used (if the frames differ: the first frame's)
  std::string association_reason;
  uint32_t frames = 0;
  uint64_t real_points = 0, sim_points = 0;
  // Points dropped before association because x, y, z, range or intensity is not finite
  // (NaN, infinity): they would make every mean they enter NaN.
  uint64_t real_non_finite = 0, sim_non_finite = 0;
  // Points at (0, 0, 0), organised clouds' "no return", dropped before association.
  uint64_t real_no_return = 0, sim_no_return = 0;
  ErrorStats depth_m, intensity;
  MagnitudeQuantiles depth_abs_m;  // |range error| over pairs, for the median, p90 and p95
  std::vector<BinMetrics> by_distance;
  std::vector<BinMetrics> by_material;
  std::vector<TargetMetrics> targets;
  ReturnAgreement returns;
  std::vector<FrameAgreement> per_frame;  // one per compared frame pair
  ChamferMetrics chamfer;
  // The re-simulation papers' range image (issue 41, docs/validation.md "In the re-simulation
  // papers' terms"): every beam fired is a pixel, and a beam without a return reads range 0, so
  // a pixel's |error| is |s - r| for a pair, the range of the one side that returned, and 0
  // where neither did. Filled only where the beams are known (CompareOptions::beams_per_frame).
  MagnitudeQuantiles range_image_abs_m;
  double range_image_sum_sq_m2 = 0;
  // Seed 002 eq. 11-12 on the voltage records both files hold (records 0: none).
  WaveformMetrics waveforms;
  // What was compared, as the command line gave it (compare_inputs.h); empty where unknown
  // (comparisons made through the library, metrics files of before issue 13).
  std::optional<CompareInputs> inputs;
};

// Called after each compared frame pair: (frames done, frames in all).
using CompareProgress = std::function<void(size_t done, size_t total)>;
// Called with each frame pair's pairing (pair k, from 0), for tables of the pairs themselves.
// An error it returns ends Compare with that error.
using PairingSink = std::function<Status(size_t k, const FramePairing& pairing)>;

// Compare, one frame pair at a time: memory follows one frame pair and the metrics' bins, not
// the recording's length (issue 36: 500 OS0-128 pairs held whole took 2.49 GB).
class PairwiseComparison {
 public:
  // Validates the options.
  static Expected<PairwiseComparison> Start(const CompareOptions& options);
  // The next pair (pair k = the pairs added before it); errors name the pair.
  Status Add(const Frame& real, const Frame& sim, const PairingSink& on_pairing = {});
  size_t pairs() const { return m_.frames; }
  // The metrics of the pairs added; an error when none was.
  Expected<ComparisonMetrics> Finish() &&;

 private:
  explicit PairwiseComparison(const CompareOptions& options);
  CompareOptions options_;
  ComparisonMetrics m_;
  std::vector<BinMetrics> distance_bins_;
  std::map<uint16_t, BinMetrics> material_bins_;
  WaveformComparison waveforms_;
};

// Compares real frames with simulated frames pairwise (frame i with frame i); the counts must
// match. Points with a non-finite x, y, z, range or intensity are dropped and counted
// (ComparisonMetrics::real_non_finite, sim_non_finite).
Expected<ComparisonMetrics> Compare(const std::vector<Frame>& real, const std::vector<Frame>& sim,
                                    const CompareOptions& options,
                                    const CompareProgress& on_frame = {},
                                    const PairingSink& on_pairing = {});

// N_points, I_mean and d_mean of seed 002 sec. 6.2.1 for one target in one frame pair.
TargetMetrics MeasureTarget(const Target& t, const Frame& real, const Frame& sim, uint32_t frame);

// Lines a person should read next to the summary: targets without points (each named with its
// frame, at most max_lines of them, then a count of the rest) and why a MAPE could not be
// computed. Empty when every target has points in both clouds.
std::vector<std::string> TargetNotes(const ComparisonMetrics& m, size_t max_lines = 20);

// MAPE of seed 002 eq. (12): (1/n) sum |(y_i - x_i) / y_i| with y the simulated and x the
// measured value, as the paper writes it. Pairs with y_i = 0 cannot enter; *skipped counts
// them.
double Mape(const std::vector<double>& simulated, const std::vector<double>& measured,
            size_t* skipped);

// The headline numbers a regression gate watches, pooled over one or more comparisons.
// Name -> value; names and their better direction in SummaryMetricInfo.
std::map<std::string, double> Summarize(const std::vector<ComparisonMetrics>& runs);

struct SummaryMetricInfo {
  const char* name;
  bool lower_is_better;
  const char* description;
};
const std::vector<SummaryMetricInfo>& SummaryMetrics();
const SummaryMetricInfo* FindSummaryMetric(const std::string& name);

}  // namespace lt::compare
