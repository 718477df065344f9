// lidartwin bench --scene (issue 14): a user's scene traced by the bench's rays; without a GPU
// the Embree figures alone.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "test_support.h"

namespace lt::test {
namespace {

TEST(BenchScene, TracesAUsersSceneAndWritesItsFigures) {
  TempDir dir;
  const std::string scene = std::string(LT_SOURCE_DIR) + "/configs/scenes/lab_plates.yaml";
  CliRun r = Cli("bench --scene " + Q(scene) + " --threads 2 --repeats 1 --json " +
                 Q(dir.path() / "b.json"));
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(ReadAll(dir.path() / "b.json"));
  EXPECT_EQ(j["triangles"], 66);
  EXPECT_EQ(j["coherent_os0_8_subrays"]["rays"], 131072 * 8);
  EXPECT_EQ(j["random"]["rays"], 1 << 20);
  // The peer and the CPU backend's Embree find the same hits (the plates and the ground).
  EXPECT_GT(j["coherent_os0_8_subrays"]["embree_best_hits"].get<uint64_t>(), 100000u);
  EXPECT_NEAR(j["coherent_os0_8_subrays"]["embree_best_hits"].get<double>(),
              j["coherent_os0_8_subrays"]["embree_hits"].get<double>(), 50);
  EXPECT_GT(j["random"]["embree_best_rays_per_s"].get<double>(), 0);
}

TEST(BenchScene, BadOptionsAndFilesAreNamed) {
  CliRun r = Cli("bench --scene x.yaml --sensor-position 1,2");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--sensor-position"), std::string::npos) << r.output;
  r = Cli("bench --scene /no/such/scene.yaml");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("/no/such/scene.yaml"), std::string::npos) << r.output;
  r = Cli("bench --sensor-position 1,2,3");
  EXPECT_EQ(r.code, 2) << r.output;
}

}  // namespace
}  // namespace lt::test
