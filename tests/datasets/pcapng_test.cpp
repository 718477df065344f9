// pcapng (datasets/capture/pcapng.h): a real capture rewritten as pcapng, in both byte orders and
// timestamp resolutions, gives the datagrams the classic pcap gives; damaged files are refused
// by the byte.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "capture_files.h"
#include "lidartwin/datasets/pcap.h"
#include "lidartwin/datasets/recording.h"
#include "test_support.h"

namespace lt {
namespace {

struct Writer {
  bool big = false;
  std::vector<uint8_t> out;
  void U16(uint16_t v) {
    for (int i = 0; i < 2; ++i)
      out.push_back(static_cast<uint8_t>(big ? v >> (8 * (1 - i)) : v >> (8 * i)));
  }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      out.push_back(static_cast<uint8_t>(big ? v >> (8 * (3 - i)) : v >> (8 * i)));
  }
  // A block: type, total length, body (padded to 4), total length.
  void Block(uint32_t type, const std::vector<uint8_t>& body) {
    std::vector<uint8_t> padded = body;
    while (padded.size() % 4)
      padded.push_back(0);
    const uint32_t length = static_cast<uint32_t>(12 + padded.size());
    U32(type);
    U32(length);
    out.insert(out.end(), padded.begin(), padded.end());
    U32(length);
  }
  std::vector<uint8_t> Body(const std::function<void(Writer&)>& fill) {
    Writer w;
    w.big = big;
    fill(w);
    return w.out;
  }
};

// The datagrams as a pcapng: a section, an Ethernet interface (nanoseconds when asked) and an
// Enhanced Packet Block each.
std::vector<uint8_t> Pcapng(const std::vector<UdpDatagram>& datagrams, bool big, bool nanos) {
  Writer w;
  w.big = big;
  w.Block(0x0A0D0D0A, w.Body([](Writer& b) {
    b.U32(0x1A2B3C4D);
    b.U16(1), b.U16(0);
    b.U32(0xffffffff), b.U32(0xffffffff);  // section length unknown
  }));
  w.Block(1, w.Body([&](Writer& b) {
    b.U16(1), b.U16(0), b.U32(262144);
    if (nanos) {
      b.U16(9), b.U16(1), b.out.push_back(9), b.out.insert(b.out.end(), {0, 0, 0});
    }
    b.U16(0), b.U16(0);
  }));
  for (const UdpDatagram& d : datagrams) {
    const auto frame = test::EthernetFrame(d);
    const uint64_t ticks =
        static_cast<uint64_t>(std::llround(d.capture_time_s * (nanos ? 1e9 : 1e6)));
    w.Block(6, w.Body([&](Writer& b) {
      b.U32(0), b.U32(static_cast<uint32_t>(ticks >> 32)), b.U32(static_cast<uint32_t>(ticks));
      b.U32(static_cast<uint32_t>(frame.size())), b.U32(static_cast<uint32_t>(frame.size()));
      b.out.insert(b.out.end(), frame.begin(), frame.end());
    }));
  }
  return w.out;
}

TEST(Pcapng, ARealCaptureRewrittenAsPcapngGivesTheSameDatagrams) {
  LT_REQUIRE_REAL_DATA();
  const auto pcap = test::RealDataDir() / "rust-lidar-utils" / "hdl32_example.pcap";
  auto classic = ReadPcapUdp(pcap);
  ASSERT_TRUE(classic.ok()) << classic.message();
  ASSERT_GT(classic->size(), 100u);
  test::TempDir dir;
  for (const bool big : {false, true}) {
    for (const bool nanos : {false, true}) {
      SCOPED_TRACE(std::string(big ? "big-endian" : "little-endian") + (nanos ? ", ns" : ", us"));
      const auto path = test::WriteBytes(dir, "c.pcapng", Pcapng(*classic, big, nanos));
      auto ng = ReadPcapUdp(path);
      ASSERT_TRUE(ng.ok()) << ng.message();
      ASSERT_EQ(ng->size(), classic->size());
      for (size_t i = 0; i < ng->size(); ++i) {
        ASSERT_EQ((*ng)[i].payload, (*classic)[i].payload) << i;
        ASSERT_EQ((*ng)[i].dst_port, (*classic)[i].dst_port);
        ASSERT_NEAR((*ng)[i].capture_time_s, (*classic)[i].capture_time_s, 1e-6);
      }
    }
  }
  // And as a recording, decoded like the classic capture.
  const auto path = test::WriteBytes(dir, "d.pcapng", Pcapng(*classic, false, false));
  const auto cal = test::RealDataDir() / "ros-velodyne" / "32db.yaml";
  auto a = ReadRecording(pcap, cal), b = ReadRecording(path, cal);
  ASSERT_TRUE(a.ok() && b.ok()) << a.message() << b.message();
  ASSERT_EQ(a->frames.size(), b->frames.size());
  EXPECT_EQ(a->frames[1].x_m, b->frames[1].x_m);
}

TEST(Pcapng, DamagedBlocksAreRefusedByTheByte) {
  UdpDatagram d;
  d.dst_port = 2368;
  d.payload.assign(100, 7);
  d.capture_time_s = 5;
  const auto good = Pcapng({d, d}, false, false);
  test::TempDir dir;
  EXPECT_TRUE(ReadPcapUdp(test::WriteBytes(dir, "ok.pcapng", good)).ok());
  // A block length that is not a multiple of 4.
  auto odd = good;
  odd[28 + 4] = 0x21;  // the interface block's length
  auto e = ReadPcapUdp(test::WriteBytes(dir, "a.pcapng", odd));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("a.pcapng: byte 32: block length"), std::string::npos) << e.message();
  // Trailing length differs from the leading one.
  auto trail = good;
  trail[28 + 24 - 4] ^= 0x04;  // the section is 28 bytes, the interface block 24
  e = ReadPcapUdp(test::WriteBytes(dir, "b.pcapng", trail));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("trailing length differs"), std::string::npos) << e.message();
  // A packet of an interface never described.
  auto iface = good;
  iface[28 + 24 + 8] = 3;
  e = ReadPcapUdp(test::WriteBytes(dir, "c.pcapng", iface));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("packet of interface 3"), std::string::npos) << e.message();
  // Cut in the last block: the earlier packets are read, the cut one is named.
  std::vector<uint8_t> cut(good.begin(), good.end() - 20);
  CaptureStats stats;
  auto some = ReadPcapUdp(test::WriteBytes(dir, "d.pcapng", cut), &stats);
  ASSERT_TRUE(some.ok()) << some.message();
  EXPECT_EQ(some->size(), 1u);
  ASSERT_FALSE(stats.warnings.empty());
  EXPECT_NE(stats.warnings[0].find("truncated last block"), std::string::npos);
  // Every truncation is an error or a shorter read, never a crash.
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> head(good.begin(), good.begin() + static_cast<long>(n));
    (void)ReadPcapUdp(test::WriteBytes(dir, "e.pcapng", head)).ok();
  }
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

TEST(Pcapng, SimpleAndObsoleteBlocksOtherLinksAndBinaryResolutions) {
  UdpDatagram d;
  d.dst_port = 2368;
  d.payload.assign(64, 9);
  const auto frame = test::EthernetFrame(d);
  Writer w;
  w.Block(0x0A0D0D0A, w.Body([](Writer& b) {
    b.U32(0x1A2B3C4D), b.U16(1), b.U16(0), b.U32(0xffffffff), b.U32(0xffffffff);
  }));
  // Interface 0: Ethernet, ticks of 2^-10 s; interface 1: Linux cooked capture (113).
  w.Block(1, w.Body([](Writer& b) {
    b.U16(1), b.U16(0), b.U32(0);
    b.U16(9), b.U16(1), b.out.push_back(0x80 | 10), b.out.insert(b.out.end(), {0, 0, 0});
    b.U16(0), b.U16(0);
  }));
  w.Block(1, w.Body([](Writer& b) { b.U16(113), b.U16(0), b.U32(0); }));
  w.Block(3, w.Body([&](Writer& b) {  // simple: no time, interface 0
    b.U32(static_cast<uint32_t>(frame.size()));
    b.out.insert(b.out.end(), frame.begin(), frame.end());
  }));
  w.Block(2, w.Body([&](Writer& b) {  // obsolete packet block, interface 0, at 2048 ticks
    b.U16(0), b.U16(0), b.U32(0), b.U32(2048);
    b.U32(static_cast<uint32_t>(frame.size())), b.U32(static_cast<uint32_t>(frame.size()));
    b.out.insert(b.out.end(), frame.begin(), frame.end());
  }));
  w.Block(6, w.Body([&](Writer& b) {  // on the cooked interface: skipped and named
    b.U32(1), b.U32(0), b.U32(0);
    b.U32(static_cast<uint32_t>(frame.size())), b.U32(static_cast<uint32_t>(frame.size()));
    b.out.insert(b.out.end(), frame.begin(), frame.end());
  }));
  w.Block(0x0BAD, w.Body([](Writer& b) { b.U32(7); }));  // a block type not read: passed over
  test::TempDir dir;
  CaptureStats stats;
  auto got = ReadPcapUdp(test::WriteBytes(dir, "mixed.pcapng", w.out), &stats);
  ASSERT_TRUE(got.ok()) << got.message();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].payload, d.payload);
  EXPECT_EQ((*got)[1].capture_time_s, 2.0);  // 2048 x 2^-10 s
  EXPECT_EQ(stats.records, 3u);
  EXPECT_EQ(stats.non_ipv4, 1u);
  ASSERT_EQ(stats.warnings.size(), 1u);
  EXPECT_NE(stats.warnings[0].find("interface 1 has link type 113, not Ethernet (1)"),
            std::string::npos)
      << stats.warnings[0];
}

}  // namespace
}  // namespace lt
