#include "lidartwin/jobs/labgen.h"

#include <fmt/core.h>

#include "lidartwin/calib/virtual_lab.h"
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/sim/simulator.h"

namespace lt::jobs {

Status LabgenOptions::Validate() const {
  if (backend != "auto" && !ParseBackend(backend).ok())
    return OptionError("backend", "backend " + backend + ": expected auto, cpu or cuda");
  return {};
}

Status Labgen(const LabgenOptions& o) {
  if (Status s = o.Validate(); !s.ok()) return s;
  auto truth = LoadSensorProfile(o.profile);
  if (!truth.ok()) return truth.error();
  // A profile the lab cannot measure (an ideal detector with a cone beam: an empty lab; a
  // noiseless threshold detector) is refused, naming the keys to add, before anything runs or
  // is written.
  if (Status s = calib::CheckVirtualLabProfile(*truth); !s.ok()) return s;
  calib::VirtualLabOptions lab_options;
  if (o.backend == "auto") {
    lab_options.backend = BackendAvailable(Backend::kCuda).ok() ? Backend::kCuda : Backend::kCpu;
  } else {
    lab_options.backend = *ParseBackend(o.backend);
    if (Status s = BackendAvailable(lab_options.backend); !s.ok())
      return Error{"backend " + o.backend + ": " + s.message()};  // as simulate says it
  }
  lab_options.seed = o.seed;
  lab_options.serial = o.serial.empty() ? "virtual-" + std::to_string(o.seed) : o.serial;
  auto lab = calib::SimulateLab(*truth, lab_options);
  if (!lab.ok()) return lab.error();
  if (Status s = calib::WriteLabFolder(*lab, o.out); !s.ok()) return s;
  o.log.Info(fmt::format(
      "wrote lab folder {}: {} beam kernel, {} collector slices, {} threshold sweeps, {} "
      "reflectance curves, {} range-intensity curves, {} capability curves, {} waveform "
      "record sets\n",
      o.out.string(), lab->beam_kernels.size(), lab->collector_slices.size(),
      lab->threshold_sweeps.size(), lab->reflectance_curves.size(),
      lab->range_intensity_curves.size(), lab->capability_curves.size(),
      lab->waveform_sets.size()));
  return {};
}

}  // namespace lt::jobs
