#include "lidartwin/calib/model_comparison.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lt::calib {

namespace {

// Continued fraction of the incomplete beta function (Press et al., Numerical Recipes 3rd ed.,
// sec. 6.4, eq. 6.4.5), evaluated by the modified Lentz method.
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return h;
}

// I_x(a, b), the regularised incomplete beta function.
double RegularisedBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  // The continued fraction converges fast for x < (a + 1) / (a + b + 2); otherwise use the
  // symmetry I_x(a, b) = 1 - I_{1-x}(b, a).
  if (x < (a + 1) / (a + b + 2)) return std::exp(log_front) * BetaContinuedFraction(a, b, x) / a;
  return 1 - std::exp(log_front) * BetaContinuedFraction(b, a, 1 - x) / b;
}

}  // namespace

double FDistributionUpperTail(double f, double d1, double d2) {
  if (!(f > 0)) return 1;
  if (std::isinf(f)) return 0;
  // P(F >= f) = I_{d2 / (d2 + d1 f)}(d2 / 2, d1 / 2).
  return RegularisedBeta(d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
}

namespace {

// N ln(RSS / N) + k p; a perfect fit (RSS 0) would give minus infinity, the floor keeps it
// finite.
double UnknownSigmaCriterion(double n, double rss, int p, double per_parameter) {
  return n * std::log(std::max(rss, 1e-300) / n) + per_parameter * p;
}

}  // namespace

double AkaikeCriterion(const FitResult& fit, double chi2) {
  const double p = static_cast<double>(fit.parameters.size());
  if (chi2 >= 0) return chi2 + 2 * p;
  const double n = static_cast<double>(fit.points_used);
  return UnknownSigmaCriterion(n, fit.residual_rms * fit.residual_rms * n, static_cast<int>(p), 2);
}

NestedComparison CompareNestedFits(const FitResult& simple, const FitResult& full) {
  NestedComparison c;
  c.points = full.points_used;
  const double n = static_cast<double>(c.points);
  c.rss_simple =
      simple.residual_rms * simple.residual_rms * static_cast<double>(simple.points_used);
  c.rss_full = full.residual_rms * full.residual_rms * n;
  c.p_simple = static_cast<int>(simple.parameters.size());
  c.p_full = static_cast<int>(full.parameters.size());
  const double dp = c.p_full - c.p_simple, dof = n - c.p_full;
  if (dp > 0 && dof > 0) {
    c.f_statistic = c.rss_full > 0 ? ((c.rss_simple - c.rss_full) / dp) / (c.rss_full / dof)
                                   : std::numeric_limits<double>::infinity();
    c.p_value = FDistributionUpperTail(c.f_statistic, dp, dof);
  }
  const auto ic = [&](double rss, int p, double per_parameter) {
    return UnknownSigmaCriterion(n, rss, p, per_parameter);
  };
  c.aic_simple = ic(c.rss_simple, c.p_simple, 2);
  c.aic_full = ic(c.rss_full, c.p_full, 2);
  c.bic_simple = ic(c.rss_simple, c.p_simple, std::log(n));
  c.bic_full = ic(c.rss_full, c.p_full, std::log(n));
  return c;
}

}  // namespace lt::calib
