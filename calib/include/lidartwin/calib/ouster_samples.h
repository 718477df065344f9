// Samples for the range-intensity and detection fits from real Ouster frames
// (real-data/ouster-sdk, read by datasets/ouster.h): a destaggered range image of first
// returns, incidence angles from the local surface normal, and the two populations.
//
// What an Ouster pixel carries (Ouster Software User Manual, "Lidar data format"): range,
// signal photons (not in the low-data-rate profiles RNG15_RFL8_NIR8), and reflectivity, which
// firmware 2.1 and later calibrate to the Lambertian percentage (0..100 diffuse, 101..255
// retroreflectors). The sensor computes reflectivity from the signal and the range alone: it
// cannot know the incidence angle, so for a Lambertian surface it reports rho cos(theta).
// Firmware 2.0 (the OS-1-64 capture) puts an uncalibrated 16-bit value there, about
// signal x R^2 [m^2], which is why reflectivity above 255 marks a capture as uncalibrated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/calib/range_intensity_fit.h"
#include "lidartwin/calib/threshold_fit.h"

namespace lt::calib {

// One frame's first returns on the sensor's grid, destaggered: the pixel of measurement
// column m in beam row r sits at column u = (m + round(az_r W / 360)) mod W (az_r the beam's
// azimuth offset [deg], W columns per frame), so that one column looks in one direction (the
// beam model of lidartwin/physics/ouster_beam.h: azimuth 2 pi (1 - m / W) - 2 pi az_r / 360).
struct RangeImage {
  uint32_t rows = 0, columns = 0;
  // Row-major [row][column]; range 0 where the pixel gave no return.
  std::vector<float> range_m;
  std::vector<float> signal;            // signal photons, or 0 where the profile has none
  std::vector<float> reflectivity_pct;  // the sensor's reflectivity [percent]
  std::vector<float> x_m, y_m, z_m;     // sensor frame
  // Whether the pixel's measurement column was seen (some pixel of it returned): a pixel of an
  // unseen column (a skipped or invalid packet, or a column that saw nothing) is unknown,
  // never a drop-out.
  std::vector<uint8_t> seen;

  size_t Index(uint32_t row, uint32_t column) const {
    return static_cast<size_t>(row) * columns + column;
  }
  bool Returned(size_t i) const { return range_m[i] > 0; }
};

// Errors: no beams or columns, an azimuth table shorter than the frame's rows, a point whose
// channel or column lies outside the grid (each naming the point).
Expected<RangeImage> BuildRangeImage(const Frame& frame,
                                     const std::vector<double>& beam_azimuth_deg, uint32_t columns,
                                     bool has_signal);

// How pixels are selected; defaults in one place, checked by Validate.
struct SampleOptions {
  // Two returns lie on one surface when their range step fits a plane seen at up to this
  // incidence: |R_a - R_b| <= R tan(surface_max_incidence_deg) alpha + surface_step_m, R the
  // nearer range and alpha the angle between their beams (a plane at incidence theta steps by
  // about R tan(theta) alpha).
  double surface_max_incidence_deg = 80;
  double surface_step_m = 0.05;
  // Range-intensity samples: incidence below this (normals of grazing surfaces are poor) and
  // diffuse reflectivity in 1..100 % (0 is below the 8-bit scale's resolution; above 100 is the
  // retroreflector scale).
  double max_incidence_deg = 80;
  double min_reflectivity_pct = 1;
  double max_reflectivity_pct = 100;
  // Detection population: pixels whose nearest returns left and right in their row are at most
  // max_gap_columns away (4 columns: 1.4 deg at 1024 columns) and on one surface.
  uint32_t max_gap_columns = 4;
  // Detection bins: equal-count bins of predicted signal, at most `bins` of them, each with at
  // least min_pixels_per_bin pixels.
  int bins = 12;
  size_t min_pixels_per_bin = 50;

  // Empty when valid; otherwise the first problem, naming the option.
  Status Validate() const;  // names the option and the problem
};

// Whether two returned pixels lie on one surface (SampleOptions::surface_max_incidence_deg).
bool OnOneSurface(const RangeImage& image, size_t a, size_t b, const SampleOptions& options);

// Incidence angle [deg] of every returned pixel from its surface normal: the cross product of
// the central differences of its row neighbours' and its column neighbours' points (one-sided
// with the pixel itself where one neighbour is missing), each neighbour on the pixel's surface;
// NaN where a direction has no usable neighbour.
std::vector<float> IncidenceAngles(const RangeImage& image, const SampleOptions& options);

// How the range-intensity samples read the sensor's reflectivity.
enum class ReflectivityReading {
  // Reflectivity is rho cos(theta) (what the sensor can know): the sample's reflectance is
  // reflectivity / (100 cos theta) at the estimated theta, so the model's rho cos(theta) is the
  // reported value.
  kIncludesCosine,
  // Reflectivity is rho: the model multiplies it by the estimated cos(theta) once more.
  kExcludesCosine,
};

struct RangeIntensityPopulation {
  std::vector<RangeIntensitySample> samples;
  size_t returns = 0;               // first returns in the frames
  size_t without_incidence = 0;     // no normal (edge pixel or isolated)
  size_t grazing = 0;               // incidence >= max_incidence_deg
  size_t reflectivity_outside = 0;  // outside min..max_reflectivity_pct
};

// Signal against range, reflectivity and incidence for every returned pixel that qualifies.
// sigma of each sample: Poisson noise of the photon count and the reflectivity's 8-bit
// rounding (+-0.5 percent, uniform: sigma 0.29 percent) carried to the signal,
// sqrt(S + (S 0.29 / reflectivity)^2).
void AddRangeIntensitySamples(const RangeImage& image, const std::vector<float>& incidence_deg,
                              const SampleOptions& options, ReflectivityReading reading,
                              RangeIntensityPopulation& out);

// What a pixel of the detection population knows: its bounding returns interpolated to its
// column (range, reflectivity, signal, incidence), and whether it returned itself.
struct BoundedPixel {
  double range_m, reflectivity_pct, signal, incidence_deg;
  bool detected;
};

struct DetectionPopulation {
  std::vector<BoundedPixel> pixels;
  size_t candidates = 0;   // seen pixels with returns on both sides within the gap
  size_t off_surface = 0;  // bounding returns not on one surface
};

// Every seen pixel whose nearest returns left and right in its row (itself excluded) are at
// most max_gap_columns away and on one surface. The same rule for returned and missing pixels,
// and a prediction from the neighbours only, so that a pixel's outcome does not select it.
void AddDetectionPixels(const RangeImage& image, const std::vector<float>& incidence_deg,
                        const SampleOptions& options, DetectionPopulation& out);

// Equal-count bins of predicted signal (pixels with a non-finite prediction skipped): each
// bin's expected_signal is its members' mean prediction.
std::vector<DetectionSample> BinDetections(const std::vector<double>& predicted,
                                           const std::vector<bool>& detected,
                                           const SampleOptions& options);

}  // namespace lt::calib
