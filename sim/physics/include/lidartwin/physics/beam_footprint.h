// Beam footprint (model tier 2): a beam as several weighted sub-rays around its central
// direction.
//   cone:     seed 003 "Beam Divergence": sub-rays uniform in a cone whose apex angle is the
//             divergence; combined by random selection (one sub-ray's output) or average.
//   gaussian: an elliptical Gaussian far-field profile (horizontal and vertical divergence),
//             or several such spots side by side (the three laser diodes of the Blickfeld
//             Cube 1, seed 004 sec. III-A, Fig. 5); equal-weight sub-rays drawn from the
//             profile by stratified inverse-CDF sampling.
//   table:    a measured emitter x collector kernel (eta * kappa, seed 004 eq. 5, sec. III-C)
//             as a grid of cells; sub-rays pick cells by stratified importance sampling with a
//             probability proportional to (cell power)^gamma, gamma < 1, and carry the weight
//             power / (N probability), so the dim tails (1e-3 .. 1e-6 of the peak, the source
//             of blooming, seed 004 sec. I-B) are visited often and still add exactly their
//             share of power on average.
// Every sub-ray's weight is its share of the beam's power (eta * kappa integrated over the
// piece of footprint it stands for); the weights of one beam sum to 1 on average (exactly,
// for cone and gaussian).
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/philox.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/physics/vec3.h"

namespace lt::physics {

enum class DivergenceMode : uint32_t { kRandomSelection, kAverage };
enum class FootprintKind : uint32_t { kCone, kGaussian, kTable };

inline constexpr uint32_t kMaxSpots = 4;

// One elliptical Gaussian spot: offset of its centre from the beam direction and its
// standard deviations, all angles in radians; power is its share of the beam (spots sum to 1).
struct GaussianSpot {
  double h_offset_rad, v_offset_rad;
  double sigma_h_rad, sigma_v_rad;
  double power;
};

// A tabulated kernel prepared for sampling (built on the host by sensor_profile.cpp): cell
// (i, j), i along h, j along v, covers [h0 + i dh, h0 + (i + 1) dh) x [v0 + j dv, ...).
// Cells are flattened as c = j nh + i. cdf[c]: sampling probability of cells 0..c (cdf[last]
// = 1); weight[c]: power of the cell over its sampling probability, p_c / q_c.
struct KernelTableView {
  const float* cdf;
  const float* weight;
  uint32_t nh, nv;
  double h0_rad, v0_rad, dh_rad, dv_rad;
};

struct BeamFootprint {
  uint32_t sub_rays;      // 1: the central ray only
  double half_angle_rad;  // cone: half the divergence (seed 003: apex angle = divergence)
  DivergenceMode mode;    // how the ideal and capability detectors combine sub-rays
  FootprintKind kind;
  uint32_t spot_count;  // gaussian
  GaussianSpot spots[kMaxSpots];
  KernelTableView table;  // table
};

// Where one sub-ray points relative to its beam (small angles along the beam's horizontal
// and vertical axes) and the share of the beam's power it carries.
struct FootprintSample {
  double h_rad, v_rad;
  double weight;
};

// A direction uniform in solid angle inside the cone of half-angle `half_angle` around the unit
// `axis`: cos(theta) = 1 - u1 (1 - cos a), phi = 2 pi u2.
template <typename T>
LT_HD Vec3<T> DirectionInCone(const Vec3<T>& axis, T half_angle, uint32_t w1, uint32_t w2) {
  using std::cos;
  using std::fabs;
  using std::sin;
  using std::sqrt;
  const T cos_t = 1 - UniformOpen01<T>(w1) * (1 - cos(half_angle));
  const T sin_t = sqrt(1 - cos_t * cos_t);
  const T phi = static_cast<T>(6.283185307179586476925286766559) * UniformOpen01<T>(w2);
  const Vec3<T> helper = fabs(axis.z) < static_cast<T>(0.9) ? Vec3<T>{0, 0, 1} : Vec3<T>{1, 0, 0};
  const Vec3<T> e1 = Normalized(Cross(helper, axis));
  const Vec3<T> e2 = Cross(axis, e1);
  return cos_t * axis + sin_t * (cos(phi) * e1 + sin(phi) * e2);
}

// Inverse of the standard normal CDF, Phi^-1(p) for p in (0, 1): P. J. Acklam's rational
// approximation (relative error < 1.15e-9), one Newton step on erfc for double precision.
template <typename T>
LT_HD T InverseNormalCdf(T p) {
  using std::erfc;
  using std::exp;
  using std::log;
  using std::sqrt;
  const T a[6] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                  1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  const T b[5] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                  6.680131188771972e+01, -1.328068155288572e+01};
  const T c[6] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                  -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  const T d[4] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                  3.754408661907416e+00};
  const T p_low = static_cast<T>(0.02425);
  T x;
  if (p < p_low) {
    const T q = sqrt(-2 * log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - p_low) {
    const T q = p - static_cast<T>(0.5);
    const T r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const T q = sqrt(-2 * log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // Halley refinement: e = Phi(x) - p.
  const T e = static_cast<T>(0.5) * erfc(-x / static_cast<T>(1.4142135623730951)) - p;
  const T u = e * static_cast<T>(2.5066282746310002) * exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

// Van der Corput radical inverse in base 2 of k, in [0, 1): the second coordinate of a
// Hammersley point set, so N sub-rays (k + jitter) / N, RadicalInverse(k) are stratified in
// both dimensions.
LT_HD inline double RadicalInverse2(uint32_t k) {
  k = (k << 16) | (k >> 16);
  k = ((k & 0x00ff00ffu) << 8) | ((k & 0xff00ff00u) >> 8);
  k = ((k & 0x0f0f0f0fu) << 4) | ((k & 0xf0f0f0f0u) >> 4);
  k = ((k & 0x33333333u) << 2) | ((k & 0xccccccccu) >> 2);
  k = ((k & 0x55555555u) << 1) | ((k & 0xaaaaaaaau) >> 1);
  return static_cast<double>(k) * 2.3283064365386963e-10;
}

// Sub-ray k of n of a gaussian or table footprint. The two stratified coordinates are
// u1 = (k + j1) / n, with j1 a uniform jitter of this sub-ray (word w_jitter), and
// u2 = frac(RadicalInverse2(k) + s), with s a uniform shift of the whole beam (word w_shift,
// Cranley-Patterson rotation); w_cell jitters a table sample inside its cell.
LT_HD inline FootprintSample SampleFootprint(const BeamFootprint& f, uint32_t k, uint32_t n,
                                             uint32_t w_jitter, uint32_t w_shift, uint32_t w_cell) {
  const double u1 = (k + UniformOpen01<double>(w_jitter)) / n;
  double u2 = RadicalInverse2(k) + UniformOpen01<double>(w_shift);
  u2 -= static_cast<double>(static_cast<uint32_t>(u2));
  if (u2 <= 0) u2 = 1e-12;
  if (f.kind == FootprintKind::kTable) {
    const KernelTableView& t = f.table;
    const uint32_t cells = t.nh * t.nv;
    // First cell whose cumulative probability exceeds u1 (binary search on the CDF).
    uint32_t lo = 0, hi = cells - 1;
    while (lo < hi) {
      const uint32_t mid = (lo + hi) / 2;
      if (static_cast<double>(t.cdf[mid]) > u1) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    const uint32_t i = lo % t.nh;
    const uint32_t j = lo / t.nh;
    return {t.h0_rad + (i + u2) * t.dh_rad,
            t.v0_rad + (j + UniformOpen01<double>(w_cell)) * t.dv_rad,
            static_cast<double>(t.weight[lo]) / n};
  }
  // Gaussian spots: u1 picks the spot by its power, then is rescaled inside the spot's
  // interval so that it stays stratified; both coordinates go through Phi^-1.
  uint32_t s = 0;
  double below = 0;
  while (s + 1 < f.spot_count && u1 >= below + f.spots[s].power) {
    below += f.spots[s].power;
    ++s;
  }
  const GaussianSpot& g = f.spots[s];
  double v1 = (u1 - below) / g.power;
  v1 = v1 <= 0 ? 1e-12 : (v1 >= 1 ? 1 - 1e-12 : v1);
  return {g.h_offset_rad + g.sigma_h_rad * InverseNormalCdf(v1),
          g.v_offset_rad + g.sigma_v_rad * InverseNormalCdf(u2), 1.0 / n};
}

// The direction at angular offsets h (towards increasing azimuth) and v (towards increasing
// elevation) from the beam at (azimuth, elevation), taken in the plane tangent to the unit
// sphere at the beam: d = normalize(b + tan(h) e_h + tan(v) e_v), e_h and e_v the unit
// azimuth and elevation directions. So h and v are true angles at every elevation, as a
// goniometer measures them about the beam axis (seed 004 sec. III).
template <typename T>
LT_HD Vec3<T> OffsetDirection(T azimuth_rad, T elevation_rad, T h_rad, T v_rad) {
  using std::cos;
  using std::sin;
  using std::tan;
  const T ca = cos(azimuth_rad), sa = sin(azimuth_rad);
  const T ce = cos(elevation_rad), se = sin(elevation_rad);
  const Vec3<T> b{ce * ca, ce * sa, se};
  const Vec3<T> e_h{-sa, ca, 0};
  const Vec3<T> e_v{-se * ca, -se * sa, ce};
  return Normalized(b + tan(h_rad) * e_h + tan(v_rad) * e_v);
}

}  // namespace lt::physics
