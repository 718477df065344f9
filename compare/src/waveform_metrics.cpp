#include "lidartwin/compare/waveform_metrics.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "lidartwin/compare/metrics.h"
#include "lidartwin/physics/waveform_ranging.h"
#include "lidartwin/sim/waveform_records.h"

namespace lt::compare {

WaveformWindow WaveformWindowOf(const SensorProfile& p) {
  if (p.detector.kind != DetectorKind::kWaveform) return {};
  const physics::WaveformChain w = WaveformConstants(p);
  return {w.pretrigger_samples, physics::TargetWindowStart(w)};
}

namespace {

// A record's target peak amplitude (see the header).
double PeakAmplitude(const float* v, uint32_t n, const WaveformWindow& w) {
  const uint32_t base = std::min(w.baseline_samples, n);
  double b = 0;
  for (uint32_t i = 0; i < base; ++i)
    b += v[i];
  b = base ? b / base : 0.0;
  double top = -INFINITY;
  for (uint32_t i = std::min(w.target_start, n); i < n; ++i)
    top = std::max<double>(top, v[i]);
  return std::isfinite(top) ? top - b : 0.0;
}

}  // namespace

Status WaveformComparison::Add(size_t pair, const Frame& r, const Frame& s) {
  if (window_.baseline_samples == 0) return {};
  for (size_t i = 0; i < s.waveform_beams.size(); ++i) {
    const auto at =
        std::lower_bound(r.waveform_beams.begin(), r.waveform_beams.end(), s.waveform_beams[i]);
    if (at == r.waveform_beams.end() || *at != s.waveform_beams[i]) continue;
    if (r.waveform_samples != s.waveform_samples) {
      return Error{"waveform records of frame pair " + std::to_string(pair) + ", beam " +
                   std::to_string(s.waveform_beams[i]) + ": " + std::to_string(s.waveform_samples) +
                   " simulated samples against " + std::to_string(r.waveform_samples) + " real"};
    }
    const uint32_t n = s.waveform_samples;
    const float* vs = &s.waveform_volts[i * n];
    const float* vr = &r.waveform_volts[static_cast<size_t>(at - r.waveform_beams.begin()) * n];
    for (uint32_t j = 0; j < n; ++j) {
      const double dv = double(vs[j]) - vr[j];  // eq. 11
      sum2_ += dv * dv;
      m_.dv_max_abs_v = std::max(m_.dv_max_abs_v, std::abs(dv));
    }
    samples_ += n;
    y_.push_back(PeakAmplitude(vs, n, window_));
    x_.push_back(PeakAmplitude(vr, n, window_));
    ++m_.records;
  }
  return {};
}

WaveformMetrics WaveformComparison::Finish() const {
  WaveformMetrics m = m_;
  if (window_.baseline_samples == 0) return m;
  size_t skipped = 0;
  m.amplitude_mape = y_.empty() ? NAN : Mape(y_, x_, &skipped);
  m.skipped = skipped;
  m.dv_rms_v = samples_ ? std::sqrt(sum2_ / samples_) : 0.0;
  return m;
}

Expected<WaveformMetrics> CompareWaveforms(const std::vector<Frame>& real,
                                           const std::vector<Frame>& sim,
                                           const WaveformWindow& window) {
  WaveformComparison c(window);
  for (size_t k = 0; k < std::min(real.size(), sim.size()); ++k)
    if (Status s = c.Add(k, real[k], sim[k]); !s.ok()) return s.error();
  return c.Finish();
}

}  // namespace lt::compare
