// Coverage of reported uncertainties: how often the truth lies within 1 and 2 standard
// deviations of the fitted values, held to the 68 +- 10 % and 95 +- 5 %.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
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
    const double z = std::abs(p->value - truth) / p->stddev;
    within1_ += z <= 1;
    within2_ += z <= 2;
    ++total_;
  }
  void Expect(const std::string& label) const {
    const double c1 = double(within1_) / total_, c2 = double(within2_) / total_;
    std::printf("[coverage] %s: %.2f within 1 sigma, %.2f within 2 sigma (%d)\n", label.c_str(), c1,
                c2, total_);
    EXPECT_NEAR(c1, 0.68, 0.10) << label;
    EXPECT_NEAR(c2, 0.95, 0.05) << label;
  }

 private:
  int within1_ = 0, within2_ = 0, total_ = 0;
};

}  // namespace lt::calib::test
