// lidartwin import-sensor: a sensor profile from vendor intrinsics (Ouster metadata JSON,
// Velodyne calibration YAML, Hesai angle-correction CSV), checked by loading it back.
#include <fmt/core.h>

#include "args.h"
#include "commands.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/datasets/sensor_import.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::cli {

int ImportSensorCommand(const std::vector<std::string>& argv) {
  constexpr const char* kUsage =
      "usage: lidartwin import-sensor METADATA --out profile.yaml [--firetimes F.csv]\n"
      "         [--rotation-rate-hz R] [--detector ideal|capability] [--max-range-m M]\n"
      "  METADATA: Ouster metadata .json, Velodyne calibration .yaml (VLP-16, HDL-32E) or\n"
      "  Hesai angle-correction .csv (with --firetimes: its fire-time .csv)\n";
  auto args = Args::Parse(
      argv, {{"--out", "--firetimes", "--rotation-rate-hz", "--detector", "--max-range-m"},
             {"--help"},
             1});
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin import-sensor: {}\n{}", args.message(), kUsage);
    return 2;
  }
  if (args->Has("--help")) {
    fmt::print("{}", kUsage);
    return 0;
  }
  if (const std::string missing = MissingArguments(*args, "METADATA", {"--out"});
      !missing.empty()) {
    fmt::print(stderr, "lidartwin import-sensor: {}\n{}", missing, kUsage);
    return 2;
  }
  SensorImportOptions o;
  o.firetimes = args->Get("--firetimes");
  o.detector = args->Get("--detector", "ideal");
  auto rate = args->GetDouble("--rotation-rate-hz", 0);
  auto range = args->GetDouble("--max-range-m", 0);
  for (const Status& s : {rate.status(), range.status()})
    if (!s.ok()) {
      fmt::print(stderr, "lidartwin import-sensor: {}\n", s.message());
      return 2;
    }
  // Given on the command line, a rate or range must be one (0 in the options means "not given":
  // the metadata's or the data sheet's).
  struct Bounded {
    const char* flag;
    double value, lo, hi;
    const char* unit;
  };
  for (const Bounded& b :
       {Bounded{"--rotation-rate-hz", *rate, kMinRotationRateHz, kMaxRotationRateHz, "Hz"},
        Bounded{"--max-range-m", *range, 0.1, 100000, "m"}}) {
    if (args->Has(b.flag) && !(b.value >= b.lo && b.value <= b.hi)) {
      fmt::print(stderr, "lidartwin import-sensor: {} must be in {:g}..{:g} {}, got {}\n", b.flag,
                 b.lo, b.hi, b.unit, args->Get(b.flag));
      return 2;
    }
  }
  o.rotation_rate_hz = *rate;
  o.max_range_m = *range;
  const std::filesystem::path out = args->Get("--out");
  auto yaml = ImportSensorProfile(args->positionals()[0], o);
  if (!yaml.ok()) {
    fmt::print(stderr, "lidartwin import-sensor: error: {}\n", yaml.message());
    return 1;
  }
  // The profile must load as written, or nothing is written.
  auto profile = ParseSensorProfile(*yaml, out);
  if (!profile.ok()) {
    fmt::print(stderr, "lidartwin import-sensor: error: the imported profile does not load: {}\n",
               profile.message());
    return 1;
  }
  if (Status s = WriteTextFileAtomically(out, *yaml); !s.ok()) {
    fmt::print(stderr, "lidartwin import-sensor: error: {}\n", s.message());
    return 1;
  }
  fmt::print("wrote {}: {} ({} beams per frame)\n", out.string(), profile->name,
             profile->BeamCount());
  return 0;
}

}  // namespace lt::cli
