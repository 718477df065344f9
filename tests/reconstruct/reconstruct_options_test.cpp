// Validate() of ReconstructOptions (moved from tests/datasets/options_validate_test.cpp with
// the reconstruction, ADR 0022): each rule fails with its key and problem, and Reconstruct()
// refuses an invalid struct before it writes anything.
#include <gtest/gtest.h>

#include <filesystem>

#include "lidartwin/reconstruct/reconstruction.h"
#include "test_support.h"
#include "validate_rules.h"

namespace lt {
namespace {

using test::ExpectRules;

TEST(OptionsValidate, ReconstructOptions) {
  ExpectRules<ReconstructOptions>(
      {}, "reconstruct options",
      {{"method", [](auto& o) { o.method = "marching-cubes"; },
        "'marching-cubes' (expected range-image, surfels, poisson, ball-pivoting or tsdf)"},
       {"poisson_depth", [](auto& o) { o.poisson_depth = 3; }, "must be in 4..14, got 3"},
       {"density_quantile", [](auto& o) { o.density_quantile = 1; }, "must be in [0, 1), got 1"},
       {"voxel_m", [](auto& o) { o.voxel_m = 0; }, "must be positive, got 0"},
       {"max_gap_m", [](auto& o) { o.max_gap_m = -1; }, "must be >= 0 (0: no cut), got -1"},
       {"min_range_m", [](auto& o) { o.min_range_m = -1; }, "must be >= 0, got -1"},
       {"max_range_m", [](auto& o) { o.max_range_m = 0.5; }, "must exceed min_range_m, got 0.5"},
       {"max_incidence_deg", [](auto& o) { o.max_incidence_deg = 90; },
        "must be in (0, 90), got 90"},
       {"own_face_max_incidence_deg", [](auto& o) { o.own_face_max_incidence_deg = 0; },
        "must be in (0, 90), got 0"},
       {"reflectance_bins", [](auto& o) { o.reflectance_bins = 0; }, "must be in 1..1000, got 0"},
       {"reading.max_reflectance", [](auto& o) { o.reading.max_reflectance = 0.5; },
        "must be in [1, 100], got 0.5"}});
  test::TempDir dir;
  ReconstructOptions bad;
  bad.voxel_m = 0;
  PosedFrames input;
  input.frames.resize(1);
  input.start_poses.resize(1);
  input.end_poses.resize(1);
  auto r = Reconstruct(input, bad, dir / "rec");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("key 'voxel_m'"), std::string::npos) << r.message();
  EXPECT_FALSE(std::filesystem::exists(dir / "rec"));
}

}  // namespace
}  // namespace lt
