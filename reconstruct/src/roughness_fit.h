// The surfaces' roughness of a raw-intensity recording, from surfaces seen at several incidences
// (recording_sensor_fit.h). A driving sensor sees the road ahead at grazing incidence and the
// same road under it steeply; read as Lambertian (I = G(R) R0 cos theta) the road's R0 from the
// steep frames, rendered at grazing from the held-out one, came back too dark: on the KITTI
// drive's fold 1 the returns whose cos(theta) is under 0.2 were simulated 5.6 counts darker,
// those above 0.8 0.6 brighter (docs/validation.md). Asphalt and render are rough: Oren and
// Nayar's model (physics/surface_response.h, RoughDiffuseFactor) keeps B / A of their
// normal-incidence return at grazing, where cos theta falls to nothing.
//
// The model, in logarithms, for return i on world cell c:
//   ln I_i = ln rho_c + ln G(R_i) + ln S(B/A, cos theta_i) + e_i,
// S = DiffuseShadingOfRatio, linear in B / A (Oren and Nayar's grazing ratio, which gives
// sigma), ln G piecewise linear in ln R. The two trade against each other: the road seen
// nearer is also seen more steeply (cos theta = h / R), so a gain falling with range can stand
// in for a rough road; walls beside it, seen along cos theta = d / R for other d, tell them
// apart. sigma is one number for the scene (its surfaces are not labelled). For each B / A the
// gain is fitted (weighted least squares, each cell's ln rho eliminated) from the returns
// within the range gain's 75 deg, as the reading's gain is (range_gain_fit.h), and B / A is
// the one whose residuals are least, by Huber's weights, over the cells seen at two
// incidences with their returns to 87 deg. Fitting the gain from all returns as well (one
// joint fit) recovered the tests' drive without bias but on the KITTI drive found 8.4 deg,
// where this finds 14.8 deg, and reproduced the held-out frame's intensity worse (10.05
// against 9.52; Lambertian 10.77): the gain bent to the grazing road there, which the reading's
// gain does not. Its price, on the tests' drive: sigma 0.01 rad low at 0.79 and 0.026 at 1.13
// (1-2.5 standard errors), and below about 0.25 rad (B / A 0.2) the surfaces say less: one
// seed in six at 0.17 found a second, slightly lower minimum at 0.235.
// The standard error resamples the cells (a surface's returns share its R0 and plane).
#pragma once

#include <cstddef>
#include <vector>

#include "lidartwin/reconstruct/recording_sensor_fit.h"
#include "viewed_cells.h"

namespace lt {

// sigma from the binned gain (no roughness of its own), and the cells and returns that set it
// (sigma 0 and no cells where too few were seen at two angles: a still sensor).
SurfaceRoughness FitSurfaceRoughness(const std::vector<ViewedCell>& cells,
                                     const RecordingFitOptions& options);

}  // namespace lt
