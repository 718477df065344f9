// Velodyne's own calibration file, db.xml (a boost::serialization archive written by the unit's
// tools and VeloView; the HDL-64E S2/S3 manuals, "xml Calibration Parameters"): per laser `px`
// elements with id_, rotCorrection_ and vertCorrection_ (deg), distCorrection_,
// distCorrectionX_, distCorrectionY_, vertOffsetCorrection_, horizOffsetCorrection_ and
// focalDistance_ (cm), focalSlope_; the lists enabled_, minIntensity_ and maxIntensity_ by
// laser; distLSB_ (cm). Read into the ros-drivers' units as their gen_calibration.py converts
// them (deg -> rad, cm -> m); the values are checked by the caller.
#pragma once

#include <filesystem>
#include <string>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/velodyne.h"

namespace lt {

// The enabled lasers, which must be ids 0..n-1. A laser's two-point correction is taken as
// available where its distCorrectionX_ or distCorrectionY_ is not zero (VeloView's tables of
// units without it hold zeros), as the manual applies it; gen_calibration.py writes no such
// flag, so a YAML made from the same file decodes without it unless the flag is added. Errors
// name the file, the line and the element.
Expected<VelodyneCalibration> ParseVelodyneXml(const std::string& text,
                                               const std::filesystem::path& file);

}  // namespace lt
