// Coverage of reported uncertainties: how often the truth lies within 1 and 2 standard
// deviations of the fitted values, held to the 68 +- 10 % and 95 +- 5 %.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

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
};

}  // namespace lt::calib::test
