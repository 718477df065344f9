// The CUDA backend's memory plan (gpu_memory_plan.h), checked without a GPU.
#include "internal/gpu_memory_plan.h"

#include <gtest/gtest.h>

namespace lt {
namespace {

constexpr size_t kGiB = size_t{1} << 30;
constexpr size_t kBeamBytes = 160;

TEST(GpuMemoryPlan, EverythingAtOnceWhenItFits) {
  auto p = PlanGpuMemory(80 * kGiB, 1'000'000, 131072, kBeamBytes, 0, 0);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->triangles_per_bvh, 1'000'000u);
  EXPECT_EQ(p->beams_per_batch, 131072u);
  EXPECT_EQ(p->bvh_count, 1u);
  EXPECT_EQ(p->batch_count, 1u);
}

TEST(GpuMemoryPlan, SplitsTheSceneWhenOnlyTheBuildDoesNotFit) {
  // 10 M triangles keep ~3 GB resident; 4 GiB free leaves room for part of a build only.
  const uint64_t n = 10'000'000;
  auto p = PlanGpuMemory(4 * kGiB, n, 131072, kBeamBytes, 0, 0);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_LT(p->triangles_per_bvh, n);
  EXPECT_GT(p->bvh_count, 1u);
  EXPECT_EQ(p->bvh_count, (n + p->triangles_per_bvh - 1) / p->triangles_per_bvh);
  // What the plan allocates at its peak fits in the usable memory.
  const double peak = static_cast<double>(n) * kGpuBytesPerTriangle +
                      static_cast<double>(p->triangles_per_bvh) * kGpuBuildBytesPerTriangle +
                      static_cast<double>(p->beams_per_batch) * kBeamBytes;
  EXPECT_LE(peak, kGpuUsableFraction * 4 * kGiB);
}

TEST(GpuMemoryPlan, BatchesTheFrameWhenItDoesNotFit) {
  // 100 M beams (a long Lissajous frame) in 8 GiB: several launches.
  auto p = PlanGpuMemory(8 * kGiB, 1000, 100'000'000, kBeamBytes, 0, 0);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_LT(p->beams_per_batch, 100'000'000u);
  EXPECT_EQ(p->batch_count, (100'000'000 + p->beams_per_batch - 1) / p->beams_per_batch);
  EXPECT_LE(static_cast<double>(p->beams_per_batch) * kBeamBytes, 0.5 * 0.9 * 8 * kGiB);
}

TEST(GpuMemoryPlan, HonoursUserLimits) {
  auto p = PlanGpuMemory(80 * kGiB, 100, 5000, kBeamBytes, 7, 1000);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->triangles_per_bvh, 7u);
  EXPECT_EQ(p->bvh_count, 15u);
  EXPECT_EQ(p->beams_per_batch, 1000u);
  EXPECT_EQ(p->batch_count, 5u);
}

TEST(GpuMemoryPlan, ASceneLargerThanTheGpuIsAClearError) {
  auto p = PlanGpuMemory(1 * kGiB, 50'000'000, 131072, kBeamBytes, 0, 0);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find("50000000 triangles"), std::string::npos) << p.message();
  EXPECT_NE(p.message().find("CPU backend (backend cpu)"), std::string::npos) << p.message();
}

}  // namespace
}  // namespace lt
