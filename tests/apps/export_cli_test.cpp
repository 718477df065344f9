// lidartwin export end to end, as a user runs it: shards give one run's frames, kill -9 at
// random points and a restart give the same bytes, the join checks every shard, and bad
// arguments and foreign folders are refused with the problem named.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "../../datasets/export/export_record.h"
#include "cli_support.h"
#include "frame_bytes.h"
#include "lidartwin/datasets/export_identity.h"
#include "lidartwin/datasets/export_run.h"
#include "lidartwin/datasets/frame_journal.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/datasets/recording.h"
#include "test_support.h"

extern char** environ;

namespace lt {
namespace {

using test::Cli;
using test::Q;

std::string Config(const std::string& rel) {
  return Q(test::ConfigDir() / rel);
}

// A short run: the VLP-16 in the lab (about 15,000 points a frame).
std::string SmallRun(uint32_t frames) {
  return "export --sensor " + Config("sensors/velodyne_vlp16.yaml") + " --scene " +
         Config("scenes/lab_plates.yaml") + " --frames " + std::to_string(frames);
}

// A longer one for the kill test: the OS0-128 in the street (about 50,000 points a frame).
std::vector<std::string> StreetRun(const std::filesystem::path& out, uint32_t frames) {
  return {LT_CLI,      "export",
          "--sensor",  (test::ConfigDir() / "sensors/ouster_os0_128.yaml").string(),
          "--scene",   (test::ConfigDir() / "scenes/street_crossing.yaml").string(),
          "--frames",  std::to_string(frames),
          "--threads", "2",
          "--out",     out.string()};
}

std::vector<std::string> EncodedFrames(const std::filesystem::path& file) {
  auto frames = ReadHdf5Frames(file);
  EXPECT_TRUE(frames.ok()) << frames.message();
  std::vector<std::string> out;
  if (frames.ok()) {
    for (const auto& f : *frames)
      out.push_back(test::FrameBytes(f));
  }
  return out;
}

pid_t Spawn(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  std::vector<std::string> copy = args;
  for (auto& a : copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

int Wait(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

TEST(ExportCli, ShardsAndWorkersGiveOneRunsFrames) {
  test::TempDir dir;
  // The one-process run with 6 encoding threads (--host-cores 8), the others with the cores this
  // process may use: the thread counts change no byte.
  auto one = Cli(SmallRun(7) + " --host-cores 8 --out " + Q(dir / "one"));
  ASSERT_EQ(one.code, 0) << one.output;
  EXPECT_NE(one.output.find("encoding summed over 6 threads"), std::string::npos) << one.output;
  auto three = Cli(SmallRun(7) + " --shards 3 --out " + Q(dir / "three"));
  ASSERT_EQ(three.code, 0) << three.output;
  // --host-cores with --workers: the parent passes each worker its share instead.
  auto workers =
      Cli(SmallRun(7) + " --workers=2 --shards=3 --host-cores=8 --out " + Q(dir / "workers"));
  ASSERT_EQ(workers.code, 0) << workers.output;
  // The joins took the hashes the runs took (the one process's, the workers' through their
  // pipes); a join on its own reads and hashes every shard.
  EXPECT_NE(three.output.find("(3 shard(s), 0 hashed again)"), std::string::npos) << three.output;
  EXPECT_NE(workers.output.find("(3 shard(s), 0 hashed again)"), std::string::npos)
      << workers.output;
  auto rejoined = Cli("export --join --out " + Q(dir / "workers"));
  ASSERT_EQ(rejoined.code, 0) << rejoined.output;
  EXPECT_NE(rejoined.output.find("(3 shard(s), 3 hashed again)"), std::string::npos)
      << rejoined.output;
  const auto reference = EncodedFrames(dir / "one/dataset.h5");
  ASSERT_EQ(reference.size(), 7u);
  EXPECT_EQ(EncodedFrames(dir / "three/dataset.h5"), reference);
  EXPECT_EQ(EncodedFrames(dir / "workers/dataset.h5"), reference);
  // The shards of both three-shard runs are the same bytes.
  for (int i = 0; i < 3; ++i) {
    const std::string name = "shard-0000" + std::to_string(i) + "-of-00003.h5";
    EXPECT_EQ(test::ReadAll(dir / "three" / name), test::ReadAll(dir / "workers" / name)) << name;
  }
  // The manifest's checksums are the files'.
  const auto manifest = nlohmann::json::parse(test::ReadAll(dir / "three/manifest.json"));
  EXPECT_EQ(manifest["frames"], 7);
  EXPECT_EQ(manifest["identity"]["shards"], 3);
  ASSERT_EQ(manifest["shards"].size(), 3u);
  for (const auto& shard : manifest["shards"]) {
    const auto file = dir / "three" / shard["file"].get<std::string>();
    // Files of one piece (64 MiB or less): the piece's digest is the file's SHA-256.
    EXPECT_EQ(shard["piece_bytes"], kHashPieceBytes);
    EXPECT_EQ(shard["sha256_pieces"], nlohmann::json::array({*Sha256OfFile(file)}));
    EXPECT_EQ(shard["bytes"], std::filesystem::file_size(file));
  }
  EXPECT_EQ(manifest["dataset"]["sha256_pieces"],
            nlohmann::json::array({*Sha256OfFile(dir / "three/dataset.h5")}));
  EXPECT_EQ(manifest["dataset"]["bytes"], std::filesystem::file_size(dir / "three/dataset.h5"));
  // Nothing else is left in the folder: no journal, no temporary.
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir / "three"))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"dataset.h5", "export.json", "manifest.json",
                                      "shard-00000-of-00003.h5", "shard-00000-of-00003.json",
                                      "shard-00001-of-00003.h5", "shard-00001-of-00003.json",
                                      "shard-00002-of-00003.h5", "shard-00002-of-00003.json"}));
  // Running the finished export again changes nothing.
  auto again = Cli(SmallRun(7) + " --shards 3 --out " + Q(dir / "three"));
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("already complete"), std::string::npos) << again.output;
  const auto record0 =
      nlohmann::json::parse(test::ReadAll(dir / "three/shard-00000-of-00003.json"));
  EXPECT_NE(again.output.find("already complete (" +
                              std::to_string(record0["points"].get<uint64_t>()) + " points)"),
            std::string::npos)
      << again.output;
}

// Found by a hostile-input pass: a finished shard whose file was damaged since was taken as
// complete on the next run, and a journal planted as a symbolic link had the run write the
// file it points to.
// --bag: the joined dataset also as a ROS 2 bag, frame for frame (issue 38).
TEST(ExportCli, ABagOfTheDatasetHoldsItsFrames) {
  test::TempDir dir;
  auto run = Cli(SmallRun(3) + " --shards 2 --bag --out " + Q(dir / "e"));
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("wrote 3 frames"), std::string::npos) << run.output;
  auto h5 = ReadRecording(dir / "e" / "dataset.h5", "");
  auto bag = ReadRecording(dir / "e" / "dataset.mcap", "");
  ASSERT_TRUE(h5.ok()) << h5.message();
  ASSERT_TRUE(bag.ok()) << bag.message();
  EXPECT_EQ(bag->reader, "pointcloud2-bag");
  ASSERT_EQ(bag->frames.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(bag->frames[k].x_m, h5->frames[k].x_m) << k;
    EXPECT_EQ(bag->frames[k].semantic_class, h5->frames[k].semantic_class) << k;
    EXPECT_EQ(bag->frames[k].instance_id, h5->frames[k].instance_id) << k;
  }
  // The join on its own writes it too (a cluster's shards, joined afterwards).
  std::filesystem::remove(dir / "e" / "dataset.mcap");
  auto joined = Cli("export --join --bag --out " + Q(dir / "e"));
  ASSERT_EQ(joined.code, 0) << joined.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "e" / "dataset.mcap"));
}

TEST(ExportCli, ResumeNamesADamagedShardAndRefusesALinkedJournal) {
  test::TempDir dir;
  const auto e = dir / "e";
  const std::string run = SmallRun(2) + " --out " + Q(e);
  ASSERT_EQ(Cli(run).code, 0);
  const auto h5 = e / "shard-00000-of-00001.h5";
  const std::string bytes = test::ReadAll(h5);
  std::ofstream(h5, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 1);
  auto damaged = Cli(run);
  EXPECT_EQ(damaged.code, 1) << damaged.output;
  EXPECT_NE(damaged.output.find(h5.string() + ": " + std::to_string(bytes.size() - 1) +
                                " bytes, not the " + std::to_string(bytes.size()) +
                                " its record holds; remove shard-00000-of-00001.h5 and "
                                "shard-00000-of-00001.json to export the shard again"),
            std::string::npos)
      << damaged.output;
  std::filesystem::remove(h5);
  std::filesystem::remove(e / "shard-00000-of-00001.json");
  const auto elsewhere = dir / "elsewhere";
  std::filesystem::create_symlink(elsewhere, e / "shard-00000-of-00001.journal");
  auto linked = Cli(run);
  EXPECT_EQ(linked.code, 1) << linked.output;
  EXPECT_NE(linked.output.find("shard-00000-of-00001.journal: is a symbolic link"),
            std::string::npos)
      << linked.output;
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(elsewhere)));
  // A FIFO in the journal's place: the join, counting the unfinished shard's frames, names it
  // instead of waiting for a writer.
  std::filesystem::remove(e / "shard-00000-of-00001.journal");
  ASSERT_EQ(::mkfifo((e / "shard-00000-of-00001.journal").c_str(), 0644), 0);
  auto fifo = Cli("export --join --out " + Q(e));
  EXPECT_EQ(fifo.code, 1) << fifo.output;
  EXPECT_NE(fifo.output.find("shard-00000-of-00001.journal: not a regular file"), std::string::npos)
      << fifo.output;
  // The FIFO gone, the same command exports the shard again, to the same bytes.
  std::filesystem::remove(e / "shard-00000-of-00001.journal");
  ASSERT_EQ(Cli(run).code, 0);
  EXPECT_EQ(test::ReadAll(h5), bytes);
}

// The exit status of `args` run with a file-size limit of `limit` bytes (a disk that fills),
// its standard error in `err`.
int RunWithFileLimit(const std::vector<std::string>& args, rlim_t limit,
                     const std::filesystem::path& err) {
  std::vector<std::string> copy = args;  // made before the fork: the child only calls exec
  std::vector<char*> argv;
  for (auto& a : copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDERR_FILENO);
    ::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead
    const struct rlimit r { limit, limit };
    ::setrlimit(RLIMIT_FSIZE, &r);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  // A hang (a writer thread left waiting) is killed after two minutes and fails the test.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "the run did not end within two minutes";
      ::kill(pid, SIGKILL);
      return Wait(pid);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return status;
}

// A disk that fills during the run (journal and file are written by two threads, one after
// the other for each frame): the run stops with the shard named, no thread left hanging, and
// the same command afterwards resumes to the bytes of a run that never failed.
TEST(ExportCli, AFullDiskStopsTheRunNamedAndItResumesToTheSameBytes) {
  test::TempDir dir;
  constexpr uint32_t kFrames = 16;
  ASSERT_EQ(Wait(Spawn(StreetRun(dir / "clean", kFrames))), 0);
  const std::string reference = test::ReadAll(dir / "clean/shard-00000-of-00001.h5");
  ASSERT_GT(reference.size(), size_t{4} << 20);  // the limit below falls inside the run
  const auto out = dir / "full";
  const int status = RunWithFileLimit(StreetRun(out, kFrames), 2 << 20, dir / "err.txt");
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_NE(WEXITSTATUS(status), 0);
  const std::string err = test::ReadAll(dir / "err.txt");
  EXPECT_NE(err.find("shard-00000-of-00001"), std::string::npos) << err;
  EXPECT_EQ(err.find("HDF5-DIAG"), std::string::npos) << err;
  ASSERT_EQ(Wait(Spawn(StreetRun(out, kFrames))), 0);
  EXPECT_EQ(test::ReadAll(out / "shard-00000-of-00001.h5"), reference);
}

// kill -9 at random moments, then the same command until it finishes: the shard file is the
// same bytes as an uninterrupted run's, and nothing temporary is left.
TEST(ExportCli, KilledRunsResumeToTheSameBytes) {
  test::TempDir dir;
  constexpr uint32_t kFrames = 24;
  const auto clean = Spawn(StreetRun(dir / "clean", kFrames));
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(Wait(clean), 0);
  const double run_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const std::string reference = test::ReadAll(dir / "clean/shard-00000-of-00001.h5");
  ASSERT_FALSE(reference.empty());
  std::mt19937 rng(20261123);
  for (int trial = 0; trial < 3; ++trial) {
    const auto out = dir / ("killed" + std::to_string(trial));
    int kills = 0;
    for (int attempt = 0; attempt < 12; ++attempt) {
      const pid_t pid = Spawn(StreetRun(out, kFrames));
      // Anywhere in the run, start-up and the final writes included.
      const int delay_ms = static_cast<int>(
          std::uniform_real_distribution<double>(0.05 * run_ms, 0.9 * run_ms)(rng));
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      ::kill(pid, SIGKILL);
      const int status = Wait(pid);
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        // Finished before the kill (a run here can be faster than the clean one was under
        // load): start the trial over, so that every trial resumes at least once.
        std::filesystem::remove_all(out);
        continue;
      }
      ASSERT_TRUE(WIFSIGNALED(status)) << status;
      ++kills;
      if (kills == 3) break;
    }
    EXPECT_GE(kills, 1);
    ASSERT_EQ(Wait(Spawn(StreetRun(out, kFrames))), 0);
    EXPECT_EQ(test::ReadAll(out / "shard-00000-of-00001.h5"), reference) << "trial " << trial;
    EXPECT_EQ(EncodedFrames(out / "dataset.h5").size(), kFrames);
    for (const auto& e : std::filesystem::directory_iterator(out)) {
      const std::string name = e.path().filename().string();
      EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
      EXPECT_EQ(name.find(".journal"), std::string::npos) << name;
    }
  }
}

TEST(ExportCli, ChangedConfigurationOnResumeIsRefusedAndNamed) {
  test::TempDir dir;
  auto part = Cli(SmallRun(4) + " --shard 0/2 --out " + Q(dir / "e"));
  ASSERT_EQ(part.code, 0) << part.output;
  auto seed = Cli(SmallRun(4) + " --seed 9 --shard 1/2 --out " + Q(dir / "e"));
  EXPECT_NE(seed.code, 0);
  EXPECT_NE(seed.output.find("holds another export run"), std::string::npos) << seed.output;
  EXPECT_NE(seed.output.find("seed: the folder's run has 0, this one 9"), std::string::npos)
      << seed.output;
  // The same scene with one byte more is another scene (beside a copy of its materials).
  std::filesystem::create_directories(dir / "materials");
  std::filesystem::create_directories(dir / "scenes");
  const std::string library = test::ReadAll(test::ConfigDir() / "materials/library.yaml");
  const std::string scene_text = test::ReadAll(test::ConfigDir() / "scenes/lab_plates.yaml");
  dir.Write("materials/library.yaml", library);
  const auto scene = dir.Write("scenes/scene.yaml", scene_text + "\n");
  auto changed = Cli("export --sensor " + Config("sensors/velodyne_vlp16.yaml") + " --scene " +
                     Q(scene) + " --frames 4 --shard 1/2 --out " + Q(dir / "e"));
  EXPECT_NE(changed.code, 0);
  EXPECT_NE(changed.output.find("scene: different bytes"), std::string::npos) << changed.output;
  // A file the scene refers to (its material library) is part of the run too.
  dir.Write("materials/library.yaml", library + "\n# changed\n");
  const auto copied_scene = dir.Write("scenes/lab_plates.yaml", scene_text);
  auto materials = Cli("export --sensor " + Config("sensors/velodyne_vlp16.yaml") + " --scene " +
                       Q(copied_scene) + " --frames 4 --shard 1/2 --out " + Q(dir / "e"));
  EXPECT_NE(materials.code, 0);
  EXPECT_NE(materials.output.find("files the profile or scene refer to differ"), std::string::npos)
      << materials.output;
  auto shards = Cli(SmallRun(4) + " --shard 1/4 --out " + Q(dir / "e"));
  EXPECT_NE(shards.output.find("shards: the folder's run has 2, this one 4"), std::string::npos)
      << shards.output;
  // Nothing of the finished shard was touched.
  EXPECT_TRUE(std::filesystem::exists(dir / "e/shard-00000-of-00002.h5"));
  EXPECT_FALSE(std::filesystem::exists(dir / "e/shard-00001-of-00002.journal"));
}

TEST(ExportCli, AChangedSpectrumFileOnResumeIsRefusedAndNamed) {
  // Issue 36: a material's spectrum_file was not in the run's identity; changed between a kill
  // and the resume, the joined dataset mixed reflectance 0.918 and 0.275 with rc 0. Every file
  // the loaders read is in it now.
  test::TempDir dir;
  const auto spectrum = [](double percent) {
    return "Name: panel\nX Units: Wavelength (micrometers)\nY Units: Reflectance (percent)\n"
           "0.85 " +
           std::to_string(percent) + "\n0.905 " + std::to_string(percent) + "\n1.55 " +
           std::to_string(percent) + "\n";
  };
  dir.Write("panel.txt", spectrum(91.8));
  dir.Write("library.yaml",
            "materials:\n  - {name: panel, spectrum_file: panel.txt, source: test}\n");
  const auto scene = dir.Write("scene.yaml",
                               "materials: library.yaml\nobjects:\n  - {name: g, type: plane, "
                               "size_m: [200, 200], position_m: [0, 0, -1.5], material: panel}\n");
  const std::string run = "export --sensor " + Config("sensors/velodyne_vlp16.yaml") + " --scene " +
                          Q(scene) + " --frames 4 --out " + Q(dir / "e");
  auto first = Cli(run + " --shard 0/2");
  ASSERT_EQ(first.code, 0) << first.output;
  dir.Write("panel.txt", spectrum(27.5));
  auto resumed = Cli(run + " --shard 1/2");
  EXPECT_NE(resumed.code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("holds another export run"), std::string::npos) << resumed.output;
  EXPECT_NE(resumed.output.find("panel.txt"), std::string::npos) << resumed.output;
  // Put back, the run goes on.
  dir.Write("panel.txt", spectrum(91.8));
  auto again = Cli(run + " --shard 1/2");
  EXPECT_EQ(again.code, 0) << again.output;
}

TEST(ExportCli, JoinNamesEveryMissingUnfinishedOrDamagedShard) {
  test::TempDir dir;
  const auto e = dir / "e";
  ASSERT_EQ(Cli(SmallRun(6) + " --shard 0/3 --out " + Q(e)).code, 0);
  auto join = Cli("export --join --out " + Q(e));
  EXPECT_NE(join.code, 0);
  EXPECT_NE(join.output.find("cannot join 2 of 3 shards"), std::string::npos) << join.output;
  EXPECT_NE(join.output.find("shard-00001-of-00003 has not run (frames 2..3)"), std::string::npos)
      << join.output;
  // A shard that stopped half-way: its journal holds one frame.
  {
    auto journal =
        FrameJournal::Create(e / "shard-00002-of-00003.journal", test::ReadAll(e / "export.json"));
    ASSERT_TRUE(journal.ok());
    auto empty = std::make_shared<Frame>();  // a frame 4 without points, as a record holds it
    empty->index = 4;
    hdf5::TablePlanner planner;
    auto plan = planner.Plan(empty);
    ASSERT_TRUE(plan.ok());
    const hdf5::EncodedFrame encoded = hdf5::EncodePlan(*plan, planner.columns());
    ASSERT_TRUE(journal->AppendRecord(JournalRecordOf(encoded)).ok());
  }
  join = Cli("export --join --out " + Q(e));
  EXPECT_NE(join.output.find("shard-00002-of-00003 is unfinished: 1 of 2 frames done"),
            std::string::npos)
      << join.output;
  ASSERT_EQ(Cli(SmallRun(6) + " --shards 3 --out " + Q(e)).code, 0);  // finishes 1 and 2
  ASSERT_TRUE(std::filesystem::exists(e / "dataset.h5"));
  // A shard damaged after it was written.
  std::string bytes = test::ReadAll(e / "shard-00001-of-00003.h5");
  bytes[bytes.size() / 2] ^= 0x10;
  std::ofstream(e / "shard-00001-of-00003.h5", std::ios::binary | std::ios::trunc) << bytes;
  join = Cli("export --join --out " + Q(e));
  EXPECT_NE(join.code, 0);
  EXPECT_NE(join.output.find("damaged since written"), std::string::npos) << join.output;
  // Cut short by a byte: named by its size, before any hashing.
  std::ofstream(e / "shard-00001-of-00003.h5", std::ios::binary | std::ios::trunc)
      << bytes.substr(0, bytes.size() - 1);
  join = Cli("export --join --out " + Q(e));
  EXPECT_NE(join.output.find(std::to_string(bytes.size() - 1) + " bytes, not the " +
                             std::to_string(bytes.size()) + " its record holds"),
            std::string::npos)
      << join.output;
  bytes[bytes.size() / 2] ^= 0x10;  // shard 1 whole again
  std::ofstream(e / "shard-00001-of-00003.h5", std::ios::binary | std::ios::trunc) << bytes;
  // Records damaged or edited by hand are refused with the key named (a hostile-input pass):
  // and a join that fails leaves the folder's dataset.h5 and manifest.json as they were.
  {
    const auto record_path = e / "shard-00002-of-00003.json";
    const std::string original_text = test::ReadAll(record_path);
    const auto original = nlohmann::json::parse(original_text);
    const std::string dataset_before = test::ReadAll(e / "dataset.h5");
    const std::string manifest_before = test::ReadAll(e / "manifest.json");
    struct Case {
      std::function<void(nlohmann::json&)> edit;  // of the parsed record
      std::string message;
    };
    const Case cases[] = {
        {[](nlohmann::json& r) {  // an earlier version's whole-file digest
           r["sha256"] = r["sha256_pieces"][0];
           r.erase("sha256_pieces");
         },
         "key 'sha256' is not one of a shard record's"},
        {[](nlohmann::json& r) { r["piece_bytes"] = 1; },
         "key 'piece_bytes' must be a whole number from 1"},
        {[](nlohmann::json& r) { r["bytes"] = -5; }, "key 'bytes' must be a whole number"},
        {[](nlohmann::json& r) { r["sha256_pieces"][0] = "AB"; },
         "entry 0 is not 64 lower-case hex"},
        {[](nlohmann::json& r) { r["sha256_pieces"].push_back(r["sha256_pieces"][0]); },
         "key 'sha256_pieces' must list 1 SHA-256 digest(s)"},
        {[](nlohmann::json& r) {
           r["frames"] = {100, 999};
         },
         "key 'frames' must be [4, 6]"},
        {[](nlohmann::json& r) { r["shard"] = 1; }, "is the record of shard 1 of 3, not of 2 of 3"},
        {[](nlohmann::json& r) { r["file"] = "/tmp/shard-00002-of-00003.h5"; },
         "key 'file' must be \"shard-00002-of-00003.h5\""},
        {[](nlohmann::json& r) { r["identity_sha256"] = std::string(64, 'a'); },
         "belongs to another run than the folder's export.json"},
        {[](nlohmann::json& r) {  // a million levels deep: refused before it is built
           r["x"] = nullptr;
         },
         "nested deeper than a shard record"},
        {[](nlohmann::json& r) { r["x"] = 1; }, "key 'x' is not one of a shard record's"},
        {[](nlohmann::json& r) { r.erase("identity_sha256"); }, "key 'identity_sha256' is missing"},
        {[](nlohmann::json& r) { r["points"] = r["points"].get<uint64_t>() + 1; },
         "points, its record"},
    };
    for (const Case& c : cases) {
      auto record = original;
      c.edit(record);
      std::string text = record.dump(2);
      if (record.contains("x") && record["x"].is_null()) {  // the deep value, spliced in as text
        text.replace(text.find("null"), 4, std::string(1000000, '[') + std::string(1000000, ']'));
      }
      std::ofstream(record_path, std::ios::trunc) << text;
      join = Cli("export --join --out " + Q(e));
      EXPECT_EQ(join.code, 1) << c.message << "\n" << join.output;
      EXPECT_NE(join.output.find(c.message), std::string::npos) << join.output;
      EXPECT_EQ(test::ReadAll(e / "dataset.h5"), dataset_before) << c.message;
      EXPECT_EQ(test::ReadAll(e / "manifest.json"), manifest_before) << c.message;
    }
    std::ofstream(record_path, std::ios::trunc) << original_text;
  }
  // A joined file whose shard is gone is an error for readers, not zeros.
  std::filesystem::remove(e / "shard-00001-of-00003.h5");
  auto info = Cli("info " + Q(e / "dataset.h5"));
  EXPECT_NE(info.code, 0);
  EXPECT_NE(info.output.find("the source file is missing"), std::string::npos) << info.output;
  // A FIFO in its place is refused, not opened (opening one for reading would block).
  ASSERT_EQ(::mkfifo((e / "shard-00001-of-00003.h5").c_str(), 0644), 0);
  info = Cli("info " + Q(e / "dataset.h5"));
  EXPECT_NE(info.code, 0);
  EXPECT_NE(info.output.find("missing or not a regular file"), std::string::npos) << info.output;
}

// A joined file reads its shards' data and nothing else: a mapping to a dataset behind a link
// in the shard (here an external link to another file) is refused, and HDF5_VDS_PREFIX, which
// libhdf5 would follow, does not redirect the reads.
TEST(ExportCli, JoinedFilesReadOnlyTheirShardsDatasets) {
  test::TempDir dir;
  const auto e = dir / "e";
  ASSERT_EQ(Cli(SmallRun(2) + " --shards 2 --out " + Q(e)).code, 0);
  const auto reference = EncodedFrames(e / "dataset.h5");
  ASSERT_EQ(reference.size(), 2u);
  // A second export with another seed, as the place a prefix would point to.
  ASSERT_EQ(Cli(SmallRun(2) + " --seed 5 --shards 2 --out " + Q(dir / "other")).code, 0);
  auto redirected =
      test::RunShell("HDF5_VDS_PREFIX=" + Q(dir / "other") + " " + LT_CLI + " convert " +
                     Q(e / "dataset.h5") + " --out " + Q(dir / "copy.h5"));
  ASSERT_EQ(redirected.code, 0) << redirected.output;
  EXPECT_EQ(EncodedFrames(dir / "copy.h5"), reference);

  // A mapping to another column of the shard than the joined file's own.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::filesystem::copy_file(e / "dataset.h5", dir / "saved.h5");
  hid_t joined = H5Fopen((e / "dataset.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(joined, 0);
  hid_t old_ds = H5Dopen2(joined, "/points/x", H5P_DEFAULT);
  hid_t type = H5Dget_type(old_ds), space = H5Dget_space(old_ds);
  H5Dclose(old_ds);
  ASSERT_GE(H5Ldelete(joined, "/points/x", H5P_DEFAULT), 0);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hsize_t n = 0;
  const hsize_t start = 0, one = 1;
  H5Sget_simple_extent_dims(space, &n, nullptr);
  hid_t all = H5Screate_simple(1, &n, nullptr);
  H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, nullptr, &one, &n);
  H5Pset_virtual(dcpl, space, "shard-00000-of-00002.h5", "/points/y", all);
  H5Sclose(all);
  hid_t ds = H5Dcreate2(joined, "/points/x", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ASSERT_GE(ds, 0);
  H5Dclose(ds);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Tclose(type);
  H5Fclose(joined);
  auto info = Cli("info " + Q(e / "dataset.h5"));
  EXPECT_NE(info.code, 0);
  EXPECT_NE(info.output.find("maps '/points/y', not the shard's /points/x"), std::string::npos)
      << info.output;
  std::filesystem::rename(dir / "saved.h5", e / "dataset.h5");

  // The shard's own column replaced by an external link to another file.
  const std::string shard = (e / "shard-00000-of-00002.h5").string();
  hid_t f = H5Fopen(shard.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  ASSERT_GE(H5Ldelete(f, "/points/x", H5P_DEFAULT), 0);
  ASSERT_GE(H5Lcreate_external((dir / "other/shard-00000-of-00002.h5").c_str(), "/points/x", f,
                               "/points/x", H5P_DEFAULT, H5P_DEFAULT),
            0);
  H5Fclose(f);
  info = Cli("info " + Q(e / "dataset.h5"));
  EXPECT_NE(info.code, 0);
  EXPECT_NE(info.output.find("is a link to another file"), std::string::npos) << info.output;
}

// A join in the process that wrote a shard takes the hash the shard took, unless the file
// changed since (same size, another byte: its modification time moves), when it reads the file
// again and names the damage.
TEST(ExportJoin, AShardHashedHereIsTrustedOnlyWhileUnchanged) {
  test::TempDir dir;
  ExportJob job;
  job.simulation.sensor = test::ConfigDir() / "sensors/velodyne_vlp16.yaml";
  job.simulation.scene = test::ConfigDir() / "scenes/lab_plates.yaml";
  job.simulation.frames = 2;
  job.simulation.software_version = "test";
  job.folder = dir / "e";
  auto shard = RunExportShard(job);
  ASSERT_TRUE(shard.ok()) << shard.message();
  ASSERT_EQ(shard->hash.hashes.sha256.size(), 1u);
  ASSERT_EQ(shard->hash.hashes.sha256[0].size(), 64u);
  EXPECT_EQ(shard->hash.file, shard->file);
  auto joined = JoinExport(job.folder, {shard->hash});
  ASSERT_TRUE(joined.ok()) << joined.message();
  EXPECT_EQ(joined->frames, 2u);
  // A forged hash is taken as it is while the file is unchanged: the join then refuses the
  // shard as damaged, which shows the file was not read again.
  FreshShardHash forged = shard->hash;
  forged.hashes.sha256[0] = std::string(64, '0');
  auto trusted = JoinExport(job.folder, {forged});
  ASSERT_FALSE(trusted.ok());
  EXPECT_NE(trusted.message().find("SHA-256 of bytes 0.. is " + forged.hashes.sha256[0]),
            std::string::npos)
      << trusted.message();
  // One byte changed: the stamp no longer matches, the file is hashed again.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::string bytes = test::ReadAll(shard->file);
  bytes[bytes.size() / 2] ^= 0x10;
  std::ofstream(shard->file, std::ios::binary | std::ios::trunc) << bytes;
  auto damaged = JoinExport(job.folder, {shard->hash});
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.message().find("damaged since written"), std::string::npos)
      << damaged.message();
  EXPECT_EQ(damaged.message().find("is " + shard->hash.hashes.sha256[0]), std::string::npos)
      << damaged.message();
}

TEST(ExportCli, BadArgumentsAreRefused) {
  test::TempDir dir;
  const std::string out = " --out " + Q(dir / "e");
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {SmallRun(4) + " --shard 1/2 --workers 2" + out, "conflicting shard arguments"},
      {SmallRun(4) + " --shard 2/2" + out, "is not I/N with 0 <= I < N"},
      {SmallRun(4) + " --shard 1of2" + out, "is not I/N"},
      {SmallRun(4) + " --shards 5" + out, "5 shards for 4 frames"},
      {SmallRun(4) + " --workers 2 --devices 0,1" + out, "conflicting arguments"},
      {SmallRun(4) + " --devices 0,0 --backend cuda" + out, "GPU 0 is listed twice"},
      {SmallRun(4) + " --devices 0,1" + out, "--devices needs backend cuda"},
      {SmallRun(4) + " --host-cores 0" + out, "--host-cores: must be in 1..4096, got 0"},
      {SmallRun(4) + " --host-cores many" + out, "--host-cores"},
      {"export --join --seed 3" + out, "--join takes only --out"},
      {"export --join --host-cores 4" + out, "--join takes only --out"},
      {SmallRun(4), "missing required option --out"},
      {"export --join --out " + Q(dir / "nothing"),
       "is " + (dir / "nothing").string() + " an export folder?"},
      {SmallRun(4) + " --out " + Q(dir.Write("file", "x")), "exists and is not a folder"},
  };
  for (const auto& c : cases) {
    auto r = Cli(c.args);
    EXPECT_NE(r.code, 0) << c.args;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "e"));  // no refused run created anything
  // Issue 36: a folder that cannot be used is an error of the output (1), not of usage (2).
  const auto not_a_folder = Cli(SmallRun(4) + " --out " + Q(dir.Write("plain", "x")));
  EXPECT_EQ(not_a_folder.code, 1) << not_a_folder.output;
}

}  // namespace
}  // namespace lt
