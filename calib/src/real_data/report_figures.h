// The figures of the real-data report (private to calib/): binned summaries of the Ouster
// range-intensity samples, and the SVG plots (reports/svg_plot.h) of data against fit.
#pragma once

#include <string>
#include <vector>

#include "lidartwin/calib/real_data_calibration.h"

namespace lt::calib {

// The range-intensity samples of one unit in logarithmic range bins (three a factor of two):
// the apparent link constant S 4 R^2 / (rho cos theta) (quartiles), the fitted K O(R) at the
// bin's median range, and the median relative residual (S - model) / model.
struct RangeBin {
  double range_m = 0;  // median range of the bin
  size_t count = 0;
  double k25 = 0, k50 = 0, k75 = 0;
  double model = 0;
  double residual50 = 0;
};
std::vector<RangeBin> RangeBins(const OusterUnitResult& unit);

// The same relative residuals in 10-degree incidence bins: a reading of reflectivity that
// mishandles cos(theta) leaves a trend here.
struct IncidenceBin {
  double incidence_deg = 0;  // bin centre
  size_t count = 0;
  double residual50 = 0;
};
std::vector<IncidenceBin> IncidenceBins(const OusterUnitResult& unit, ReflectivityReading reading);

// Median |S - fit| / fit over all samples of the chosen fit (NaN without one).
double MedianAbsoluteResidual(const OusterUnitResult& unit);

struct Figure {
  std::string file;  // name in the report directory
  std::string caption;
  std::string svg;
};
std::vector<Figure> RealDataFigures(const RealDataCalibration& result);

}  // namespace lt::calib
