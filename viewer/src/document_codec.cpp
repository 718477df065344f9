#include "lidartwin/viewer/document_codec.h"

#include <fmt/core.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

namespace lt::viewer {
namespace {

using nlohmann::json;

constexpr char kMagic[4] = {'L', 'T', 'V', 'D'};

// How a column's words are turned back into values (the page's decoder switches on these).
enum class Quant { kMm, kFloat12, kTime100ns, kInteger };
const char* QuantName(Quant q) {
  switch (q) {
    case Quant::kMm:
      return "mm";
    case Quant::kFloat12:
      return "f12";
    case Quant::kTime100ns:
      return "t100ns";
    case Quant::kInteger:
      return "int";
  }
  return "";
}

// Delta coding: against the previous point of the same channel (rings of a spinning sensor
// are smooth along the ring, not from one laser to the next) or against the previous point.
enum class Predictor { kNone, kPrevious, kChannel };
const char* PredictorName(Predictor p) {
  switch (p) {
    case Predictor::kNone:
      return "none";
    case Predictor::kPrevious:
      return "previous";
    case Predictor::kChannel:
      return "channel";
  }
  return "";
}

uint32_t ZigZag(uint32_t delta) {
  const int32_t d = static_cast<int32_t>(delta);
  return (static_cast<uint32_t>(d) << 1) ^ static_cast<uint32_t>(d >> 31);
}
uint32_t UnZigZag(uint32_t z) {
  return (z >> 1) ^ (0u - (z & 1u));
}

// Encoding turns values into residuals: zig-zag(value - prediction), so that small negative
// steps are small numbers (wrapping 32-bit arithmetic); decoding turns residuals back into
// values. The prediction is the previous value, or with kChannel the previous value of the
// same channel (a channel's first point: the previous value); both directions predict from
// values already known, so they agree.
std::vector<uint32_t> ApplyPredictor(const std::vector<uint32_t>& in, Predictor p,
                                     const std::vector<uint16_t>& channel, bool encode) {
  if (p == Predictor::kNone) return in;
  std::vector<uint32_t> out(in.size());
  std::vector<uint32_t> last_of_channel;
  std::vector<bool> seen;
  if (p == Predictor::kChannel) {
    last_of_channel.assign(65536, 0);
    seen.assign(65536, false);
  }
  uint32_t previous = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    uint32_t prediction = previous;
    if (p == Predictor::kChannel && seen[channel[i]]) prediction = last_of_channel[channel[i]];
    const uint32_t value = encode ? in[i] : UnZigZag(in[i]) + prediction;
    out[i] = encode ? ZigZag(value - prediction) : value;
    previous = value;
    if (p == Predictor::kChannel) {
      last_of_channel[channel[i]] = value;
      seen[channel[i]] = true;
    }
  }
  return out;
}

// Byte planes: all first bytes, then all second bytes ...: the high bytes of small residuals
// are runs of zeros that deflate to almost nothing.
void AppendPlanes(const std::vector<uint32_t>& words, std::string& out) {
  const size_t n = words.size(), at = out.size();
  out.resize(at + 4 * n);
  for (size_t b = 0; b < 4; ++b)
    for (size_t i = 0; i < n; ++i)
      out[at + b * n + i] = static_cast<char>((words[i] >> (8 * b)) & 0xFF);
}

struct ColumnWriter {
  std::string& payload;
  const std::vector<uint16_t>& channel;  // empty: no channel, kChannel becomes kPrevious
  json columns = json::array();

  void Add(const char* name, const std::vector<uint32_t>& words, Quant q, Predictor p) {
    if (p == Predictor::kChannel && channel.size() != words.size()) p = Predictor::kPrevious;
    const size_t offset = payload.size();
    AppendPlanes(ApplyPredictor(words, p, channel, true), payload);
    columns.push_back({{"name", name},
                       {"quant", QuantName(q)},
                       {"predictor", PredictorName(p)},
                       {"offset", offset},
                       {"count", words.size()}});
  }
};

template <typename T, typename F>
std::vector<uint32_t> Words(const std::vector<T>& values, F&& quantise) {
  std::vector<uint32_t> w(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    w[i] = quantise(values[i]);
  return w;
}

uint32_t FloatBits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return bits;
}

json CloudColumns(const Frame& f, const PresentFields& present, const std::vector<int32_t>& partner,
                  const std::vector<uint32_t>& in_file, std::string& payload) {
  const std::vector<uint16_t> no_channel;
  ColumnWriter w{payload, present.channel ? f.channel : no_channel};
  auto mm = [](float v) { return static_cast<uint32_t>(QuantiseMm(v)); };
  auto f12 = [](float v) { return FloatBits(RoundTo12Bits(v)); };
  auto integer = [](auto v) { return static_cast<uint32_t>(v); };
  // The channel first: the decoder needs it to undo the channel predictor of the next four.
  if (present.channel)
    w.Add("channel", Words(f.channel, integer), Quant::kInteger, Predictor::kPrevious);
  w.Add("x", Words(f.x_m, mm), Quant::kMm, Predictor::kChannel);
  w.Add("y", Words(f.y_m, mm), Quant::kMm, Predictor::kChannel);
  w.Add("z", Words(f.z_m, mm), Quant::kMm, Predictor::kChannel);
  w.Add("range", Words(f.range_m, mm), Quant::kMm, Predictor::kChannel);
  if (present.intensity)
    w.Add("intensity", Words(f.intensity, f12), Quant::kFloat12, Predictor::kNone);
  if (present.reflectance)
    w.Add("reflectance", Words(f.reflectance, f12), Quant::kFloat12, Predictor::kNone);
  if (present.column)
    w.Add("column", Words(f.column, integer), Quant::kInteger, Predictor::kPrevious);
  if (present.time && f.size() > 0) {
    const double t0 = *std::min_element(f.timestamp_s.begin(), f.timestamp_s.end());
    w.Add("time",
          Words(f.timestamp_s,
                [&](double t) { return static_cast<uint32_t>(Quantise100ns(t - t0)); }),
          Quant::kTime100ns, Predictor::kPrevious);
  }
  if (present.return_index)
    w.Add("return_index", Words(f.return_index, integer), Quant::kInteger, Predictor::kPrevious);
  if (present.material)
    w.Add("material", Words(f.material_id, integer), Quant::kInteger, Predictor::kPrevious);
  if (present.instance)
    w.Add("instance", Words(f.instance_id, integer), Quant::kInteger, Predictor::kPrevious);
  if (present.semantic)
    w.Add("semantic", Words(f.semantic_class, integer), Quant::kInteger, Predictor::kPrevious);
  w.Add("partner", Words(partner, integer), Quant::kInteger, Predictor::kPrevious);
  w.Add("index_in_file", in_file, Quant::kInteger, Predictor::kPrevious);
  return {{"count", f.size()}, {"columns", std::move(w.columns)}};
}

json Number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

json TargetJson(const compare::Target& t) {
  const auto& q = t.box_to_sensor.rotation;
  const auto& c = t.box_to_sensor.translation;
  return {{"name", t.name},
          {"material", t.material},
          {"centre", {c.x, c.y, c.z}},
          {"half_size", t.half_size_m},
          {"rotation", {q.w, q.x, q.y, q.z}}};
}

json RoiJson(const compare::TargetMetrics& m) {
  return {{"n_real", m.n_real},
          {"n_sim", m.n_sim},
          {"i_mean_real", Number(m.i_mean_real)},
          {"i_mean_sim", Number(m.i_mean_sim)},
          {"d_mean_real", Number(m.d_mean_real)},
          {"d_mean_sim", Number(m.d_mean_sim)}};
}

json SourceJson(const ViewerSource& s) {
  return {{"file", s.file},
          {"reader", s.reader},
          {"sensor", s.sensor},
          {"intensity_unit", s.intensity_unit}};
}

void PutU32(std::string& out, uint32_t v) {
  for (int b = 0; b < 4; ++b)
    out.push_back(static_cast<char>((v >> (8 * b)) & 0xFF));
}
uint32_t GetU32(const std::string& in, size_t at) {
  uint32_t v = 0;
  for (int b = 0; b < 4; ++b)
    v |= static_cast<uint32_t>(static_cast<unsigned char>(in[at + b])) << (8 * b);
  return v;
}

Expected<std::string> Deflate(const std::string& raw) {
  uLongf size = compressBound(raw.size());
  std::string out(size, '\0');
  const int rc = compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                           reinterpret_cast<const Bytef*>(raw.data()), raw.size(), 6);
  if (rc != Z_OK) return Error{fmt::format("viewer document: zlib compress2 failed ({})", rc)};
  out.resize(size);
  return out;
}

// Inflates at most max_bytes (a corrupt or hostile stream must not claim all memory).
Expected<std::string> Inflate(const std::string& in, size_t max_bytes) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return Error{"viewer document: zlib inflateInit failed"};
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buffer[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      return Error{fmt::format("viewer document: not a zlib stream or truncated at byte {} ({})",
                               z.total_in, rc)};
    }
    out.append(buffer, sizeof buffer - z.avail_out);
    if (out.size() > max_bytes) {
      inflateEnd(&z);
      return Error{fmt::format("viewer document: inflates to more than {} bytes", max_bytes)};
    }
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
      inflateEnd(&z);
      return Error{fmt::format("viewer document: truncated after {} bytes", in.size())};
    }
  }
  inflateEnd(&z);
  return out;
}

}  // namespace

int32_t QuantiseMm(double metres) {
  const double mm = std::round(metres * 1000.0);
  constexpr double kLimit = std::numeric_limits<int32_t>::max();
  return static_cast<int32_t>(std::clamp(mm, -kLimit, kLimit));  // +-2147 km: no lidar's
}

float RoundTo12Bits(float v) {
  if (!std::isfinite(v)) return v;
  uint32_t bits = FloatBits(v);
  bits = (bits + 0x800u) & ~0xFFFu;  // round the 23-bit mantissa to 11 bits, half away from 0
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

int32_t Quantise100ns(double seconds) {
  const double steps = std::round(seconds * 1e7);
  constexpr double kLimit = std::numeric_limits<int32_t>::max();  // 214 s within one frame
  return static_cast<int32_t>(std::clamp(steps, -kLimit, kLimit));
}

Expected<EncodedComparison> EncodeComparison(const compare::CompareInputs& in,
                                             const MeshLoader& meshes) {
  auto doc = LoadViewerDocument(in, meshes);
  if (!doc.ok()) return doc.error();
  uint64_t real = 0, sim = 0;
  for (const ViewerFrame& f : doc->frames) {
    real += f.pairing.real.size();
    sim += f.pairing.sim.size();
  }
  auto bytes = EncodeViewerDocument(*doc);
  if (!bytes.ok()) return bytes.error();
  return EncodedComparison{
      std::move(*bytes),
      fmt::format("{} frame pair(s), {} real and {} simulated points, paired by {}",
                  doc->frames.size(), real, sim, doc->association_method),
      doc->notes};
}

Expected<std::string> EncodeViewerDocument(const ViewerDocument& doc) {
  json header = {
      {"version", kDocumentFormatVersion},
      {"title", doc.title},
      {"real", SourceJson(doc.real)},
      {"sim", SourceJson(doc.sim)},
      {"association", {{"method", doc.association_method}, {"reason", doc.association_reason}}},
      {"materials", doc.materials},
      {"semantic_classes", doc.semantic_classes},
      {"notes", doc.notes},
      {"targets", json::array()},
      {"frames", json::array()}};
  for (const compare::Target& t : doc.targets)
    header["targets"].push_back(TargetJson(t));
  std::string payload;
  for (const ViewerFrame& f : doc.frames) {
    const compare::FramePairing& p = f.pairing;
    std::vector<int32_t> real_partner(p.real.size(), -1), sim_partner(p.sim.size(), -1);
    for (auto [ri, si] : p.association.pairs) {
      real_partner[ri] = static_cast<int32_t>(si);
      sim_partner[si] = static_cast<int32_t>(ri);
    }
    json frame = {{"label", f.label},
                  {"real_index", f.real_index},
                  {"sim_index", f.sim_index},
                  {"left_out",
                   {{"real", p.real_non_finite + p.real_no_return + p.real_too_near},
                    {"sim", p.sim_non_finite + p.sim_no_return + p.sim_too_near}}},
                  {"rois", json::array()}};
    for (const compare::TargetMetrics& m : f.rois)
      frame["rois"].push_back(RoiJson(m));
    frame["real"] = CloudColumns(p.real, f.real_fields, real_partner, p.real_in_file, payload);
    frame["sim"] = CloudColumns(p.sim, f.sim_fields, sim_partner, p.sim_in_file, payload);
    header["frames"].push_back(std::move(frame));
  }
  const std::string header_text = header.dump();
  std::string raw(kMagic, 4);
  PutU32(raw, kDocumentFormatVersion);
  PutU32(raw, static_cast<uint32_t>(header_text.size()));
  raw += header_text;
  raw += payload;
  return Deflate(raw);
}

namespace {
Expected<DecodedDocument> DecodeUnchecked(const std::string& bytes);
}  // namespace

// nlohmann's accessors throw on a missing key or a wrong type: a damaged header becomes an
// error here, never an exception across the API.
Expected<DecodedDocument> DecodeViewerDocument(const std::string& bytes) {
  try {
    return DecodeUnchecked(bytes);
  } catch (const nlohmann::json::exception& e) {
    return Error{fmt::format("viewer document: header: {}", e.what())};
  }
}

namespace {
Expected<DecodedDocument> DecodeUnchecked(const std::string& bytes) {
  // 2^25 points of at most 16 columns of 4 bytes, plus the header.
  constexpr size_t kMaxRaw = (kMaxViewerPoints * 16 * 4) + (64u << 20);
  auto raw = Inflate(bytes, kMaxRaw);
  if (!raw.ok()) return raw.error();
  if (raw->size() < 12 || raw->compare(0, 4, kMagic, 4) != 0)
    return Error{"viewer document: does not start with LTVD"};
  if (GetU32(*raw, 4) != kDocumentFormatVersion)
    return Error{fmt::format("viewer document: format version {} (this build reads {})",
                             GetU32(*raw, 4), kDocumentFormatVersion)};
  const size_t header_size = GetU32(*raw, 8);
  if (header_size > raw->size() - 12)
    return Error{fmt::format("viewer document: header of {} bytes runs past the end", header_size)};
  DecodedDocument out;
  out.header_json = raw->substr(12, header_size);
  const json header = json::parse(out.header_json, nullptr, false);
  if (header.is_discarded() || !header.contains("frames") || !header["frames"].is_array())
    return Error{"viewer document: header is not the expected JSON"};
  const size_t payload = 12 + header_size;
  for (const json& frame : header["frames"]) {
    auto& decoded = out.frames.emplace_back();
    for (const char* side : {"real", "sim"}) {
      auto& columns = decoded[side];
      std::vector<uint16_t> channel;
      for (const json& c : frame.at(side).at("columns")) {
        const std::string name = c.at("name");
        const size_t n = c.at("count"), offset = c.at("offset");
        // Divided, not multiplied: 4 n wraps for a hostile count.
        if (offset > raw->size() - payload || n > (raw->size() - payload - offset) / 4)
          return Error{fmt::format("viewer document: column {} runs past the end", name)};
        std::vector<uint32_t> residuals(n);
        for (size_t i = 0; i < n; ++i)
          for (size_t b = 0; b < 4; ++b)
            residuals[i] |= static_cast<uint32_t>(
                                static_cast<unsigned char>((*raw)[payload + offset + b * n + i]))
                            << (8 * b);
        const std::string predictor = c.at("predictor"), quant = c.at("quant");
        const Predictor p = predictor == "channel"    ? Predictor::kChannel
                            : predictor == "previous" ? Predictor::kPrevious
                                                      : Predictor::kNone;
        if (p == Predictor::kChannel && channel.size() != n)
          return Error{
              fmt::format("viewer document: column {} needs the channel column first", name)};
        const std::vector<uint32_t> words = ApplyPredictor(residuals, p, channel, false);
        std::vector<double>& values = columns[name];
        values.resize(n);
        for (size_t i = 0; i < n; ++i) {
          const int32_t s = static_cast<int32_t>(words[i]);
          if (quant == "mm")
            values[i] = s / 1000.0;
          else if (quant == "t100ns")
            values[i] = s * 1e-7;
          else if (quant == "f12") {
            float f;
            std::memcpy(&f, &words[i], 4);
            values[i] = f;
          } else if (name == "partner")
            values[i] = s;
          else
            values[i] = words[i];
        }
        if (name == "channel") channel.assign(words.begin(), words.end());
      }
    }
  }
  return out;
}

}  // namespace

}  // namespace lt::viewer
