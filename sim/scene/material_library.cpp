#include "lidartwin/sim/material_library.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "lidartwin/physics/hermite.h"
#include "lidartwin/sim/config_reader.h"

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
// ranges twice, from two instruments). Fails on an empty or non-physical table.
Status NormaliseSpectrum(Material& m, const std::string& where) {
  const size_t n = m.wavelength_nm.size();
  if (n == 0) return Error{where + ": spectrum has no samples"};
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
  for (size_t i = 0; i < w.size(); ++i) {
    if (!(w[i] > 0) || !std::isfinite(w[i])) {
      return Error{where + ": wavelength " + std::to_string(w[i]) + " nm is not positive"};
    }
    if (!(r[i] >= 0 && r[i] <= 1.0 + 1e-9) || !std::isfinite(r[i])) {
      return Error{where + ": reflectance " + std::to_string(r[i]) + " at " + std::to_string(w[i]) +
                   " nm is outside 0..1"};
    }
  }
  m.wavelength_nm = std::move(w);
  m.reflectance = std::move(r);
  return {};
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
  std::ifstream in(path);
  if (!in) return Error{file + ": cannot open spectrum file"};
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
  if (Status s = NormaliseSpectrum(m, file); !s.ok()) return s.error();
  return m;
}

namespace {

// The optional surface-response keys of a material, each checked against its physical range.
void ReadSurfaceResponse(ConfigMap& entry, Material& m) {
  const auto fraction = [&](const char* key, double fallback, bool zero_ok) {
    const double v = entry.Number(key, fallback);
    if (!(v >= 0 && v <= 1) || (!zero_ok && v == 0)) {
      entry.Fail(key, std::string("must be a fraction in ") + (zero_ok ? "[0, 1]" : "(0, 1]") +
                          ", got " + std::to_string(v));
    }
    return v;
  };
  m.specular_albedo = fraction("specular_albedo", 0, true);
  m.specular_exponent = entry.Number("specular_exponent", m.specular_albedo > 0 ? 50 : 0);
  if (!(m.specular_exponent >= 0 && m.specular_exponent <= 1e5)) {
    entry.Fail("specular_exponent",
               "must be in [0, 100000], got " + std::to_string(m.specular_exponent));
  }
  m.retroreflective_peak_sr = entry.Number("retroreflective_peak_sr", 0);
  if (!(m.retroreflective_peak_sr >= 0 && m.retroreflective_peak_sr <= 1e5)) {
    entry.Fail("retroreflective_peak_sr",
               "must be in [0, 100000] 1/sr (road signs: 100..1000), got " +
                   std::to_string(m.retroreflective_peak_sr));
  }
  m.retroreflective_max_entrance_deg =
      entry.Number("retroreflective_max_entrance_deg", m.retroreflective_peak_sr > 0 ? 60 : 0);
  if ((m.retroreflective_peak_sr > 0 || entry.Has("retroreflective_max_entrance_deg")) &&
      !(m.retroreflective_max_entrance_deg > 0 && m.retroreflective_max_entrance_deg <= 90)) {
    entry.Fail("retroreflective_max_entrance_deg",
               "must be in (0, 90], got " + std::to_string(m.retroreflective_max_entrance_deg));
  }
  m.transmittance = fraction("transmittance", 0, true);
  m.coverage = fraction("coverage", 1, false);
}

}  // namespace

Expected<MaterialLibrary> LoadMaterialLibrary(const std::filesystem::path& path) {
  auto parsed = ConfigMap::FromFile(path);
  if (!parsed.ok()) return parsed.error();
  ConfigMap& root = parsed.value();
  MaterialLibrary lib;
  for (ConfigMap& entry : root.MapList("materials")) {
    Material m;
    m.name = entry.String("name");
    m.source = entry.String("source");
    const std::string where = path.string() + ": material '" + m.name + "'";
    int forms = 0;
    if (entry.Has("reflectance")) {
      ++forms;
      const double r = entry.Number("reflectance");
      m.wavelength_nm = {1.0};
      m.reflectance = {r};  // one sample: the same at every wavelength
    }
    if (entry.Has("spectrum")) {
      ++forms;
      ConfigMap s = entry.Map("spectrum");
      m.wavelength_nm = s.Numbers("wavelength_nm");
      m.reflectance = s.Numbers("reflectance");
      if (m.wavelength_nm.size() != m.reflectance.size()) {
        entry.Fail("spectrum", "wavelength_nm has " + std::to_string(m.wavelength_nm.size()) +
                                   " entries, reflectance " + std::to_string(m.reflectance.size()));
      }
    }
    if (entry.Has("spectrum_file")) {
      ++forms;
      auto loaded = LoadAsterSpectrum(entry.Resolve(entry.String("spectrum_file")));
      if (!loaded.ok()) {
        entry.Fail("spectrum_file", loaded.message());
      } else {
        m.wavelength_nm = loaded->wavelength_nm;
        m.reflectance = loaded->reflectance;
      }
    }
    ReadSurfaceResponse(entry, m);
    if (forms != 1) {
      entry.Fail("name", "give exactly one of reflectance, spectrum, spectrum_file");
      continue;
    }
    if (lib.Find(m.name) >= 0) entry.Fail("name", "duplicate material name '" + m.name + "'");
    // Energy: what a surface reflects diffusely and what it transmits cannot exceed what falls
    // on it.
    if (!m.reflectance.empty() && m.transmittance > 0) {
      const double r_max = *std::max_element(m.reflectance.begin(), m.reflectance.end());
      if (r_max + m.transmittance > 1 + 1e-12) {
        entry.Fail("transmittance", "plus the reflectance (" + std::to_string(r_max) +
                                        ") exceeds 1, got " + std::to_string(m.transmittance));
      }
    }
    if (Status s = root.FirstError(); !s.ok()) return s.error();
    if (Status s = NormaliseSpectrum(m, where); !s.ok()) return s.error();
    lib.materials.push_back(std::move(m));
  }
  if (Status s = root.Finish(); !s.ok()) return s.error();
  if (lib.materials.empty()) return Error{path.string() + ": the library has no materials"};
  return lib;
}

}  // namespace lt
