// CDR as ROS 2 writes it (rosbag/cdr_reader.h): alignment counted after the encapsulation
// header, strings with their NUL, both byte orders, and counts that lie.
#include "rosbag/cdr_reader.h"

#include <gtest/gtest.h>

#include <vector>

namespace lt::ros {
namespace {

TEST(CdrReader, ReadsAlignedFieldsOfALittleEndianMessage) {
  // uint8 7, (pad 3), uint32 0x01020304, string "ab", (pad 1), uint16 5, (pad 2), double 1.5
  std::vector<uint8_t> m = {0,   1,   0, 0, 7, 0, 0, 0, 4, 3, 2, 1, 3, 0, 0,    0,
                            'a', 'b', 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f};
  m.insert(m.end() - 8, {0, 0, 0, 0});  // the double aligns to 8 from byte 4: body offset 24
  CdrReader r(m);
  EXPECT_EQ(r.U8(), 7);
  EXPECT_EQ(r.U32(), 0x01020304u);
  EXPECT_EQ(r.String(), "ab");
  EXPECT_EQ(r.U16(), 5);
  EXPECT_EQ(r.F64(), 1.5);
  EXPECT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(CdrReader, ReadsBigEndian) {
  const std::vector<uint8_t> m = {0, 0, 0, 0, 0x01, 0x02, 0x03, 0x04, 0xff, 0xff, 0xff, 0xfe};
  CdrReader r(m);
  EXPECT_EQ(r.U32(), 0x01020304u);
  EXPECT_EQ(r.I32(), -2);
  EXPECT_TRUE(r.ok());
}

TEST(CdrReader, RefusesOtherEncapsulations) {
  const std::vector<uint8_t> pl_cdr = {0, 3, 0, 0, 1, 2, 3, 4};
  CdrReader r(pl_cdr);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error().find("byte 0: encapsulation kind 0x0003"), std::string::npos) << r.error();
  CdrReader short_one(std::span<const uint8_t>(pl_cdr.data(), 3));
  EXPECT_FALSE(short_one.ok());
}

TEST(CdrReader, ACountThatCannotFitIsRefusedBeforeAnyAllocation) {
  const std::vector<uint8_t> m = {0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4};
  CdrReader r(m);
  EXPECT_EQ(r.Count(1), 0u);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error().find("byte 4: a sequence of 2147483647 elements"), std::string::npos)
      << r.error();
}

TEST(CdrReader, TheFirstFailureSticksAndNamesItsByte) {
  const std::vector<uint8_t> m = {0, 1, 0, 0, 9, 0, 0, 0, 'a', 'b'};  // a string of 9 in 2 bytes
  CdrReader r(m);
  EXPECT_EQ(r.String(), "");
  EXPECT_EQ(r.U32(), 0u);  // after a failure every read is zero
  EXPECT_EQ(r.error(), "byte 4: string of 9 bytes, only 2 left in the message");
  CdrReader bytes(m);
  bytes.U32();
  EXPECT_TRUE(bytes.Bytes(3).empty());
  EXPECT_EQ(bytes.error(), "byte 8: needs 3 bytes, only 2 left in the message");
}

}  // namespace
}  // namespace lt::ros
