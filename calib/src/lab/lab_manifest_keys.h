// The columns of each lab table kind, shared by the lab folder's reader and writer (private to
// calib/): quantity, canonical unit, required.
#pragma once

#include <vector>

#include "lab/lab_table.h"

namespace lt::calib {

inline const std::vector<QuantitySpec> kReflectanceColumns = {
    {"incidence", "deg", true}, {"intensity", "percent", true}, {"sigma", "percent", false}};
inline const std::vector<QuantitySpec> kRangeIntensityColumns = {{"range", "m", true},
                                                                 {"signal", "nw", true},
                                                                 {"sigma", "nw", false},
                                                                 {"spread", "nw", false},
                                                                 {"pulses", "", false}};
inline const std::vector<QuantitySpec> kThresholdColumns = {{"range", "m", false},
                                                            {"attenuation", "db", false},
                                                            {"trials", "", true},
                                                            {"detections", "", true}};
inline const std::vector<QuantitySpec> kCapabilityColumns = {
    {"reflectance", "fraction", true}, {"max_range", "m", true}, {"sigma", "m", false}};
inline const std::vector<QuantitySpec> kCollectorColumns = {{"angle", "mrad", true},
                                                            {"sensitivity", "", true}};

}  // namespace lt::calib
