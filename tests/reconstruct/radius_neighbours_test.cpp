// The grid neighbour search of frame registration's plane fits (reconstruct/src/
// radius_neighbours.h) against two independent answers: every pair's distance (brute force)
// and Open3D's k-d tree search, which it replaced.
#include "radius_neighbours.h"

#include <gtest/gtest.h>
#include <open3d/geometry/KDTreeFlann.h>
#include <open3d/geometry/PointCloud.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace lt {
namespace {

// Points on a few planes and in a cloud, spanning negative and positive cells, some repeated
// (ties at distance 0).
std::vector<Eigen::Vector3d> MixedPoints(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-3, 3);
  std::vector<Eigen::Vector3d> points;
  for (int n = 0; n < 3000; ++n) {
    const double a = u(rng), b = u(rng);
    switch (n % 3) {
      case 0:
        points.emplace_back(a, b, 0.01 * u(rng));
        break;  // ground
      case 1:
        points.emplace_back(2.5, a, b);
        break;  // a wall
      default:
        points.emplace_back(a, b, u(rng));  // a volume
    }
  }
  for (int n = 0; n < 50; ++n)
    points.push_back(points[static_cast<size_t>(n) * 7]);
  return points;
}

// The nearest `count` within `radius` (squared distance below radius^2), nearest first, ties by
// index.
std::vector<uint32_t> BruteForce(const std::vector<Eigen::Vector3d>& points,
                                 const Eigen::Vector3d& q, double radius, size_t count) {
  std::vector<std::pair<double, uint32_t>> within;
  for (uint32_t n = 0; n < points.size(); ++n) {
    const double d2 = (points[n] - q).squaredNorm();
    if (d2 < radius * radius) within.emplace_back(d2, n);
  }
  std::sort(within.begin(), within.end());
  std::vector<uint32_t> out;
  for (size_t n = 0; n < std::min(count, within.size()); ++n)
    out.push_back(within[n].second);
  return out;
}

TEST(RadiusNeighbours, FindsWhatEveryPairsDistanceFinds) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    const auto points = MixedPoints(seed);
    for (const double radius : {0.1, 0.35, 1.0}) {
      const RadiusNeighbours grid(points, radius);
      std::vector<uint32_t> found;
      for (size_t n = 0; n < points.size(); n += 13) {
        // Queries on the points and off them.
        for (const Eigen::Vector3d& q : {points[n], Eigen::Vector3d(points[n] * 0.97)}) {
          grid.Nearest(q, 30, found);
          EXPECT_EQ(found, BruteForce(points, q, radius, 30))
              << "seed " << seed << " radius " << radius << " point " << n;
        }
      }
    }
  }
}

// Open3D's SearchHybrid: the nearest max_nn, cut at the radius. Its order among points at equal
// distance is its own, so the sets of distances are compared.
TEST(RadiusNeighbours, AgreesWithOpen3dsKdTree) {
  const auto points = MixedPoints(11);
  open3d::geometry::PointCloud cloud;
  cloud.points_ = points;
  const open3d::geometry::KDTreeFlann tree(cloud);
  const RadiusNeighbours grid(points, 0.8);
  std::vector<uint32_t> found;
  std::vector<int> indices;
  std::vector<double> distances2;
  size_t with_thirty = 0;
  for (const Eigen::Vector3d& q : points) {
    grid.Nearest(q, 30, found);
    const int m = tree.SearchHybrid(q, 0.8, 30, indices, distances2);
    ASSERT_EQ(found.size(), static_cast<size_t>(m));
    with_thirty += m == 30;
    for (int j = 0; j < m; ++j)
      EXPECT_NEAR((points[found[j]] - q).squaredNorm(), distances2[j], 1e-12);
  }
  EXPECT_GT(with_thirty, 100u);  // the count limit was exercised, not only the radius
}

// Cell by cell, every point once, each with what a query of its own finds.
TEST(RadiusNeighbours, EachPointInCellOrderFindsWhatItsOwnQueryFinds) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    const auto points = MixedPoints(seed);
    for (const double radius : {0.1, 0.35, 1.0}) {
      const RadiusNeighbours grid(points, radius);
      std::vector<int> visits(points.size(), 0);
      size_t mismatches = 0, neighbours = 0;
      std::vector<uint32_t> own;
      grid.ForEachPoint(30, [&](uint32_t n, const std::vector<uint32_t>& found) {
        ++visits[n];
        neighbours += found.size();
        mismatches += found != BruteForce(points, points[n], radius, 30);
      });
      EXPECT_EQ(mismatches, 0u) << "seed " << seed << " radius " << radius;
      EXPECT_EQ(std::count(visits.begin(), visits.end(), 1), static_cast<long>(points.size()));
      EXPECT_GT(neighbours, points.size());  // not only each point itself
    }
  }
}

TEST(RadiusNeighbours, AnEmptyCloudHasNoNeighbours) {
  const std::vector<Eigen::Vector3d> none;
  const RadiusNeighbours grid(none, 1.0);
  std::vector<uint32_t> found = {7};
  grid.Nearest(Eigen::Vector3d::Zero(), 30, found);
  EXPECT_TRUE(found.empty());
  grid.ForEachPoint(30, [](uint32_t, const std::vector<uint32_t>&) { ADD_FAILURE(); });
}

}  // namespace
}  // namespace lt
