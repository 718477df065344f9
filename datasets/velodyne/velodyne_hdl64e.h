// The HDL-64E S2/S3's own corrections (its user manuals, appendix F "Calibration and
// orientation"; docs/formats/velodyne-hdl64e.md): the near-range two-point distance correction
// and the intensity correction by focal distance and slope.
#pragma once

#include <cstdint>

#include "lidartwin/datasets/velodyne.h"

namespace lt {

// The near-range correction, in the ros-drivers' form with the vertical offset: the far
// correction was measured at 25.04 m, the near ones in x at 2.40 m and in y at 1.93 m; each
// axis's distance is corrected by the line through them at the point's |x| or |y| in
// Velodyne's frame (x right, y forward), and z takes y's. `dist` is the far-corrected distance
// (m), `cv`, `sv` the cosine and sine of the elevation, `rot` the corrected azimuth (rad);
// `vx`, `vy`, `vz` come in as the uncorrected point and leave corrected.
void Hdl64eTwoPointCorrection(const VelodyneLaser& laser, double dist, double cv, double sv,
                              double rot, double& vx, double& vy, double& vz);

// The intensity correction: raw + slope x |g(focal) - g(distance)|, g(q) = 256 (1 - q)^2 with
// the focal distance in cm over 13100 and the raw distance count over 65535 (each a range over
// the longest, 131 m), clamped to the laser's min and max. The ros-drivers divide the focal
// distance in metres by 13100 (their issue 499, open): the manual is followed here.
float Hdl64eCorrectedIntensity(const VelodyneLaser& laser, uint16_t raw_distance,
                               uint8_t intensity);

}  // namespace lt
