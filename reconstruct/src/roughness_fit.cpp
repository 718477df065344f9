#include "roughness_fit.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <random>

#include "lidartwin/base/order_statistics.h"
#include "lidartwin/physics/surface_response.h"
#include "lidartwin/physics/units.h"

namespace lt {
namespace {

// A return on a cell seen from two places: its cell, the gain's node below its range and its
// weight on the one above, ln I, cos theta.
struct ViewedReturn {
  size_t cell, node;
  double upper, y, cos_incidence;
  bool for_gain, angled;
};

// The fit at one B / A (OrenNayarGrazingRatio) of ln I - ln S = ln rho_c + ln G(R), weighted:
// each cell's ln rho eliminated (its weighted mean), ln G piecewise linear in ln R between
// nodes from the reduced normal equations (a nodes x nodes system, one pass over the returns),
// from the returns within the gain's incidence only. The whole gain, smooth in ln R, and not a
// correction of the binned one: that one is linear in R between the bins' median ranges,
// where what lay at each range put it, and its kinks between this fit's nodes would leave
// residuals that follow range, and with range the incidence, which the ratio would take up
// (sigma 0.17 rad came out 0.26 on the tests' drive). Its loss, the weighted sum of squares
// over the cells seen at two angles (cell multiplicities `times`, for resamples), residuals
// and ln G at the nodes.
struct RatioFit {
  double loss = 0;
  std::vector<double> residual;
  Eigen::VectorXd ln_gain;
};

// Second differences of ln G, weighted at a millionth of the data's mean weight per node,
// added to the normal matrix's block of the nodes from `first` on (they carry ln G over nodes
// without returns); and the gauge (a constant moves from ln G into every ln rho), pinned by a
// ridge far below both.
void AddGainPenalty(Eigen::MatrixXd& m, Eigen::Index first) {
  const Eigen::Index nn = m.rows() - first;
  const double data = std::max(1.0, m.diagonal().tail(nn).mean());
  for (Eigen::Index j = first + 1; j + 1 < first + nn; ++j) {
    const Eigen::Index idx[3] = {j - 1, j, j + 1};
    const double c[3] = {1, -2, 1};
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q)
        m(idx[p], idx[q]) += 1e-6 * data * c[p] * c[q];
  }
  m.diagonal().tail(nn).array() += 1e-9 * data;
}

double GainAt(const Eigen::VectorXd& k, const ViewedReturn& r) {
  const auto j = static_cast<Eigen::Index>(r.node);
  return (1 - r.upper) * k[j] + r.upper * k[j + 1];
}

RatioFit FitAtRatio(const std::vector<ViewedReturn>& rs, size_t nodes, double ratio,
                    const std::vector<double>& weight, const std::vector<double>* times = nullptr) {
  const auto nn = static_cast<Eigen::Index>(nodes);
  auto times_of = [&](size_t cell) { return times ? (*times)[cell] : 1.0; };
  std::vector<double> y(rs.size());
  for (size_t i = 0; i < rs.size(); ++i)
    y[i] = rs[i].y - std::log(physics::DiffuseShadingOfRatio(ratio, rs[i].cos_incidence));
  // Per cell (returns sorted by cell): sum w x x^T - (sum w x)(sum w x)^T / sum w, and
  // sum w x y - (sum w x) (sum w y) / sum w; x a return's two hat-function weights.
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(nn, nn);
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(nn), sx(nn);
  for (size_t a = 0; a < rs.size();) {
    size_t b = a;
    sx.setZero();
    double sy = 0, sw = 0;
    for (; b < rs.size() && rs[b].cell == rs[a].cell; ++b) {
      if (!rs[b].for_gain) continue;
      const auto j = static_cast<Eigen::Index>(rs[b].node);
      const double w = times_of(rs[b].cell) * weight[b], w1 = rs[b].upper, w0 = 1 - w1;
      m(j, j) += w * w0 * w0;
      m(j + 1, j + 1) += w * w1 * w1;
      m(j, j + 1) += w * w0 * w1;
      m(j + 1, j) += w * w0 * w1;
      rhs[j] += w * w0 * y[b];
      rhs[j + 1] += w * w1 * y[b];
      sx[j] += w * w0;
      sx[j + 1] += w * w1;
      sy += w * y[b];
      sw += w;
    }
    if (sw > 0) {
      m -= sx * sx.transpose() / sw;
      rhs -= sx * (sy / sw);
    }
    a = b;
  }
  AddGainPenalty(m, 0);
  RatioFit out;
  out.ln_gain = m.ldlt().solve(rhs);
  out.residual.assign(rs.size(), 0.0);
  // Each cell's level from all its returns, the gain's and the grazing ones alike.
  for (size_t a = 0; a < rs.size();) {
    size_t b = a;
    double mean = 0, sw = 0;
    for (; b < rs.size() && rs[b].cell == rs[a].cell; ++b) {
      mean += weight[b] * (y[b] - GainAt(out.ln_gain, rs[b]));
      sw += weight[b];
    }
    mean = sw > 0 ? mean / sw : 0.0;
    for (size_t i = a; i < b; ++i) {
      const double e = y[i] - GainAt(out.ln_gain, rs[i]) - mean;
      out.residual[i] = e;
      if (rs[i].angled) out.loss += times_of(rs[i].cell) * weight[i] * e * e;
    }
    a = b;
  }
  return out;
}

// Huber's weights at one ratio (min(1, c / |e|), four rounds of reweighting from 1): a
// recording's cells hold mixed returns at their edges and a second surface's returns, which
// squares would let decide. Held while the ratio is searched, so that the loss is smooth in
// it (reweighted at every ratio it was jagged enough to hold a false minimum).
std::vector<double> HuberWeights(const std::vector<ViewedReturn>& rs, size_t nodes, double ratio,
                                 double huber_c) {
  std::vector<double> w(rs.size(), 1.0);
  for (int round = 0; round < 4; ++round) {
    const RatioFit fit = FitAtRatio(rs, nodes, ratio, w);
    for (size_t i = 0; i < rs.size(); ++i)
      w[i] = std::min(1.0, huber_c / std::max(1e-12, std::fabs(fit.residual[i])));
  }
  return w;
}

// The ratio in [0, max_ratio] of the least loss with these weights: a grid, then golden-section
// search between the best point's neighbours (the grid keeps the search off a second,
// shallower minimum).
double LeastLossRatio(const std::vector<ViewedReturn>& rs, size_t nodes,
                      const std::vector<double>& w, double max_ratio, int steps) {
  auto loss = [&](double ratio) { return FitAtRatio(rs, nodes, ratio, w).loss; };
  const double h = max_ratio / steps;
  int best = 0;
  double best_loss = INFINITY;
  for (int k = 0; k <= steps; ++k) {
    const double f = loss(k * h);
    if (f < best_loss) best_loss = f, best = k;
  }
  double lo = std::max(0, best - 1) * h, hi = std::min(steps, best + 1) * h;
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = loss(x1), f2 = loss(x2);
  while (hi - lo > 1e-5) {
    if (f1 <= f2) {
      hi = x2, x2 = x1, f2 = f1;
      x1 = hi - g * (hi - lo), f1 = loss(x1);
    } else {
      lo = x1, x1 = x2, f1 = f2;
      x2 = lo + g * (hi - lo), f2 = loss(x2);
    }
  }
  const double ratio = 0.5 * (lo + hi);
  return loss(ratio) < best_loss ? ratio : best * h;
}

// The least point of the parabola fitted (least squares) through the losses at xs, held
// within them.
double ParabolaMinimum(const std::vector<double>& xs, const std::vector<double>& fs) {
  Eigen::MatrixXd a(static_cast<Eigen::Index>(xs.size()), 3);
  Eigen::VectorXd f(static_cast<Eigen::Index>(xs.size()));
  for (size_t i = 0; i < xs.size(); ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    a(r, 0) = 1, a(r, 1) = xs[i], a(r, 2) = xs[i] * xs[i];
    f[r] = fs[i];
  }
  const Eigen::Vector3d c = a.colPivHouseholderQr().solve(f);
  const size_t best = static_cast<size_t>(std::min_element(fs.begin(), fs.end()) - fs.begin());
  if (!(c[2] > 0)) return xs[best];
  return std::clamp(-c[1] / (2 * c[2]), xs.front(), xs.back());
}

// The standard error of B / A: the cells resampled with replacement (a surface's returns
// share its R0 and plane, so cells, not returns, are what is independent), B / A again for
// each resample, their standard deviation. Each resample refits the gain at seven ratios about
// the estimate, 0.01 apart, and at 17 across the whole range (the fit's Huber weights held),
// and takes the least, refined by the parabola through it and its neighbours: the gain's answer
// to the resample counts as well as the loss's, and a second minimum elsewhere that a resample
// prefers widens the error as it should.
double BootstrapStandardError(const std::vector<ViewedReturn>& rs, size_t nodes, double ratio,
                              double max_ratio, const std::vector<double>& w, size_t cells,
                              const RecordingFitOptions& o) {
  std::vector<double> xs;
  for (int k = -3; k <= 3; ++k)
    xs.push_back(std::max(0.0, ratio + 0.01 * k));
  for (int k = 0; k <= 16; ++k)
    xs.push_back(max_ratio * k / 16);
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end(), [](double a, double b) { return b - a < 1e-3; }),
           xs.end());
  std::mt19937_64 rng(o.roughness_bootstrap_seed);  // the same resamples on every run
  std::vector<double> times(cells), fs(xs.size()), estimates;
  for (int b = 0; b < o.roughness_bootstrap; ++b) {
    std::fill(times.begin(), times.end(), 0.0);
    for (size_t i = 0; i < cells; ++i)
      times[rng() % cells] += 1;
    for (size_t k = 0; k < xs.size(); ++k)
      fs[k] = FitAtRatio(rs, nodes, xs[k], w, &times).loss;
    // The least sample, refined by the parabola through it and its neighbours.
    const size_t k = static_cast<size_t>(std::min_element(fs.begin(), fs.end()) - fs.begin());
    const size_t first = k == 0 ? 0 : std::min(k - 1, xs.size() - 3);
    estimates.push_back(ParabolaMinimum({xs.begin() + first, xs.begin() + first + 3},
                                        {fs.begin() + first, fs.begin() + first + 3}));
  }
  if (estimates.size() < 2) return NAN;
  const double mean = Mean(estimates);
  double ss = 0;
  for (double e : estimates)
    ss += (e - mean) * (e - mean);
  return std::sqrt(ss / static_cast<double>(estimates.size() - 1));
}

double RobustSd(std::vector<double> e) {
  for (double& v : e)
    v = std::fabs(v);
  return 1.4826 * Median(e);
}

}  // namespace

SurfaceRoughness FitSurfaceRoughness(const std::vector<ViewedCell>& cells,
                                     const RecordingFitOptions& o) {
  SurfaceRoughness out;
  const double log_lo = std::log(o.min_range_m), log_hi = std::log(o.max_range_m);
  // The gain's nodes: the range bins' edges, evenly in ln R.
  const size_t bins = static_cast<size_t>(std::max(1, o.range_bins)), nodes = bins + 1;
  auto place = [&](double range_m) {
    const double t = std::clamp((std::log(range_m) - log_lo) / (log_hi - log_lo), 0.0, 1.0);
    const size_t j = std::min(bins - 1, static_cast<size_t>(t * static_cast<double>(bins)));
    return std::pair{j, t * static_cast<double>(bins) - static_cast<double>(j)};
  };
  const double min_cos = std::cos(o.roughness_max_incidence_deg * physics::kDegToRad);
  const double gain_min_cos = std::cos(o.gain_max_incidence_deg * physics::kDegToRad);
  std::vector<ViewedReturn> rs;
  size_t angled = 0, linked = 0;
  for (const ViewedCell& viewed : cells) {
    std::vector<double> cosine(viewed.seen.size(), NAN), range(viewed.seen.size(), NAN);
    for (size_t j : viewed.plane.inliers) {
      const double c = viewed.CosIncidence(j);
      if (c >= min_cos) {
        cosine[j] = c;
        range[j] = viewed.seen[j].range_m;
      }
    }
    // Seen from two places: the frames' median cosines or ranges differ enough.
    const auto [flattest, steepest] = viewed.FrameMedianSpan(cosine);
    const auto [nearest, farthest] = viewed.FrameMedianSpan(range);
    const bool two_angles = steepest >= o.roughness_min_cos_ratio * flattest;
    if (!two_angles && !(farthest >= o.gain_min_range_ratio * nearest)) continue;
    const size_t cell = linked++;
    angled += two_angles;
    for (size_t j = 0; j < viewed.seen.size(); ++j) {
      if (!std::isfinite(cosine[j])) continue;
      const auto [node, upper] = place(viewed.seen[j].range_m);
      rs.push_back({cell, node, upper, std::log(viewed.seen[j].intensity), cosine[j],
                    cosine[j] >= gain_min_cos, two_angles});
    }
  }
  if (angled < std::max<size_t>(1, o.roughness_min_cells) ||
      !(o.max_range_m > o.min_range_m && o.min_range_m > 0))
    return out;
  out.cells = angled;
  out.returns = rs.size();
  // Huber's threshold: 1.345 robust standard deviations (95 % efficiency for Gaussian errors)
  // of the Lambertian least-squares fit's residuals. The weights from the Lambertian fit, the
  // ratio with them, the weights again at that ratio, and the ratio again.
  const std::vector<double> ones(rs.size(), 1.0);
  out.lambertian_spread = RobustSd(FitAtRatio(rs, nodes, 0, ones).residual);
  const double huber_c = 1.345 * out.lambertian_spread;
  const double max_ratio = physics::OrenNayarGrazingRatio<double>(o.roughness_max_rad);
  const int steps = std::max(2, o.roughness_grid_steps);
  std::vector<double> w = HuberWeights(rs, nodes, 0, huber_c);
  double ratio = LeastLossRatio(rs, nodes, w, max_ratio, steps);
  w = HuberWeights(rs, nodes, ratio, huber_c);
  ratio = LeastLossRatio(rs, nodes, w, max_ratio, steps);
  const RatioFit fit = FitAtRatio(rs, nodes, ratio, w);
  auto sigma_of = [&](double r) {
    return physics::RoughnessOfGrazingRatio(std::clamp(r, 0.0, max_ratio), o.roughness_max_rad);
  };
  out.roughness_rad = sigma_of(ratio);
  out.fitted_spread = RobustSd(fit.residual);
  // sigma's error through the curve from B / A's: half the span of sigma over ratio +- its
  // error (all of it from ratio up where the interval meets 0).
  const double se = BootstrapStandardError(rs, nodes, ratio, max_ratio, w, linked, o);
  // (NaN, not measured, stays NaN; near the search's bound the interval is cut there.)
  const double below = std::max(0.0, ratio - se);
  out.standard_error_rad =
      std::isfinite(se) ? (sigma_of(ratio + se) - sigma_of(below)) / (below > 0 ? 2.0 : 1.0) : NAN;
  return out;
}

}  // namespace lt
