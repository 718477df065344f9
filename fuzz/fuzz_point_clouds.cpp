// libFuzzer target: the PCD, PLY and LAS parsers on arbitrary bytes (the first byte picks which).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lidartwin/datasets/las.h"
#include "lidartwin/datasets/point_cloud_readers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto frame = data[0] % 3 == 0   ? lt::ParsePcd(bytes, "fuzz.pcd")
               : data[0] % 3 == 1 ? lt::ParsePly(bytes, "fuzz.ply")
                                  : lt::ParseLas(bytes, "fuzz.las");
  (void)frame.ok();
  return 0;
}
