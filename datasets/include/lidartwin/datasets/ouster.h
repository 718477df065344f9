// Ouster sensors: metadata JSON (legacy and newer layouts) and lidar packets from a pcap, per
// the Ouster Software User Manual ("Lidar data format", "Lidar range to XYZ").
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/datasets/frame_sink.h"
#include "lidartwin/datasets/pcap.h"

namespace lt {

enum class OusterProfile {
  kLegacy,                   // 12-byte pixels, 16-byte column header, 4-byte status footer
  kRng19Rfl8Sig16Nir16,      // single return, 12-byte pixels
  kRng19Rfl8Sig16Nir16Dual,  // two returns, 16-byte pixels
  kRng15Rfl8Nir8,            // low data rate, 4-byte pixels, range in units of 8 mm
  kRng15Rfl8Nir8Dual,        // two low-rate returns, 8-byte pixels (also the FuSa variant)
};

// The profile's name as the metadata spells it ("RNG19_RFL8_SIG16_NIR16"), for messages.
const char* OusterProfileName(OusterProfile p);
// What a frame's intensity holds in a profile: the signal photons where it has a signal
// field, else the reflectivity byte (ouster_points.h; intensity_unit.h).
const char* OusterIntensityUnit(OusterProfile p);

struct OusterMetadata {
  std::filesystem::path file;  // where it was read from, for messages
  std::string product;         // prod_line, e.g. OS-1-128
  std::string serial;
  bool legacy_layout = true;  // top-level keys (fw <= 2.x) vs beam_intrinsics/... (fw >= 2.4)
  OusterProfile profile = OusterProfile::kLegacy;
  bool fusa_header = false;  // FUSA packet header (32-bit frame id)
  uint32_t columns_per_frame = 0, columns_per_packet = 0, pixels_per_column = 0;
  uint32_t column_first = 0, column_last = 0;  // column_window
  uint16_t lidar_port = 7502;
  double rotation_rate_hz = 10;                       // from lidar_mode "WxR"
  std::vector<double> altitude_deg, azimuth_deg;      // per beam
  std::vector<int> pixel_shift_by_row;                // destaggering (informational)
  double beam_origin_x_mm = 0, beam_origin_z_mm = 0;  // beam_to_lidar translation
  double lidar_origin_to_beam_origin_mm = 0;
  std::array<double, 16> lidar_to_sensor{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

  size_t ChannelBytes() const;
  size_t ColumnBytes() const;
  size_t PacketBytes() const;
  bool Dual() const;
};

// Reads and checks a metadata file: missing or inconsistent keys are errors naming the file
// and the key (JSON path); unused keys are ignored (they vary with firmware).
Expected<OusterMetadata> LoadOusterMetadata(const std::filesystem::path& file);
// The same from the metadata's text (a bag's metadata topic); `name` stands for the file in
// messages.
Expected<OusterMetadata> ParseOusterMetadata(const std::string& text,
                                             const std::filesystem::path& name);

// Sensor-frame XYZ [m] of a return at `range_mm` in beam `row` of measurement `column`:
// the beam model of the manual, then lidar_to_sensor_transform.
std::array<double, 3> OusterPointXyz(const OusterMetadata& m, uint32_t row, uint32_t column,
                                     double range_mm);

// Frames of a capture, streamed to `sink` as each completes: lidar packets on the metadata's
// port, decoded per profile, split at each change of frame id. Per point: XYZ, range,
// intensity (signal photons, or reflectivity in the low-rate profiles), reflectance
// (reflectivity / 100: Ouster's calibrated reflectivity is the Lambertian percentage up to
// 100), channel = row, column = measurement id, timestamp (column time), return index.
// Field captures: IMU packets and other traffic are skipped; a packet on the lidar port of the
// wrong size or with a measurement id outside the frame is skipped (counted, the first few
// named with their byte offset); an exact duplicate (a measurement id already seen in the
// current frame) or a late packet of a completed frame is dropped and counted. Errors: no
// packet matches the metadata (the message says what the capture holds instead), or more
// than one in ten lidar-port packets cannot be decoded (the metadata is of another mode or
// sensor).
Status ForEachOusterFrame(const std::filesystem::path& pcap, const OusterMetadata& metadata,
                          const FrameSink& sink, CaptureStats* stats = nullptr);

// All frames of a capture (ForEachOusterFrame into a vector).
// The same for packets from any source (a bag's packet topic: PacketSource).
Status ForEachOusterFrame(const PacketSource& packets, const OusterMetadata& metadata,
                          const FrameSink& sink, CaptureStats* stats = nullptr);

Expected<std::vector<Frame>> ReadOusterPcap(const std::filesystem::path& pcap,
                                            const OusterMetadata& metadata,
                                            CaptureStats* stats = nullptr);

}  // namespace lt
