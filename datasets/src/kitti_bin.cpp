#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "lidartwin/datasets/kitti_bin.h"
#include "lidartwin/sim/text_file.h"

namespace lt {

Expected<Frame> ReadKittiBin(const std::filesystem::path& file) {
  // Regular files only (a directory or device is refused, not streamed).
  auto bytes = ReadTextFile(file, "", UINT64_MAX);
  if (!bytes.ok()) return bytes.error();
  const std::string& b = *bytes;
  if (b.size() % 16 != 0) {
    return Error{file.string() + ": byte " + std::to_string(b.size() - b.size() % 16) +
                 ": truncated point (the file size " + std::to_string(b.size()) +
                 " is not a multiple of 16 bytes)"};
  }
  Frame f;
  const size_t n = b.size() / 16;
  f.Reserve(n);
  for (size_t i = 0; i < n; ++i) {
    float v[4];
    std::memcpy(v, b.data() + 16 * i, 16);
    if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2]) ||
        !std::isfinite(v[3])) {
      return Error{file.string() + ": byte " + std::to_string(16 * i) + ": point " +
                   std::to_string(i) + " is not finite"};
    }
    FramePoint p;
    p.x_m = v[0];
    p.y_m = v[1];
    p.z_m = v[2];
    p.range_m = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    p.reflectance = v[3];
    p.intensity = 100 * v[3];
    p.beam_id = static_cast<uint32_t>(i);
    f.Append(p);
  }
  return f;
}

}  // namespace lt
