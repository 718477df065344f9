#include "lidartwin/reconstruct/recording_sensor_fit.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/order_statistics.h"
#include "range_gain_fit.h"
#include "roughness_fit.h"
#include "viewed_cells.h"

namespace lt {
namespace {

bool Usable(const Frame& f, size_t i, const RecordingFitOptions& o) {
  const double r = f.range_m[i];
  return r >= o.min_range_m && r <= o.max_range_m && f.intensity.size() == f.size() &&
         std::isfinite(f.intensity[i]) && f.intensity[i] >= 0 &&
         (f.return_index.empty() || f.return_index[i] == 0);
}

// G(R) at the bins' median ranges, the median intensity of each bin (unscaled).
Expected<IntensityReading> BinnedRangeGain(const std::vector<Frame>& frames,
                                           const RecordingFitOptions& o) {
  const double log_lo = std::log(o.min_range_m), log_hi = std::log(o.max_range_m);
  std::vector<std::vector<double>> bins(static_cast<size_t>(o.range_bins));
  std::vector<std::vector<double>> bin_ranges(static_cast<size_t>(o.range_bins));
  for (const Frame& f : frames)
    for (size_t i = 0; i < f.size(); ++i) {
      if (!Usable(f, i, o)) continue;
      const double s = (std::log(f.range_m[i]) - log_lo) / (log_hi - log_lo);
      const int b = std::clamp(static_cast<int>(s * o.range_bins), 0, o.range_bins - 1);
      bins[static_cast<size_t>(b)].push_back(f.intensity[i]);
      bin_ranges[static_cast<size_t>(b)].push_back(f.range_m[i]);
    }
  IntensityReading reading;
  for (size_t b = 0; b < bins.size(); ++b) {
    if (bins[b].size() < o.min_returns_per_bin) continue;
    // A bin most of whose returns read 0 (a Pandar64 nearer than 1.5 m: 63-85 %) takes its
    // mean, so that G follows the sensor down there instead of bridging the bin at its
    // neighbours' level (which simulated those returns at 2-4 counts: Pandar64 frame 2's
    // intensity error 5.06 -> 4.72).
    double level = QuantileAt(bins[b], 0.5);
    if (!(level > 0)) level = Mean(bins[b]);
    if (!(level > 0)) continue;  // every return 0: no gain to read R0 through
    // The node at the bin's median range, where its returns are (not its centre).
    reading.gain_range_m.push_back(QuantileAt(bin_ranges[b], 0.5));
    reading.gain.push_back(level);  // scaled below
  }
  if (reading.gain.size() < 2)
    return Error{fmt::format(
        "fitting the range-intensity gain: fewer than two range bins in [{}, {}] m hold {} "
        "returns with a positive median intensity",
        NumberText(o.min_range_m), NumberText(o.max_range_m), o.min_returns_per_bin)};
  return reading;
}

// G scaled so that the median I / G(R) over every return is the nominal reflectance.
Expected<IntensityReading> ScaledToNominal(IntensityReading reading,
                                           const std::vector<Frame>& frames,
                                           const RecordingFitOptions& o) {
  // Scale: the median of I / G(R) over every return becomes the nominal reflectance.
  std::vector<double> ratio;
  for (const Frame& f : frames)
    for (size_t i = 0; i < f.size(); ++i)
      if (Usable(f, i, o)) ratio.push_back(f.intensity[i] / reading.GainAt(f.range_m[i]));
  const double median_ratio = QuantileAt(ratio, 0.5);
  if (!(median_ratio > 0)) return Error{"fitting the range-intensity gain: median intensity is 0"};
  // The bright tail kept inside the material library's diffuse range (Reflectance clamps R0 at
  // 1): a scene's paint, plates and signs read up to 10-20 times its median return (the HDL-32E
  // and Pandar64 captures), and clamped they were simulated at a fifth of what they read.
  const double tail_ratio = QuantileAt(ratio, o.tail_quantile);
  const double scale =
      std::max(median_ratio / o.nominal_reflectance, tail_ratio / o.tail_reflectance);
  for (double& g : reading.gain)
    g *= scale;
  return reading;
}

}  // namespace

Expected<IntensityReading> FitRawIntensityReading(const std::vector<Frame>& frames,
                                                  const RecordingFitOptions& o) {
  auto reading = BinnedRangeGain(frames, o);
  if (!reading.ok()) return reading.error();
  return ScaledToNominal(std::move(*reading), frames, o);
}

Expected<IntensityReading> FitRawIntensityReading(const PosedFrames& input,
                                                  const RecordingFitOptions& o,
                                                  RangeGainCorrection* correction,
                                                  SurfaceRoughness* roughness) {
  const auto binned = BinnedRangeGain(input.frames, o);
  if (!binned.ok()) return binned.error();
  const std::vector<ViewedCell> cells =
      ViewedPlanarCells(input, o.gain_cell_m, o.min_range_m, o.max_range_m);
  // sigma from the surfaces seen at two incidences, each sigma through the gain it gives
  // (roughness_fit.h); then G's shape through that sigma.
  SurfaceRoughness rough;
  if (o.fit_roughness) rough = FitSurfaceRoughness(cells, o);
  IntensityReading reading = *binned;
  reading.roughness_rad = rough.roughness_rad;
  RangeGainCorrection total = FitRangeGainAcrossViewpoints(cells, reading, o);
  for (size_t n = 0; n < reading.gain.size(); ++n)
    reading.gain[n] *= std::exp(total.ln_correction[n]);

  if (correction) *correction = std::move(total);
  if (roughness) *roughness = rough;
  return ScaledToNominal(std::move(reading), input.frames, o);
}

namespace {

// The quantile q of value(R, apparent reflectance R0 cos theta) over the frames' usable returns
// with a finite reading; where `read_only`, over those that read a level above 0 (a return
// reading 0 was kept on its timing alone, and its reading is clamped up to the least
// reflectance: it says nothing of the power it brought back). An error naming `what` under 100.
template <typename Value>
Expected<double> QuantileOverReturns(const std::vector<Frame>& frames,
                                     const IntensityReading& reading, const RecordingFitOptions& o,
                                     double q, bool read_only, const char* what, Value value) {
  std::vector<double> values;
  for (const Frame& f : frames)
    for (size_t i = 0; i < f.size(); ++i) {
      if (!Usable(f, i, o) || (read_only && !(f.intensity[i] > 0))) continue;
      const double r = f.range_m[i];
      const double apparent = reading.Reflectance(f.intensity[i], r, 1.0, 89.9);
      if (std::isfinite(apparent)) values.push_back(value(r, apparent));
    }
  if (values.size() < 100)
    return Error{
        fmt::format("fitting the {}: {} returns with {} in [{}, {}] m; at least 100 are "
                    "needed",
                    what, values.size(), read_only ? "an intensity above 0" : "an intensity",
                    NumberText(o.min_range_m), NumberText(o.max_range_m))};
  return QuantileAt(values, q);
}

}  // namespace

Expected<double> FitDetectionEnvelope(const std::vector<Frame>& frames,
                                      const IntensityReading& reading,
                                      const RecordingFitOptions& o) {
  return QuantileOverReturns(frames, reading, o, o.envelope_quantile, false, "detection envelope",
                             [](double r, double apparent) { return apparent / r; });
}

Expected<double> FitDetectionThreshold(const std::vector<Frame>& frames,
                                       const IntensityReading& reading,
                                       const physics::LinkBudget& link,
                                       const physics::Overlap& overlap,
                                       const RecordingFitOptions& o) {
  return QuantileOverReturns(frames, reading, o, o.threshold_quantile, true, "detection threshold",
                             [&](double r, double apparent) {
                               return apparent * physics::WhiteTargetPower(link, r) *
                                      physics::OverlapShare(overlap, r);
                             });
}

}  // namespace lt
