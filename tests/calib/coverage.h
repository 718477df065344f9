// Coverage of reported uncertainties: how often the truth lies within 1 and 2 standard
// deviations of the fitted values, held to the 68 +- 10 % and 95 +- 5 %.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "lidartwin/calib/fit_result.h"

namespace lt::calib::test {

class Coverage {
 public:
  // Counts one parameter of one fit against its truth; the parameter must be there with a
  // positive standard deviation.
  void Add(const FitResult& fit, const std::string& name, double truth) {
    const FitParameter* p = fit.Find(name);
    ASSERT_NE(p, nullptr) << name;
    ASSERT_GT(p->stddev, 0) << name;
    Add(name, p->value, p->stddev, truth);
  }
  // Counts one value with its standard deviation against its truth.
  void Add(const std::string& name, double value, double stddev, double truth) {
    ASSERT_GT(stddev, 0) << name;
    signed_z_[name].push_back((value - truth) / stddev);
    const double z = std::abs(value - truth) / stddev;
    if (z > 3)
      std::printf("[coverage] %s: %g +- %g, truth %g (%.1f sigma)\n", name.c_str(), value, stddev,
                  truth, z);
    within1_ += z <= 1;
    within2_ += z <= 2;
    ++total_;
    auto& k = by_name_[name];
    k[0] += z <= 1;
    k[1] += z <= 2;
    k[2] += 1;
  }
  // Per parameter name, for finding the one that breaks the band.
  void Print() const {
    for (const auto& [name, k] : by_name_)
      std::printf("[coverage]   %s: %d / %d within 1 sigma, %d within 2\n", name.c_str(), k[0],
                  k[2], k[1]);
  }
  int count() const { return total_; }
  // Issue 40's targets, per parameter: within 1 sigma 68 % +- 7 %, within 2 sigma 95 % +- 4 %,
  // the mean of (value - truth) / sigma within +-0.5; each band widened to 3 binomial standard
  // errors where the draws are too few for it (at 50 draws a perfect estimator misses the
  // issue's 1-sigma band a third of the time; at 400 the bands are the issue's). Prints a
  // Markdown row per parameter (the tables in docs/calibration.md) with those standard errors.
  // mean_z_band: the mean z's band where a study knowingly misses the 0.5 (the reason
  // at the call).
  void ExpectPerParameter(const std::string& label, double mean_z_band = 0.5) const {
    std::printf(
        "[coverage] %s\n| parameter | draws | within 1 sigma | within 2 sigma | mean z |\n"
        "| --- | --- | --- | --- | --- |\n",
        label.c_str());
    for (const auto& [name, k] : by_name_) {
      const double n = k[2], c1 = k[0] / n, c2 = k[1] / n;
      double mean_z = 0;
      for (double z : signed_z_.at(name))
        mean_z += z / n;
      std::printf("| %s | %d | %.2f +- %.2f | %.2f +- %.2f | %+.2f |\n", name.c_str(), k[2], c1,
                  std::sqrt(0.68 * 0.32 / n), c2, std::sqrt(0.95 * 0.05 / n), mean_z);
      EXPECT_NEAR(c1, 0.68, std::max(0.07, 3 * std::sqrt(0.68 * 0.32 / n)))
          << label << ": " << name;
      EXPECT_NEAR(c2, 0.95, std::max(0.04, 3 * std::sqrt(0.95 * 0.05 / n)))
          << label << ": " << name;
      EXPECT_LE(std::abs(mean_z), std::max(mean_z_band, 3 / std::sqrt(n))) << label << ": " << name;
    }
  }
  void Expect(const std::string& label) const {
    const double c1 = double(within1_) / total_, c2 = double(within2_) / total_;
    std::printf("[coverage] %s: %.2f within 1 sigma, %.2f within 2 sigma (%d)\n", label.c_str(), c1,
                c2, total_);
    EXPECT_NEAR(c1, 0.68, 0.10) << label;
    EXPECT_NEAR(c2, 0.95, 0.05) << label;
    // No one parameter may hide behind the others: each within 2 sigma for at least 70 % of
    // its draws (the pooled band above is the target; this floor catches one badly off).
    for (const auto& [name, k] : by_name_)
      EXPECT_GE(k[1], 0.7 * k[2]) << label << ": " << name << " within 2 sigma " << k[1] << " / "
                                  << k[2];
  }

 private:
  int within1_ = 0, within2_ = 0, total_ = 0;
  std::map<std::string, std::array<int, 3>> by_name_;
  std::map<std::string, std::vector<double>> signed_z_;
};

}  // namespace lt::calib::test
