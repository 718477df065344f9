// A frame's first returns on the destaggered sensor grid (ouster_samples.h).
#include <cmath>
#include <string>

#include "lidartwin/calib/ouster_samples.h"
#include "lidartwin/physics/link_budget.h"

namespace lt::calib {

Expected<RangeImage> BuildRangeImage(const Frame& frame,
                                     const std::vector<double>& beam_azimuth_deg, uint32_t columns,
                                     bool has_signal) {
  RangeImage img;
  img.rows = static_cast<uint32_t>(beam_azimuth_deg.size());
  img.columns = columns;
  if (img.rows == 0 || columns == 0) {
    return Error{"range image: " + std::to_string(img.rows) + " beams and " +
                 std::to_string(columns) + " columns; both must be positive"};
  }
  const size_t n = static_cast<size_t>(img.rows) * columns;
  img.range_m.assign(n, 0);
  img.signal.assign(n, 0);
  img.reflectivity_pct.assign(n, 0);
  img.x_m.assign(n, 0);
  img.y_m.assign(n, 0);
  img.z_m.assign(n, 0);
  img.seen.assign(n, 0);
  // Destaggering shift of each row, in columns.
  std::vector<int64_t> shift(img.rows);
  for (uint32_t r = 0; r < img.rows; ++r)
    shift[r] = std::llround(beam_azimuth_deg[r] * columns / 360.0);
  const auto column_of = [&](uint32_t row, uint32_t measurement) {
    const int64_t w = columns;
    return static_cast<uint32_t>(((measurement + shift[row]) % w + w) % w);
  };
  std::vector<uint8_t> measurement_seen(columns, 0);
  for (size_t k = 0; k < frame.size(); ++k) {
    if (frame.channel[k] >= img.rows || frame.column[k] >= columns) {
      return Error{"range image: frame " + std::to_string(frame.index) + " point " +
                   std::to_string(k) + " has channel " + std::to_string(frame.channel[k]) +
                   " and column " + std::to_string(frame.column[k]) + " outside the " +
                   std::to_string(img.rows) + " x " + std::to_string(columns) + " grid"};
    }
    measurement_seen[frame.column[k]] = 1;
    if (frame.return_index[k] != 0 || !(frame.range_m[k] > 0)) continue;
    const size_t i = img.Index(frame.channel[k], column_of(frame.channel[k], frame.column[k]));
    img.range_m[i] = frame.range_m[k];
    img.signal[i] = has_signal ? frame.intensity[k] : 0.0f;
    img.reflectivity_pct[i] = physics::ReportedIntensity(frame.reflectance[k]);
    img.x_m[i] = frame.x_m[k];
    img.y_m[i] = frame.y_m[k];
    img.z_m[i] = frame.z_m[k];
  }
  for (uint32_t r = 0; r < img.rows; ++r)
    for (uint32_t m = 0; m < columns; ++m)
      img.seen[img.Index(r, column_of(r, m))] = measurement_seen[m];
  return img;
}

}  // namespace lt::calib
