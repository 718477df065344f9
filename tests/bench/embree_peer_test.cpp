// bench/embree_peer (issue 14): Embree's 8-wide packets on a high-quality build find the same
// closest triangles as a brute-force double-precision search, coherent and incoherent.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "lidartwin/bench/embree_peer.h"
#include "lidartwin/physics/ray_triangle.h"

namespace lt::bench {
namespace {

using physics::Vec3;

// Brute force: the nearest triangle hit beyond t_min, in double; -1 for none.
std::pair<int32_t, double> Nearest(const std::vector<float>& soup, const Vec3<double>& o,
                                   const Vec3<double>& d, double t_min) {
  int32_t best = -1;
  double best_t = INFINITY;
  for (size_t t = 0; t < soup.size() / 9; ++t) {
    auto v = [&](int k) {
      return Vec3<double>{soup[9 * t + 3 * k], soup[9 * t + 3 * k + 1], soup[9 * t + 3 * k + 2]};
    };
    const double dist = physics::RayTriangleDistance(o, d, v(0), v(1), v(2));
    if (dist > t_min && dist < best_t) {
      best_t = dist;
      best = static_cast<int32_t>(t);
    }
  }
  return {best, best_t};
}

TEST(EmbreePeer, PacketsFindTheBruteForceClosestTriangle) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-10, 10), small(-1, 1);
  std::vector<float> soup;
  for (int t = 0; t < 400; ++t) {  // triangles of about 1 m scattered in a 20 m cube
    const float cx = u(rng), cy = u(rng), cz = u(rng);
    for (int k = 0; k < 3; ++k)
      soup.insert(soup.end(), {cx + small(rng), cy + small(rng), cz + small(rng)});
  }
  for (bool coherent : {true, false}) {
    std::vector<float> origins, directions;
    for (int r = 0; r < 3001; ++r) {  // not a multiple of 8: the last packet is masked
      Vec3<double> d = coherent
                           ? Vec3<double>{1, 0.001 * (r % 100) - 0.05, 0.001 * (r / 100) - 0.015}
                           : Vec3<double>{small(rng), small(rng), small(rng)};
      d = physics::Normalized(d);
      const Vec3<double> o =
          coherent ? Vec3<double>{-12, 0, 0} : Vec3<double>{u(rng), u(rng), u(rng)};
      origins.insert(origins.end(), {float(o.x), float(o.y), float(o.z)});
      directions.insert(directions.end(), {float(d.x), float(d.y), float(d.z)});
    }
    auto hits = EmbreePacketClosestHits(soup, origins, directions, 1e-4f, 1e30f, coherent, 2, 1);
    ASSERT_TRUE(hits.ok()) << hits.message();
    ASSERT_EQ(hits->triangle.size(), 3001u);
    size_t differ = 0, hit = 0;
    for (size_t r = 0; r < 3001; ++r) {
      const Vec3<double> o{origins[3 * r], origins[3 * r + 1], origins[3 * r + 2]};
      const Vec3<double> d{directions[3 * r], directions[3 * r + 1], directions[3 * r + 2]};
      const auto [tri, t] = Nearest(soup, o, d, 1e-4);
      hit += tri >= 0;
      if (hits->triangle[r] != tri) {
        ++differ;
        continue;
      }
      if (tri >= 0) EXPECT_NEAR(hits->distance[r], t, 1e-4 * t) << r;  // float against double
    }
    // Embree tests in single precision without its robust mode: a ray grazing an edge may
    // go either way. Random triangles give a handful of such rays in 3,001 at most.
    EXPECT_LE(differ, 3u) << (coherent ? "coherent" : "incoherent");
    EXPECT_GT(hit, 300u);  // the case exercises hits, not only misses
  }
}

TEST(EmbreePeer, MalformedInputIsAnError) {
  EXPECT_FALSE(EmbreePacketClosestHits({0, 0, 0}, {}, {}, 0, 1, true, 1, 1).ok());
  EXPECT_FALSE(EmbreePacketClosestHits({}, {0, 0, 0}, {1, 0}, 0, 1, true, 1, 1).ok());
}

}  // namespace
}  // namespace lt::bench
