// lidartwin import-sensor: a sensor profile from vendor intrinsics (Ouster metadata JSON,
// Velodyne calibration YAML, Hesai angle-correction CSV), checked by loading it back
// (datasets/sensor_import.h).
#include <fmt/core.h>

#include "command.h"
#include "commands.h"
#include "lidartwin/datasets/sensor_import.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::cli {
namespace {

// Given on the command line, a rate or range must be one (0 in the options means "not given":
// the metadata's or the data sheet's).
Status CheckGiven(const Args& args, const char* flag, double value, double lo, double hi,
                  const char* unit) {
  if (!args.Has(flag) || (value >= lo && value <= hi)) return {};
  return FlagError(
      flag, fmt::format("{} must be in {:g}..{:g} {}, got {}", flag, lo, hi, unit, args.Get(flag)));
}

}  // namespace

int ImportSensorCommand(const std::vector<std::string>& argv) {
  const Command import_sensor{
      "import-sensor",
      "",
      {{"--out", "--firetimes", "--rotation-rate-hz", "--detector", "--max-range-m"}, {}, 1},
      {}};
  return RunCommand(import_sensor, argv, [](const Args& args) -> Expected<int> {
    SensorImportOptions o;
    if (Status s =
            FirstError({Require(args, "METADATA", {"--out"}),
                        RefuseStandardOutput(args, {{"--out", "a file (profile.yaml)"}}),
                        args.Into("--firetimes", o.firetimes), args.Into("--detector", o.detector),
                        args.Into("--rotation-rate-hz", o.rotation_rate_hz),
                        args.Into("--max-range-m", o.max_range_m),
                        CheckGiven(args, "--rotation-rate-hz", o.rotation_rate_hz,
                                   kMinRotationRateHz, kMaxRotationRateHz, "Hz"),
                        CheckGiven(args, "--max-range-m", o.max_range_m, 0.1, 100000, "m")});
        !s.ok())
      return s.error();
    const std::string out = args.Get("--out");
    auto imported = ImportSensorProfileTo(args.positionals()[0], o, out);
    if (!imported.ok()) return imported.error();
    fmt::print("wrote {}: {} ({} beams per frame)\n", out, imported->name, imported->beams);
    return 0;
  });
}

}  // namespace lt::cli
