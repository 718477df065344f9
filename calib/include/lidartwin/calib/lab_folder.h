// A lab folder (issue 10 "Input"): manifest.yaml names each measurement file, its kind, the
// units of its columns and the conditions it was taken under; each kind has one file format
// (docs/calibration.md, "The lab folder"). ReadLabFolder checks everything a fit will rely on
// and names the file, the key or line and the problem; WriteLabFolder writes the same layout
// (labgen), into a temporary folder renamed into place, so a failure leaves nothing behind.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/calib/capability_fit.h"
#include "lidartwin/calib/range_intensity_fit.h"
#include "lidartwin/calib/reflectance_fit.h"
#include "lidartwin/calib/threshold_fit.h"
#include "lidartwin/calib/waveform_fit.h"

namespace lt::calib {

// Goniometer images of the emitted beam's relative radiant intensity (seed 004 sec. III-A),
// several exposures of one camera for high dynamic range. HDF5 file.
struct BeamKernelImages {
  std::string file;                 // relative to the lab folder
  std::vector<double> h_mrad;       // nh camera columns (azimuth), evenly spaced
  std::vector<double> v_mrad;       // nv camera rows (elevation), evenly spaced
  std::vector<double> exposure_us;  // one per image
  std::vector<float> counts;        // [exposure][v][h], raw camera counts
  double dark_counts = 0;           // camera offset, subtracted
  double saturation_counts = 0;     // counts at and above this are clipped
  double read_noise_counts = 0;     // 1-sigma read noise of one pixel
  uint32_t spots = 1;               // fit: Gaussian spots in the beam (1..4)
  std::string model = "gaussian";   // fit: gaussian or super_gaussian
  bool separable = false;           // fit: super_gaussian as H(h) V(v) instead of elliptical

  size_t nh() const { return h_mrad.size(); }
  size_t nv() const { return v_mrad.size(); }
};

// One slice of the collector's angular sensitivity (seed 004 sec. III-B). CSV.
struct CollectorSlice {
  std::string file;
  bool horizontal = true;
  std::string model = "gaussian";  // fit: gaussian or super_gaussian
  std::vector<double> angle_mrad;
  std::vector<double> sensitivity;  // relative
};

// Detection counts of a dark diffuse target against attenuation at a fixed distance, or
// against distance (seed 004 sec. III-C). CSV.
struct ThresholdSweep {
  std::string file;
  double target_reflectance = 0;
  double incidence_deg = 0;
  std::vector<double> range_m;         // one per row
  std::vector<double> attenuation_db;  // one per row (round trip; 0 without a filter)
  std::vector<uint32_t> trials, detections;
};

// Calibrated intensity against incidence angle of one material target at a known range. CSV.
struct ReflectanceCurve {
  std::string file;
  std::string material;
  double range_m = 0;
  std::string model = "auto";  // lambert, lambert_specular or auto (the one the data supports)
  std::vector<ReflectanceSample> samples;
};

// The unit a range-intensity table's signal is in, and how it becomes received power (the
// manifest's `signal:` map, docs/calibration.md "Signals in the sensor's units").
enum class SignalUnit {
  kPower,    // W, mW, uW, nW or pW in the header
  kPhotons,  // photons a pulse, over the sensor's integration window: P = N h c / (lambda t)
  kCounts,   // the sensor's own intensity counts: declared nW a count, or fitted
};

// Raw signal of a Lambertian target against distance. CSV.
struct RangeIntensityCurve {
  std::string file;
  std::vector<RangeIntensitySample> samples;  // signals in nW, or in counts when fitted
  SignalUnit signal_unit = SignalUnit::kPower;
  double window_ns = 0;     // photons: the integration window
  double nw_per_count = 0;  // counts: declared; 0: fitted (the base profile's peak power held)
  // The manifest's fit: {overlap: fitted | none}; none for a sensor without a near-field
  // overlap, whose link constant is then fitted alone.
  OverlapFit overlap = OverlapFit::kFitted;
};

// Farthest detected range against target reflectance (seed 000 sec. II-D). CSV.
// The nW one unit of the curve's signal is: 1 for power (converted from its header's unit when
// read) and for fitted counts (which stay counts), nw_per_count for declared counts, and for
// photons a photon's energy h c / lambda over the window.
double NanowattsPerSignalUnit(const RangeIntensityCurve& c, double wavelength_nm);

struct CapabilityCurve {
  std::string file;
  std::vector<CapabilitySample> samples;
};

struct LabFolder {
  std::filesystem::path dir;
  std::string name;           // free text
  std::string sensor_serial;  // the unit measured
  double wavelength_nm = 0;
  std::string checksum;  // SHA-256 over the manifest and every file it names, in order
  std::vector<BeamKernelImages> beam_kernels;
  std::vector<CollectorSlice> collector_slices;
  std::vector<ThresholdSweep> threshold_sweeps;
  std::vector<ReflectanceCurve> reflectance_curves;
  std::vector<RangeIntensityCurve> range_intensity_curves;
  std::vector<CapabilityCurve> capability_curves;
  // Records of single targets (waveform detector, seed 002 sec. 6.1). HDF5: time_ns, volts.
  std::vector<WaveformSet> waveform_sets;

  // Every value a fit relies on, named by file and row ("range_intensity.csv[3].signal").
  Status Validate() const;
};

Expected<LabFolder> ReadLabFolder(const std::filesystem::path& dir);

// Writes manifest.yaml and every measurement file under `dir`, which must not exist yet.
Status WriteLabFolder(const LabFolder& lab, const std::filesystem::path& dir);

}  // namespace lt::calib
