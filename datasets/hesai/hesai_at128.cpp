// An AT128's angle-correction file (.dat, version 1.5), as Hesai's SDK 2.0
// (libhesai/UdpParser/include/udp4_3_parser.h, PandarATCorrectionsHeader) and nebula
// (hesai_common.hpp, HesaiCorrection::load_from_bytes) read it; read, not copied. All
// little-endian:
//   0  EE FF, version major 1, minor 5, channels C, mirrors M, faces F, 8 config bytes,
//      the resolution byte
//   16 u32 face start[F], u32 face end[F], i32 azimuth[C], i32 elevation[C],
//      i8 azimuth adjust[C][180], i8 elevation adjust[C][180], 32 bytes of SHA-256
// docs/formats/hesai-answer-keys.md, "AT128".
#include <fmt/core.h>

#include <cmath>
#include <cstring>
#include <numbers>

#include "hesai/hesai_at128.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/datasets/hesai.h"

namespace lt {

Expected<HesaiCalibration> LoadHesaiAt128Correction(const std::filesystem::path& file) {
  // An AT128's file is 47,176 bytes; a few MB would be tens of thousands of channels.
  auto text = ReadTextFile(file, " Hesai angle correction", uint64_t{1} << 22);
  if (!text.ok()) return text.error();
  const auto* b = reinterpret_cast<const uint8_t*>(text->data());
  const size_t n = text->size();
  const std::string name = file.string();
  if (n < 16 || b[0] != 0xEE || b[1] != 0xFF)
    return Error{name + ": byte 0: not a Hesai angle-correction .dat (no EE FF header)"};
  if (b[2] != 1 || b[3] != 5)
    return Error{fmt::format("{}: byte 2: version {}.{} (this build reads 1.5, the AT128E2X's)",
                             name, b[2], b[3])};
  const size_t channels = b[4], mirrors = b[5], faces = b[6];
  const int resolution = b[15];
  if (channels == 0 || faces == 0 || resolution == 0)
    return Error{fmt::format("{}: byte 4: {} channels, {} faces, resolution {}", name, channels,
                             faces, resolution)};
  // The SDK reads the faces' table by the face count, nebula by the mirror count: a file where
  // they differ would be read two ways.
  if (mirrors != faces)
    return Error{fmt::format("{}: byte 5: {} mirrors but {} faces (an AT128's are equal)", name,
                             mirrors, faces)};
  constexpr size_t kSteps = HesaiMirrorCorrection::kAdjustSteps;
  const size_t need = 16 + 8 * faces + 8 * channels + 2 * kSteps * channels + 32;
  if (n != need)
    return Error{fmt::format("{}: {} bytes where {} channels and {} faces make {}", name, n,
                             channels, faces, need)};
  size_t at = 16;
  const auto u32 = [&]() {
    uint32_t v;
    std::memcpy(&v, b + at, 4);
    at += 4;
    return static_cast<int64_t>(v);
  };
  const auto i32 = [&]() {
    int32_t v;
    std::memcpy(&v, b + at, 4);
    at += 4;
    return static_cast<int64_t>(v);
  };
  HesaiMirrorCorrection m;
  for (size_t f = 0; f < faces; ++f)
    m.face_start.push_back(u32() * resolution);
  for (size_t f = 0; f < faces; ++f)
    m.face_end.push_back(u32() * resolution);
  for (size_t c = 0; c < channels; ++c)
    m.azimuth.push_back(i32() * resolution);
  for (size_t c = 0; c < channels; ++c)
    m.elevation.push_back(i32() * resolution);
  for (auto* table : {&m.azimuth_adjust, &m.elevation_adjust})
    for (size_t k = 0; k < channels * kSteps; ++k)
      table->push_back(static_cast<int32_t>(static_cast<int8_t>(b[at++])) * resolution);
  constexpr int64_t kTurn = int64_t{360} * 25600;
  for (size_t f = 0; f < faces; ++f)
    if (m.face_start[f] >= kTurn || m.face_end[f] >= kTurn)
      return Error{fmt::format("{}: byte {}: face {} spans {} to {} (1/25600 deg), beyond a turn",
                               name, 16 + 4 * f, f, m.face_start[f], m.face_end[f])};
  HesaiCalibration c;
  c.file = file;
  for (size_t k = 0; k < channels; ++k) {
    c.elevation_deg.push_back(static_cast<double>(m.elevation[k]) / 25600);
    c.azimuth_offset_deg.push_back(static_cast<double>(m.azimuth[k]) / 25600);
    if (std::abs(c.elevation_deg.back()) > 90 || std::abs(c.azimuth_offset_deg.back()) > 180)
      return Error{fmt::format("{}: channel {}: elevation {} or azimuth {} deg out of range", name,
                               k + 1, c.elevation_deg.back(), c.azimuth_offset_deg.back())};
  }
  c.mirror.push_back(std::move(m));
  return c;
}

bool At128FiringAngles(const HesaiMirrorCorrection& m, int64_t encoder, At128Firing& out) {
  constexpr int64_t kTurn = int64_t{360} * 25600, kStep = 200 * 256;
  constexpr int kSteps = HesaiMirrorCorrection::kAdjustSteps;
  const auto mod = [](int64_t v) { return ((v % kTurn) + kTurn) % kTurn; };
  size_t face = m.face_start.size();
  for (size_t f = 0; f < m.face_start.size() && face == m.face_start.size(); ++f)
    if (mod(encoder - m.face_start[f]) + mod(m.face_end[f] - encoder) ==
        mod(m.face_end[f] - m.face_start[f]))
      face = f;
  if (face == m.face_start.size()) return false;
  const int64_t step = encoder / kStep;
  const double t = static_cast<double>(encoder - step * kStep) / kStep;
  const size_t k0 = static_cast<size_t>(step % kSteps),
               k1 = static_cast<size_t>((step + 1) % kSteps);
  const size_t n = m.azimuth.size();
  out.azimuth_deg.resize(n);
  out.cos_e.resize(n);
  out.sin_e.resize(n);
  for (size_t c = 0; c < n; ++c) {
    const int32_t* az_adj = &m.azimuth_adjust[c * kSteps];
    const int32_t* el_adj = &m.elevation_adjust[c * kSteps];
    const int64_t adj_az = std::llround((1 - t) * az_adj[k0] + t * az_adj[k1]);
    const int64_t adj_el = std::llround((1 - t) * el_adj[k0] + t * el_adj[k1]);
    const int64_t az = mod((encoder - m.face_start[face]) * 2 - m.azimuth[c] + adj_az * 256);
    const int64_t el = m.elevation[c] + adj_el * 256;
    out.azimuth_deg[c] = static_cast<double>(az) / 25600;
    const float e = static_cast<float>(static_cast<double>(el) / 25600 * (std::numbers::pi / 180));
    out.cos_e[c] = std::cos(e);
    out.sin_e[c] = std::sin(e);
  }
  return true;
}

}  // namespace lt
