#include "lidartwin/calib/reflectance_fit.h"

#include <ceres/ceres.h>

#include <cmath>

#include "least_squares.h"

#include "lidartwin/base/config_check.h"
#include "lidartwin/calib/goodness_of_fit.h"

#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/surface_response.h"
#include "lidartwin/physics/units.h"

namespace lt::calib {

namespace {

// Parameters as the solver sees them: r0, then (lambert_specular) k_s and u = ln n, so the
// exponent stays positive without a bound, or (retroreflective) beta_r and ln theta_max.
constexpr int kMaxParameters = 3;

int ParameterCount(AngularModel m) {
  return m == AngularModel::kLambert ? 1 : 3;
}

// I(theta) = 100 P_rx / P_white at any range (both from link_budget.h; the range and the link
// cancel), for the model's parameters p.
template <typename T>
T Intensity(AngularModel model, const T* p, T cos_theta) {
  physics::BasicSurfaceResponse<T> s{p[0], T(0), T(0), T(0), T(0), T(0), T(1), T(0)};
  using std::exp;
  if (model == AngularModel::kLambertSpecular) {
    s.specular_albedo = p[1];
    s.specular_exponent = exp(p[2]);
  }
  if (model == AngularModel::kRetroreflective) {
    s.retro_peak_sr = p[1];
    s.retro_max_entrance_rad = exp(p[2]);
  }
  const physics::LinkBudget unit{1.0, 1.0, 1.0, 0.0};
  const T range(1);
  return T(100) *
         physics::ReceivedPower(unit, physics::MonostaticBrdf(s, cos_theta), cos_theta, range) /
         physics::WhiteTargetPower(unit, range);
}

struct IntensityResidual {
  AngularModel model;
  double cos_theta;
  double intensity;
  double weight;  // 1 / sigma
  template <typename T>
  bool operator()(const T* const p, T* residual) const {
    residual[0] = (Intensity(model, p, T(cos_theta)) - T(intensity)) * T(weight);
    return true;
  }
};

}  // namespace

const char* AngularModelName(AngularModel m) {
  switch (m) {
    case AngularModel::kLambert:
      return "lambert";
    case AngularModel::kLambertSpecular:
      return "lambert_specular";
    case AngularModel::kRetroreflective:
      return "retroreflective";
  }
  return "lambert";
}

Expected<AngularModel> ParseAngularModel(const std::string& name) {
  if (name == "lambert") return AngularModel::kLambert;
  if (name == "lambert_specular") return AngularModel::kLambertSpecular;
  if (name == "retroreflective") return AngularModel::kRetroreflective;
  return Error{"unknown angular model '" + name +
               "' (expected lambert, lambert_specular or retroreflective)"};
}

Expected<FitResult> FitReflectance(const std::vector<ReflectanceSample>& samples,
                                   AngularModel model) {
  const int p_count = ParameterCount(model);
  FitResult out;
  out.model = AngularModelName(model);
  std::vector<ReflectanceSample> used;
  bool sigma_known = true;
  for (const auto& s : samples) {
    if (!std::isfinite(s.incidence_deg) || !std::isfinite(s.intensity) || !std::isfinite(s.sigma) ||
        s.incidence_deg < 0 || s.incidence_deg >= 90 || s.sigma < 0) {
      ++out.points_rejected;
      continue;
    }
    sigma_known = sigma_known && s.sigma > 0;
    used.push_back(s);
  }
  out.points_used = used.size();
  // One more point than parameters at least, so that a residual is left to judge the fit.
  if (static_cast<int>(used.size()) <= p_count) {
    return Error{"reflectance fit (" + out.model + "): " + std::to_string(used.size()) +
                 " usable points for " + std::to_string(p_count) + " parameters; at least " +
                 std::to_string(p_count + 1) + " are needed"};
  }
  // Start: R0 from the points nearest normal incidence, a moderate lobe.
  double p[kMaxParameters] = {0.5, 0.05, std::log(20.0)};
  if (model == AngularModel::kRetroreflective) {
    // The diffuse part from the least bright point per cos(theta) (the cone only adds), the
    // cone's peak from the brightest, its edge at 60 deg.
    double lo = 1e300, hi = 0;
    for (const auto& s : used) {
      const double c = std::cos(s.incidence_deg * physics::kDegToRad);
      if (c < 0.05) continue;
      lo = std::min(lo, s.intensity / (100 * c));
      hi = std::max(hi, s.intensity / (100 * c));
    }
    p[0] = lo < 1e300 ? std::max(lo, 1e-3) : 0.5;
    p[1] = std::max((hi - p[0]) / physics::kPi, 1e-3);
    p[2] = std::log(60 * physics::kDegToRad);
  } else {
    double best = 90;
    for (const auto& s : used) {
      if (s.incidence_deg < best) {
        best = s.incidence_deg;
        const double c = std::cos(s.incidence_deg * physics::kDegToRad);
        p[0] = c > 0.05 ? s.intensity / (100 * c) : 0.5;
      }
    }
  }
  ceres::Problem problem;
  for (const auto& s : used) {
    auto* cost = new ceres::AutoDiffCostFunction<IntensityResidual, 1, kMaxParameters>(
        new IntensityResidual{model, std::cos(s.incidence_deg * physics::kDegToRad), s.intensity,
                              sigma_known ? 1 / s.sigma : 1.0});
    problem.AddResidualBlock(cost, nullptr, p);
  }
  if (p_count < kMaxParameters) {
    // The Lambert model leaves the lobe's parameters out of the problem.
    problem.SetManifold(p, new ceres::SubsetManifold(kMaxParameters, {1, 2}));
  }
  if (!SolveFit(problem, out)) {
    return Error{"reflectance fit (" + out.model + ") did not converge: " + out.solver_report};
  }
  // Residuals in the intensity's unit, and the variance that scales the covariance when the
  // sigmas were not given.
  double rss = 0;
  for (const auto& s : used) {
    const double r =
        Intensity(model, p, std::cos(s.incidence_deg * physics::kDegToRad)) - s.intensity;
    rss += r * r;
  }
  const double dof = static_cast<double>(used.size() - p_count);
  out.residual_rms = std::sqrt(rss / used.size());
  if (sigma_known) {
    std::vector<double> z;
    for (const auto& s : used)
      z.push_back(
          (s.intensity - Intensity(model, p, std::cos(s.incidence_deg * physics::kDegToRad))) /
          s.sigma);
    SetGoodnessOfFit(out, z, p_count, [&](size_t i) {
      return "the row at incidence " + NumberText(used[i].incidence_deg) + " deg";
    });
  }
  const double scale = sigma_known ? 1.0 : rss / dof;

  double cov[kMaxParameters * kMaxParameters] = {};
  if (!BlockCovariance(problem, p, cov)) {
    return Error{"reflectance fit (" + out.model +
                 "): the covariance is rank-deficient: the data cannot tell the parameters "
                 "apart (more incidence angles, or a simpler model)"};
  }
  auto sd = [&](int i) { return std::sqrt(std::max(0.0, cov[i * p_count + i] * scale)); };
  out.parameters.push_back({"r0", p[0], sd(0)});
  if (model == AngularModel::kLambertSpecular) {
    const double n = std::exp(p[2]);
    out.parameters.push_back({"specular_albedo", p[1], sd(1)});
    // n = e^u: sigma_n = n sigma_u (first order).
    out.parameters.push_back({"specular_exponent", n, n * sd(2)});
  }
  if (model == AngularModel::kRetroreflective) {
    const double theta_max_deg = std::exp(p[2]) / physics::kDegToRad;
    out.parameters.push_back({"retroreflective_peak_sr", p[1], sd(1)});
    out.parameters.push_back(
        {"retroreflective_max_entrance_deg", theta_max_deg, theta_max_deg * sd(2)});
  }
  return out;
}

double ModelIntensity(const FitResult& fit, double incidence_deg) {
  const auto model = ParseAngularModel(fit.model);
  if (!model.ok()) return std::nan("");
  double p[kMaxParameters] = {0, 0, 0};
  if (const auto* r0 = fit.Find("r0")) p[0] = r0->value;
  if (const auto* ks = fit.Find("specular_albedo")) p[1] = ks->value;
  if (const auto* n = fit.Find("specular_exponent")) p[2] = std::log(n->value);
  if (const auto* b = fit.Find("retroreflective_peak_sr")) p[1] = b->value;
  if (const auto* t = fit.Find("retroreflective_max_entrance_deg"))
    p[2] = std::log(t->value * physics::kDegToRad);
  return Intensity(*model, p, std::cos(incidence_deg * physics::kDegToRad));
}

}  // namespace lt::calib
