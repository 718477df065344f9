#include "lidartwin/sim/material_library.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "lidartwin/base/config_reader.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/physics/hermite.h"

namespace lt {

double Material::ReflectanceAt(double wavelength_nm_query) const {
  return physics::HermiteInterpolate(wavelength_nm.data(), reflectance.data(),
                                     static_cast<int>(wavelength_nm.size()), wavelength_nm_query);
}

int MaterialLibrary::Find(const std::string& name) const {
  for (size_t i = 0; i < materials.size(); ++i) {
    if (materials[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

namespace {

// Sorts samples by wavelength and averages repeated wavelengths (ASTER files list some
// ranges twice, from two instruments). The values are checked by Material::Check.
void NormaliseSpectrum(Material& m) {
  const size_t n = m.wavelength_nm.size();
  if (n == 0 || m.reflectance.size() != n) return;  // Check says so
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return m.wavelength_nm[a] < m.wavelength_nm[b]; });
  std::vector<double> w, r;
  for (size_t k = 0; k < n;) {
    size_t e = k;
    double sum = 0;
    while (e < n && m.wavelength_nm[order[e]] == m.wavelength_nm[order[k]]) {
      sum += m.reflectance[order[e]];
      ++e;
    }
    w.push_back(m.wavelength_nm[order[k]]);
    r.push_back(sum / static_cast<double>(e - k));
    k = e;
  }
  m.wavelength_nm = std::move(w);
  m.reflectance = std::move(r);
}

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

}  // namespace

Expected<Material> LoadAsterSpectrum(const std::filesystem::path& path) {
  const std::string file = path.string();
  auto text = ReadTextFile(path, " spectrum file");
  if (!text.ok()) return text.error();
  std::istringstream in(*text);
  Material m;
  m.name = path.stem().string();
  m.source = "ASTER spectral library file " + path.filename().string();
  double x_scale = 0;  // to nm
  double y_scale = 0;  // to fraction
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string t = Trim(line);
    if (t.rfind("Name:", 0) == 0) m.source += " (" + Trim(t.substr(5)) + ")";
    if (t.rfind("X Units:", 0) == 0) {
      if (t.find("micrometer") != std::string::npos)
        x_scale = 1000.0;
      else if (t.find("nanometer") != std::string::npos)
        x_scale = 1.0;
      else
        return Error{file + ":" + std::to_string(line_no) + ": unsupported X Units: " + t};
      continue;
    }
    if (t.rfind("Y Units:", 0) == 0) {
      if (t.find("percent") != std::string::npos)
        y_scale = 0.01;
      else if (t.find("fraction") != std::string::npos)
        y_scale = 1.0;
      else
        return Error{file + ":" + std::to_string(line_no) + ": unsupported Y Units: " + t};
      continue;
    }
    if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '.')) continue;
    if (x_scale == 0 || y_scale == 0) {
      return Error{file + ":" + std::to_string(line_no) +
                   ": data before the 'X Units:' and 'Y Units:' header lines"};
    }
    std::istringstream ls(t);
    double x = 0, y = 0;
    if (!(ls >> x >> y)) {
      return Error{file + ":" + std::to_string(line_no) + ": expected two numbers, got '" + t +
                   "'"};
    }
    m.wavelength_nm.push_back(x * x_scale);
    // ASTER reflectances can sit slightly below 0 or above 100 % from instrument noise;
    // clamp to the physical range.
    m.reflectance.push_back(std::clamp(y * y_scale, 0.0, 1.0));
  }
  m.spectrum_file = std::filesystem::absolute(path).lexically_normal().string();
  NormaliseSpectrum(m);
  ConfigCheck check;
  m.Check(check);
  if (!check.ok()) return Error{file + ": " + check.problem()->problem};
  return m;
}

namespace {

// The optional surface-response keys of a material (ranges: Material::Check).
void ReadSurfaceResponse(ConfigMap& entry, Material& m) {
  m.specular_albedo = entry.Number("specular_albedo", 0);
  m.specular_exponent = entry.Number("specular_exponent", m.specular_albedo > 0 ? 50 : 0);
  m.retroreflective_peak_sr = entry.Number("retroreflective_peak_sr", 0);
  m.retroreflective_max_entrance_deg =
      entry.Number("retroreflective_max_entrance_deg", m.retroreflective_peak_sr > 0 ? 60 : 0);
  m.transmittance = entry.Number("transmittance", 0);
  m.coverage = entry.Number("coverage", 1);
  m.roughness_deg = entry.Number("roughness_deg", 0);
  m.apparent = entry.Bool("apparent", false);
}

// The key whose values make up the spectrum, for messages.
std::string SpectrumKey(const Material& m, const char* list) {
  if (!m.spectrum_file.empty()) return "spectrum_file";
  if (m.wavelength_nm.size() == 1 && m.wavelength_nm[0] == kFlatSpectrumWavelengthNm)
    return "reflectance";
  return std::string("spectrum.") + list;
}

}  // namespace

void Material::Check(ConfigCheck& check) const {
  const std::string of = " (material '" + name + "')";
  if (name.empty()) check.Fail("name", "must not be empty");
  const size_t n = wavelength_nm.size();
  if (n == 0) {
    check.Fail(SpectrumKey(*this, "wavelength_nm"), "the spectrum has no samples" + of);
  } else if (reflectance.size() != n) {
    check.Fail("spectrum", "wavelength_nm has " + std::to_string(n) + " entries, reflectance " +
                               std::to_string(reflectance.size()) + of);
  }
  for (size_t i = 0; i < n && reflectance.size() == n; ++i) {
    const double w = wavelength_nm[i], r = reflectance[i];
    if (!(w > 0 && w <= 1e6)) {  // ultraviolet to the 1 mm end of the far infrared
      check.Fail(SpectrumKey(*this, "wavelength_nm"),
                 "wavelength " + NumberText(w) + " nm is not in (0, 1e6] nm" + of);
    } else if (i > 0 && !(w > wavelength_nm[i - 1])) {
      check.Fail(SpectrumKey(*this, "wavelength_nm"),
                 "wavelengths must increase strictly (" + NumberText(w) + " nm after " +
                     NumberText(wavelength_nm[i - 1]) + " nm)" + of);
    }
    // Reflectances from files may carry rounding just above 1.
    const double r_max = apparent ? kMaxApparentReflectance : 1.0;
    const std::string range = apparent ? "[0, " + NumberText(r_max) + "] (apparent)" : "[0, 1]";
    if (!(r >= 0 && r <= r_max + 1e-9)) {
      check.Fail(SpectrumKey(*this, "reflectance"),
                 n == 1 ? "must be a fraction in " + range + ", got " + NumberText(r) + of
                        : "reflectance " + NumberText(r) + " at " + NumberText(w) +
                              " nm is outside " + range + of);
    }
  }
  const auto fraction = [&](const char* key, double v, bool zero_ok) {
    if (!(v >= 0 && v <= 1) || (!zero_ok && v == 0)) {
      check.Fail(key, std::string("must be a fraction in ") + (zero_ok ? "[0, 1]" : "(0, 1]") +
                          ", got " + NumberText(v) + of);
    }
  };
  fraction("specular_albedo", specular_albedo, true);
  if (!(specular_exponent >= 0 && specular_exponent <= 1e5)) {
    check.Fail("specular_exponent",
               "must be in [0, 100000], got " + NumberText(specular_exponent) + of);
  }
  if (!(retroreflective_peak_sr >= 0 && retroreflective_peak_sr <= 1e5)) {
    check.Fail("retroreflective_peak_sr",
               "must be in [0, 100000] 1/sr (road signs: 100..1000), got " +
                   NumberText(retroreflective_peak_sr) + of);
  }
  if ((retroreflective_peak_sr > 0 || retroreflective_max_entrance_deg != 0) &&
      !(retroreflective_max_entrance_deg > 0 && retroreflective_max_entrance_deg <= 90)) {
    check.Fail("retroreflective_max_entrance_deg",
               "must be in (0, 90], got " + NumberText(retroreflective_max_entrance_deg) + of);
  }
  fraction("transmittance", transmittance, true);
  fraction("coverage", coverage, false);
  // Oren and Nayar's slopes: 0 a flat facet, 90 deg a facet standing on its edge.
  if (!(roughness_deg >= 0 && roughness_deg < 90)) {
    check.Fail("roughness_deg", "must be in [0, 90) deg, got " + NumberText(roughness_deg) + of);
  }
  // Energy: what a surface reflects diffusely and what it transmits cannot exceed what falls
  // on it.
  if (!reflectance.empty() && transmittance > 0) {
    const double r_max = *std::max_element(reflectance.begin(), reflectance.end());
    if (r_max + transmittance > 1 + 1e-12) {
      check.Fail("transmittance", "plus the reflectance (" + NumberText(r_max) +
                                      ") exceeds 1, got " + NumberText(transmittance) + of);
    }
  }
}

Status Material::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("material '" + name + "'");
}

void MaterialLibrary::Check(ConfigCheck& check) const {
  if (materials.empty()) check.Fail("materials", "the library has no materials");
  for (size_t i = 0; i < materials.size(); ++i) {
    ConfigCheck entry = check.Sub("materials", i);
    if (Find(materials[i].name) != static_cast<int>(i))
      entry.Fail("name", "duplicate material name '" + materials[i].name + "'");
    materials[i].Check(entry);
  }
}

Status MaterialLibrary::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("material library");
}

Expected<MaterialLibrary> ParseMaterialLibrary(const std::string& yaml_text,
                                               const std::filesystem::path& path) {
  auto parsed = ConfigMap::FromText(yaml_text, path.string());
  if (!parsed.ok()) return parsed.error();
  ConfigMap& root = parsed.value();
  MaterialLibrary lib;
  for (ConfigMap& entry : root.MapList("materials")) {
    Material m;
    m.name = entry.String("name");
    m.source = entry.String("source");
    int forms = 0;
    if (entry.Has("reflectance")) {
      ++forms;
      m.wavelength_nm = {kFlatSpectrumWavelengthNm};
      m.reflectance = {entry.Number("reflectance")};
    }
    if (entry.Has("spectrum")) {
      ++forms;
      ConfigMap s = entry.Map("spectrum");
      m.wavelength_nm = s.Numbers("wavelength_nm");
      m.reflectance = s.Numbers("reflectance");
    }
    if (entry.Has("spectrum_file")) {
      ++forms;
      auto loaded = LoadAsterSpectrum(entry.Resolve(entry.String("spectrum_file")));
      if (!loaded.ok()) {
        entry.Fail("spectrum_file", loaded.message());
      } else {
        m.wavelength_nm = loaded->wavelength_nm;
        m.reflectance = loaded->reflectance;
        m.spectrum_file = loaded->spectrum_file;
      }
    }
    ReadSurfaceResponse(entry, m);
    if (forms != 1) entry.Fail("name", "give exactly one of reflectance, spectrum, spectrum_file");
    NormaliseSpectrum(m);
    lib.materials.push_back(std::move(m));
  }
  if (Status s = root.FirstError(); !s.ok()) return s.error();
  ConfigCheck check;
  lib.Check(check);
  if (!check.ok()) root.Fail(*check.problem());
  if (Status s = root.Finish(); !s.ok()) return s.error();
  return lib;
}

Expected<MaterialLibrary> LoadMaterialLibrary(const std::filesystem::path& path) {
  auto text = ReadTextFile(path, " material library");
  if (!text.ok()) return text.error();
  return ParseMaterialLibrary(*text, path);
}

}  // namespace lt
