// The range-intensity and detection populations of a range image (ouster_samples.h).
#include <algorithm>
#include <cmath>
#include <limits>

#include "lidartwin/base/config_check.h"
#include "lidartwin/calib/ouster_samples.h"
#include "lidartwin/physics/units.h"

namespace lt::calib {

namespace {

// Standard deviation of a value rounded to whole percent: a uniform error of +-0.5, 1/sqrt(12).
constexpr double kRoundingSigmaPct = 0.28867513459481287;

}  // namespace

Status SampleOptions::Validate() const {
  ConfigCheck c;
  if (!(surface_max_incidence_deg > 0 && surface_max_incidence_deg < 90))
    c.Fail("surface_max_incidence_deg", "must be in (0, 90)");
  if (!(surface_step_m >= 0)) c.Fail("surface_step_m", "must be >= 0");
  if (!(max_incidence_deg > 0 && max_incidence_deg <= 90))
    c.Fail("max_incidence_deg", "must be in (0, 90]");
  if (!(min_reflectivity_pct > 0 && min_reflectivity_pct <= max_reflectivity_pct))
    c.Fail("min_reflectivity_pct", "must be > 0 and <= max_reflectivity_pct");
  if (max_gap_columns < 1) c.Fail("max_gap_columns", "must be >= 1");
  if (bins < 3) c.Fail("bins", "must be >= 3 (the threshold fit needs three signal levels)");
  if (min_pixels_per_bin < 1) c.Fail("min_pixels_per_bin", "must be >= 1");
  return c.ToStatus("sample options");
}

void AddRangeIntensitySamples(const RangeImage& img, const std::vector<float>& incidence_deg,
                              const SampleOptions& o, ReflectivityReading reading,
                              RangeIntensityPopulation& out) {
  for (size_t i = 0; i < img.range_m.size(); ++i) {
    if (!img.Returned(i)) continue;
    ++out.returns;
    const double theta = incidence_deg[i];
    const double refl = img.reflectivity_pct[i];
    if (!std::isfinite(theta)) {
      ++out.without_incidence;
      continue;
    }
    if (theta >= o.max_incidence_deg) {
      ++out.grazing;
      continue;
    }
    if (refl < o.min_reflectivity_pct || refl > o.max_reflectivity_pct) {
      ++out.reflectivity_outside;
      continue;
    }
    const double s = img.signal[i];
    RangeIntensitySample sample;
    sample.range_m = img.range_m[i];
    sample.incidence_deg = theta;
    sample.reflectance = refl / 100;
    if (reading == ReflectivityReading::kIncludesCosine)
      sample.reflectance /= std::cos(theta * physics::kDegToRad);
    sample.signal = s;
    const double rounding = s * kRoundingSigmaPct / refl;
    // A count of 0 still has the noise of a count near 1.
    sample.sigma = std::sqrt(std::max(s, 1.0) + rounding * rounding);
    out.samples.push_back(sample);
  }
}

void AddDetectionPixels(const RangeImage& img, const std::vector<float>& incidence_deg,
                        const SampleOptions& o, DetectionPopulation& out) {
  const uint32_t w = img.columns;
  const uint32_t gap = std::min(o.max_gap_columns, w / 2);
  for (uint32_t r = 0; r < img.rows; ++r) {
    for (uint32_t u = 0; u < w; ++u) {
      const size_t i = img.Index(r, u);
      if (!img.seen[i]) continue;
      // Nearest returns on either side, the pixel itself excluded; columns wrap.
      uint32_t dl = 0, dr = 0;
      for (uint32_t d = 1; d <= gap && !dl; ++d)
        if (img.Returned(img.Index(r, (u + w - d) % w))) dl = d;
      for (uint32_t d = 1; d <= gap && !dr; ++d)
        if (img.Returned(img.Index(r, (u + d) % w))) dr = d;
      if (!dl || !dr) continue;
      ++out.candidates;
      const size_t a = img.Index(r, (u + w - dl) % w), b = img.Index(r, (u + dr) % w);
      const double ra = img.range_m[a], rb = img.range_m[b];
      if (!OnOneSurface(img, a, b, o)) {
        ++out.off_surface;
        continue;
      }
      // Linear between the two returns, by column distance.
      const double t = static_cast<double>(dl) / (dl + dr);
      const auto lerp = [&](double va, double vb) { return va + t * (vb - va); };
      double theta = std::numeric_limits<double>::quiet_NaN();
      const double ta = incidence_deg[a], tb = incidence_deg[b];
      if (std::isfinite(ta) && std::isfinite(tb)) {
        theta = lerp(ta, tb);
      } else if (std::isfinite(ta) || std::isfinite(tb)) {
        theta = std::isfinite(ta) ? ta : tb;
      }
      out.pixels.push_back({lerp(ra, rb), lerp(img.reflectivity_pct[a], img.reflectivity_pct[b]),
                            lerp(img.signal[a], img.signal[b]), theta, img.Returned(i)});
    }
  }
}

std::vector<DetectionSample> BinDetections(const std::vector<double>& predicted,
                                           const std::vector<bool>& detected,
                                           const SampleOptions& o) {
  std::vector<size_t> order;
  for (size_t k = 0; k < predicted.size() && k < detected.size(); ++k)
    if (std::isfinite(predicted[k])) order.push_back(k);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return predicted[a] < predicted[b]; });
  const size_t bins =
      std::min<size_t>(static_cast<size_t>(o.bins), order.size() / o.min_pixels_per_bin);
  std::vector<DetectionSample> out;
  for (size_t b = 0; b < bins; ++b) {
    const size_t begin = order.size() * b / bins, end = order.size() * (b + 1) / bins;
    double sum = 0;
    uint32_t hits = 0;
    for (size_t k = begin; k < end; ++k) {
      sum += predicted[order[k]];
      hits += detected[order[k]] ? 1 : 0;
    }
    out.push_back(
        {sum / static_cast<double>(end - begin), static_cast<uint32_t>(end - begin), hits});
  }
  return out;
}

}  // namespace lt::calib
