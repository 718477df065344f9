// The range gain G(R) of a raw-intensity reading, again, from surfaces seen at different ranges
// (recording_sensor_fit.h). A moving sensor sees the same wall from near and from far, and it
// must read the same reflectance from both: the range analogue of the per-laser fit
// (beam_intensity_fit.h; Steder et al., ICRA 2015, sec. III: the remission a function of the
// range among others, estimated so that one surface reads alike from everywhere it was seen).
// The binned medians G starts from hold what lies at each range as well as the sensor's
// response: on the HDL-32E drive the road near the car and the facades far from it, and a
// reflectance read at 10 m and simulated from 4 m came out 5.5 counts too bright.
//
// The model, in logarithms, for return i on world cell c:
//   ln I_i - ln G0(R_i) - ln S(theta_i) = ln rho_c + k_{bin(R_i)} + e_i,
// S = cos(theta) or a rough surface's shading (roughness_fit.h), G0 the binned G, k a correction
// per range bin (the gain becomes G0 exp(k)). The cells: planar voxels in the world frame seen from
// viewpoints whose ranges to them differ by a tenth at least (a still sensor has none, and keeps
// G0). k and ln rho alternate, by means and then by medians (as the per-laser fit); the gauge is
// the median determined bin's k = 0 (G's scale is fixed afterwards, by the nominal reflectance). A
// node of G takes its bin's k (or its nearest determined bin's), and the fit runs again from the
// corrected G until no node moves by more than gain_settled_ln.
#pragma once

#include "lidartwin/reconstruct/reconstructed_surface.h"
#include "lidartwin/reconstruct/recording_sensor_fit.h"
#include "viewed_cells.h"

namespace lt {

// The correction per node of reading.gain (recording_sensor_fit.h).
// The cells: ViewedPlanarCells(input, gain_cell_m, min_range_m, max_range_m).
RangeGainCorrection FitRangeGainAcrossViewpoints(const std::vector<ViewedCell>& cells,
                                                 const IntensityReading& reading,
                                                 const RecordingFitOptions& options);

}  // namespace lt
