// One Ouster capture's range-intensity and detection fits (real_data_calibration.h; the
// choices and their limits are in docs/calibration.md "Real measurements").
#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "lidartwin/calib/real_data_calibration.h"
#include "lidartwin/datasets/ouster.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/units.h"

namespace lt::calib {

namespace {

bool HasSignal(OusterProfile p) {
  return p != OusterProfile::kRng15Rfl8Nir8 && p != OusterProfile::kRng15Rfl8Nir8Dual;
}

// Reflectivity above the 8-bit calibrated scale: firmware 2.0's uncalibrated field.
constexpr double kCalibratedReflectivityMax_pct = 255;

struct FrameData {
  RangeImage image;
  std::vector<float> incidence_deg;
};

FitOutcome FitRangeIntensityOutcome(const std::vector<RangeIntensitySample>& samples,
                                    double* chi2_dof) {
  FitOutcome out;
  auto fit = FitRangeIntensity(samples);
  if (!fit.ok()) {
    out.refused = fit.message();
    return out;
  }
  // The samples' sigmas are a noise model (Poisson and rounding); where the scatter exceeds
  // it, the covariance is scaled by chi^2 / dof (the Birge ratio squared), never shrunk.
  double chi2 = 0;
  for (const auto& s : samples) {
    const double r =
        (ModelSignal(*fit, s.range_m, s.reflectance, s.incidence_deg) - s.signal) / s.sigma;
    chi2 += r * r;
  }
  *chi2_dof = chi2 / static_cast<double>(samples.size() - fit->parameters.size());
  if (*chi2_dof > 1)
    for (auto& p : fit->parameters)
      p.stddev *= std::sqrt(*chi2_dof);
  out.fit = std::move(*fit);
  return out;
}

// How a pixel's expected signal is predicted from its bounding returns.
enum class Predictor { kModel, kNeighbourSignal, kUnitLink };

struct PredictorSpec {
  Predictor kind;
  const FitResult* fit = nullptr;  // kModel
  ReflectivityReading reading = ReflectivityReading::kIncludesCosine;
};

std::vector<double> Predict(const DetectionPopulation& population, const PredictorSpec& spec) {
  const physics::LinkBudget unit{1.0, 1.0, 1.0, 0.0};
  std::vector<double> out;
  for (const BoundedPixel& p : population.pixels) {
    // Reflectivity 0 (below the scale's 1 percent step) predicts nothing usable.
    const double rho = p.reflectivity_pct > 0 ? p.reflectivity_pct / 100 : std::nan("");
    switch (spec.kind) {
      case Predictor::kModel:
        // Read as in the chosen fit: rho cos(theta) is the reflectivity itself, or rho is.
        out.push_back(spec.reading == ReflectivityReading::kIncludesCosine
                          ? ModelSignal(*spec.fit, p.range_m, rho, 0.0)
                          : ModelSignal(*spec.fit, p.range_m, rho, p.incidence_deg));
        break;
      case Predictor::kNeighbourSignal:
        out.push_back(p.signal);
        break;
      case Predictor::kUnitLink:
        // rho cos(theta) / (4 R^2), the link budget of a unit link (link_budget.h).
        out.push_back(physics::ReceivedPower(unit, rho / physics::kPi, 1.0, p.range_m));
        break;
    }
  }
  return out;
}

DetectionPopulation Population(const std::vector<FrameData>& frames, SampleOptions options,
                               uint32_t max_gap_columns) {
  options.max_gap_columns = max_gap_columns;
  DetectionPopulation p;
  for (const FrameData& f : frames)
    AddDetectionPixels(f.image, f.incidence_deg, options, p);
  return p;
}

// Bins the predictions and fits the probit.
void BinAndFit(const DetectionPopulation& population, const std::vector<double>& predicted,
               const SampleOptions& options, std::vector<DetectionSample>* bins,
               FitOutcome* outcome) {
  std::vector<bool> detected;
  for (const auto& p : population.pixels)
    detected.push_back(p.detected);
  *bins = BinDetections(predicted, detected, options);
  auto fit = FitDetectionThreshold(*bins);
  if (fit.ok()) {
    outcome->fit = std::move(*fit);
  } else {
    outcome->refused = fit.message();
  }
}

DetectionOutcome Detection(const std::vector<FrameData>& frames, const PredictorSpec& spec,
                           const RealDataOptions& options) {
  DetectionOutcome d;
  const SampleOptions& o = options.samples;
  d.population = Population(frames, o, o.max_gap_columns);
  d.pixels = d.population.pixels.size();
  for (const auto& p : d.population.pixels)
    d.missing += !p.detected;
  const std::vector<double> predicted = Predict(d.population, spec);
  d.without_prediction = static_cast<size_t>(std::count_if(
      predicted.begin(), predicted.end(), [](double v) { return !std::isfinite(v); }));
  BinAndFit(d.population, predicted, o, &d.bins, &d.outcome);
  d.population.pixels.clear();
  d.population.pixels.shrink_to_fit();
  for (uint32_t gap : options.sensitivity_gaps) {
    GapSensitivity g;
    g.max_gap_columns = gap;
    const DetectionPopulation p = Population(frames, o, gap);
    g.pixels = p.pixels.size();
    for (const auto& px : p.pixels)
      g.missing += !px.detected;
    std::vector<DetectionSample> bins;
    BinAndFit(p, Predict(p, spec), o, &bins, &g.outcome);
    if (!bins.empty()) {
      g.lowest = bins.front();
      g.highest = bins.back();
    }
    d.gap_sensitivity.push_back(std::move(g));
  }
  return d;
}

}  // namespace

Expected<OusterUnitResult> CalibrateOusterCapture(const std::filesystem::path& pcap,
                                                  const std::filesystem::path& metadata,
                                                  const RealDataOptions& options) {
  if (auto s = options.Validate(); !s.ok()) return s.error();
  const SampleOptions& o = options.samples;
  auto meta = LoadOusterMetadata(metadata);
  if (!meta.ok()) return meta.error();
  auto frames = ReadOusterPcap(pcap, *meta);
  if (!frames.ok()) return frames.error();
  if (frames->empty()) return Error{pcap.string() + ": no lidar packets for this metadata's port"};
  OusterUnitResult u;
  u.pcap = pcap.string();
  u.metadata = metadata.string();
  u.label = (meta->product.empty() ? std::string("Ouster") : meta->product) + " (" +
            pcap.stem().string() + ")";
  // The capture's name up to its lidar mode token ("_1024x10"), which every name carries.
  const std::string stem = pcap.stem().string();
  u.short_label = stem;
  for (size_t k = stem.find('_'); k != std::string::npos; k = stem.find('_', k + 1)) {
    const size_t x = stem.find('x', k);
    if (x != std::string::npos && x > k + 1 && stem.find_first_not_of("0123456789", k + 1) == x) {
      u.short_label = stem.substr(0, k);
      break;
    }
  }
  u.profile = OusterProfileName(meta->profile);
  u.frames = frames->size();
  u.has_signal = HasSignal(meta->profile);

  std::vector<FrameData> data;
  RangeIntensityPopulation includes, excludes;
  for (const Frame& f : *frames) {
    auto image = BuildRangeImage(f, meta->azimuth_deg, meta->columns_per_frame, u.has_signal);
    if (!image.ok()) return Error{pcap.string() + ": " + image.message()};
    for (size_t i = 0; i < image->range_m.size(); ++i)
      if (image->Returned(i))
        u.max_reflectivity_pct =
            std::max<double>(u.max_reflectivity_pct, image->reflectivity_pct[i]);
    FrameData d{std::move(*image), {}};
    d.incidence_deg = IncidenceAngles(d.image, o);
    AddRangeIntensitySamples(d.image, d.incidence_deg, o, ReflectivityReading::kIncludesCosine,
                             includes);
    AddRangeIntensitySamples(d.image, d.incidence_deg, o, ReflectivityReading::kExcludesCosine,
                             excludes);
    data.push_back(std::move(d));
  }
  u.calibrated_reflectivity = u.max_reflectivity_pct <= kCalibratedReflectivityMax_pct;

  // Range-intensity: needs signal photons and calibrated reflectivity.
  if (!u.has_signal) {
    u.includes_cosine.refused = u.excludes_cosine.refused =
        "no signal photons in the " + u.profile + " profile";
  } else if (!u.calibrated_reflectivity) {
    u.includes_cosine.refused = u.excludes_cosine.refused = fmt::format(
        "reflectivity up to {:g} is not the calibrated 8-bit scale (firmware before 2.1 reports "
        "about signal x R^2 there)",
        u.max_reflectivity_pct);
  } else {
    u.includes_cosine = FitRangeIntensityOutcome(includes.samples, &u.chi2_includes);
    u.excludes_cosine = FitRangeIntensityOutcome(excludes.samples, &u.chi2_excludes);
    if (u.includes_cosine.fit && u.excludes_cosine.fit) {
      u.chosen = u.chi2_includes <= u.chi2_excludes ? ReflectivityReading::kIncludesCosine
                                                    : ReflectivityReading::kExcludesCosine;
    } else if (u.includes_cosine.fit || u.excludes_cosine.fit) {
      u.chosen = u.includes_cosine.fit ? ReflectivityReading::kIncludesCosine
                                       : ReflectivityReading::kExcludesCosine;
    }
  }
  // The samples of the chosen reading stay for the report's plots (the counts are the same).
  u.population =
      u.chosen == ReflectivityReading::kExcludesCosine ? std::move(excludes) : std::move(includes);

  // Detection in photons: from the fitted model at the neighbours' range and reflectivity, or,
  // without calibrated reflectivity, from the neighbours' signal itself.
  if (u.has_signal) {
    PredictorSpec spec{Predictor::kNeighbourSignal};
    std::string predictor = "the neighbours' signal photons";
    if (u.chosen) {
      const FitOutcome& chosen =
          *u.chosen == ReflectivityReading::kIncludesCosine ? u.includes_cosine : u.excludes_cosine;
      spec = {Predictor::kModel, &*chosen.fit, *u.chosen};
      predictor = "the range-intensity fit at the neighbours' range and reflectivity";
    }
    u.detection_photons = Detection(data, spec, options);
    u.detection_photons.predictor = predictor;
    u.detection_photons.signal_unit = "photons";
  } else {
    u.detection_photons.outcome.refused = "no signal photons in the " + u.profile + " profile";
  }
  // Detection against the unit-link power rho cos(theta) / (4 R^2), rho cos(theta) the
  // neighbours' reflectivity: no link constant needed, so every calibrated unit has one.
  if (u.calibrated_reflectivity) {
    u.detection_link = Detection(data, {Predictor::kUnitLink}, options);
    u.detection_link.predictor = "the unit-link power of the neighbours' reflectivity and range";
    u.detection_link.signal_unit = "1/m^2";
  } else {
    u.detection_link.outcome.refused = "reflectivity is not calibrated";
  }
  return u;
}

}  // namespace lt::calib
