// The time-domain comparison of seed 002 sec. 6.1 (eq. 11-12): simulated and real voltage
// records of the same beams (Frame::waveform_*), record by record. Eq. 11's difference
// dv = v_sim - v_real per sample, and eq. 12's MAPE over the records' target peak amplitudes:
// each record's highest sample from `target_start` on, less the mean of its first
// `baseline_samples` (the pretrigger), with y the simulated and x the real amplitude.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::compare {

struct WaveformWindow {
  uint32_t baseline_samples = 0;  // 0: no waveform comparison
  uint32_t target_start = 0;      // first sample after the internal reflection's window
};

// The window of a waveform-detector profile (its pretrigger, and the end of the internal
// reflection's window as the ranging has it); {0, 0} for other detectors.
WaveformWindow WaveformWindowOf(const SensorProfile& profile);

struct WaveformMetrics {
  uint64_t records = 0;       // (frame, beam) pairs recorded in both
  uint64_t skipped = 0;       // of those: a simulated amplitude of 0 (cannot enter eq. 12)
  double amplitude_mape = 0;  // eq. 12, a fraction (NaN when no record entered)
  double dv_rms_v = 0;        // eq. 11 over every sample of every record [V]
  double dv_max_abs_v = 0;
};

// The comparison one frame pair at a time, so that a recording is compared in the memory of a
// frame pair. Records pair up by beam within a pair.
class WaveformComparison {
 public:
  explicit WaveformComparison(const WaveformWindow& window) : window_(window) {}
  // Records of unequal length are an error naming the frame pair (`pair`) and beam.
  Status Add(size_t pair, const Frame& real, const Frame& sim);
  WaveformMetrics Finish() const;

 private:
  WaveformWindow window_;
  WaveformMetrics m_;
  std::vector<double> y_, x_;  // simulated and real peak amplitudes, one per record
  double sum2_ = 0;
  uint64_t samples_ = 0;
};

// Frames pair up by position; records by beam within a pair. Records of unequal length are an
// error naming the frame and beam.
Expected<WaveformMetrics> CompareWaveforms(const std::vector<Frame>& real,
                                           const std::vector<Frame>& sim,
                                           const WaveformWindow& window);

}  // namespace lt::compare
