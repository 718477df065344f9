// The command-line engine alone (base/command_line.h): what the parser accepts and refuses,
// the typed readers' messages, and the key -> flag rewriting of library errors. The CLI's own
// tests (tests/apps/) run it through the real commands.
#include "lidartwin/base/command_line.h"

#include <gtest/gtest.h>

namespace lt::cli {
namespace {

const ArgSpec kSpec{{"--out", "--n", "--x", "--list"}, {"--json"}, 2};

Expected<Args> Parse(std::vector<std::string> argv) {
  return Args::Parse(argv, kSpec);
}

TEST(CommandLine, ValuesSwitchesAndPositionals) {
  auto a = Parse({"in.pcap", "--out", "o.h5", "--n=7", "--json", "--", "--not-a-flag"});
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->Get("--out"), "o.h5");
  EXPECT_EQ(*a->GetUInt("--n", 0), 7u);
  EXPECT_TRUE(a->Has("--json"));
  EXPECT_FALSE(a->Has("--x"));
  EXPECT_EQ(a->positionals(), (std::vector<std::string>{"in.pcap", "--not-a-flag"}));
  EXPECT_TRUE(Parse({"-h"})->Has("--help"));
}

TEST(CommandLine, RefusesWhatItCannotRead) {
  EXPECT_EQ(Parse({"--what"}).message(), "unknown option --what (see --help)");
  EXPECT_EQ(Parse({"--out"}).message(), "option --out needs a value");
  EXPECT_EQ(Parse({"--out="}).message(), "option --out needs a value, got ''");
  EXPECT_EQ(Parse({"--out", "a", "--out", "b"}).message(), "option --out given twice");
  EXPECT_EQ(Parse({"--json=1"}).message(), "option --json takes no value");
  EXPECT_EQ(Parse({"a", "b", "c"}).message(), "unexpected argument 'c'");
}

TEST(CommandLine, TypedValuesNameTheFlagAndTheText) {
  auto a = Parse({"--n", "-3", "--x", "0x10", "--list", "1,2,z"});
  ASSERT_TRUE(a.ok());
  auto n = a->GetUInt("--n", 0);
  EXPECT_EQ(n.message(), "option --n: expected a non-negative whole number, got '-3'");
  EXPECT_EQ(n.error().option, "--n");
  EXPECT_EQ(a->GetDouble("--x", 0).message(), "option --x: expected a finite number, got '0x10'");
  EXPECT_EQ(a->GetDoubleList("--list", {}).message(),
            "option --list: expected comma-separated numbers, got 'z'");
  auto b = Parse({"--n", "4294967296", "--x", "2.5"});
  uint32_t narrow = 5;
  EXPECT_EQ(b->Into("--n", narrow).message(),
            "option --n: must be in 0..4294967295, got 4294967296");
  EXPECT_EQ(narrow, 5u);  // left as it was
  double x = 0;
  EXPECT_TRUE(b->Into("--x", x).ok());
  EXPECT_EQ(x, 2.5);
  std::string untouched = "default";
  EXPECT_TRUE(b->Into("--out", untouched).ok());
  EXPECT_EQ(untouched, "default");
}

TEST(CommandLine, FrameNumbersAreWholeAndBelowTwoToThe32) {
  std::vector<uint32_t> frames{9};
  EXPECT_TRUE(Parse({"--list", "0,3,4294967295"})->Into("--list", frames).ok());
  EXPECT_EQ(frames, (std::vector<uint32_t>{0, 3, 4294967295u}));
  EXPECT_FALSE(Parse({"--list", "1.5"})->Into("--list", frames).ok());
  EXPECT_FALSE(Parse({"--list", "4294967296"})->Into("--list", frames).ok());
}

TEST(CommandLine, KeysInMessagesBecomeFlags) {
  const OptionFlags flags{{"voxel_m", "--voxel-m"}, {"detector", "--detector"}};
  EXPECT_EQ(FlagMessage(OptionError("voxel_m", "voxel_m: must be > 0"), flags),
            "option --voxel-m: must be > 0");
  EXPECT_EQ(FlagMessage(OptionError("detector", "detector magic: unknown"), flags),
            "--detector magic: unknown");
  // A key these flags do not name, or a message that does not begin with it, is left alone.
  EXPECT_EQ(FlagMessage(OptionError("seed", "seed: too large"), flags), "seed: too large");
  EXPECT_EQ(FlagMessage(OptionError("voxel_m", "the voxel_m is odd"), flags), "the voxel_m is odd");
  EXPECT_TRUE(IsAboutOption(OptionError("voxel_m", "x"), flags));
  EXPECT_FALSE(IsAboutOption(Error{"no option"}, flags));
}

TEST(CommandLine, ExitStatusByKindOfError) {
  const CommandLine command{"prog", "cmd", "usage\n", kSpec, {{"key", "--n"}}, {}};
  auto status_of = [&](std::vector<std::string> argv, Expected<int> result) {
    return RunCommandLine(command, argv, [&](const Args&) { return result; });
  };
  EXPECT_EQ(status_of({}, 0), 0);
  EXPECT_EQ(status_of({}, 3), 3);                                   // a failed gate
  EXPECT_EQ(status_of({"--help"}, Error{"not run"}), 0);            // --help answers first
  EXPECT_EQ(status_of({"--bad"}, 0), 2);                            // refused by the parser
  EXPECT_EQ(status_of({}, Usage("missing --out")), 2);              // the line itself
  EXPECT_EQ(status_of({}, FlagError("--n", "--n: bad")), 2);        // a flag's value
  EXPECT_EQ(status_of({}, OptionError("key", "key: bad")), 2);      // a key the flags name
  EXPECT_EQ(status_of({}, ArgumentError("rule broken")), 2);        // a rule over several
  EXPECT_EQ(status_of({}, OptionError("other", "other: bad")), 1);  // a key it does not name
  EXPECT_EQ(status_of({}, Error{"file unreadable"}), 1);
}

TEST(CommandLine, RequireNamesWhatIsMissing) {
  EXPECT_EQ(Require(*Parse({}), "RECORDING", {}).message(), "missing RECORDING");
  EXPECT_EQ(Require(*Parse({"r"}), "RECORDING", {"--out"}).message(),
            "missing required option --out");
  EXPECT_TRUE(Require(*Parse({"r", "--out", "o"}), "RECORDING", {"--out"}).ok());
}

}  // namespace
}  // namespace lt::cli
