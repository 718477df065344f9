#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/base/json_text.h"
#include "lidartwin/base/text_file.h"

#include <fmt/core.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <tuple>

namespace lt::compare {
namespace {

using nlohmann::json;

// JSON has no NaN or infinity: non-finite numbers are written as null.
json Number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

json StatsJson(const RunningStats& s) {
  return {{"n", s.n}, {"mean", Number(s.mean)}, {"std", Number(s.Std())}};
}

json ErrorJson(const ErrorStats& e) {
  return {{"signed", StatsJson(e.signed_error)}, {"abs", StatsJson(e.abs_error)}};
}

json BinJson(const BinMetrics& b, bool distance) {
  json j = {
      {"label", b.label}, {"depth_m", ErrorJson(b.depth_m)}, {"intensity", ErrorJson(b.intensity)}};
  if (distance) {
    j["lo_m"] = Number(b.lo_m);
    j["hi_m"] = Number(b.hi_m);
  }
  return j;
}

json InputsJson(const CompareInputs& in) {
  json stamps = json::array();
  for (const CompareInputs::Stamp& s : in.stamps)
    stamps.push_back({{"file", s.file}, {"bytes", s.bytes}, {"mtime_ns", s.mtime_ns}});
  return {{"real_file", in.real_file},
          {"sim_file", in.sim_file},
          {"real_sidecar", in.real_sidecar},
          {"real_format", in.real_format},
          {"real_topic", in.real_topic},
          {"real_firetimes", in.real_firetimes},
          {"real_frames", in.real_frames},
          {"sim_frames", in.sim_frames},
          {"rois_file", in.rois_file},
          {"scene_file", in.scene_file},
          {"roi_margin_m", in.roi_margin_m},
          {"associate", AssociationMethodName(in.association.method)},
          {"max_angle_deg", in.association.max_angle_deg},
          {"max_distance_m", in.association.max_distance_m},
          {"min_range_m", in.min_range_m},
          {"scene_targets", in.scene_targets},
          {"stamps", stamps}};
}

// Reading: every access goes through Reader so a missing or mistyped key names its path.
struct Reader {
  const std::string& file;
  std::string error;

  const json* At(const json& j, const std::string& key, const std::string& path) {
    if (!error.empty()) return nullptr;
    if (!j.is_object() || !j.contains(key)) {
      error = fmt::format("{}: {}{}: missing", file, path, key);
      return nullptr;
    }
    return &j.at(key);
  }
  double Num(const json& j, const std::string& key, const std::string& path) {
    const json* v = At(j, key, path);
    if (!v) return 0;
    if (v->is_null()) return NAN;
    if (!v->is_number()) {
      error = fmt::format("{}: {}{}: expected a number", file, path, key);
      return 0;
    }
    return v->get<double>();
  }
  uint64_t Count(const json& j, const std::string& key, const std::string& path) {
    const json* v = At(j, key, path);
    if (!v) return 0;
    if (!v->is_number_unsigned()) {
      error = fmt::format("{}: {}{}: expected a non-negative whole number", file, path, key);
      return 0;
    }
    return v->get<uint64_t>();
  }
  int64_t Whole(const json& j, const std::string& key, const std::string& path) {
    const json* v = At(j, key, path);
    if (!v) return 0;
    if (!v->is_number_integer()) {
      error = fmt::format("{}: {}{}: expected a whole number", file, path, key);
      return 0;
    }
    return v->get<int64_t>();
  }
  std::string Str(const json& j, const std::string& key, const std::string& path) {
    const json* v = At(j, key, path);
    if (!v) return "";
    if (!v->is_string()) {
      error = fmt::format("{}: {}{}: expected a string", file, path, key);
      return "";
    }
    return v->get<std::string>();
  }
  const json& List(const json& j, const std::string& key, const std::string& path) {
    static const json kEmpty = json::array();
    const json* v = At(j, key, path);
    if (!v) return kEmpty;
    if (!v->is_array()) {
      error = fmt::format("{}: {}{}: expected a list", file, path, key);
      return kEmpty;
    }
    return *v;
  }
  RunningStats Stats(const json& j, const std::string& key, const std::string& path) {
    const json* v = At(j, key, path);
    if (!v) return {};
    const std::string p = path + key + ".";
    const uint64_t n = Count(*v, "n", p);
    const double mean = Num(*v, "mean", p), std = Num(*v, "std", p);
    return RunningStats::FromMoments(n, std::isfinite(mean) ? mean : 0,
                                     std::isfinite(std) ? std : 0);
  }
  ErrorStats Errors(const json& j, const std::string& key, const std::string& path) {
    const json* v = At(j, key, path);
    if (!v) return {};
    const std::string p = path + key + ".";
    return {Stats(*v, "signed", p), Stats(*v, "abs", p)};
  }
  MagnitudeQuantiles Histogram(const json& j, const std::string& key, const std::string& path) {
    MagnitudeQuantiles h;
    const json* v = At(j, key, path);
    if (!v) return h;
    const std::string p = path + key + ".";
    if (Count(*v, "bins_per_decade", p) != MagnitudeQuantiles::kBinsPerDecade ||
        Num(*v, "min_m", p) != MagnitudeQuantiles::kMinMagnitude) {
      if (error.empty()) {
        error =
            fmt::format("{}: {}: bins_per_decade and min_m must be {} and {:g}", file, path + key,
                        MagnitudeQuantiles::kBinsPerDecade, MagnitudeQuantiles::kMinMagnitude);
      }
      return h;
    }
    const json* counts = At(*v, "counts", p);
    if (!counts) return h;
    constexpr int kLastBin = MagnitudeQuantiles::kDecades * MagnitudeQuantiles::kBinsPerDecade;
    for (size_t i = 0; counts->is_array() && i < counts->size(); ++i) {
      const json& pair = (*counts)[i];
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_unsigned() ||
          !pair[1].is_number_unsigned() || pair[0].get<uint64_t>() > kLastBin ||
          h.counts.count(pair[0].get<int>())) {
        error = fmt::format("{}: {}counts[{}]: expected a [bin 0..{}, count] pair, each bin once",
                            file, p, i, kLastBin);
        return {};
      }
      h.counts[pair[0].get<int>()] = pair[1].get<uint64_t>();
      h.n += pair[1].get<uint64_t>();
    }
    return h;
  }
  std::vector<uint32_t> Indices(const json& j, const std::string& key, const std::string& path) {
    std::vector<uint32_t> out;
    const json& list = List(j, key, path);
    for (size_t i = 0; i < list.size() && error.empty(); ++i) {
      if (!list[i].is_number_unsigned() || list[i].get<uint64_t>() > UINT32_MAX)
        error = fmt::format("{}: {}{}[{}]: expected a frame index", file, path, key, i);
      else
        out.push_back(list[i].get<uint32_t>());
    }
    return out;
  }
  CompareInputs Inputs(const json& j, const std::string& path) {
    CompareInputs in;
    in.real_file = Str(j, "real_file", path);
    in.sim_file = Str(j, "sim_file", path);
    in.real_sidecar = Str(j, "real_sidecar", path);
    in.real_format = Str(j, "real_format", path);
    if (j.contains("real_topic")) in.real_topic = Str(j, "real_topic", path);  // since issue 38
    if (j.contains("real_firetimes")) in.real_firetimes = Str(j, "real_firetimes", path);
    in.real_frames = Indices(j, "real_frames", path);
    in.sim_frames = Indices(j, "sim_frames", path);
    in.rois_file = Str(j, "rois_file", path);
    in.scene_file = Str(j, "scene_file", path);
    in.roi_margin_m = Num(j, "roi_margin_m", path);
    const std::string method = Str(j, "associate", path);
    if (auto m = ParseAssociationMethod(method); m.ok())
      in.association.method = *m;
    else if (error.empty())
      error = fmt::format("{}: {}associate: {}", file, path, m.message());
    in.association.max_angle_deg = Num(j, "max_angle_deg", path);
    in.association.max_distance_m = Num(j, "max_distance_m", path);
    in.min_range_m = Num(j, "min_range_m", path);
    if (const json* v = At(j, "scene_targets", path)) {
      if (v->is_boolean())
        in.scene_targets = v->get<bool>();
      else if (error.empty())
        error = fmt::format("{}: {}scene_targets: expected true or false", file, path);
    }
    const json& stamps = List(j, "stamps", path);
    for (size_t i = 0; i < stamps.size() && error.empty(); ++i) {
      const std::string p = fmt::format("{}stamps[{}].", path, i);
      in.stamps.push_back({Str(stamps[i], "file", p), Count(stamps[i], "bytes", p),
                           Whole(stamps[i], "mtime_ns", p)});
    }
    return in;
  }
  BinMetrics Bin(const json& j, const std::string& path, bool distance) {
    BinMetrics b;
    b.label = Str(j, "label", path);
    b.depth_m = Errors(j, "depth_m", path);
    b.intensity = Errors(j, "intensity", path);
    if (distance) {
      b.lo_m = Num(j, "lo_m", path);
      b.hi_m = Num(j, "hi_m", path);
      if (std::isnan(b.hi_m)) b.hi_m = INFINITY;
    }
    return b;
  }
};

}  // namespace

std::string MetricsToJson(const ComparisonMetrics& m) {
  json j;
  j["schema"] = kMetricsSchemaName;
  j["schema_version"] = kMetricsSchemaVersion;
  j["label"] = m.label;
  j["real_file"] = m.real_file;
  j["sim_file"] = m.sim_file;
  j["intensity_unit"] = {{"real", m.real_intensity_unit}, {"sim", m.sim_intensity_unit}};
  j["association"] = {{"method", m.association}, {"reason", m.association_reason}};
  j["frames"] = m.frames;
  j["real_points"] = m.real_points;
  j["sim_points"] = m.sim_points;
  j["non_finite_points"] = {{"real", m.real_non_finite}, {"sim", m.sim_non_finite}};
  j["no_return_points"] = {{"real", m.real_no_return}, {"sim", m.sim_no_return}};
  j["depth_m"] = ErrorJson(m.depth_m);
  // The |range error| histogram as [bin, count] pairs (MagnitudeQuantiles), so reports that
  // pool several files get exact quantiles of the pooled pairs.
  j["depth_abs_histogram"] = {{"bins_per_decade", MagnitudeQuantiles::kBinsPerDecade},
                              {"min_m", MagnitudeQuantiles::kMinMagnitude},
                              {"counts", json::array()}};
  for (const auto& [bin, count] : m.depth_abs_m.counts)
    j["depth_abs_histogram"]["counts"].push_back({bin, count});
  if (m.range_image_abs_m.n > 0) {  // the beams were known (metrics.h)
    j["range_image_abs_histogram"] = {{"bins_per_decade", MagnitudeQuantiles::kBinsPerDecade},
                                      {"min_m", MagnitudeQuantiles::kMinMagnitude},
                                      {"counts", json::array()}};
    for (const auto& [bin, count] : m.range_image_abs_m.counts)
      j["range_image_abs_histogram"]["counts"].push_back({bin, count});
    j["range_image_sum_sq_m2"] = m.range_image_sum_sq_m2;
  }
  j["intensity"] = ErrorJson(m.intensity);
  j["by_distance"] = json::array();
  for (const auto& b : m.by_distance)
    j["by_distance"].push_back(BinJson(b, true));
  j["by_material"] = json::array();
  for (const auto& b : m.by_material)
    j["by_material"].push_back(BinJson(b, false));
  j["targets"] = json::array();
  for (const auto& t : m.targets) {
    json tj = {{"name", t.name},
               {"material", t.material},
               {"frame", t.frame},
               {"d_gt_m", t.d_gt_m ? Number(*t.d_gt_m) : json(nullptr)},
               {"n_real", t.n_real},
               {"n_sim", t.n_sim},
               {"i_mean_real", Number(t.i_mean_real)},
               {"i_mean_sim", Number(t.i_mean_sim)},
               {"d_mean_real_m", Number(t.d_mean_real)},
               {"d_mean_sim_m", Number(t.d_mean_sim)},
               {"points", t.PointsStatus()}};
    j["targets"].push_back(std::move(tj));
  }
  j["returns"] = {{"both", m.returns.both},
                  {"real_only", m.returns.real_only},
                  {"sim_only", m.returns.sim_only}};
  if (m.returns.beams > 0) j["returns"]["beams"] = m.returns.beams;  // for the drop accuracy
  j["per_frame"] = json::array();
  for (const FrameAgreement& f : m.per_frame)
    j["per_frame"].push_back({{"pair", f.pair},
                              {"real_points", f.real_points},
                              {"sim_points", f.sim_points},
                              {"both", f.both}});
  if (m.inputs) j["inputs"] = InputsJson(*m.inputs);
  j["chamfer_m"] = {{"real_to_sim", StatsJson(m.chamfer.real_to_sim_m)},
                    {"sim_to_real", StatsJson(m.chamfer.sim_to_real_m)},
                    {"real_within_5cm_10cm", {m.chamfer.real_within[0], m.chamfer.real_within[1]}},
                    {"sim_within_5cm_10cm", {m.chamfer.sim_within[0], m.chamfer.sim_within[1]}},
                    {"real_within_sq_0_05", m.chamfer.real_within[2]},
                    {"sim_within_sq_0_05", m.chamfer.sim_within[2]}};
  if (m.waveforms.records > 0) {
    j["waveforms"] = {{"records", m.waveforms.records},
                      {"skipped", m.waveforms.skipped},
                      {"amplitude_mape", Number(m.waveforms.amplitude_mape)},
                      {"dv_rms_v", Number(m.waveforms.dv_rms_v)},
                      {"dv_max_abs_v", Number(m.waveforms.dv_max_abs_v)}};
  }
  json summary = json::object();
  for (const auto& [name, value] : Summarize({m}))
    summary[name] = Number(value);
  j["summary"] = summary;
  return j.dump(2) + "\n";
}

Expected<ComparisonMetrics> MetricsFromJson(const std::string& text, const std::string& file) {
  auto parsed = ParseJsonText(text, file);
  if (!parsed.ok()) return parsed.error();
  json j = std::move(parsed.value());
  if (!j.is_object()) return Error{fmt::format("{}: not a JSON object", file)};
  Reader rd{file, {}};
  if (rd.Str(j, "schema", "") != kMetricsSchemaName && rd.error.empty())
    return Error{fmt::format("{}: schema: expected '{}'", file, kMetricsSchemaName)};
  const double version = rd.Num(j, "schema_version", "");
  if (rd.error.empty() && version != kMetricsSchemaVersion)
    return Error{fmt::format("{}: schema_version: {} is not supported (this build reads {})", file,
                             version, kMetricsSchemaVersion)};
  ComparisonMetrics m;
  m.label = rd.Str(j, "label", "");
  m.real_file = rd.Str(j, "real_file", "");
  m.sim_file = rd.Str(j, "sim_file", "");
  // Optional: files written before units were carried have none.
  if (j.contains("intensity_unit")) {
    if (const json* u = rd.At(j, "intensity_unit", "")) {
      m.real_intensity_unit = rd.Str(*u, "real", "intensity_unit.");
      m.sim_intensity_unit = rd.Str(*u, "sim", "intensity_unit.");
    }
  }
  if (const json* a = rd.At(j, "association", "")) {
    m.association = rd.Str(*a, "method", "association.");
    m.association_reason = rd.Str(*a, "reason", "association.");
  }
  m.frames = static_cast<uint32_t>(rd.Count(j, "frames", ""));
  m.real_points = rd.Count(j, "real_points", "");
  m.sim_points = rd.Count(j, "sim_points", "");
  // Optional: files written before the count existed have none.
  if (j.contains("non_finite_points")) {
    if (const json* d = rd.At(j, "non_finite_points", "")) {
      m.real_non_finite = rd.Count(*d, "real", "non_finite_points.");
      m.sim_non_finite = rd.Count(*d, "sim", "non_finite_points.");
    }
  }
  if (j.contains("no_return_points")) {  // absent from files of before issue 36
    if (const json* d = rd.At(j, "no_return_points", "")) {
      m.real_no_return = rd.Count(*d, "real", "no_return_points.");
      m.sim_no_return = rd.Count(*d, "sim", "no_return_points.");
    }
  }
  m.depth_m = rd.Errors(j, "depth_m", "");
  if (j.contains("depth_abs_histogram")) {  // absent from files of before issue 12
    m.depth_abs_m = rd.Histogram(j, "depth_abs_histogram", "");
  }
  if (j.contains("range_image_abs_histogram")) {  // absent where the beams were not known
    m.range_image_abs_m = rd.Histogram(j, "range_image_abs_histogram", "");
    m.range_image_sum_sq_m2 = rd.Num(j, "range_image_sum_sq_m2", "");
    if (!(m.range_image_sum_sq_m2 >= 0) && rd.error.empty())
      rd.error = rd.file + ": range_image_sum_sq_m2: expected a number >= 0";
  }
  m.intensity = rd.Errors(j, "intensity", "");
  const json& dist = rd.List(j, "by_distance", "");
  for (size_t i = 0; i < dist.size(); ++i)
    m.by_distance.push_back(rd.Bin(dist[i], fmt::format("by_distance[{}].", i), true));
  const json& mat = rd.List(j, "by_material", "");
  for (size_t i = 0; i < mat.size(); ++i)
    m.by_material.push_back(rd.Bin(mat[i], fmt::format("by_material[{}].", i), false));
  const json& targets = rd.List(j, "targets", "");
  for (size_t i = 0; i < targets.size(); ++i) {
    const std::string p = fmt::format("targets[{}].", i);
    const json& tj = targets[i];
    TargetMetrics t;
    t.name = rd.Str(tj, "name", p);
    t.material = rd.Str(tj, "material", p);
    t.frame = static_cast<uint32_t>(rd.Count(tj, "frame", p));
    const double d_gt = rd.Num(tj, "d_gt_m", p);
    if (std::isfinite(d_gt)) t.d_gt_m = d_gt;
    t.n_real = rd.Count(tj, "n_real", p);
    t.n_sim = rd.Count(tj, "n_sim", p);
    t.i_mean_real = rd.Num(tj, "i_mean_real", p);
    t.i_mean_sim = rd.Num(tj, "i_mean_sim", p);
    t.d_mean_real = rd.Num(tj, "d_mean_real_m", p);
    t.d_mean_sim = rd.Num(tj, "d_mean_sim_m", p);
    m.targets.push_back(std::move(t));
  }
  if (const json* r = rd.At(j, "returns", "")) {
    m.returns.both = rd.Count(*r, "both", "returns.");
    m.returns.real_only = rd.Count(*r, "real_only", "returns.");
    m.returns.sim_only = rd.Count(*r, "sim_only", "returns.");
    if (r->contains("beams")) {  // absent: beams not known (and files of before issue 12)
      m.returns.beams = rd.Count(*r, "beams", "returns.");
      if (m.returns.beams < m.returns.both + m.returns.real_only + m.returns.sim_only)
        return Error{fmt::format("{}: returns.beams: {} beams, fewer than the {} that returned",
                                 file, m.returns.beams,
                                 m.returns.both + m.returns.real_only + m.returns.sim_only)};
    }
  }
  // per_frame and inputs are absent from files of before issue 13.
  const json& frames = j.contains("per_frame") ? rd.List(j, "per_frame", "") : json::array();
  for (size_t i = 0; i < frames.size() && rd.error.empty(); ++i) {
    const std::string p = fmt::format("per_frame[{}].", i);
    FrameAgreement f;
    const uint64_t pair = rd.Count(frames[i], "pair", p);
    if (rd.error.empty() && pair >= m.frames)
      return Error{fmt::format("{}: {}pair: {} is not one of the {} frame pairs compared", file, p,
                               pair, m.frames)};
    for (const FrameAgreement& earlier : m.per_frame)
      if (rd.error.empty() && earlier.pair == pair)
        return Error{fmt::format("{}: {}pair: frame pair {} is listed twice", file, p, pair)};
    f.pair = static_cast<uint32_t>(pair);
    f.real_points = rd.Count(frames[i], "real_points", p);
    f.sim_points = rd.Count(frames[i], "sim_points", p);
    f.both = rd.Count(frames[i], "both", p);
    if (rd.error.empty() && (f.both > f.real_points || f.both > f.sim_points))
      return Error{
          fmt::format("{}: {}both: {} pairs, more than the points of one side", file, p, f.both)};
    m.per_frame.push_back(f);
  }
  if (j.contains("inputs")) {
    if (const json* in = rd.At(j, "inputs", "")) m.inputs = rd.Inputs(*in, "inputs.");
    for (const auto& [key, list] :
         {std::pair{"real_frames", m.inputs ? m.inputs->real_frames : std::vector<uint32_t>{}},
          std::pair{"sim_frames", m.inputs ? m.inputs->sim_frames : std::vector<uint32_t>{}}})
      if (rd.error.empty() && !list.empty() && list.size() != m.frames)
        return Error{fmt::format("{}: inputs.{}: {} frame(s) for {} compared frame pairs", file,
                                 key, list.size(), m.frames)};
  }
  if (j.contains("waveforms")) {  // files with voltage records (issue 15)
    if (const json* w = rd.At(j, "waveforms", "")) {
      m.waveforms.records = rd.Count(*w, "records", "waveforms.");
      m.waveforms.skipped = rd.Count(*w, "skipped", "waveforms.");
      m.waveforms.amplitude_mape = rd.Num(*w, "amplitude_mape", "waveforms.");
      m.waveforms.dv_rms_v = rd.Num(*w, "dv_rms_v", "waveforms.");
      m.waveforms.dv_max_abs_v = rd.Num(*w, "dv_max_abs_v", "waveforms.");
    }
  }
  if (const json* c = rd.At(j, "chamfer_m", "")) {
    m.chamfer.real_to_sim_m = rd.Stats(*c, "real_to_sim", "chamfer_m.");
    m.chamfer.sim_to_real_m = rd.Stats(*c, "sim_to_real", "chamfer_m.");
    // Absent from files of before issue 12 (their F-scores then read as 0).
    for (const auto& [key, within, total] :
         {std::tuple{"real_within_5cm_10cm", m.chamfer.real_within, m.chamfer.real_to_sim_m.n},
          std::tuple{"sim_within_5cm_10cm", m.chamfer.sim_within, m.chamfer.sim_to_real_m.n}}) {
      if (!c->contains(key)) continue;
      const json& pair = (*c)[key];
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_unsigned() ||
          !pair[1].is_number_unsigned() || pair[0].get<uint64_t>() > pair[1].get<uint64_t>() ||
          pair[1].get<uint64_t>() > total) {
        return Error{
            fmt::format("{}: chamfer_m.{}: expected two counts, the 5 cm one not above "
                        "the 10 cm one, neither above the {} points",
                        file, key, total)};
      }
      within[0] = pair[0].get<uint64_t>();
      within[1] = pair[1].get<uint64_t>();
    }
    // Absent from files of before issue 41 (their runs then give no such F-score).
    m.chamfer.has_squared_counts =
        c->contains("real_within_sq_0_05") && c->contains("sim_within_sq_0_05");
    for (const auto& [key, within, total] :
         {std::tuple{"real_within_sq_0_05", m.chamfer.real_within, m.chamfer.real_to_sim_m.n},
          std::tuple{"sim_within_sq_0_05", m.chamfer.sim_within, m.chamfer.sim_to_real_m.n}}) {
      if (!c->contains(key)) continue;
      const json& count = (*c)[key];
      if (!count.is_number_unsigned() || count.get<uint64_t>() < within[1] ||
          count.get<uint64_t>() > total)
        return Error{fmt::format(
            "{}: chamfer_m.{}: expected a count not below the 10 cm one nor above the {} points",
            file, key, total)};
      within[2] = count.get<uint64_t>();
    }
  }
  if (!rd.error.empty()) return Error{rd.error};
  return m;
}

Expected<ComparisonMetrics> ReadMetricsFile(const std::filesystem::path& file) {
  auto text = ReadTextFile(file);
  if (!text.ok()) return text.error();
  return MetricsFromJson(*text, file.string());
}

}  // namespace lt::compare
