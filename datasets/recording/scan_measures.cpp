#include "lidartwin/datasets/scan_measures.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <unordered_map>

namespace lt {
namespace {

double MedianOf(std::vector<double> v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2) return *mid;
  return 0.5 * (*mid + *std::max_element(v.begin(), mid));
}

// Calls step(turn [rad], dt [s]) for each channel's first returns in consecutive columns of
// every frame with channels and columns, where the head turned by under 5 deg between them: the
// azimuth step, and the time between their firings (NaN where the frame times no return).
template <typename Step>
void ForEachColumnStep(const std::vector<Frame>& frames, Step step) {
  struct Firing {
    double azimuth_rad, time_s;
  };
  for (const Frame& f : frames) {
    if (f.channel.size() != f.size() || f.column.size() != f.size()) continue;
    const bool timed = f.timestamp_s.size() == f.size();
    std::unordered_map<uint64_t, Firing> firings;  // by (channel, column)
    for (size_t i = 0; i < f.size(); ++i)
      if (f.return_index.empty() || f.return_index[i] == 0)
        firings.emplace((uint64_t{f.channel[i]} << 32) | f.column[i],
                        Firing{std::atan2(f.y_m[i], f.x_m[i]), timed ? f.timestamp_s[i] : NAN});
    for (const auto& [key, a] : firings) {
      const auto next = firings.find(key + 1);
      if (next == firings.end()) continue;
      const double turn =
          std::fabs(std::remainder(next->second.azimuth_rad - a.azimuth_rad, 2 * std::numbers::pi));
      if (turn > 0 && turn < 5 * std::numbers::pi / 180) step(turn, next->second.time_s - a.time_s);
    }
  }
}

}  // namespace

double MeasuredRotationRateHz(const std::vector<Frame>& frames) {
  // The head's turn between one channel's firings in consecutive columns over their time apart:
  // what a frame holds of a revolution does not matter (the shared VLP-16 pcap's two frames are
  // a third and three quarters of one: their durations gave 17.9 Hz for its 10).
  std::vector<double> rates;
  ForEachColumnStep(frames, [&](double turn, double dt) {
    if (dt > 0 && std::isfinite(dt)) rates.push_back(turn / dt / (2 * std::numbers::pi));
  });
  if (rates.size() >= 100) return MedianOf(std::move(rates));
  std::vector<double> periods;
  const size_t first = frames.size() >= 3 ? 1 : 0;
  const size_t last = frames.size() >= 3 ? frames.size() - 1 : frames.size();
  for (size_t k = first; k < last; ++k) {
    const double period = frames[k].end_time_s - frames[k].start_time_s;
    if (period > 0 && std::isfinite(period)) periods.push_back(period);
  }
  if (periods.empty()) return 0;
  return 1 / MedianOf(std::move(periods));
}

uint32_t MeasuredColumnsPerRevolution(const std::vector<Frame>& frames) {
  std::vector<double> steps;
  ForEachColumnStep(frames, [&](double turn, double) { steps.push_back(turn); });
  if (steps.empty()) return 0;
  return static_cast<uint32_t>(std::lround(2 * std::numbers::pi / MedianOf(std::move(steps))));
}

}  // namespace lt
