// viewer/: the document the page is given (issue 13). Its encoding against the quantisation it
// promises (viewer/DOCUMENT.md), the partners against the compare library's pairs, the page's
// base64 against RFC 4648's vectors.
#include <gtest/gtest.h>

#include <zlib.h>
#include <cmath>
#include <cstring>

#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <tuple>

#include "lidartwin/viewer/document_codec.h"
#include "lidartwin/viewer/viewer_document.h"
#include "ring_frame.h"

namespace lt::viewer {
namespace {

using test_frames::RingFrame;

ViewerDocument TwoFrameDocument() {
  compare::LoadedComparison loaded;
  loaded.real.reader = "hdf5";
  loaded.sim.reader = "hdf5";
  loaded.real.frames = {RingFrame(1, 16, 256, 0.05), RingFrame(2, 16, 256, 0.05)};
  loaded.sim.frames = {RingFrame(3, 16, 256, 0.05), RingFrame(4, 16, 256, 0.05)};
  loaded.options.association.method = compare::AssociationMethod::kBeam;
  compare::Target box;
  box.name = "box";
  box.box_to_sensor.translation = {8, 0, 0};
  box.half_size_m = {1, 2, 0.5};
  loaded.options.targets = {box};
  compare::CompareInputs in;
  in.real_file = "real.h5";
  in.sim_file = "sim.h5";
  in.real_frames = {5, 9};
  in.sim_frames = {0, 1};
  auto doc = BuildViewerDocument(loaded, in);
  EXPECT_TRUE(doc.ok()) << doc.message();
  return *doc;
}

TEST(ViewerQuantisers, AgainstHandWorkedValues) {
  EXPECT_EQ(QuantiseMm(1.2344), 1234);
  EXPECT_EQ(QuantiseMm(-1.2346), -1235);
  EXPECT_EQ(QuantiseMm(1e12), INT32_MAX);  // clamped, never wrapped
  EXPECT_EQ(Quantise100ns(0.1), 1000000);
  // 12 significant bits: whole numbers to 4096 are exact; 4097 lies halfway between 4096 and
  // 4098 and goes away from zero, 8191 to 8192; the relative error stays within 2^-12.
  EXPECT_EQ(RoundTo12Bits(4095.0f), 4095.0f);
  EXPECT_EQ(RoundTo12Bits(4097.0f), 4098.0f);
  EXPECT_EQ(RoundTo12Bits(-4097.0f), -4098.0f);
  EXPECT_EQ(RoundTo12Bits(8191.0f), 8192.0f);
  EXPECT_EQ(RoundTo12Bits(0.0f), 0.0f);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1e5f, 1e5f);
  for (int i = 0; i < 10000; ++i) {
    const float v = u(rng);
    EXPECT_LE(std::fabs(RoundTo12Bits(v) - v), std::fabs(v) * std::ldexp(1.0f, -12)) << v;
  }
}

TEST(ViewerDocument, PartnersAreTheComparePairsAndRoisAreMeasuredPerFrame) {
  const ViewerDocument doc = TwoFrameDocument();
  ASSERT_EQ(doc.frames.size(), 2u);
  EXPECT_EQ(doc.frames[1].real_index, 9u);
  EXPECT_EQ(doc.frames[1].label, "real frame 9, sim frame 1");
  EXPECT_EQ(doc.association_method, "beam");
  for (const ViewerFrame& f : doc.frames) {
    // Beam association pairs exactly the (channel, column, return) both frames returned.
    const compare::FramePairing& p = f.pairing;
    std::set<std::tuple<int, int, int>> real_beams, sim_beams;
    for (size_t i = 0; i < p.real.size(); ++i)
      real_beams.insert({p.real.channel[i], p.real.column[i], p.real.return_index[i]});
    for (size_t i = 0; i < p.sim.size(); ++i)
      sim_beams.insert({p.sim.channel[i], p.sim.column[i], p.sim.return_index[i]});
    size_t common = 0;
    for (const auto& b : real_beams)
      common += sim_beams.count(b);
    EXPECT_EQ(p.association.pairs.size(), common);
    ASSERT_EQ(f.rois.size(), 1u);
    size_t inside = 0;
    for (size_t i = 0; i < p.real.size(); ++i)
      inside += doc.targets[0].Contains(p.real.x_m[i], p.real.y_m[i], p.real.z_m[i]);
    EXPECT_EQ(f.rois[0].n_real, inside);
    EXPECT_GT(inside, 0u);
    EXPECT_TRUE(f.real_fields.material && f.real_fields.time && f.sim_fields.instance);
  }
}

TEST(DocumentCodec, RoundTripsEveryColumnWithinItsStatedQuantisation) {
  const ViewerDocument doc = TwoFrameDocument();
  auto bytes = EncodeViewerDocument(doc);
  ASSERT_TRUE(bytes.ok()) << bytes.message();
  auto decoded = DecodeViewerDocument(*bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.message();
  ASSERT_EQ(decoded->frames.size(), 2u);
  const auto header = nlohmann::json::parse(decoded->header_json);
  EXPECT_EQ(header["frames"][1]["real_index"], 9);
  EXPECT_EQ(header["targets"][0]["name"], "box");
  for (size_t k = 0; k < 2; ++k) {
    const compare::FramePairing& p = doc.frames[k].pairing;
    for (const char* side : {"real", "sim"}) {
      const Frame& f = std::strcmp(side, "real") == 0 ? p.real : p.sim;
      const auto& c = decoded->frames[k].at(side);
      ASSERT_EQ(c.at("x").size(), f.size());
      const double t0 = *std::min_element(f.timestamp_s.begin(), f.timestamp_s.end());
      for (size_t i = 0; i < f.size(); ++i) {
        // 1 mm steps: at most half a step off (plus float rounding of the metres).
        EXPECT_NEAR(c.at("x")[i], f.x_m[i], 0.5e-3 + 1e-6);
        EXPECT_NEAR(c.at("z")[i], f.z_m[i], 0.5e-3 + 1e-6);
        EXPECT_NEAR(c.at("range")[i], f.range_m[i], 0.5e-3 + 1e-6);
        EXPECT_NEAR(c.at("intensity")[i], f.intensity[i], std::fabs(f.intensity[i]) / 4096);
        EXPECT_NEAR(c.at("time")[i], f.timestamp_s[i] - t0, 0.5e-7 + 1e-9);
        EXPECT_EQ(c.at("channel")[i], f.channel[i]);
        EXPECT_EQ(c.at("column")[i], f.column[i]);
        EXPECT_EQ(c.at("instance")[i], f.instance_id[i]);
        EXPECT_EQ(c.at("return_index")[i], f.return_index[i]);
      }
      const auto& in_file = std::strcmp(side, "real") == 0 ? p.real_in_file : p.sim_in_file;
      for (size_t i = 0; i < in_file.size(); ++i)
        EXPECT_EQ(c.at("index_in_file")[i], in_file[i]);
    }
    // Partners: -1 or the pair's other index, both ways.
    std::vector<double> real_partner(p.real.size(), -1), sim_partner(p.sim.size(), -1);
    for (auto [ri, si] : p.association.pairs) {
      real_partner[ri] = si;
      sim_partner[si] = ri;
    }
    EXPECT_EQ(decoded->frames[k].at("real").at("partner"), real_partner);
    EXPECT_EQ(decoded->frames[k].at("sim").at("partner"), sim_partner);
  }
}

TEST(DocumentCodec, ChannelPredictionMakesRingDataSmall) {
  // 16 x 256 points a side, 2 frames: 16,384 points of 15 columns; deflated planes of
  // ring-predicted millimetres take a few bytes a point (the raw floats would take 60).
  const ViewerDocument doc = TwoFrameDocument();
  auto bytes = EncodeViewerDocument(doc);
  ASSERT_TRUE(bytes.ok());
  size_t points = 0;
  for (const ViewerFrame& f : doc.frames)
    points += f.pairing.real.size() + f.pairing.sim.size();
  EXPECT_LT(static_cast<double>(bytes->size()) / points, 12.0);
}

TEST(DocumentCodec, DamagedBytesAreErrorsNotCrashes) {
  auto bytes = EncodeViewerDocument(TwoFrameDocument());
  ASSERT_TRUE(bytes.ok());
  EXPECT_FALSE(DecodeViewerDocument("not zlib at all").ok());
  EXPECT_FALSE(DecodeViewerDocument(bytes->substr(0, bytes->size() / 2)).ok());
  std::string flipped = *bytes;
  flipped[flipped.size() / 3] ^= 0x5A;
  EXPECT_FALSE(DecodeViewerDocument(flipped).ok());  // zlib's checksum catches it
}

// Found by the hostile review: a column count of 2^62 wrapped the bounds check (4 n), and a
// header of the wrong shape threw through the API.
TEST(DocumentCodec, HostileHeadersAreErrors) {
  auto pack = [](const std::string& header) {
    std::string raw = "LTVD";
    for (uint32_t v : {kDocumentFormatVersion, static_cast<uint32_t>(header.size())})
      for (int b = 0; b < 4; ++b)
        raw.push_back(static_cast<char>((v >> (8 * b)) & 0xFF));
    raw += header;
    raw += std::string(64, '\0');
    uLongf size = compressBound(raw.size());
    std::string out(size, '\0');
    compress2(reinterpret_cast<Bytef*>(out.data()), &size,
              reinterpret_cast<const Bytef*>(raw.data()), raw.size(), 6);
    out.resize(size);
    return out;
  };
  const std::string column =
      R"({"name":"x","quant":"mm","predictor":"previous","offset":0,"count":COUNT})";
  auto frame = [&](const std::string& count) {
    std::string c = column;
    c.replace(c.find("COUNT"), 5, count);
    return R"({"frames":[{"real":{"count":1,"columns":[)" + c +
           R"(]},"sim":{"count":0,"columns":[]}}]})";
  };
  for (const std::string& header :
       {frame("4611686018427387904"), frame("\"1\""), std::string(R"({"frames":[{"sim":{}}]})"),
        std::string(R"({"frames":[{"real":{"columns":[{"name":"x"}]}}]})"),
        std::string(R"({"frames":7})")}) {
    auto decoded = DecodeViewerDocument(pack(header));
    EXPECT_FALSE(decoded.ok()) << header;
  }
  EXPECT_TRUE(DecodeViewerDocument(pack(frame("16"))).ok());  // 64 bytes hold 16 words
}

}  // namespace
}  // namespace lt::viewer
