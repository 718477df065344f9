#include "velodyne_xml.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string_view>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/message_text.h"
#include "lidartwin/physics/units.h"

namespace lt {
namespace {

// Lasers a file may list: the most a Velodyne has is 128; VeloView's tables have 64 slots.
constexpr size_t kMaxLasers = 256;

// A part of the text: [begin, end).
struct Span {
  size_t begin = 0, end = 0;
};

class XmlText {
 public:
  XmlText(const std::string& text, const std::filesystem::path& file) : t_(text), file_(file) {}

  // The content of the first element `tag` within `in` at or after `from`, or nullopt. Every
  // search stays within `in` (a search to the file's end for each laser's absent tag made a
  // hostile file's reading quadratic).
  std::optional<Span> Element(const std::string& tag, Span in, size_t* after = nullptr) const {
    const std::string_view text = std::string_view(t_).substr(0, in.end);
    size_t at = in.begin;
    while (true) {
      at = text.find("<" + tag, at);
      if (at == std::string::npos) return std::nullopt;
      const size_t name_end = at + 1 + tag.size();
      if (name_end < t_.size() &&
          (t_[name_end] == '>' || t_[name_end] == ' ' || t_[name_end] == '\t' ||
           t_[name_end] == '\n' || t_[name_end] == '\r'))
        break;
      at = name_end;
    }
    const size_t open_end = text.find('>', at);
    const size_t close = text.find("</" + tag + ">", at);
    if (open_end == std::string::npos || close == std::string::npos || open_end > close)
      return std::nullopt;
    if (after) *after = close + tag.size() + 3;
    return Span{open_end + 1, close};
  }

  // Every element `tag` directly in sequence within `in`.
  std::vector<Span> Elements(const std::string& tag, Span in) const {
    std::vector<Span> out;
    size_t after = in.begin;
    while (out.size() <= kMaxLasers * 4) {
      const auto e = Element(tag, {after, in.end}, &after);
      if (!e) break;
      out.push_back(*e);
    }
    return out;
  }

  Expected<double> Number(const std::string& tag, Span in) const {
    const auto e = Element(tag, in);
    if (!e) return Error{Where(in.begin) + ": no <" + tag + "> element"};
    auto v = Decimal(*e);
    if (!v) {
      const std::string s = t_.substr(e->begin, std::min<size_t>(e->end - e->begin, 40));
      return Error{Where(e->begin) + ": <" + tag + "> holds '" + ShortenedForMessage(s) +
                   "', not a decimal number"};
    }
    return *v;
  }

  // The decimal number an element holds (blanks around it aside; no hex, inf or nan).
  std::optional<double> Decimal(Span e) const {
    std::string s = t_.substr(e.begin, e.end - e.begin);
    s.erase(0, s.find_first_not_of(" \t\r\n"));
    s.erase(s.find_last_not_of(" \t\r\n") + 1);
    if (s.empty() || s.find_first_not_of("0123456789+-.eE") != std::string::npos)
      return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
  }

  // The numbers of a list element's <item>s (enabled_, minIntensity_): empty if it is absent.
  Expected<std::vector<double>> List(const std::string& tag, Span in) const {
    std::vector<double> out;
    const auto e = Element(tag, in);
    if (!e) return out;
    for (const Span& item : Elements("item", *e)) {
      const auto v = Decimal(item);
      if (!v) return Error{Where(item.begin) + ": an <item> of <" + tag + "> is not a number"};
      out.push_back(*v);
    }
    return out;
  }

  std::string Where(size_t offset) const {
    const size_t line =
        1 + static_cast<size_t>(
                std::count(t_.begin(), t_.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
    return file_.string() + ": line " + std::to_string(line);
  }

  Span All() const { return {0, t_.size()}; }

 private:
  const std::string& t_;
  const std::filesystem::path& file_;
};

}  // namespace

Expected<VelodyneCalibration> ParseVelodyneXml(const std::string& text,
                                               const std::filesystem::path& file) {
  const XmlText xml(text, file);
  const auto db = xml.Element("DB", xml.All());
  if (!db) {
    const size_t open = text.find("<DB");
    if (open != std::string::npos)
      return Error{xml.Where(open) + ": <DB> is never closed (a file cut short?)"};
    return Error{file.string() + ": no <DB> element (not a Velodyne db.xml calibration)"};
  }
  VelodyneCalibration c;
  c.file = file;
  // distLSB_ in cm (0.2 on an HDL-64E); absent: the calibration's default 2 mm.
  if (xml.Element("distLSB_", *db)) {
    auto lsb = xml.Number("distLSB_", *db);
    if (!lsb.ok()) return lsb.error();
    c.distance_resolution_m = *lsb * 0.01;
  }
  auto enabled = xml.List("enabled_", *db);
  if (!enabled.ok()) return enabled.error();
  auto min_i = xml.List("minIntensity_", *db);
  if (!min_i.ok()) return min_i.error();
  auto max_i = xml.List("maxIntensity_", *db);
  if (!max_i.ok()) return max_i.error();
  const auto points = xml.Element("points_", *db);
  if (!points) return Error{file.string() + ": no <points_> element (the lasers' corrections)"};
  const std::vector<Span> px = xml.Elements("px", *points);
  if (px.empty() || px.size() > kMaxLasers)
    return Error{xml.Where(points->begin) + ": <points_> holds " + std::to_string(px.size()) +
                 " <px> lasers (1 to " + std::to_string(kMaxLasers) + " expected)"};
  std::map<size_t, VelodyneLaser> by_id;
  for (const Span& p : px) {
    auto id = xml.Number("id_", p);
    if (!id.ok()) return id.error();
    if (!(*id >= 0 && *id < static_cast<double>(kMaxLasers) && *id == std::floor(*id)))
      return Error{xml.Where(p.begin) + ": <id_> " + NumberText(*id) + " is not a laser number"};
    const size_t n = static_cast<size_t>(*id);
    if (n < enabled->size() && (*enabled)[n] != 0 && (*enabled)[n] != 1)
      return Error{xml.Where(p.begin) + ": laser " + std::to_string(n) + "'s <enabled_> item is " +
                   NumberText((*enabled)[n]) + " (0 or 1 expected)"};
    if (n < enabled->size() && (*enabled)[n] == 0) continue;
    VelodyneLaser l;
    // Degrees and centimetres as the manual gives them.
    const std::pair<const char*, double*> fields[] = {{"rotCorrection_", &l.rot_correction_rad},
                                                      {"vertCorrection_", &l.vert_correction_rad},
                                                      {"distCorrection_", &l.dist_correction_m},
                                                      {"distCorrectionX_", &l.dist_correction_x_m},
                                                      {"distCorrectionY_", &l.dist_correction_y_m},
                                                      {"vertOffsetCorrection_", &l.vert_offset_m},
                                                      {"horizOffsetCorrection_", &l.horiz_offset_m},
                                                      {"focalDistance_", &l.focal_distance_m},
                                                      {"focalSlope_", &l.focal_slope}};
    for (const auto& [tag, value] : fields) {
      const bool optional =
          std::string(tag) != "rotCorrection_" && std::string(tag) != "vertCorrection_";
      if (optional && !xml.Element(tag, p)) continue;
      auto v = xml.Number(tag, p);
      if (!v.ok()) return v.error();
      *value = *v;
    }
    l.rot_correction_rad *= physics::kDegToRad;
    l.vert_correction_rad *= physics::kDegToRad;
    if (!xml.Element("distCorrectionX_", p)) l.dist_correction_x_m = l.dist_correction_m;
    if (!xml.Element("distCorrectionY_", p)) l.dist_correction_y_m = l.dist_correction_m;
    l.two_point = l.dist_correction_x_m != 0 || l.dist_correction_y_m != 0;
    for (double* cm : {&l.dist_correction_m, &l.dist_correction_x_m, &l.dist_correction_y_m,
                       &l.vert_offset_m, &l.horiz_offset_m, &l.focal_distance_m})
      *cm *= 0.01;
    if (n < min_i->size()) l.min_intensity = (*min_i)[n];
    if (n < max_i->size()) l.max_intensity = (*max_i)[n];
    if (!by_id.emplace(n, l).second)
      return Error{xml.Where(p.begin) + ": laser " + std::to_string(n) + " appears twice"};
  }
  size_t expected = 0;
  for (const auto& [id, laser] : by_id) {
    if (id != expected)
      return Error{file.string() + ": the enabled lasers are not numbered 0.." +
                   std::to_string(by_id.size() - 1) + " (laser " + std::to_string(expected) +
                   " is missing or disabled)"};
    c.lasers.push_back(laser);
    ++expected;
  }
  if (c.lasers.empty()) return Error{file.string() + ": no enabled laser"};
  return c;
}

}  // namespace lt
