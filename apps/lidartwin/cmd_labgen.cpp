// lidartwin labgen --profile TRUE.yaml --out LAB_DIR --seed K: a virtual lab folder, every
// measurement simulated from a "true" profile with the simulator and its noise
// (calib/virtual_lab.h), for tests, the demo and trying `calibrate`.
#include <fmt/core.h>

#include "args.h"
#include "commands.h"
#include "lidartwin/calib/virtual_lab.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::cli {

int LabgenCommand(const std::vector<std::string>& argv) {
  constexpr const char* kUsage =
      "usage: lidartwin labgen --profile TRUE.yaml --out LAB_DIR [--seed K]\n"
      "         [--backend auto|cpu|cuda] [--serial S]\n"
      "  --backend auto (the default): the GPU when one is present; the backends agree within\n"
      "  their parity tolerances (docs/cuda.md)\n";
  auto args =
      Args::Parse(argv, {{"--profile", "--out", "--seed", "--backend", "--serial"}, {"--help"}, 0});
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin labgen: {}\n{}", args.message(), kUsage);
    return 2;
  }
  if (args->Has("--help")) {
    fmt::print("{}", kUsage);
    return 0;
  }
  for (const char* flag : {"--profile", "--out"}) {
    if (!args->Has(flag) || args->Get(flag).empty()) {
      fmt::print(stderr, "lidartwin labgen: {} is required\n{}", flag, kUsage);
      return 2;
    }
  }
  auto fail = [](const std::string& m) {
    fmt::print(stderr, "lidartwin labgen: error: {}\n", m);
    return 1;
  };
  // Option values out of their range are usage errors (exit 2), as in every command.
  auto usage = [&](const std::string& m) {
    fmt::print(stderr, "lidartwin labgen: {}\n{}", m, kUsage);
    return 2;
  };
  auto seed = args->GetDouble("--seed", 1);
  if (!seed.ok()) return usage(seed.message());
  if (!(*seed >= 0 && *seed < 1e15 && *seed == static_cast<double>(static_cast<uint64_t>(*seed)))) {
    return usage("--seed must be a whole number >= 0");
  }
  const std::string backend_name = args->Get("--backend", "auto");
  Expected<Backend> backend = Backend::kCpu;
  if (backend_name == "auto") {
    backend = BackendAvailable(Backend::kCuda).ok() ? Backend::kCuda : Backend::kCpu;
  } else {
    backend = ParseBackend(backend_name);
    if (!backend.ok()) return usage("--backend " + backend_name + ": expected auto, cpu or cuda");
    if (auto s = BackendAvailable(*backend); !s.ok()) return fail(s.message());
  }
  auto truth = LoadSensorProfile(args->Get("--profile"));
  if (!truth.ok()) return fail(truth.message());
  calib::VirtualLabOptions o;
  o.seed = static_cast<uint64_t>(*seed);
  o.backend = *backend;
  o.serial = args->Get("--serial", "virtual-" + std::to_string(o.seed));
  auto lab = calib::SimulateLab(*truth, o);
  if (!lab.ok()) return fail(lab.message());
  if (auto s = calib::WriteLabFolder(*lab, args->Get("--out")); !s.ok()) return fail(s.message());
  fmt::print(
      "wrote lab folder {}: {} beam kernel, {} collector slices, {} threshold sweeps, {} "
      "reflectance curves, {} range-intensity curves, {} capability curves\n",
      args->Get("--out"), lab->beam_kernels.size(), lab->collector_slices.size(),
      lab->threshold_sweeps.size(), lab->reflectance_curves.size(),
      lab->range_intensity_curves.size(), lab->capability_curves.size());
  return 0;
}

}  // namespace lt::cli
