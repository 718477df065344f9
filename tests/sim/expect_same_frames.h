// Two frames identical field by field, bit for bit (every per-point field of FrameFields).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "lidartwin/base/frame.h"

namespace lt::test {

inline void ExpectSameFrames(const Frame& a, const Frame& b, const std::string& what) {
  const auto fa = FrameFields(a), fb = FrameFields(b);
  ASSERT_EQ(fa.size(), fb.size()) << what;
  for (size_t k = 0; k < fa.size(); ++k) {
    ASSERT_EQ(fa[k].size, fb[k].size) << fa[k].name << ", " << what;
    const size_t bytes = fa[k].type == FieldType::kFloat64  ? 8
                         : fa[k].type == FieldType::kUInt8  ? 1
                         : fa[k].type == FieldType::kUInt16 ? 2
                                                            : 4;
    EXPECT_EQ(std::memcmp(fa[k].data, fb[k].data, bytes * fa[k].size), 0)
        << fa[k].name << ", " << what;
  }
}

}  // namespace lt::test
