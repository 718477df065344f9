// Beam kernel fits (beam_kernel_fit.h). The cost functors evaluate physics/beam_profile.h with
// ceres::Jet; no profile is written here.
#include "lidartwin/calib/beam_kernel_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "least_squares.h"
#include "lidartwin/base/config_check.h"
#include "lidartwin/base/order_statistics.h"
#include "lidartwin/physics/beam_profile.h"
#include "lidartwin/physics/units.h"

namespace lt::calib {

namespace {

constexpr int kSpotState = 5;  // ln peak, h0, v0, ln sigma_h, ln sigma_v
constexpr int kMaxState = 4 * kSpotState;

// ln of the emitter model at (h, v) for a state vector (see EmitterFit::state).
// `super` < 0: Gaussian spots; 0: elliptical super-Gaussian; 1: separable super-Gaussian.
template <typename T>
T LogEmitter(const T* s, uint32_t spots, int super, double h, double v) {
  using std::exp;
  using std::log;
  T sum = T(0);
  for (uint32_t k = 0; k < spots; ++k) {
    const T* p = s + k * kSpotState;
    const T order = super >= 0 ? exp(s[kSpotState]) : T(2);
    sum += super == 1 ? physics::SeparableSuperGaussianSpot(T(h), T(v), p[1], p[2], exp(p[3]),
                                                            exp(p[4]), order, exp(p[0]))
                      : physics::SuperGaussianSpot(T(h), T(v), p[1], p[2], exp(p[3]), exp(p[4]),
                                                   order, exp(p[0]));
  }
  return log(sum + T(1e-300));
}

int Shape(const std::string& model, bool separable) {
  return model == "super_gaussian" ? (separable ? 1 : 0) : -1;
}

struct EmitterResidual {
  double h, v, ln_value, sigma;
  uint32_t spots;
  int super;
  template <typename T>
  bool operator()(T const* const* blocks, T* r) const {
    const T* s = blocks[0];
    r[0] = (LogEmitter(s, spots, super, h, v) - T(ln_value)) / T(sigma);
    return true;
  }
};

// Greedy starting spots: the brightest pixel, its e^-1/2 half-widths along h and v, then the
// brightest pixel outside 3 of those widths of every spot found so far.
std::vector<double> StartingState(const StitchedKernel& k, uint32_t spots, bool super) {
  std::vector<double> s;
  std::vector<std::array<double, 4>> found;  // h0, v0, sh, sv
  for (uint32_t n = 0; n < spots; ++n) {
    const KernelPixel* best = nullptr;
    for (const auto& p : k.pixels) {
      bool near = false;
      for (const auto& f : found) {
        const double a = (p.h_mrad - f[0]) / f[2], b = (p.v_mrad - f[1]) / f[3];
        near |= a * a + b * b < 9;
      }
      if (!near && (!best || p.value > best->value)) best = &p;
    }
    if (!best) break;
    double sh = 1e9, sv = 1e9;
    for (const auto& p : k.pixels) {
      if (p.value >= best->value * std::exp(-0.5)) continue;
      const double dh = std::abs(p.h_mrad - best->h_mrad), dv = std::abs(p.v_mrad - best->v_mrad);
      if (dv < 1e-9 && dh > 0) sh = std::min(sh, dh);
      if (dh < 1e-9 && dv > 0) sv = std::min(sv, dv);
    }
    const double step = k.pixels.size() > 1 ? std::abs(k.pixels[1].h_mrad - k.pixels[0].h_mrad) : 1;
    sh = sh > 1e8 ? 3 * step : sh;
    sv = sv > 1e8 ? 3 * step : sv;
    found.push_back({best->h_mrad, best->v_mrad, sh, sv});
    for (double x : {std::log(best->value), best->h_mrad, best->v_mrad, std::log(sh), std::log(sv)})
      s.push_back(x);
  }
  if (super) s.push_back(std::log(2.0));
  return s;
}

using physics::kFwhmPerSigma;

// One residual per kept pixel, weighed by its camera noise and the speckle in quadrature,
// under a Huber loss (scale 3 sigma) against what the 5-sigma cut leaves.
void AddEmitterResiduals(ceres::Problem& problem, const StitchedKernel& data,
                         const std::vector<bool>& keep, double speckle, uint32_t spots, int super,
                         std::vector<double>& state) {
  for (size_t i = 0; i < data.pixels.size(); ++i) {
    if (!keep[i]) continue;
    const KernelPixel& p = data.pixels[i];
    const double sigma = std::sqrt(p.sigma_ln * p.sigma_ln + speckle * speckle);
    auto* cost = new ceres::DynamicAutoDiffCostFunction<EmitterResidual, kMaxState + 1>(
        new EmitterResidual{p.h_mrad, p.v_mrad, std::log(p.value), sigma, spots, super});
    cost->AddParameterBlock(static_cast<int>(state.size()));
    cost->SetNumResiduals(1);
    problem.AddResidualBlock(cost, new ceres::HuberLoss(3.0), state.data());
  }
}

// Ceres logs the overflowing residuals of a start far from the data's minimum through glog:
// silenced, a failed solve is only reported in `result`.
bool SolveEmitter(const StitchedKernel& data, const std::vector<bool>& keep, double speckle,
                  uint32_t spots, int super, std::vector<double>& state, FitResult& result) {
  ceres::Problem problem;
  AddEmitterResiduals(problem, data, keep, speckle, spots, super, state);
  const int log_level = FLAGS_minloglevel;
  FLAGS_minloglevel = google::GLOG_FATAL;
  const bool ok = SolveFit(problem, result, 500);
  FLAGS_minloglevel = log_level;
  return ok;
}

// Whether the image determines every parameter of `state` (a covariance of full rank): a
// minimum where a spot has faded away or two coincide is a fit with fewer spots, not a
// decomposition into these.
bool Determined(const StitchedKernel& data, const std::vector<bool>& keep, double speckle,
                uint32_t spots, int super, std::vector<double>& state) {
  ceres::Problem problem;
  AddEmitterResiduals(problem, data, keep, speckle, spots, super, state);
  std::vector<double> cov(state.size() * state.size());
  return BlockCovariance(problem, state.data(), cov.data());
}

// The weighted sum of squared log residuals over the kept pixels (no Huber loss): the chi^2 by
// which two decompositions of one image are compared.
double EmitterChi2(const StitchedKernel& data, const std::vector<bool>& keep, double speckle,
                   uint32_t spots, int super, const std::vector<double>& state) {
  double chi2 = 0;
  for (size_t i = 0; i < data.pixels.size(); ++i) {
    if (!keep[i]) continue;
    const KernelPixel& p = data.pixels[i];
    const double r = LogEmitter(state.data(), spots, super, p.h_mrad, p.v_mrad) - std::log(p.value);
    chi2 += r * r / (p.sigma_ln * p.sigma_ln + speckle * speckle);
  }
  return chi2;
}

// The weighted centroid of points in (h, v), the standard deviations along the principal axes
// of their covariance and the unit vector of the major axis (pointing up, or right when level),
// from the 2 x 2 eigenproblem in closed form.
struct WeightedPoint {
  double h, v, w;
};
struct PrincipalAxes {
  double weight = 0, h = 0, v = 0, major = 0, minor = 0, uh = 1, uv = 0;
};
PrincipalAxes PrincipalAxesOf(const std::vector<WeightedPoint>& points) {
  PrincipalAxes a;
  for (const auto& p : points) {
    a.weight += p.w;
    a.h += p.w * p.h;
    a.v += p.w * p.v;
  }
  if (!(a.weight > 0)) return a;
  a.h /= a.weight;
  a.v /= a.weight;
  double chh = 0, cvv = 0, chv = 0;
  for (const auto& p : points) {
    chh += p.w * (p.h - a.h) * (p.h - a.h) / a.weight;
    cvv += p.w * (p.v - a.v) * (p.v - a.v) / a.weight;
    chv += p.w * (p.h - a.h) * (p.v - a.v) / a.weight;
  }
  const double mean = 0.5 * (chh + cvv), diff = 0.5 * (chh - cvv);
  const double root = std::sqrt(diff * diff + chv * chv);
  a.major = std::sqrt(std::max(mean + root, 0.0));
  a.minor = std::sqrt(std::max(mean - root, 0.0));
  const double angle = 0.5 * std::atan2(2 * chv, chh - cvv);
  a.uh = std::cos(angle);
  a.uv = std::sin(angle);
  if (a.uv < 0 || (a.uv == 0 && a.uh < 0)) {
    a.uh = -a.uh;
    a.uv = -a.uv;
  }
  return a;
}

// Starts from the image alone, which a greedy solution that lost a spot cannot mislead: the
// spots evenly spaced along the image's principal axis (its intensity-weighted covariance)
// about its centroid, three spacings, each spot as wide as the image's minor axis and of equal
// power.
std::vector<std::vector<double>> MomentStarts(const StitchedKernel& k, uint32_t spots) {
  std::vector<WeightedPoint> points;
  double step = 1e300;
  for (const auto& p : k.pixels) {
    points.push_back({p.h_mrad, p.v_mrad, p.value});
    const double d = std::abs(p.h_mrad - k.pixels[0].h_mrad);
    if (d > 1e-12) step = std::min(step, d);
  }
  const PrincipalAxes axes = PrincipalAxesOf(points);
  if (!(axes.weight > 0)) return {};
  const double major = std::max(axes.major, 1e-6), minor = std::max(axes.minor, 1e-6);
  // Each spot's share of the flux (value x pixel area) as a Gaussian's peak.
  const double flux = axes.weight * (step < 1e300 ? step * step : 1.0);
  const double ln_peak = std::log(flux / spots / (2 * physics::kPi * minor * minor));
  std::vector<std::vector<double>> out;
  for (double spread : {1.0, 1.4, 1.8}) {
    const double gap = spread * 2 * major / spots;
    std::vector<double> x;
    for (uint32_t n = 0; n < spots; ++n) {
      const double t = (n - 0.5 * (spots - 1)) * gap;
      for (double y :
           {ln_peak, axes.h + t * axes.uh, axes.v + t * axes.uv, std::log(minor), std::log(minor)})
        x.push_back(y);
    }
    out.push_back(x);
  }
  return out;
}

// Starts besides the greedy one for blended Gaussian spots (issue 40, item 3: from the greedy
// start alone, 15 of 43 Cube 1 labs ended in one wrong decomposition, a central spot 4.6 mrad
// wide carrying 0.45 of the power). From the greedy solution's places: every spot as wide as
// their mean and of equal power; each spot in turn wider than the others; and four draws
// about the solution (a fixed seed: the fit is deterministic); and MomentStarts.
std::vector<std::vector<double>> AlternativeStarts(const StitchedKernel& k,
                                                   const std::vector<double>& s, uint32_t spots) {
  double lh = 0, lv = 0, total = 0;
  for (uint32_t k = 0; k < spots; ++k) {
    const double* p = &s[k * kSpotState];
    lh += p[3] / spots;
    lv += p[4] / spots;
    total += std::exp(p[0] + p[3] + p[4]);
  }
  // A spot of power `share` x total with ln widths (a, b): its ln peak.
  auto with = [&](std::vector<double> x, uint32_t k, double a, double b, double share) {
    x[k * kSpotState + 3] = a;
    x[k * kSpotState + 4] = b;
    x[k * kSpotState] = std::log(share * total) - a - b;
    return x;
  };
  std::vector<std::vector<double>> out;
  std::vector<double> equal = s;
  for (uint32_t k = 0; k < spots; ++k)
    equal = with(equal, k, lh, lv, 1.0 / spots);
  out.push_back(equal);
  for (uint32_t wide = 0; wide < spots; ++wide) {
    std::vector<double> x = s;
    for (uint32_t k = 0; k < spots; ++k) {
      const double d = k == wide ? std::log(1.6) : -std::log(1.3);
      x = with(x, k, lh + d, lv + d, 1.0 / spots);
    }
    out.push_back(x);
  }
  std::mt19937_64 rng(20261130);
  std::normal_distribution<double> z;
  for (int draw = 0; draw < 4; ++draw) {
    std::vector<double> x = s;
    for (uint32_t k = 0; k < spots; ++k) {
      double* p = &x[k * kSpotState];
      p[0] += 0.4 * z(rng);
      p[1] += 0.4 * std::exp(lh) * z(rng);
      p[2] += 0.4 * std::exp(lv) * z(rng);
      p[3] += 0.3 * z(rng);
      p[4] += 0.3 * z(rng);
    }
    out.push_back(x);
  }
  for (auto& x : MomentStarts(k, spots))
    out.push_back(std::move(x));
  return out;
}

// Each pixel's camera noise from the counts the emitter so far expects of it, not from its own
// (or its neighbours') reading: a weight that follows the pixel's own noise pulls the fit
// towards readings that came out high. The neighbours' median, which picked the exposure, is
// also off by the curvature where a super-Gaussian's edge falls steeply (its speckle came out
// 0.07-0.08 for a true 0.05).
void NoiseFromTheEmitter(StitchedKernel& data, const std::vector<double>& state, uint32_t spots,
                         int super, double read_noise_counts) {
  for (KernelPixel& p : data.pixels) {
    const double n = std::max(
        read_noise_counts,
        std::exp(LogEmitter(state.data(), spots, super, p.h_mrad, p.v_mrad)) * p.exposure_us);
    p.sigma_ln = std::sqrt(read_noise_counts * read_noise_counts + n) / n;
    p.value = p.measured * std::exp(0.5 * p.sigma_ln * p.sigma_ln);
  }
}

}  // namespace

StitchedKernel StitchExposures(const BeamKernelImages& images) {
  StitchedKernel out;
  const size_t nh = images.nh(), nv = images.nv(), pixels = nh * nv;
  std::vector<size_t> order(images.exposure_us.size());
  for (size_t e = 0; e < order.size(); ++e)
    order[e] = e;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return images.exposure_us[a] > images.exposure_us[b]; });
  const double floor = 5 * images.read_noise_counts;
  const double ceiling = 0.95 * images.saturation_counts;
  const double r = images.read_noise_counts;
  auto net = [&](size_t e, size_t i, size_t j) {
    return static_cast<double>(images.counts[e * pixels + j * nh + i]) - images.dark_counts;
  };
  std::vector<double> around;
  for (size_t j = 0; j < nv; ++j) {
    for (size_t i = 0; i < nh; ++i) {
      bool used = false;
      for (size_t e : order) {  // longest exposure first: the best signal to noise
        if (net(e, i, j) + images.dark_counts >= ceiling) continue;
        // The level that picks the exposure (and weighs the pixel until the first fit,
        // NoiseFromTheEmitter) is its neighbours' median, not its own count: a faint pixel kept
        // because its own noise lifted it over the floor, and weighed more for it, biases the
        // tails up (the Cube 1's blended outer spots came back wider by 0.6 of their sigma);
        // the median of eight leaves a hot neighbour out.
        around.clear();
        for (size_t jj = j > 0 ? j - 1 : 0; jj <= std::min(j + 1, nv - 1); ++jj)
          for (size_t ii = i > 0 ? i - 1 : 0; ii <= std::min(i + 1, nh - 1); ++ii)
            if (ii != i || jj != j) around.push_back(net(e, ii, jj));
        const double level = Median(around);
        if (level < floor) break;  // shorter exposures are dimmer still
        const double n = net(e, i, j);
        if (n <= 0) break;  // no logarithm: left out (about 1 in 10^6 at the floor)
        // ln of a noisy count reads low by half its relative variance (second-order Taylor):
        // added back so that the faint tails are not pulled down either.
        const double sigma_ln = std::sqrt(r * r + level) / level;
        const double measured = n / images.exposure_us[e];
        out.pixels.push_back({images.h_mrad[i], images.v_mrad[j],
                              measured * std::exp(0.5 * sigma_ln * sigma_ln), sigma_ln, measured,
                              images.exposure_us[e]});
        used = true;
        break;
      }
      out.rejected += !used;
    }
  }
  return out;
}

std::vector<uint32_t> SpotsAlongTheirLine(const physics::BeamFootprint& f) {
  std::vector<WeightedPoint> points;
  for (uint32_t k = 0; k < f.spot_count; ++k)
    points.push_back({f.spots[k].h_offset_rad, f.spots[k].v_offset_rad, 1.0});
  const PrincipalAxes axes = PrincipalAxesOf(points);
  std::vector<uint32_t> order(f.spot_count);
  for (uint32_t k = 0; k < f.spot_count; ++k)
    order[k] = k;
  auto along = [&](uint32_t k) { return points[k].h * axes.uh + points[k].v * axes.uv; };
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return along(a) < along(b); });
  return order;
}

double EmitterFit::Evaluate(double h_mrad, double v_mrad) const {
  return std::exp(LogEmitter(state.data(), spots, Shape(model, separable), h_mrad, v_mrad));
}

Expected<EmitterFit> FitEmitter(const BeamKernelImages& images) {
  EmitterFit fit;
  fit.model = images.model;
  fit.spots = images.spots;
  fit.separable = images.separable;
  const int super = Shape(images.model, images.separable);
  fit.data = StitchExposures(images);
  if (super >= 0 && fit.spots != 1) {
    return Error{images.file + ": a super-Gaussian beam is fitted as one spot, not " +
                 std::to_string(fit.spots)};
  }
  const size_t n_state = fit.spots * kSpotState + (super >= 0 ? 1 : 0);
  if (fit.data.pixels.size() < 4 * n_state) {
    return Error{images.file + ": beam kernel: " + std::to_string(fit.data.pixels.size()) +
                 " usable pixels for " + std::to_string(n_state) +
                 " parameters (too few: need 4 per parameter)"};
  }
  // Spots are added one at a time: each starts at the largest excess of the data over the
  // fit of the spots before it (blended spots, as the Cube 1's three 0.17 deg apart, are not
  // separate peaks), and all are refitted together.
  FitResult& result = fit.result;
  result.model = std::string("beam kernel, ") +
                 (super == 1   ? "separable super-Gaussian"
                  : super == 0 ? "super-Gaussian"
                               : "Gaussian") +
                 (fit.spots > 1 ? ", " + std::to_string(fit.spots) + " spots" : "");
  std::vector<bool> keep(fit.data.pixels.size(), true);
  fit.state = StartingState(fit.data, 1, super >= 0);
  bool greedy_solved = true;
  for (uint32_t k = 1; k <= fit.spots; ++k) {
    if (k > 1) {
      const KernelPixel* best = nullptr;
      double excess = 0;
      for (const auto& p : fit.data.pixels) {
        const double e =
            p.value - std::exp(LogEmitter(fit.state.data(), k - 1, super, p.h_mrad, p.v_mrad));
        if (e > excess) {
          excess = e;
          best = &p;
        }
      }
      if (!best) {
        return Error{images.file + ": beam kernel: the image shows no room for spot " +
                     std::to_string(k) + " of " + std::to_string(fit.spots)};
      }
      const double* first = fit.state.data();
      for (double x : {std::log(excess), best->h_mrad, best->v_mrad, first[3], first[4]})
        fit.state.push_back(x);
    }
    if (!SolveEmitter(fit.data, keep, 0.0, k, super, fit.state, result)) {
      // Blended spots start over from the image's moments below.
      if (super < 0 && fit.spots > 1) {
        greedy_solved = false;
        break;
      }
      return Error{images.file + ": beam kernel fit did not converge (" + result.solver_report +
                   ")"};
    }
  }
  // Speckle: the extra log-variance s^2 that brings chi^2 per degree of freedom to 1 over the
  // pixels within 5 sigma (hot pixels and other outliers out), found by bisection.
  double speckle = 0;
  auto refine = [&](std::vector<double>& state) -> Status {
    std::vector<double> r(fit.data.pixels.size());
    for (int round = 0; round < 3; ++round) {
      NoiseFromTheEmitter(fit.data, state, fit.spots, super, images.read_noise_counts);
      for (size_t i = 0; i < r.size(); ++i) {
        const KernelPixel& p = fit.data.pixels[i];
        r[i] = LogEmitter(state.data(), fit.spots, super, p.h_mrad, p.v_mrad) - std::log(p.value);
      }
      if (round == 0) {  // a first, robust guess: 1.4826 x the median absolute residual
        std::vector<double> a(r.size());
        for (size_t i = 0; i < r.size(); ++i)
          a[i] = std::abs(r[i]);
        speckle = 1.4826 * Median(a);
      }
      size_t kept = 0;
      for (size_t i = 0; i < r.size(); ++i) {
        const double s2 =
            fit.data.pixels[i].sigma_ln * fit.data.pixels[i].sigma_ln + speckle * speckle;
        keep[i] = r[i] * r[i] < 25 * s2;
        kept += keep[i];
      }
      auto chi2 = [&](double s2) {
        double c = 0;
        for (size_t i = 0; i < r.size(); ++i)
          if (keep[i])
            c += r[i] * r[i] / (fit.data.pixels[i].sigma_ln * fit.data.pixels[i].sigma_ln + s2);
        return c;
      };
      const double dof = static_cast<double>(kept) - static_cast<double>(n_state);
      double lo = 0, hi = 1;
      if (chi2(0) <= dof) {
        speckle = 0;
      } else {
        for (int it = 0; it < 100; ++it) {
          const double mid = 0.5 * (lo + hi);
          (chi2(mid) > dof ? lo : hi) = mid;
        }
        speckle = std::sqrt(0.5 * (lo + hi));
      }
      if (!SolveEmitter(fit.data, keep, speckle, fit.spots, super, state, result)) {
        return Error{images.file + ": beam kernel fit did not converge (" + result.solver_report +
                     ")"};
      }
    }
    return {};
  };
  if (greedy_solved) {
    if (Status s = refine(fit.state); !s.ok()) return s.error();
  }
  // Blended spots have more than one local minimum: the least chi^2 of several starts, at the
  // weights (speckle, outliers) of the solution so far; when another start wins, it is refined
  // and the minima compared again at its weights (a greedy solution that lost a spot estimates
  // a speckle that hides the spots). Every other minimum is kept for the ambiguity check below.
  std::vector<std::vector<double>> minima;
  if (super < 0 && fit.spots > 1) {
    std::vector<std::vector<double>> candidates =
        greedy_solved ? AlternativeStarts(fit.data, fit.state, fit.spots)
                      : MomentStarts(fit.data, fit.spots);
    if (!greedy_solved && !candidates.empty()) fit.state = candidates[0];
    for (int round = 0; round < 3; ++round) {
      // A solution the image does not determine (or none yet) gives way to any start that is.
      double best = (round > 0 || greedy_solved) &&
                            Determined(fit.data, keep, speckle, fit.spots, super, fit.state)
                        ? EmitterChi2(fit.data, keep, speckle, fit.spots, super, fit.state)
                        : std::numeric_limits<double>::infinity();
      bool moved = false;
      minima.clear();
      for (std::vector<double>& start : candidates) {
        FitResult r;
        if (!SolveEmitter(fit.data, keep, speckle, fit.spots, super, start, r)) continue;
        const double chi2 = EmitterChi2(fit.data, keep, speckle, fit.spots, super, start);
        if (chi2 < best * (1 - 1e-6) &&  // best may be infinite
            !Determined(fit.data, keep, speckle, fit.spots, super, start)) {
          continue;
        }
        if (chi2 < best * (1 - 1e-6)) {
          if (std::isfinite(best)) minima.push_back(fit.state);
          fit.state = start;
          best = chi2;
          moved = true;
        } else {
          minima.push_back(start);
        }
      }
      if (!moved) {
        if (!greedy_solved && round == 0) {
          return Error{images.file + ": beam kernel fit did not converge from any start (" +
                       result.solver_report + ")"};
        }
        break;
      }
      if (Status s = refine(fit.state); !s.ok()) return s.error();
      candidates = minima;
    }
  }
  {
    ceres::Problem problem;
    AddEmitterResiduals(problem, fit.data, keep, speckle, fit.spots, super, fit.state);
    std::vector<double> cov(n_state * n_state);
    if (!BlockCovariance(problem, fit.state.data(), cov.data())) {
      return Error{images.file +
                   ": beam kernel fit is ill-conditioned (rank-deficient "
                   "covariance): the image cannot tell the spots apart"};
    }
    fit.state_covariance = cov;
  }
  // The pixels' scatter beyond the camera's (the speckle) is estimated so that chi^2 per degree
  // of freedom is 1: there is no chi^2 left to judge the fit by.
  result.goodness.not_judged_because =
      "the speckle is estimated from the residuals, so chi^2 / dof is 1 by construction";
  fit.speckle_sigma_ln = speckle;
  size_t used = 0;
  double rss = 0;
  for (size_t i = 0; i < fit.data.pixels.size(); ++i) {
    if (!keep[i]) continue;
    const KernelPixel& p = fit.data.pixels[i];
    const double r =
        LogEmitter(fit.state.data(), fit.spots, super, p.h_mrad, p.v_mrad) - std::log(p.value);
    rss += r * r;
    ++used;
  }
  result.points_used = used;
  result.points_rejected = fit.data.rejected + (fit.data.pixels.size() - used);
  result.residual_rms = std::sqrt(rss / static_cast<double>(used));  // in ln units
  // Reported parameters and their covariance from the state's.
  std::vector<std::string> names;
  auto reported = [&](const std::vector<double>& s) {
    std::vector<double> out;
    if (super >= 0) {
      out = {s[1], s[2], std::exp(s[3]), std::exp(s[4]), std::exp(s[5])};
      return out;
    }
    double total = 0;
    for (uint32_t k = 0; k < fit.spots; ++k)
      total += std::exp(s[k * kSpotState] + s[k * kSpotState + 3] + s[k * kSpotState + 4]);
    for (uint32_t k = 0; k < fit.spots; ++k) {
      const double* p = &s[k * kSpotState];
      out.insert(out.end(), {p[1], p[2], kFwhmPerSigma * std::exp(p[3]),
                             kFwhmPerSigma * std::exp(p[4]), std::exp(p[0] + p[3] + p[4]) / total});
    }
    return out;
  };
  if (super >= 0) {
    names = {"h_offset_mrad", "v_offset_mrad", "sigma_h_mrad", "sigma_v_mrad", "order"};
  } else {
    for (uint32_t k = 1; k <= fit.spots; ++k)
      for (const char* n :
           {"h_offset_mrad", "v_offset_mrad", "fwhm_h_mrad", "fwhm_v_mrad", "power"})
        names.push_back("spot" + std::to_string(k) + "." + n);
  }
  const std::vector<double> values = reported(fit.state);
  SetParameters(result, names, values,
                PropagateCovariance(reported, fit.state, fit.state_covariance, values.size()));
  // Ambiguity: another minimum within Delta chi^2 < 9 of the best (what one parameter 3 sigma
  // off costs) whose spots, matched in the order that suits them best, differ from the best's
  // by more than 3 sigma in some parameter: the image does not tell the two apart, and either
  // written with its small uncertainties would be confidently wrong.
  const double best_chi2 = EmitterChi2(fit.data, keep, speckle, fit.spots, super, fit.state);
  for (std::vector<double>& m : minima) {
    if (EmitterChi2(fit.data, keep, speckle, fit.spots, super, m) - best_chi2 > 100) continue;
    FitResult r;
    if (!SolveEmitter(fit.data, keep, speckle, fit.spots, super, m, r)) continue;
    // A minimum with a spot faded or two coinciding is a fit with fewer spots, not another
    // decomposition into these.
    if (!Determined(fit.data, keep, speckle, fit.spots, super, m)) continue;
    const double delta = EmitterChi2(fit.data, keep, speckle, fit.spots, super, m) - best_chi2;
    if (delta >= 9) continue;
    const std::vector<double> other = reported(m);
    std::vector<uint32_t> order(fit.spots);
    for (uint32_t k = 0; k < fit.spots; ++k)
      order[k] = k;
    double closest = 1e300;  // over the orders, the largest |difference| / sigma
    do {
      double worst = 0;
      for (uint32_t k = 0; k < fit.spots; ++k)
        for (int i = 0; i < kSpotState; ++i) {
          const FitParameter& p = result.parameters[k * kSpotState + i];
          const double d = std::abs(other[order[k] * kSpotState + i] - p.value);
          worst = std::max(worst, p.stddev > 0 ? d / p.stddev : (d > 0 ? 1e300 : 0));
        }
      closest = std::min(closest, worst);
    } while (std::next_permutation(order.begin(), order.end()));
    if (closest <= 3) continue;  // the same decomposition
    auto describe = [&](const std::vector<double>& v) {
      std::string d;
      for (uint32_t k = 0; k < fit.spots; ++k) {
        const double* p = &v[k * kSpotState];
        d += std::string(k ? "; " : "") + "spot at (" + NumberText(p[0]) + ", " + NumberText(p[1]) +
             ") mrad, " + NumberText(p[2]) + " x " + NumberText(p[3]) + " mrad FWHM, power " +
             NumberText(p[4]);
      }
      return d;
    };
    return Error{images.file + ": beam kernel: two decompositions into " +
                 std::to_string(fit.spots) + " spots fit the image alike (chi^2 " +
                 NumberText(best_chi2) + " and " + NumberText(best_chi2 + delta) +
                 "): " + describe(values) + " | " + describe(other) +
                 "; image the beam with finer angular steps or more exposures, or fit fewer "
                 "spots"};
  }
  return fit;
}

namespace {

struct CollectorResidual {
  double a, value;
  bool super;
  template <typename T>
  bool operator()(T const* const* blocks, T* r) const {
    using std::exp;
    const T* s = blocks[0];
    const T order = super ? exp(s[3]) : T(2);
    r[0] = physics::SuperGaussianSpot(T(a), T(0), s[1], T(0), exp(s[2]), T(1), order, exp(s[0])) -
           T(value);
    return true;
  }
};

}  // namespace

double CollectorFit::Evaluate(double a) const {
  const bool super = model == "super_gaussian";
  return physics::SuperGaussianSpot(a, 0.0, state[1], 0.0, std::exp(state[2]), 1.0,
                                    super ? std::exp(state[3]) : 2.0, std::exp(state[0]));
}

Expected<CollectorFit> FitCollector(const CollectorSlice& slice) {
  const std::string& model = slice.model;
  CollectorFit fit;
  fit.model = model;
  fit.horizontal = slice.horizontal;
  fit.angle_mrad = slice.angle_mrad;
  fit.sensitivity = slice.sensitivity;
  const bool super = model == "super_gaussian";
  const size_t n_state = super ? 4 : 3;
  const size_t n = slice.angle_mrad.size();
  if (n < 3 * n_state) {
    return Error{slice.file + ": collector slice: " + std::to_string(n) + " points for " +
                 std::to_string(n_state) + " parameters (too few: need 3 per parameter)"};
  }
  // Start: the peak, and the half-width where the sensitivity falls below e^-1/2 of it.
  size_t peak = 0;
  for (size_t i = 1; i < n; ++i)
    if (slice.sensitivity[i] > slice.sensitivity[peak]) peak = i;
  double width = std::abs(slice.angle_mrad[1] - slice.angle_mrad[0]) * 2;
  for (size_t i = peak; i < n; ++i) {
    if (slice.sensitivity[i] < slice.sensitivity[peak] * std::exp(-0.5)) {
      width = std::max(width, slice.angle_mrad[i] - slice.angle_mrad[peak]);
      break;
    }
  }
  fit.state = {std::log(slice.sensitivity[peak]), slice.angle_mrad[peak], std::log(width)};
  if (super) fit.state.push_back(std::log(2.0));
  ceres::Problem problem;
  for (size_t i = 0; i < n; ++i) {
    auto* cost = new ceres::DynamicAutoDiffCostFunction<CollectorResidual, 4>(
        new CollectorResidual{slice.angle_mrad[i], slice.sensitivity[i], super});
    cost->AddParameterBlock(static_cast<int>(n_state));
    cost->SetNumResiduals(1);
    problem.AddResidualBlock(cost, nullptr, fit.state.data());
  }
  FitResult& result = fit.result;
  result.model = std::string("collector sensitivity, ") +
                 (slice.horizontal ? "horizontal" : "vertical") +
                 (super ? ", super-Gaussian" : ", Gaussian");
  if (!SolveFit(problem, result)) {
    return Error{slice.file + ": collector fit did not converge (" + result.solver_report + ")"};
  }
  std::vector<double> cov(n_state * n_state);
  if (!BlockCovariance(problem, fit.state.data(), cov.data())) {
    return Error{slice.file + ": collector fit is ill-conditioned (rank-deficient covariance)"};
  }
  double rss = 0;
  for (size_t i = 0; i < n; ++i) {
    const double r = fit.Evaluate(slice.angle_mrad[i]) - slice.sensitivity[i];
    rss += r * r;
  }
  const double s2 = rss / static_cast<double>(n - n_state);  // unknown noise: estimated
  for (double& c : cov)
    c *= s2;
  fit.state_covariance = cov;
  result.points_used = n;
  result.residual_rms = std::sqrt(rss / static_cast<double>(n));
  auto reported = [&](const std::vector<double>& s) {
    if (super) return std::vector<double>{s[1], std::exp(s[2]), std::exp(s[3])};
    return std::vector<double>{s[1], kFwhmPerSigma * std::exp(s[2])};
  };
  const std::vector<std::string> names =
      super ? std::vector<std::string>{"offset_mrad", "sigma_mrad", "order"}
            : std::vector<std::string>{"offset_mrad", "fwhm_mrad"};
  const std::vector<double> values = reported(fit.state);
  SetParameters(result, names, values,
                PropagateCovariance(reported, fit.state, cov, values.size()));
  return fit;
}

namespace {

// eta x kappa on a 65 x 65 grid centred on the emitter's first spot, out to where a spot of
// order p falls to 1e-6 of its peak (q^(p/2) = 2 ln 1e6, along each axis), peak 1.
EffectiveKernel TabulateKernel(const EmitterFit& emitter, const CollectorFit& h,
                               const CollectorFit& v) {
  EffectiveKernel out;
  out.tabulated = true;
  const double* s = emitter.state.data();
  const double order = emitter.model == "super_gaussian" ? std::exp(s[kSpotState]) : 2.0;
  const double reach = std::pow(2 * std::log(1e6), 1 / order);
  double hmin = 1e300, hmax = -1e300, vmin = 1e300, vmax = -1e300;
  for (uint32_t k = 0; k < emitter.spots; ++k) {
    const double* p = s + k * kSpotState;
    hmin = std::min(hmin, p[1] - reach * std::exp(p[3]));
    hmax = std::max(hmax, p[1] + reach * std::exp(p[3]));
    vmin = std::min(vmin, p[2] - reach * std::exp(p[4]));
    vmax = std::max(vmax, p[2] + reach * std::exp(p[4]));
  }
  const int n = 65;
  KernelTable& t = out.table;
  for (int i = 0; i < n; ++i) {
    t.h_mrad.push_back(hmin + (hmax - hmin) * i / (n - 1));
    t.v_mrad.push_back(vmin + (vmax - vmin) * i / (n - 1));
  }
  double peak = 0;
  for (double vv : t.v_mrad)
    for (double hh : t.h_mrad) {
      t.value.push_back(emitter.Evaluate(hh, vv) * std::max(0.0, h.Evaluate(hh)) *
                        std::max(0.0, v.Evaluate(vv)));
      peak = std::max(peak, t.value.back());
    }
  for (double& x : t.value)
    x /= peak;
  out.result.model = "effective beam kernel (emitter x collector, seed 004 sec. III-C), tabulated";
  out.result.converged = emitter.result.converged && h.result.converged && v.result.converged;
  out.result.points_used = emitter.result.points_used + h.result.points_used + v.result.points_used;
  return out;
}

}  // namespace

Expected<EffectiveKernel> CombineKernel(const EmitterFit& emitter, const CollectorFit& h,
                                        const CollectorFit& v) {
  if (emitter.model != "gaussian" || h.model != "gaussian" || v.model != "gaussian") {
    return TabulateKernel(emitter, h, v);
  }
  const uint32_t spots = emitter.spots;
  // Joint state: emitter state, then h's, then v's; block-diagonal covariance.
  std::vector<double> theta = emitter.state;
  theta.insert(theta.end(), h.state.begin(), h.state.end());
  theta.insert(theta.end(), v.state.begin(), v.state.end());
  const size_t ne = emitter.state.size(), nh = h.state.size(), nv = v.state.size();
  const size_t n = theta.size();
  std::vector<double> cov(n * n, 0.0);
  auto put = [&](const std::vector<double>& c, size_t off, size_t m) {
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < m; ++j)
        cov[(off + i) * n + off + j] = c[i * m + j];
  };
  put(emitter.state_covariance, 0, ne);
  put(h.state_covariance, ne, nh);
  put(v.state_covariance, ne + nh, nv);
  auto combine = [&](const std::vector<double>& s) {
    const double ch = s[ne + 1], sch = std::exp(s[ne + 2]);
    const double cv = s[ne + nh + 1], scv = std::exp(s[ne + nh + 2]);
    std::vector<double> out;
    double total = 0;
    for (uint32_t k = 0; k < spots; ++k) {
      const double* p = &s[k * kSpotState];
      double mh = 0, sh = 0, mv = 0, sv = 0;
      const double share = physics::GaussianTimesSlice(p[1], std::exp(p[3]), ch, sch, &mh, &sh) *
                           physics::GaussianTimesSlice(p[2], std::exp(p[4]), cv, scv, &mv, &sv);
      const double power = std::exp(p[0] + p[3] + p[4]) * share;
      out.insert(out.end(), {mh, mv, kFwhmPerSigma * sh, kFwhmPerSigma * sv, power});
      total += power;
    }
    for (uint32_t k = 0; k < spots; ++k)
      out[k * 5 + 4] /= total;
    return out;
  };
  EffectiveKernel out;
  const std::vector<double> values = combine(theta);
  std::vector<std::string> names;
  for (uint32_t k = 1; k <= spots; ++k)
    for (const char* nm : {"h_offset_mrad", "v_offset_mrad", "fwhm_h_mrad", "fwhm_v_mrad", "power"})
      names.push_back("spot" + std::to_string(k) + "." + nm);
  out.result.model = "effective beam kernel (emitter x collector, seed 004 sec. III-C)";
  out.result.converged = emitter.result.converged && h.result.converged && v.result.converged;
  out.result.points_used = emitter.result.points_used + h.result.points_used + v.result.points_used;
  SetParameters(out.result, names, values, PropagateCovariance(combine, theta, cov, values.size()));
  out.footprint.kind = physics::FootprintKind::kGaussian;
  out.footprint.spot_count = spots;
  for (uint32_t k = 0; k < spots; ++k) {
    const double* o = &values[k * 5];
    out.footprint.spots[k] = {o[0] * 1e-3, o[1] * 1e-3, o[2] / kFwhmPerSigma * 1e-3,
                              o[3] / kFwhmPerSigma * 1e-3, o[4]};
  }
  return out;
}

}  // namespace lt::calib
