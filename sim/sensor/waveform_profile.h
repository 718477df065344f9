// The waveform detector's keys in a sensor profile (configs/README.md, "waveform"): read,
// written and checked side by side. The link-budget keys it shares with the threshold detector
// are read with those.
#pragma once

#include <yaml-cpp/yaml.h>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/config_reader.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt {

// Reads the keys as they are; their ranges are checked by CheckWaveformKeys (the loader calls
// SensorProfile::Check after parsing, which names the key's line).
void ReadWaveformKeys(ConfigMap& d, WaveformConfig& w);
void WriteWaveformKeys(YAML::Emitter& e, const WaveformConfig& w);
void CheckWaveformKeys(const WaveformConfig& w, ConfigCheck& d);
// The rules that span the profile: the band-pass around the wavelength lies within the solar
// table (800..1600 nm), and the record reaches max_range_m. `d` checks the detector map.
void CheckWaveformRecord(const SensorProfile& p, ConfigCheck& d);

}  // namespace lt
