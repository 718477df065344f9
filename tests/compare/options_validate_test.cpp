// Validate() of compare's options and targets: a valid struct passes, each rule fails with its
// key and problem; Compare, Associate and LoadTargets refuse invalid ones, the loader at the
// line of the key.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/targets.h"
#include "test_support.h"
#include "validate_rules.h"

namespace lt::compare {
namespace {

using test::ExpectRules;
using test::Rule;

TEST(CompareOptionsValidate, EachRuleNamesItsKey) {
  ExpectRules<CompareOptions>(
      {}, "compare options",
      {{"association.max_angle_deg", [](auto& o) { o.association.max_angle_deg = 0; },
        "must be positive, got 0"},
       {"association.max_distance_m", [](auto& o) { o.association.max_distance_m = NAN; },
        "must be positive, got nan"},
       {"association.beam_direction_tolerance_deg",
        [](auto& o) { o.association.beam_direction_tolerance_deg = -1; },
        "must be positive, got -1"},
       {"distance_edges_m", [](auto& o) { o.distance_edges_m.clear(); },
        "must list at least two edges (one bin), got 0"},
       {"distance_edges_m",
        [](auto& o) {
          o.distance_edges_m = {0, 5, 5};
        },
        "must be a strictly increasing list (5 m after 5 m)"},
       {"distance_edges_m",
        [](auto& o) {
          o.distance_edges_m = {-1, 5};
        },
        "edge -1 m is outside 0..100000 m"},
       {"min_range_m", [](auto& o) { o.min_range_m = -0.5; }, "must be in 0..100000 m, got -0.5"}});
  AssociationOptions gates;
  gates.max_distance_m = 0;
  EXPECT_EQ(gates.Validate().message(),
            "association options: key 'max_distance_m': must be positive, got 0");
}

TEST(CompareOptionsValidate, CompareAndAssociateRefuseInvalidOptions) {
  Frame f;
  CompareOptions o;
  o.distance_edges_m = {10, 5};
  auto m = Compare({f}, {f}, o);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.message().find("compare options: key 'distance_edges_m'"), std::string::npos)
      << m.message();
  AssociationOptions gates;
  gates.max_angle_deg = 0;
  auto a = Associate(f, f, gates);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.message().find("key 'max_angle_deg'"), std::string::npos) << a.message();
}

TEST(TargetValidate, EachRuleNamesItsKey) {
  Target valid;
  valid.name = "plate";
  valid.half_size_m = {0.1, 0.5, 0.5};
  valid.box_to_sensor.translation = {10, 0, 0};
  ExpectRules<Target>(
      valid, "target 'plate'",
      {{"size_m", [](auto& t) { t.half_size_m[2] = 0; },
        "every extent must be in (0, 20000000] m, got 0"},
       {"centre_m", [](auto& t) { t.box_to_sensor.translation.y = INFINITY; }, "must be finite"},
       {"centre_m", [](auto& t) { t.box_to_sensor.translation.x = 1e308; },
        "lies 1e+308 m from the origin"},
       // Issue 36: 1e308 gave a ground-truth distance of inf, written as null.
       {"ground_truth_centre_m",
        [](auto& t) {
          t.ground_truth_centre_m = std::array<double, 3>{1e308, 0, 0};
        },
        "lies 1e+308 m from the origin"},
       {"rotation_deg", [](auto& t) { t.box_to_sensor.rotation.w = 0.5; },
        "is not a rotation (a quaternion of norm 0.5, not 1)"},
       {"ground_truth_centre_m",
        [](auto& t) {
          t.ground_truth_centre_m = std::array<double, 3>{NAN, 0, 0};
        },
        "must be finite"}});
  Target unnamed = valid;
  unnamed.name.clear();
  EXPECT_EQ(unnamed.Validate().message(), "target '': key 'name': must not be empty");
  ConfigCheck check;
  CheckTargets({valid, valid}, check);
  ASSERT_FALSE(check.ok());
  EXPECT_EQ(check.problem()->key_path, "targets[1].name");
  EXPECT_EQ(check.problem()->problem, "'plate' is used twice (targets[0])");
}

TEST(TargetValidate, TheLoaderGivesTheLine) {
  test::TempDir dir;
  auto t = LoadTargets(dir.Write("t.yaml",
                                 "targets:\n  - name: a\n    centre_m: [1, 0, 0]\n"
                                 "    size_m: [0.1, 0, 1]\n"));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("t.yaml: key 'targets[0].size_m' (line 4): every extent must be "
                             "in (0, 20000000] m, got 0"),
            std::string::npos)
      << t.message();
  auto empty = LoadTargets(dir.Write("e.yaml", "targets: []\n"));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.message().find("e.yaml: key 'targets' (line 1): the list is empty"),
            std::string::npos)
      << empty.message();
}

}  // namespace
}  // namespace lt::compare
