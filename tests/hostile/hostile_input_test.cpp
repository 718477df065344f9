// The hostile-input suite (issue 11): every command that reads a file, given damaged copies of a
// good input (empty, truncated, bit-flipped), a directory, a missing path and an unreadable file
// in each input slot. Every run must end by itself with a documented exit code, name the file
// when it fails, leave no temporary file and leave an existing output as it was.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "hostile_support.h"

namespace lt::test {
namespace {

// Good inputs, made once per test binary in a shared folder.
class Inputs {
 public:
  static const Inputs& Get() {
    static Inputs inputs;
    return inputs;
  }
  std::filesystem::path dir() const { return dir_.path(); }
  std::filesystem::path operator[](const std::string& name) const { return files_.at(name); }
  bool has(const std::string& name) const { return files_.count(name) > 0; }
  // The binary, copied where an ordinary user can run it.
  const std::filesystem::path& cli_copy() const { return cli_copy_; }

 private:
  Inputs() {
    const auto config = ConfigDir();
    // The lab scene with a copy of its material library beside it, and a copy of the binary:
    // the unreadable-file cases run as user nobody, who may not reach the source tree.
    const auto library = dir_.Write("library.yaml", ReadAll(config / "materials/library.yaml"));
    std::string scene = ReadAll(config / "scenes/lab_plates.yaml");
    const std::string rel = "materials: ../materials/library.yaml";
    scene.replace(scene.find(rel), rel.size(), "materials: " + library.string());
    files_["scene"] = dir_.Write("scene.yaml", scene);
    files_["sensor"] = dir_.Write("sensor.yaml", ReadAll(config / "sensors/velodyne_vlp16.yaml"));
    files_["trajectory"] = dir_.Write("trajectory.yaml",
                                      "poses:\n  - {time_s: 0, position_m: [0, 0, 0]}\n"
                                      "  - {time_s: 1, position_m: [1, 0, 0]}\n");
    for (const char* seed : {"1", "2"}) {
      const auto out = dir_ / (std::string("seed") + seed + ".h5");
      const CliRun r = Cli("simulate --sensor " + Q(files_["sensor"]) + " --scene " +
                           Q(files_["scene"]) + " --seed " + seed + " --out " + Q(out));
      EXPECT_EQ(r.code, 0) << r.output;
      files_[std::string("h5_") + seed] = out;
    }
    const auto metrics = dir_ / "metrics.json";
    const CliRun c = Cli("compare --real " + Q(files_["h5_1"]) + " --sim " + Q(files_["h5_2"]) +
                         " --scene " + Q(files_["scene"]) + " --out " + Q(metrics));
    EXPECT_EQ(c.code, 0) << c.output;
    files_["metrics"] = metrics;
    // Copies of the real recordings (in this temporary folder only), for the same reason.
    const auto real = RealDataDir();
    if (std::filesystem::is_directory(real)) {
      const std::pair<const char*, const char*> recordings[] = {
          {"ouster_json", "ouster-sdk/OS-1-128_v2.3.0_1024x10.json"},
          {"ouster_pcap", "ouster-sdk/OS-1-128_v2.3.0_1024x10_lb_n3.pcap"},
          {"velodyne_yaml", "ros-velodyne/32db.yaml"},
          {"velodyne_pcap", "rust-lidar-utils/hdl32_example.pcap"},
          {"kitti_bin", "kitti-object-vis/velodyne/000000.bin"}};
      for (const auto& [key, rel_path] : recordings) {
        const auto copy = dir_ / std::filesystem::path(rel_path).filename();
        std::filesystem::copy_file(real / rel_path, copy);
        files_[key] = copy;
      }
    }
    cli_copy_ = dir_ / "lidartwin";
    std::filesystem::copy_file(LT_CLI, cli_copy_);
    // Readable (and the binary runnable) by everyone, whatever the umask.
    using std::filesystem::perms;
    std::filesystem::permissions(dir_.path(), perms::all);
    for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
      std::filesystem::permissions(e.path(), perms::owner_all | perms::group_read |
                                                 perms::group_exec | perms::others_read |
                                                 perms::others_exec);
    }
  }
  std::filesystem::path cli_copy_;
  TempDir dir_;
  std::map<std::string, std::filesystem::path> files_;
};

// One input slot of one command: the command line with {} where the hostile file goes, and the
// good file that goes there otherwise.
struct Slot {
  std::string name;
  std::string good;  // key in Inputs
  std::function<std::string(const Inputs&, const std::string& file, const std::string& out)> args;
  std::string out_name;  // the output the command writes (in the run's folder)
};

std::vector<Slot> Slots() {
  return {
      {"info_h5", "h5_1",
       [](const Inputs&, const std::string& f, const std::string&) { return "info " + f; }, ""},
      {"convert_h5", "h5_1",
       [](const Inputs&, const std::string& f, const std::string& o) {
         return "convert " + f + " --out " + o;
       },
       "out.h5"},
      {"convert_h5_to_ply", "h5_1",
       [](const Inputs&, const std::string& f, const std::string& o) {
         return "convert " + f + " --out " + o;
       },
       "out.ply"},
      {"compare_real", "h5_1",
       [](const Inputs& in, const std::string& f, const std::string& o) {
         return "compare --real " + f + " --sim " + Q(in["h5_2"]) + " --scene " + Q(in["scene"]) +
                " --out " + o;
       },
       "metrics.json"},
      {"compare_scene", "scene",
       [](const Inputs& in, const std::string& f, const std::string& o) {
         return "compare --real " + Q(in["h5_1"]) + " --sim " + Q(in["h5_2"]) + " --scene " + f +
                " --out " + o;
       },
       "metrics.json"},
      {"simulate_sensor", "sensor",
       [](const Inputs& in, const std::string& f, const std::string& o) {
         return "simulate --sensor " + f + " --scene " + Q(in["scene"]) + " --out " + o;
       },
       "out.h5"},
      {"simulate_scene", "scene",
       [](const Inputs& in, const std::string& f, const std::string& o) {
         return "simulate --sensor " + Q(in["sensor"]) + " --scene " + f + " --out " + o;
       },
       "out.h5"},
      {"simulate_trajectory", "trajectory",
       [](const Inputs& in, const std::string& f, const std::string& o) {
         return "simulate --sensor " + Q(in["sensor"]) + " --scene " + Q(in["scene"]) +
                " --trajectory " + f + " --out " + o;
       },
       "out.h5"},
      {"report_metrics", "metrics",
       [](const Inputs&, const std::string& f, const std::string& o) {
         return "report " + f + " --out " + o;
       },
       "report"},
      {"import_ouster_json", "ouster_json",
       [](const Inputs&, const std::string& f, const std::string& o) {
         return "import-sensor " + f + " --out " + o;
       },
       "profile.yaml"},
      {"import_velodyne_yaml", "velodyne_yaml",
       [](const Inputs&, const std::string& f, const std::string& o) {
         return "import-sensor " + f + " --out " + o;
       },
       "profile.yaml"},
      {"convert_ouster_pcap", "ouster_pcap",
       [](const Inputs& in, const std::string& f, const std::string& o) {
         return "convert " + f + " --metadata " + Q(in["ouster_json"]) + " --out " + o;
       },
       "out.h5"},
      {"convert_ouster_json", "ouster_json",
       [](const Inputs& in, const std::string& f, const std::string& o) {
         return "convert " + Q(in["ouster_pcap"]) + " --metadata " + f + " --out " + o;
       },
       "out.h5"},
      {"convert_velodyne_pcap", "velodyne_pcap",
       [](const Inputs& in, const std::string& f, const std::string& o) {
         return "convert " + f + " --calibration " + Q(in["velodyne_yaml"]) + " --out " + o;
       },
       "out.h5"},
      {"convert_velodyne_yaml", "velodyne_yaml",
       [](const Inputs& in, const std::string& f, const std::string& o) {
         return "convert " + Q(in["velodyne_pcap"]) + " --calibration " + f + " --out " + o;
       },
       "out.h5"},
      {"convert_kitti_bin", "kitti_bin",
       [](const Inputs&, const std::string& f, const std::string& o) {
         return "convert " + f + " --out " + o;
       },
       "out.ply"},
  };
}

// Test names instead of a byte dump of the parameter.
void PrintTo(const Slot& slot, std::ostream* os) {
  *os << slot.name;
}

class HostileInput : public ::testing::TestWithParam<Slot> {
 protected:
  void SetUp() override {
    if (!Inputs::Get().has(GetParam().good)) LT_REQUIRE_REAL_DATA();
  }
  // A fresh run folder holding an earlier output with known content.
  std::filesystem::path RunFolder(const TempDir& dir, const std::string& name) const {
    const auto run = dir / name;
    std::filesystem::create_directories(run);
    if (!GetParam().out_name.empty() && GetParam().out_name.find('.') != std::string::npos) {
      std::ofstream(run / GetParam().out_name) << "earlier output\n";
    }
    return run;
  }
  void ExpectEarlierOutputKept(const std::filesystem::path& run, const std::string& what) const {
    if (GetParam().out_name.find('.') == std::string::npos) return;
    EXPECT_EQ(ReadAll(run / GetParam().out_name), "earlier output\n")
        << what << ": the earlier output was changed by a failed run";
  }
  CliRun Run(const std::filesystem::path& run, const std::string& file,
             const std::string& prefix = "") const {
    const Slot& s = GetParam();
    const std::string out = s.out_name.empty() ? "" : Q(run / s.out_name);
    const std::string cli =
        prefix.empty() ? std::string(LT_CLI) : Inputs::Get().cli_copy().string();
    return RunShell(prefix + cli + " " + s.args(Inputs::Get(), file, out));
  }
};

TEST_P(HostileInput, DamagedCopiesFailCleanlyOrReadCleanly) {
  TempDir dir;
  const Slot& slot = GetParam();
  for (const auto& damaged : DamagedCopies(Inputs::Get()[slot.good], dir.path())) {
    const auto run = RunFolder(dir, damaged.kind);
    const CliRun r = Run(run, Q(damaged.path));
    const std::string what = slot.name + " with " + damaged.kind + " " + slot.good;
    ExpectNoCrashAndNoLeftovers(r, run, what);
    if (r.code != 0) {
      ExpectEarlierOutputKept(run, what);
      // The message names the damaged file, or (where the damage is in a file it refers to,
      // such as a scene's materials) at least says what went wrong.
      EXPECT_NE(r.output.find("error"), std::string::npos) << what << "\n" << r.output;
    }
  }
}

TEST_P(HostileInput, ADirectoryAMissingFileAndAnUnreadableFileAreNamed) {
  TempDir dir;
  const Slot& slot = GetParam();
  const auto folder =
      dir / ("folder" + std::filesystem::path(Inputs::Get()[slot.good]).extension().string());
  std::filesystem::create_directories(folder);
  const auto missing = dir / ("missing" + Inputs::Get()[slot.good].extension().string());
  const auto locked = dir / ("locked" + Inputs::Get()[slot.good].extension().string());
  std::filesystem::copy_file(Inputs::Get()[slot.good], locked);
  std::filesystem::permissions(locked, std::filesystem::perms::none);
  struct Case {
    std::filesystem::path path;
    std::vector<std::string> reasons;  // one of these words says why
    std::string prefix;
  };
  // The unreadable case runs as an ordinary user, who must be able to reach everything else.
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);
  const std::vector<Case> cases = {
      {folder, {"directory"}, ""},
      {missing, {"does not exist", "no such file", "No such file", "not found"}, ""},
      {locked, {"ermission"}, AsOrdinaryUser()},
  };
  for (const auto& c : cases) {
    const auto run = RunFolder(dir, "run_" + c.path.stem().string());
    std::filesystem::permissions(run, std::filesystem::perms::all);
    if (!slot.out_name.empty() && std::filesystem::exists(run / slot.out_name)) {
      std::filesystem::permissions(run / slot.out_name, std::filesystem::perms::all);
    }
    const CliRun r = Run(run, Q(c.path), c.prefix);
    const std::string what = slot.name + " given " + c.path.string();
    ExpectNoCrashAndNoLeftovers(r, run, what);
    EXPECT_TRUE(r.code == 1 || r.code == 2) << what << ": exit " << r.code << "\n" << r.output;
    EXPECT_NE(r.output.find(c.path.filename().string()), std::string::npos)
        << what << ": the message does not name the file\n"
        << r.output;
    bool says_why = false;
    for (const auto& w : c.reasons)
      says_why = says_why || r.output.find(w) != std::string::npos;
    EXPECT_TRUE(says_why) << what << ": the message does not say why\n" << r.output;
    ExpectEarlierOutputKept(run, what);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryCommandThatReadsAFile, HostileInput, ::testing::ValuesIn(Slots()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace lt::test
