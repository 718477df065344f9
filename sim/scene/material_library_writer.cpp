// SaveMaterialLibrary: the one writer of the material library schema, beside its loader
// (material_library.cpp; house rule 13). Every key is the loader's.
#include "core/config_writer.h"
#include "lidartwin/sim/material_library.h"

namespace lt {

namespace {

using config_writer::List;
using config_writer::Put;

void WriteMaterial(YAML::Emitter& e, const Material& m) {
  e << YAML::BeginMap;
  Put(e, "name", m.name);
  if (!m.spectrum_file.empty()) {
    Put(e, "spectrum_file", m.spectrum_file);
  } else if (m.wavelength_nm.size() == 1 && m.reflectance.size() == 1 &&
             m.wavelength_nm[0] == kFlatSpectrumWavelengthNm) {
    Put(e, "reflectance", m.reflectance[0]);
  } else {
    e << YAML::Key << "spectrum" << YAML::Value << YAML::Flow << YAML::BeginMap;
    List(e, "wavelength_nm", m.wavelength_nm);
    List(e, "reflectance", m.reflectance);
    e << YAML::EndMap;
  }
  Put(e, "source", m.source);
  // Each group of surface-response keys is written whole when any of it differs from the
  // struct's defaults, so that none of it falls back to a default that depends on another
  // (specular_exponent defaults to 50 when specular_albedo > 0).
  if (m.specular_albedo != 0 || m.specular_exponent != 0) {
    Put(e, "specular_albedo", m.specular_albedo);
    Put(e, "specular_exponent", m.specular_exponent);
  }
  if (m.retroreflective_peak_sr != 0 || m.retroreflective_max_entrance_deg != 0) {
    Put(e, "retroreflective_peak_sr", m.retroreflective_peak_sr);
    Put(e, "retroreflective_max_entrance_deg", m.retroreflective_max_entrance_deg);
  }
  if (m.transmittance != 0) Put(e, "transmittance", m.transmittance);
  if (m.coverage != 1) Put(e, "coverage", m.coverage);
  if (m.roughness_deg != 0) Put(e, "roughness_deg", m.roughness_deg);
  if (m.apparent) e << YAML::Key << "apparent" << YAML::Value << true;
  e << YAML::EndMap;
}

}  // namespace

std::string SaveMaterialLibrary(const MaterialLibrary& library, const std::string& header) {
  YAML::Emitter e;
  e << YAML::BeginMap << YAML::Key << "materials" << YAML::Value << YAML::BeginSeq;
  for (const Material& m : library.materials)
    WriteMaterial(e, m);
  e << YAML::EndSeq << YAML::EndMap;
  return config_writer::Document(header, e);
}

}  // namespace lt
