// The Hesai AT128's angles: its angle-correction file (.dat, version 1.5) and the angles of a
// firing from it (Hesai's SDK 2.0, libhesai/UdpParser/src/udp4_3_parser.cc and
// include/udp4_3_parser.h; nebula, hesai_common.hpp and angle_corrector_correction_based.hpp;
// read, not copied; docs/formats/hesai-answer-keys.md, "AT128").
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "lidartwin/datasets/hesai.h"

namespace lt {

// The file as a calibration: its correction in `mirror`, the channels' unadjusted angles as
// the CSVs' elevation and azimuth offset. Errors name the file and the byte or channel.
Expected<HesaiCalibration> LoadHesaiAt128Correction(const std::filesystem::path& file);

// A firing's angles, by channel.
struct At128Firing {
  std::vector<double> azimuth_deg;  // Hesai's: clockwise from +y
  std::vector<float> cos_e, sin_e;  // of the elevation
};

// The channels' angles at encoder angle `encoder` (1/25600 deg): the face whose [start, end]
// holds it (none, the firing between faces: false); the adjustments interpolated between their
// 2-deg steps (the last step's neighbour is the first: the table goes round); the azimuth twice
// the angle into the face (a mirror doubles it) less the channel's azimuth plus the adjustment,
// the elevation the channel's plus its adjustment.
bool At128FiringAngles(const HesaiMirrorCorrection& mirror, int64_t encoder, At128Firing& out);

}  // namespace lt
