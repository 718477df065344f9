// The watertight ray-triangle test on the host (the same LT_HD code the CUDA kernels run).
#include "lidartwin/physics/bvh.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "lidartwin/physics/ray_triangle.h"

namespace lt::physics {
namespace {

// The demo's ground: a square split along its diagonal y = x, 1.5 m below the sensor.
const BvhTriangle kT0{{-100, -100, -1.5f}, {100, -100, -1.5f}, {100, 100, -1.5f}};
const BvhTriangle kT1{{-100, -100, -1.5f}, {100, 100, -1.5f}, {-100, 100, -1.5f}};

TEST(WatertightTriangle, RaysAlongTheSharedDiagonalAlwaysHit) {
  // OS0-128 column 384 points exactly at azimuth -135 deg: along the diagonal. A
  // non-watertight test lets such rays through both triangles once products are fused into
  // FMAs, as nvcc does (float Moeller-Trumbore built with -mfma -ffp-contract=fast misses 273
  // of these 2000 rays); the GPU side is checked by CudaBackend.MatchesCpuOnTheLabScene.
  const float o[3] = {0, 0, 0};
  int missed = 0;
  for (int k = 0; k < 2000; ++k) {
    // From 1 deg down (the ground point stays inside the 200 m square) to 81 deg.
    const double el = -(1.0 + 80.0 * k / 2000) * 3.14159265358979 / 180;
    const double az = (k % 4) * 3.14159265358979 / 2 - 3 * 3.14159265358979 / 4;  // diagonals
    const float d[3] = {static_cast<float>(std::cos(el) * std::cos(az)),
                        static_cast<float>(std::cos(el) * std::sin(az)),
                        static_cast<float>(std::sin(el))};
    const WatertightRay r = MakeWatertightRay(o, d);
    const bool hit = RayBvhTriangle(kT0, r) > 0 || RayBvhTriangle(kT1, r) > 0;
    missed += !hit;
  }
  EXPECT_EQ(missed, 0);
}

TEST(WatertightTriangle, AgreesWithMoellerTrumboreAwayFromEdges) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  const BvhTriangle tri{{5, -1, -1}, {5, 1, -1}, {5, 0, 1}};
  int hits = 0;
  for (int k = 0; k < 5000; ++k) {
    const float o[3] = {u(rng), u(rng), u(rng)};
    const float d[3] = {1, 0.4f * u(rng), 0.4f * u(rng)};
    const double ref = RayTriangleDistance<double>({o[0], o[1], o[2]}, {d[0], d[1], d[2]},
                                                   {5, -1, -1}, {5, 1, -1}, {5, 0, 1});
    const float t = RayBvhTriangle(tri, MakeWatertightRay(o, d));
    if (ref > 0 && t > 0) {
      ++hits;
      EXPECT_NEAR(t, ref, 1e-5 * ref);
    } else if ((ref > 0) != (t > 0)) {
      // Only within float rounding of an edge: the double test must be near a boundary too.
      const double eps = 1e-4;
      const double ref_a = RayTriangleDistance<double>({o[0], o[1], o[2]}, {d[0], d[1], d[2]},
                                                       {5, -1 - eps, -1 - eps},
                                                       {5, 1 + eps, -1 - eps}, {5, 0, 1 + eps});
      EXPECT_GT(ref_a, 0) << "disagreement away from an edge at ray " << k;
    }
  }
  EXPECT_GT(hits, 500);
}

}  // namespace
}  // namespace lt::physics
