#include "lidartwin/datasets/scan_lines.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "lidartwin/base/order_statistics.h"

namespace lt {

bool NumberScanLines(Frame& f, size_t lines) {
  const size_t n = f.size();
  if (n == 0 || lines == 0) return false;
  constexpr double kTurn = 2 * std::numbers::pi;
  std::vector<uint16_t> line(n);
  std::vector<std::vector<float>> elevations(1);
  uint16_t current = 0;
  // How far the current line has turned, from step to step (each step taken the short way
  // round): a line ends only after half a turn, so a point jittering back over the azimuth where
  // the lines begin does not split one.
  double swept = 0, previous = 0;
  for (size_t i = 0; i < n; ++i) {
    const double x = f.x_m[i], y = f.y_m[i], z = f.z_m[i];
    double az = std::atan2(y, x);
    if (az < 0) az += kTurn;
    if (i > 0) {
      const double step = az - previous;
      if (step < -kTurn / 2 && swept > kTurn / 2) {
        if (elevations.size() == lines) return false;  // more lines than the sensor has
        ++current;
        elevations.emplace_back();
        swept = 0;
      } else {
        swept += step > kTurn / 2 ? step - kTurn : step < -kTurn / 2 ? step + kTurn : step;
      }
    }
    previous = az;
    line[i] = current;
    elevations.back().push_back(static_cast<float>(std::atan2(z, std::hypot(x, y))));
  }
  if (elevations.size() != lines) return false;
  std::vector<float> median(lines);
  for (size_t k = 0; k < lines; ++k)
    median[k] = Median(elevations[k]);
  bool falling = true, rising = true;
  for (size_t k = 1; k < lines; ++k) {
    falling = falling && median[k] < median[k - 1];
    rising = rising && median[k] > median[k - 1];
  }
  if (!falling && !rising) return false;
  f.channel = std::move(line);
  return true;
}

}  // namespace lt
