// Which of two nested least-squares models the data support: the extra-sum-of-squares F test
// and the Akaike and Bayesian information criteria for Gaussian residuals of unknown variance
// (Burnham & Anderson 2002, sec. 2.2: AIC = N ln(RSS / N) + 2 p; Schwarz 1978 for BIC =
// N ln(RSS / N) + p ln N). Both assume independent residuals; where the residuals are a
// smooth model misfit rather than noise they measure the lack of fit, not a probability.
#pragma once

#include "lidartwin/calib/fit_result.h"

namespace lt::calib {

struct NestedComparison {
  size_t points = 0;
  double rss_simple = 0, rss_full = 0;  // residual sums of squares
  int p_simple = 0, p_full = 0;         // parameter counts
  double f_statistic = 0;               // ((RSS_s - RSS_f) / (p_f - p_s)) / (RSS_f / (N - p_f))
  double p_value = 1;                   // P(F >= f) under the simple model
  double aic_simple = 0, aic_full = 0;
  double bic_simple = 0, bic_full = 0;
  bool full_preferred() const { return aic_full < aic_simple; }
};

// `simple` nested in `full`, both fitted to the same points (RSS = residual_rms^2 N).
NestedComparison CompareNestedFits(const FitResult& simple, const FitResult& full);

// Akaike's criterion of one fit to N points. With the measurement sigmas known, chi^2 + 2 p
// (chi2 >= 0 given); without, N ln(RSS / N) + 2 p, RSS = residual_rms^2 N (pass chi2 < 0).
double AkaikeCriterion(const FitResult& fit, double chi2);

// Upper tail of the F distribution with d1, d2 degrees of freedom at f >= 0, through the
// regularised incomplete beta function (continued fraction, Lentz's method).
double FDistributionUpperTail(double f, double d1, double d2);

}  // namespace lt::calib
