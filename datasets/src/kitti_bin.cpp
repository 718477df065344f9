#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "lidartwin/datasets/kitti_bin.h"

namespace lt {

Expected<Frame> ReadKittiBin(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{file.string() + ": cannot open"};
  const std::vector<char> b((std::istreambuf_iterator<char>(in)), {});
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
    f.x_m.push_back(v[0]);
    f.y_m.push_back(v[1]);
    f.z_m.push_back(v[2]);
    f.range_m.push_back(std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    f.reflectance.push_back(v[3]);
    f.intensity.push_back(100 * v[3]);
    f.channel.push_back(0);
    f.column.push_back(0);
    f.timestamp_s.push_back(0);
    f.return_index.push_back(0);
    f.material_id.push_back(0);
    f.instance_id.push_back(0);
    f.semantic_class.push_back(0);
    f.beam_id.push_back(static_cast<uint32_t>(i));
  }
  return f;
}

}  // namespace lt
