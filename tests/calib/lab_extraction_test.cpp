// Lab tables from recordings of flat targets (issue 40, `lidartwin lab extract`), on frames the
// simulator makes of the lab scene's plates (10, 50 and 80 % Lambertian, 5 to 40 m, facing the
// sensor), whose signal is known: each plate's mean intensity against what its reflectance and
// range give, the detection rows against the beams that cross it, the tables read back, and
// the targets file's mistakes refused with the key.
#include "lidartwin/calib/lab_extraction.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>

#include "lidartwin/calib/virtual_lab.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/sim/simulator.h"
#include "test_support.h"

namespace lt::calib {
namespace {

SensorProfile Unit() {
  auto p = LoadSensorProfile(lt::test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  EXPECT_TRUE(p.ok()) << p.message();
  return ExampleUnitAsBuilt(*p);
}

// The scene's plates as targets: their meshes' four corners, in order around their centre (the
// sensor at the origin), reflectance from the name.
LabTargets Plates(const Scene& scene) {
  LabTargets t;
  t.wavelength_nm = 865;
  for (const auto& o : scene.objects) {
    if (o.name.rfind("plate_r", 0) != 0) continue;
    std::vector<std::array<double, 3>> v = o.mesh.vertices;
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    EXPECT_EQ(v.size(), 4u) << o.name;
    if (v.size() != 4) continue;
    std::array<double, 3> c{0, 0, 0};
    for (const auto& p : v)
      for (int k = 0; k < 3; ++k)
        c[k] += p[k] / 4;
    // Around the centre: by angle in the plate's plane (horizontal across the bearing, and up).
    const double bearing = std::atan2(c[1], c[0]);
    const auto angle = [&](const std::array<double, 3>& p) {
      const double across = -std::sin(bearing) * (p[0] - c[0]) + std::cos(bearing) * (p[1] - c[1]);
      return std::atan2(p[2] - c[2], across);
    };
    std::sort(v.begin(), v.end(),
              [&](const auto& a, const auto& b) { return angle(a) < angle(b); });
    LabTarget target;
    target.name = o.name;
    target.material = o.name.substr(0, 9);  // plate_rNN
    target.reflectance = std::stoi(o.name.substr(7, 2)) / 100.0;
    for (int k = 0; k < 4; ++k)
      target.corners[k] = v[k];
    t.targets.push_back(target);
  }
  return t;
}

struct Recorded {
  SensorProfile unit = Unit();
  Scene scene;
  std::vector<Frame> frames;
};

const Recorded& Recording() {
  static const Recorded r = [] {
    Recorded r;
    auto scene = LoadScene(lt::test::ConfigDir() / "scenes/lab_plates.yaml", {});
    EXPECT_TRUE(scene.ok()) << scene.message();
    r.scene = *scene;
    auto sim = CreateSimulator(Backend::kCpu, r.scene, r.unit, Trajectory::Static(), {5, 0});
    EXPECT_TRUE(sim.ok()) << sim.message();
    for (uint32_t f = 0; f < 2; ++f)
      r.frames.push_back((*sim)->Simulate(f).value());
    return r;
  }();
  return r;
}

// Raw intensity: the simulated calibrated intensity turned back into received power (through
// the white target's, as labgen does) and into counts of 0.37 nW.
TEST(LabExtraction, RawIntensityGivesRangeIntensityRowsInCountsThatFollowTheLink) {
  const Recorded& rec = Recording();
  std::vector<Frame> raw = rec.frames;
  const auto& d = rec.unit.detector;
  for (Frame& f : raw)
    for (size_t i = 0; i < f.size(); ++i)
      f.intensity[i] = static_cast<float>(
          f.intensity[i] / 100 *
          physics::CalibratedWhiteTargetPower(d.link, d.overlap, double(f.range_m[i])) * 1e9 /
          0.37);
  const LabTargets targets = Plates(rec.scene);
  auto lab = ExtractLab(raw, targets, &rec.unit, false);
  ASSERT_TRUE(lab.ok()) << lab.message();
  ASSERT_EQ(lab->lab.range_intensity_curves.size(), 3u);  // 10, 50 and 80 %, head-on
  EXPECT_TRUE(lab->lab.reflectance_curves.empty());
  size_t checked = 0;
  for (const TargetObservation& o : lab->observations) {
    const LabTarget* t = nullptr;
    for (const auto& x : targets.targets)
      if (x.name == o.target) t = &x;
    ASSERT_TRUE(t);
    EXPECT_NEAR(o.incidence_deg, 0, 0.5) << o.target;
    // A Lambertian plate filling the beam: rho times the white target's power, in counts.
    const double expected = t->reflectance *
                            physics::CalibratedWhiteTargetPower(d.link, d.overlap, o.range_m) *
                            1e9 / 0.37;
    EXPECT_NEAR(o.mean_intensity, expected, 0.05 * expected) << o.target << " frame " << o.frame;
    // Every beam that crosses a plate inside its margin returns from it.
    EXPECT_GE(o.detected, o.beams - o.beams / 20) << o.target;
    EXPECT_GT(o.beams, 0u) << o.target;
    ++checked;
  }
  EXPECT_GE(checked, 12u);
  for (const auto& c : lab->lab.range_intensity_curves) {  // counts, the conversion fitted
    EXPECT_EQ(c.signal_unit, SignalUnit::kCounts);
    EXPECT_EQ(c.nw_per_count, 0);
  }
  // The tables read back as written.
  lt::test::TempDir dir;
  const Status written = WriteLabFolder(lab->lab, dir / "lab");
  ASSERT_TRUE(written.ok()) << written.message();
  auto back = ReadLabFolder(dir / "lab");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->range_intensity_curves.size(), 3u);
  EXPECT_EQ(back->threshold_sweeps.size(), 3u);
  EXPECT_EQ(back->range_intensity_curves[0].samples.size(),
            lab->lab.range_intensity_curves[0].samples.size());
}

// Calibrated reflectivity (the simulator's percent): reflectance rows of each material and
// distance at its incidence, reading its reflectance.
TEST(LabExtraction, CalibratedIntensityGivesReflectanceRowsOfEachMaterial) {
  const Recorded& rec = Recording();
  // With the beam table too: detection rows go with range-intensity rows only (calibrate fits
  // a sweep against their link constant).
  auto lab = ExtractLab(rec.frames, Plates(rec.scene), &rec.unit, true);
  ASSERT_TRUE(lab.ok()) << lab.message();
  EXPECT_TRUE(lab->lab.range_intensity_curves.empty());
  EXPECT_TRUE(lab->lab.threshold_sweeps.empty());
  // One table per material and distance (a reflectance curve holds one range): the plates
  // near enough to hold 10 returns.
  ASSERT_GE(lab->lab.reflectance_curves.size(), 6u);
  for (const auto& c : lab->lab.reflectance_curves) {
    const double percent = std::stoi(c.material.substr(7, 2));  // plate_rNN_d<range>
    for (const auto& s : c.samples) {
      EXPECT_NEAR(s.incidence_deg, 0, 0.5);
      EXPECT_NEAR(s.intensity, percent, 0.05 * percent) << c.material;
      EXPECT_GT(s.sigma, 0);
    }
  }
}

// Packet captures number their columns from wherever a frame began: the detections, matched by
// direction, do not move when every column number does; a frame without intensity, and a
// target's frame beyond the recording, are errors; readings that all agree still have an
// uncertainty (a whole count's rounding).
TEST(LabExtraction, DetectionsFollowDirectionsNotColumnNumbersAndBadFramesAreErrors) {
  const Recorded& rec = Recording();
  const LabTargets targets = Plates(rec.scene);
  auto plain = ExtractLab(rec.frames, targets, &rec.unit, false);
  ASSERT_TRUE(plain.ok()) << plain.message();
  std::vector<Frame> renumbered = rec.frames;
  for (Frame& f : renumbered)
    for (uint32_t& c : f.column)
      c = (c + 377) % rec.unit.columns;
  auto shifted = ExtractLab(renumbered, targets, &rec.unit, false);
  ASSERT_TRUE(shifted.ok()) << shifted.message();
  ASSERT_EQ(plain->observations.size(), shifted->observations.size());
  ASSERT_FALSE(plain->lab.threshold_sweeps.empty());
  for (size_t k = 0; k < plain->observations.size(); ++k) {
    EXPECT_EQ(plain->observations[k].detected, shifted->observations[k].detected);
    EXPECT_EQ(plain->observations[k].beams, shifted->observations[k].beams);
  }
  std::vector<Frame> dark = rec.frames;
  dark[1].intensity.clear();
  auto no_intensity = ExtractLab(dark, targets, nullptr, true);
  ASSERT_FALSE(no_intensity.ok());
  EXPECT_NE(no_intensity.message().find("frame 1: its returns carry no intensity"),
            std::string::npos)
      << no_intensity.message();
  LabTargets late = targets;
  late.targets[0].frames = {0, 5};
  auto beyond = ExtractLab(rec.frames, late, nullptr, true);
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.message().find("frame 5 is listed, the recording has 2 (0..1)"),
            std::string::npos)
      << beyond.message();
  LabTargets alike = targets;  // two materials one file name apart
  alike.targets[1].material = "paint a";
  alike.targets[2].material = "paint_a";
  alike.targets[2].corners = alike.targets[1].corners;
  auto named = ExtractLab(rec.frames, alike, nullptr, true);
  ASSERT_TRUE(named.ok()) << named.message();
  lt::test::TempDir dir;
  const Status written = WriteLabFolder(named->lab, dir / "lab");
  EXPECT_TRUE(written.ok()) << written.message();
  std::vector<Frame> flat = rec.frames;
  for (Frame& f : flat)
    std::fill(f.intensity.begin(), f.intensity.end(), 40.0f);
  auto uniform = ExtractLab(flat, targets, nullptr, false);
  ASSERT_TRUE(uniform.ok()) << uniform.message();
  for (const auto& c : uniform->lab.range_intensity_curves)
    for (const auto& row : c.samples)
      EXPECT_GT(row.sigma, 0.01);
}

TEST(LabExtraction, TargetsThatNoReturnMeetsAreAnErrorNamingEach) {
  const Recorded& rec = Recording();
  LabTargets far = Plates(rec.scene);
  for (auto& t : far.targets)
    for (auto& c : t.corners)
      c[2] += 30;  // 30 m up: nothing there
  auto lab = ExtractLab(rec.frames, far, &rec.unit, false);
  ASSERT_FALSE(lab.ok());
  EXPECT_NE(lab.message().find("no target holds 10 returns in any frame"), std::string::npos)
      << lab.message();
  EXPECT_NE(lab.message().find("plate_r10_d05 0"), std::string::npos) << lab.message();
}

TEST(LabExtraction, TheTargetsFilesMistakesAreRefusedWithTheirKey) {
  lt::test::TempDir dir;
  const std::string good_corners =
      "[[5, -0.25, -0.25], [5, 0.25, -0.25], [5, 0.25, 0.25], "
      "[5, -0.25, 0.25]]";
  struct Case {
    std::string yaml, expect;
  } cases[] = {
      {"targets: [{name: a, reflectance: 0.5, corners: " + good_corners + "}]", "wavelength_nm"},
      {"wavelength_nm: 865\ntargets: [{name: a, reflectance: 50, corners: " + good_corners + "}]",
       "must be a fraction in (0, 1] (a percentage?)"},
      {"wavelength_nm: 865\ntargets: [{name: a, reflectance: 0.5, corners: [[5, 0, 0], [5, 1, "
       "0], [5, 1, 1]]}]",
       "must be four corners"},
      {"wavelength_nm: 865\ntargets: [{name: a, reflectance: 0.5, corners: [[5, -0.25, -0.25], "
       "[5, 0.25, -0.25], [6, 0.25, 0.25], [5, -0.25, 0.25]]}]",
       "do not lie in one plane"},
      {"wavelength_nm: 865\ntargets: []", "must list at least one target"},
      {"wavelength_nm: 865\ntargets: [{name: a, reflectance: 0.5, corners: " + good_corners +
           ", frames: [1.5]}]",
       "must list whole frame numbers"},
      {"wavelength_nm: 865\ntargets: [{name: a, reflectance: 0.5, corners: [[5, -0.25, -0.25], "
       "[5, 0.25, 0.25], [5, 0.25, -0.25], [5, -0.25, 0.25]]}]",
       "must go around a convex board in order"},
      {"wavelength_nm: 865\ntargets: [{name: a, reflectance: 0.5, corners: " + good_corners +
           "}, {name: a, reflectance: 0.2, corners: " + good_corners + "}]",
       "'a' names another target too"},
      {"wavelength_nm: 865\ntargets: [{name: '', reflectance: 0.5, corners: " + good_corners + "}]",
       "must not be empty"},
      {"wavelength_nm: 865\ncolour: red\ntargets: [{name: a, reflectance: 0.5, corners: " +
           good_corners + "}]",
       "colour"},
  };
  int k = 0;
  for (const Case& c : cases) {
    const auto file = dir / (std::to_string(k++) + ".yaml");
    std::ofstream(file) << c.yaml << "\n";
    auto t = ReadLabTargets(file);
    ASSERT_FALSE(t.ok()) << c.yaml;
    EXPECT_NE(t.message().find(c.expect), std::string::npos) << t.message();
    EXPECT_NE(t.message().find(file.string()), std::string::npos) << t.message();
  }
  const auto good = dir / "good.yaml";
  std::ofstream(good) << "wavelength_nm: 865\ntargets: [{name: a, reflectance: 0.5, corners: "
                      << good_corners << "}]\n";
  auto t = ReadLabTargets(good);
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t->targets[0].material, "a");
  auto directory = ReadLabTargets(dir.path());
  EXPECT_FALSE(directory.ok());
}

// The targets reader under 3,000 deterministic mutations of a valid file (bytes flipped,
// inserted, deleted, the file cut short): each reads or fails with an error naming the file,
// and nothing crashes. (The fuzz build has no Ceres, which calib needs: this is its fuzzing.)
TEST(LabExtraction, MutatedTargetsFilesReadOrFailNamingTheFile) {
  lt::test::TempDir dir;
  const std::string valid =
      "name: bench\nsensor_serial: 42\nwavelength_nm: 865\nplane_tolerance_m: 0.04\n"
      "targets:\n  - name: white\n    reflectance: 0.9\n    frames: [0, 2]\n"
      "    corners: [[5, -0.5, -0.5], [5, 0.5, -0.5], [5, 0.5, 0.5], [5, -0.5, 0.5]]\n"
      "  - {name: grey, material: paint, reflectance: 0.2,\n"
      "     corners: [[9, 1, -0.5], [9, 2, -0.5], [9, 2, 0.5], [9, 1, 0.5]]}\n";
  std::mt19937_64 rng(2026);
  const std::string bytes = "[]{}:,-#\n 0.5e9\"'&*!|>%@`\t\xff\x00";
  size_t read = 0;
  for (int k = 0; k < 3000; ++k) {
    std::string text = valid;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0:
          text[at] = bytes[rng() % bytes.size()];
          break;
        case 1:
          text.insert(at, 1, bytes[rng() % bytes.size()]);
          break;
        case 2:
          text.erase(at, 1 + rng() % 8);
          break;
        default:
          text.resize(at);
          break;
      }
    }
    const auto file = dir.Write("t.yaml", text);
    auto t = ReadLabTargets(file);
    if (t.ok()) {
      ++read;
      for (const auto& target : t->targets) {
        EXPECT_TRUE(target.reflectance > 0 && target.reflectance <= 1);
      }
    } else {
      ASSERT_NE(t.message().find(file.string()), std::string::npos) << t.message();
    }
  }
  EXPECT_GT(read, 0u);
}

}  // namespace
}  // namespace lt::calib
