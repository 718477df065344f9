// The conventions a user expects of every command (issue 11): -h/--help with usage on stdout
// and exit 0, --version, --option=value, usage errors exit 2 naming the option, and no control
// bytes from an argument or a file echoed raw to the terminal.
#include <gtest/gtest.h>

#include "hostile_support.h"

namespace lt::test {
namespace {

const char* const kCommands[] = {"simulate",  "info",   "convert",       "demo",        "bench",
                                 "compare",   "report", "import-sensor", "reconstruct", "reproduce",
                                 "calibrate", "labgen", "calibrate-real"};

TEST(CliConventions, EveryCommandTakesHelpWithUsageOnStdout) {
  for (const char* command : kCommands) {
    for (const char* flag : {"-h", "--help"}) {
      const CliRun r = RunShell(std::string(LT_CLI) + " " + command + " " + flag + " 2>/dev/null");
      if (r.output.find("unknown command") != std::string::npos) continue;  // built without it
      EXPECT_EQ(r.code, 0) << command << " " << flag << "\n" << r.output;
      EXPECT_EQ(r.output.rfind("usage: lidartwin " + std::string(command), 0), 0u)
          << command << " " << flag << ": usage must come first, on stdout\n"
          << r.output;
    }
  }
  const CliRun version = Cli("--version");
  EXPECT_EQ(version.code, 0);
  EXPECT_EQ(version.output.rfind("lidartwin ", 0), 0u) << version.output;
}

TEST(CliConventions, OptionEqualsValueIsTheSameAsTwoWords) {
  TempDir dir;
  const auto sensor = ConfigDir() / "sensors/velodyne_vlp16.yaml";
  const auto scene = ConfigDir() / "scenes/lab_plates.yaml";
  const CliRun a = Cli("simulate --sensor=" + Q(sensor) + " --scene=" + Q(scene) +
                       " --frames=2 --seed=7 --out=" + Q(dir / "a.h5"));
  const CliRun b = Cli("simulate --sensor " + Q(sensor) + " --scene " + Q(scene) +
                       " --frames 2 --seed 7 --out " + Q(dir / "b.h5"));
  ASSERT_EQ(a.code, 0) << a.output;
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_NE(a.output.find("2 frame(s)"), std::string::npos) << a.output;
  EXPECT_EQ(ReadAll(dir / "a.h5"), ReadAll(dir / "b.h5"));
}

TEST(CliConventions, UsageErrorsExitTwoAndNameTheOption) {
  const CliRun unknown = Cli("simulate --sensr x.yaml");
  EXPECT_EQ(unknown.code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("unknown option --sensr"), std::string::npos) << unknown.output;
  const CliRun dash = Cli("info -x file.h5");
  EXPECT_EQ(dash.code, 2) << dash.output;
  EXPECT_NE(dash.output.find("unknown option -x"), std::string::npos) << dash.output;
  const CliRun twice = Cli("info --json --json=1 file.h5");
  EXPECT_EQ(twice.code, 2) << twice.output;
  EXPECT_NE(twice.output.find("--json takes no value"), std::string::npos) << twice.output;
  const CliRun counts = Cli("bench --memory --memory-frames 10,4294967296");
  EXPECT_EQ(counts.code, 2) << counts.output;
  EXPECT_NE(counts.output.find("--memory-frames takes two whole counts"), std::string::npos);
  const CliRun stray = Cli("bench --capture-repeats 1,2");
  EXPECT_EQ(stray.code, 2) << stray.output;
  EXPECT_NE(stray.output.find("--capture-repeats is an option of bench --memory"),
            std::string::npos);
  const CliRun empty = Cli("simulate --out=");
  EXPECT_EQ(empty.code, 2) << empty.output;
  EXPECT_NE(empty.output.find("option --out needs a value, got ''"), std::string::npos);
  const CliRun no_file = Cli("info");
  EXPECT_EQ(no_file.code, 2) << no_file.output;
  EXPECT_NE(no_file.output.find("lidartwin info: missing FILE"), std::string::npos);
  const CliRun missing = Cli("simulate --sensor");
  EXPECT_EQ(missing.code, 2) << missing.output;
  EXPECT_NE(missing.output.find("option --sensor needs a value"), std::string::npos)
      << missing.output;
}

// Issue 11 second review: a frame listed twice was used twice.
TEST(CliConventions, AFrameListedTwiceIsAUsageError) {
  TempDir dir;
  const auto sensor = ConfigDir() / "sensors/velodyne_vlp16.yaml";
  const auto scene = ConfigDir() / "scenes/lab_plates.yaml";
  ASSERT_EQ(Cli("simulate --sensor " + Q(sensor) + " --scene " + Q(scene) + " --frames 2 --out " +
                Q(dir / "a.h5"))
                .code,
            0);
  const CliRun r = Cli("compare --real " + Q(dir / "a.h5") + " --sim " + Q(dir / "a.h5") +
                       " --real-frames 0,0 --sim-frames 0,1 --out " + Q(dir / "m.json"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("frame 0 is listed twice"), std::string::npos) << r.output;
}

TEST(CliConventions, ControlBytesAreEscapedNotEchoed) {
  TempDir dir;
  // A file name with an escape sequence (red text) and a bell, and a "YAML" of binary garbage.
  const std::string evil = "\x1b[31mred\x07.h5";
  const CliRun name = Cli("info " + Q(dir / evil));
  EXPECT_EQ(name.code, 1) << name.output;
  EXPECT_EQ(name.output.find('\x1b'), std::string::npos) << "raw ESC reached the terminal";
  EXPECT_EQ(name.output.find('\x07'), std::string::npos) << "raw BEL reached the terminal";
  EXPECT_NE(name.output.find("\\x1b[31mred\\x07.h5"), std::string::npos) << name.output;
  // A carriage return and erase-line in the middle would overwrite the message on screen; a
  // C1 CSI (U+009B) and a lone continuation byte are control sequences to some terminals.
  const CliRun spoof = Cli("info " + Q(dir / "no\rFAKE\x1b[Kx\xc2\x9b\x80.h5"));
  EXPECT_NE(spoof.output.find("no\\x0dFAKE\\x1b[Kx\\xc2\\x9b\\x80.h5"), std::string::npos)
      << spoof.output;
  // A right-to-left override (U+202E) would show "evil\u202Efdp.h5" as "evilh5.pdf".
  const CliRun bidi = Cli("info " + Q(dir / ("evil\xe2\x80\xae"
                                             "fdp.h5")));
  EXPECT_NE(bidi.output.find("evil\\xe2\\x80\\xaefdp.h5"), std::string::npos) << bidi.output;
  std::string garbage = "name: \x1b]0;owned\x07\x01\x02: [\n";
  const auto yaml = dir.Write("garbage.yaml", garbage);
  const CliRun g =
      Cli("simulate --sensor " + Q(yaml) + " --scene " + Q(yaml) + " --out " + Q(dir / "o.h5"));
  EXPECT_NE(g.code, 0);
  for (char c : g.output) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u >= 0x20 || c == '\n' || c == '\t' || c == '\r') << "raw control byte " << int(u);
  }
}

}  // namespace
}  // namespace lt::test
