// Measured beam kernels (emitter x collector, eta * kappa; seed 004 sec. III): read from CSV
// files and prepared for stratified importance sampling (physics/beam_footprint.h).
#pragma once

#include <filesystem>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt {

// Relative kernel values on a regular grid of goniometer angles. value[j * h.size() + i] is
// the kernel at (h_mrad[i], v_mrad[j]); finite, >= 0, not all zero; the scale is arbitrary.
struct KernelTable {
  std::vector<double> h_mrad;  // strictly increasing, evenly spaced, at least 2
  std::vector<double> v_mrad;
  std::vector<double> value;
};

// A 2-D kernel as a CSV grid: the first row is a label then the h angles [mrad], every other
// row a v angle [mrad] then one value per h angle. Lines starting with '#' are comments.
Expected<KernelTable> LoadKernelGrid(const std::filesystem::path& file);
// The grid as LoadKernelGrid reads it (values to 17 digits).
std::string KernelGridText(const KernelTable& table, const std::string& label = "v\\h");

// One slice of a separable kernel: "angle_mrad,value" rows, angles as for a grid, values
// finite, >= 0 and not all zero.
struct KernelSlice {
  std::vector<double> angle_mrad;
  std::vector<double> value;
};
Expected<KernelSlice> LoadKernelSlice(const std::filesystem::path& file);

// The separable kernel H(h) * V(v) of two slices (seed 004 sec. III-B, Fig. 5c), each scaled
// to a peak of 1 first.
KernelTable SeparableKernel(const KernelSlice& h, const KernelSlice& v);

// LoadKernelSlice twice, then SeparableKernel.
Expected<KernelTable> LoadSeparableKernel(const std::filesystem::path& h_file,
                                          const std::filesystem::path& v_file);

// The sampling tables of a kernel: cell c (row-major, one cell per grid sample, centred on it)
// has power p_c = value_c / sum(value) and is picked with probability q_c = p_c^gamma / Z;
// cdf[c] = q_0 + ... + q_c and weight[c] = p_c / q_c. gamma = 1 samples the kernel as it is;
// smaller gamma visits the dim tails more often, with proportionally smaller weights; gamma = 0
// picks every non-zero cell alike, so with as many sub-rays as cells each cell is sampled
// exactly once per beam with its own power as weight (a deterministic quadrature).
struct KernelSampling {
  std::vector<float> cdf;
  std::vector<float> weight;
  double h0_rad = 0, v0_rad = 0, dh_rad = 0, dv_rad = 0;  // first cell's corner, cell size
  uint32_t nh = 0, nv = 0;
};
KernelSampling PrepareKernelSampling(const KernelTable& table, double tail_exponent);

// The pulse-to-pulse noise of a beam's sampled power on a uniform target that fills the
// footprint, with `sub_rays` stratified samples (physics::SampleFootprint: sub-ray k draws u
// in [k / n, (k + 1) / n) and carries weight[cell(u)] / n). The strata are independent, so the
// sum's cumulants are the strata's summed: its variance sum_k Var_k(w) / n^2 and its fourth
// cumulant sum_k (mu4_k - 3 mu2_k^2), each stratum's moments from the cells it overlaps, exact
// from the tables. It is noise of the simulation, not of the sensor: the pulse-energy jitter
// fit takes it out of the measured spreads (issue 40, item 2), and weighs each spread by the
// sampling error its kurtosis gives. Both 0 where every sampled cell has the same weight
// (tail_exponent 1, to float rounding: below 1e-6) and for one sub-ray (the central ray alone,
// at weight 1).
struct SampledPowerNoise {
  double relative_spread = 0;  // standard deviation over the mean
  double excess_kurtosis = 0;  // fourth cumulant over the variance squared
};
SampledPowerNoise SampledPowerStatistics(const KernelSampling& sampling, uint32_t sub_rays);

}  // namespace lt
