#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "lidartwin/datasets/hdf5_frames.h"

namespace lt::cli {

int InfoCommand(const std::vector<std::string>& argv) {
  auto args = Args::Parse(argv, {{}, {"--json", "--help"}, 1});
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin info: {}\n", args.message());
    return 2;
  }
  constexpr const char* kUsage = "usage: lidartwin info FILE.h5 [--json]\n";
  if (args->Has("--help")) {
    fmt::print("{}", kUsage);
    return 0;
  }
  if (const std::string missing = MissingArguments(*args, "FILE.h5", {}); !missing.empty()) {
    fmt::print(stderr, "lidartwin info: {}\n{}", missing, kUsage);
    return 2;
  }
  const std::string path = args->positionals()[0];
  auto summary = ReadHdf5Summary(path);
  if (!summary.ok()) {
    fmt::print(stderr, "lidartwin info: error: {}\n", summary.message());
    return 1;
  }
  const Hdf5Summary& s = summary.value();
  for (const auto& w : s.warnings)
    fmt::print(stderr, "lidartwin info: warning: {}\n", w);
  uint64_t total = 0;
  for (const auto& f : s.frames)
    total += f.points;
  if (args->Has("--json")) {
    nlohmann::json j;
    j["file"] = path;
    j["schema_version"] = s.schema_version;
    j["software_version"] = s.info.software_version;
    j["sensor"] = {{"name", s.info.sensor_name}, {"wavelength_nm", s.info.wavelength_nm}};
    j["backend"] = s.info.backend;
    j["seed"] = s.info.seed;
    j["total_points"] = total;
    for (const auto& f : s.frames) {
      j["frames"].push_back({{"index", f.index},
                             {"points", f.points},
                             {"start_time_s", f.start_time_s},
                             {"end_time_s", f.end_time_s}});
    }
    for (const auto& [name, unit] : s.fields)
      j["fields"].push_back({{"name", name}, {"unit", unit}});
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("file:     {}\n", path);
  fmt::print("schema:   lidartwin.frames v{} (written by lidartwin {}, backend {}, seed {})\n",
             s.schema_version, s.info.software_version, s.info.backend, s.info.seed);
  fmt::print("sensor:   {} ({} nm)\n", s.info.sensor_name, s.info.wavelength_nm);
  fmt::print("frames:   {} ({} points in all)\n", s.frames.size(), total);
  fmt::print("  {:>6}  {:>9}  {:>12}  {:>12}\n", "frame", "points", "start_s", "end_s");
  for (const auto& f : s.frames) {
    fmt::print("  {:>6}  {:>9}  {:>12.6f}  {:>12.6f}\n", f.index, f.points, f.start_time_s,
               f.end_time_s);
  }
  fmt::print("fields:  ");
  for (const auto& [name, unit] : s.fields)
    fmt::print(" {} [{}]", name, unit);
  fmt::print("\n");
  return 0;
}

}  // namespace lt::cli
