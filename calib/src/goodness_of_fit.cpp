#include "lidartwin/calib/goodness_of_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "lidartwin/base/config_check.h"

namespace lt::calib {

namespace {

// P(a, x) by its power series, e^-x x^a / Gamma(a + 1) sum_n x^n / ((a + 1) ... (a + n))
// (Numerical Recipes 3rd ed., eq. 6.2.5); converges fast for x < a + 1.
double LowerGammaSeries(double a, double x) {
  double term = 1 / a, sum = term;
  for (int n = 1; n < 100000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * 1e-16) break;
  }
  return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

// Q(a, x) by Legendre's continued fraction, e^-x x^a / Gamma(a) 1 / (x + 1 - a - 1 (1 - a) /
// (x + 3 - a - 2 (2 - a) / ...)) (ibid. eq. 6.2.7), modified Lentz; for x >= a + 1.
double UpperGammaFraction(double a, double x) {
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < 1e-16) break;
  }
  return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

}  // namespace

double RegularisedUpperGamma(double a, double x) {
  if (!(a > 0) || std::isnan(x)) return std::nan("");
  if (x <= 0) return 1;
  if (std::isinf(x)) return 0;
  return x < a + 1 ? 1 - LowerGammaSeries(a, x) : UpperGammaFraction(a, x);
}

double ChiSquareUpperTail(double chi2, double dof) {
  return RegularisedUpperGamma(dof / 2, chi2 / 2);
}

void SetGoodnessOfFit(FitResult& fit, const std::vector<double>& z, size_t parameters,
                      const std::function<std::string(size_t)>& describe) {
  GoodnessOfFit& g = fit.goodness;
  g = {};
  g.not_judged_because = "fewer points than parameters and one";
  if (z.size() <= parameters) return;  // no degree of freedom left to judge by
  // A residual that is not finite (a point the model cannot reach) makes chi^2 infinite and
  // is the worst point.
  size_t worst = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    if (!std::isfinite(z[i])) {
      g.chi2 = std::numeric_limits<double>::infinity();
      worst = i;
      break;
    }
    g.chi2 += z[i] * z[i];
    if (std::fabs(z[i]) > std::fabs(z[worst])) worst = i;
  }
  g.judged = true;
  g.parameters = parameters;
  g.dof = static_cast<double>(z.size() - parameters);
  g.p_value = ChiSquareUpperTail(g.chi2, g.dof);
  char sigma[32];
  std::snprintf(sigma, sizeof sigma, "%+.1f sigma", z[worst]);
  g.worst = describe(worst) + ", " + sigma;
}

std::string GoodnessText(const GoodnessOfFit& g) {
  if (!g.judged) return "not judged (" + g.not_judged_because + ")";
  char p[32];
  if (g.p_value < 1e-300) {
    std::snprintf(p, sizeof p, "p < 1e-300");
  } else {
    std::snprintf(p, sizeof p, "p = %.2g", g.p_value);
  }
  return "chi^2 = " + NumberText(g.chi2) + " for " + NumberText(g.dof) + " degrees of freedom (" +
         p + "); largest residual: " + g.worst;
}

double BirgeRatio(const GoodnessOfFit& g) {
  if (!g.judged || !(g.dof > 0)) return 1;
  return std::max(1.0, std::sqrt(g.chi2 / g.dof));
}

}  // namespace lt::calib
