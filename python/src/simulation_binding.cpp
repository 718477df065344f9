// lidartwin.SensorProfile, Scene, Trajectory and Simulator: the configs loaded as the CLI loads
// them, and a simulator made once and asked for frames (numpy arrays) as often as wanted.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <vector>

#include "bindings.h"
#include "interruptible.h"
#include "lidartwin/base/cancellation.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/sim/simulator.h"
#include "lidartwin/sim/trajectory.h"
#if LT_WITH_OPEN3D
#include "lidartwin/datasets/open3d_mesh_loader.h"
#endif

namespace lt::python {

// Open3D's mesh loader where the build has it (scenes with PLY/OBJ meshes).
MeshLoader BuiltInMeshLoader() {
#if LT_WITH_OPEN3D
  return LoadMeshWithOpen3d;
#else
  return {};
#endif
}

namespace {

Backend ChooseBackend(const std::string& name) {
  if (name == "auto") return BackendAvailable(Backend::kCuda).ok() ? Backend::kCuda : Backend::kCpu;
  auto backend = ParseBackend(name);
  if (!backend.ok())
    Raise(OptionError("backend", "backend " + name +
                                     ": unknown (expected auto, "
                                     "cpu or cuda)"));
  return *backend;
}

Trajectory StaticAt(const physics::Pose<double>& pose) {
  Trajectory t;
  t.time_s = {0.0};
  t.poses = {pose};
  return t;
}

bool SameTrajectory(const Trajectory& a, const Trajectory& b) {
  if (a.time_s != b.time_s || a.poses.size() != b.poses.size() ||
      a.motion_correction != b.motion_correction || a.start_time_s != b.start_time_s)
    return false;
  for (size_t i = 0; i < a.poses.size(); ++i) {
    const auto &p = a.poses[i], &q = b.poses[i];
    if (p.rotation.w != q.rotation.w || p.rotation.x != q.rotation.x ||
        p.rotation.y != q.rotation.y || p.rotation.z != q.rotation.z ||
        p.translation.x != q.translation.x || p.translation.y != q.translation.y ||
        p.translation.z != q.translation.z)
      return false;
  }
  return true;
}

// The simulator of a profile and a scene; the trajectory it was made with decides where the
// sensor is. A call with another pose or trajectory than the one in use makes a new simulator
// (the scene's acceleration structure is built again: reuse one trajectory for many frames
// where you can). One call at a time runs on it: calls from several Python threads take turns.
class PySimulator {
 public:
  PySimulator(std::shared_ptr<SensorProfile> profile, std::shared_ptr<Scene> scene,
              const std::string& backend, uint64_t seed, unsigned threads, uint32_t motion_slices,
              std::optional<Trajectory> trajectory)
      : profile_(std::move(profile)), scene_(std::move(scene)), backend_(ChooseBackend(backend)) {
    options_.seed = seed;
    options_.threads = threads;
    options_.motion_slices = motion_slices;
    ThrowIfInvalid(options_.Validate());
    own_ = trajectory ? *trajectory : Trajectory::Static();
    ThrowIfInvalid(own_.Validate());
    ThrowIfError(RunInterruptibly([&] { return Follow(own_); }));
    rays_per_frame_ = simulator_->RaysPerFrame();
  }

  py::list Simulate(const py::object& pose, const std::optional<Trajectory>& trajectory,
                    uint32_t frames, uint32_t first) {
    if (frames == 0) Raise(OptionError("frames", "frames 0: at least one"));
    // Frame indices are 32-bit: the last one asked for must be one.
    if (uint64_t{first} + frames - 1 > UINT32_MAX)
      Raise(OptionError("frames", "first " + std::to_string(first) + " + frames " +
                                      std::to_string(frames) + " runs past frame 4294967295"));
    if (!pose.is_none() && trajectory)
      Raise(OptionError("pose", "pose: give a pose or a trajectory, not both"));
    // With neither: the trajectory the simulator was made with.
    const Trajectory wanted = !pose.is_none() ? StaticAt(PoseFromMatrix(pose))
                              : trajectory    ? *trajectory
                                              : own_;
    ThrowIfInvalid(wanted.Validate());
    auto simulated = RunInterruptibly([&]() -> Expected<std::vector<Frame>> {
      std::lock_guard lock(mutex_);
      if (Status s = Follow(wanted); !s.ok()) return s.error();
      std::vector<Frame> out;
      for (uint32_t k = 0; k < frames; ++k) {
        if (Status s = CheckCancelled(); !s.ok()) return s.error();
        auto frame = simulator_->Simulate(first + k);
        if (!frame.ok()) return frame.error();
        out.push_back(std::move(frame.value()));
      }
      return out;
    });
    py::list result;
    for (Frame& f : Unwrap(std::move(simulated)))
      result.append(FrameToPython(std::move(f)));
    return result;
  }

  // Seconds that `frames` frames take through the C++ API alone (Simulator::Simulate, the frames
  // dropped), for bench/python_overhead.py to set beside simulate() on the same simulator.
  double TimeCppFrames(uint32_t frames, uint32_t first) {
    auto seconds = RunInterruptibly([&]() -> Expected<double> {
      std::lock_guard lock(mutex_);
      if (Status s = Follow(own_); !s.ok()) return s.error();
      const auto start = std::chrono::steady_clock::now();
      for (uint32_t k = 0; k < frames; ++k) {
        auto frame = simulator_->Simulate(first + k);
        if (!frame.ok()) return frame.error();
      }
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    });
    return Unwrap(std::move(seconds));
  }

  std::string backend() const { return BackendName(backend_); }
  uint64_t rays_per_frame() const { return rays_per_frame_; }

 private:
  // The simulator following `trajectory`: the one in use, or a new one. Called with mutex_ held
  // (or from the constructor) and the GIL released. A failure leaves none, and the next call
  // tries again.
  Status Follow(const Trajectory& trajectory) {
    if (simulator_ && SameTrajectory(current_, trajectory)) return {};
    simulator_.reset();  // the old one first: a GPU holds one scene's structures at a time
    auto made = CreateSimulator(backend_, *scene_, *profile_, trajectory, options_);
    if (!made.ok()) return made.error();
    simulator_ = std::move(made.value());
    current_ = trajectory;
    return {};
  }

  std::shared_ptr<SensorProfile> profile_;
  std::shared_ptr<Scene> scene_;
  Trajectory own_;      // the trajectory the simulator was made with
  Trajectory current_;  // the one simulator_ follows
  Backend backend_;
  SimulationOptions options_;
  uint64_t rays_per_frame_ = 0;
  std::mutex mutex_;  // simulator_ and current_: one call at a time
  std::unique_ptr<Simulator> simulator_;
};

}  // namespace

void BindSimulation(py::module_& m) {
  py::class_<SensorProfile, std::shared_ptr<SensorProfile>> profile(
      m, "SensorProfile", "A sensor profile (configs/README.md, \"Sensor profiles\").");
  profile.def_static(
      "load",
      [](const std::filesystem::path& path) {
        return std::make_shared<SensorProfile>(Unwrap(LoadSensorProfile(path)));
      },
      py::arg("path"), "Loads a profile YAML; errors name the file, the key and its line.");
  profile.def_readonly("name", &SensorProfile::name);
  profile.def_readonly("wavelength_nm", &SensorProfile::wavelength_nm);
  profile.def_readonly("min_range_m", &SensorProfile::min_range_m);
  profile.def_readonly("max_range_m", &SensorProfile::max_range_m);
  profile.def_readonly("columns", &SensorProfile::columns);
  profile.def_property_readonly("beam_count", &SensorProfile::BeamCount);
  profile.def_property_readonly("rays_per_frame", &SensorProfile::RaysPerFrame);
  profile.def_property_readonly("frame_period_s", &SensorProfile::FramePeriodS);
  profile.def("__repr__", [](const SensorProfile& p) {
    return "<lidartwin.SensorProfile " + p.name + ": " + std::to_string(p.BeamCount()) + " beams>";
  });

  py::class_<Scene, std::shared_ptr<Scene>> scene(
      m, "Scene", "A scene (configs/README.md, \"Scenes\"): objects, materials, meshes.");
  scene.def_static(
      "load",
      [](const std::filesystem::path& path) {
        auto loaded = RunInterruptibly([&] { return LoadScene(path, BuiltInMeshLoader()); });
        return std::make_shared<Scene>(Unwrap(std::move(loaded)));
      },
      py::arg("path"), "Loads a scene YAML and the meshes it names.");
  scene.def_property_readonly("triangle_count", &Scene::TriangleCount);
  scene.def_property_readonly("has_moving_objects", &Scene::HasMovingObjects);

  py::class_<Trajectory> trajectory(m, "Trajectory",
                                    "Timed sensor -> world poses, interpolated at each firing.");
  trajectory.def(py::init([](const std::vector<double>& times_s, const py::sequence& poses,
                             bool motion_correction, double start_time_s) {
                   Trajectory t;
                   t.time_s = times_s;
                   for (const auto& p : poses)
                     t.poses.push_back(PoseFromMatrix(p));
                   t.motion_correction = motion_correction;
                   t.start_time_s = start_time_s;
                   ThrowIfInvalid(t.Validate());
                   return t;
                 }),
                 py::arg("times_s"), py::arg("poses"), py::arg("motion_correction") = false,
                 py::arg("start_time_s") = 0.0,
                 "Poses (4x4 matrices) at strictly increasing times [s].");
  trajectory.def_static(
      "load", [](const std::filesystem::path& path) { return Unwrap(LoadTrajectory(path)); },
      py::arg("path"), "Loads a trajectory YAML.");
  trajectory.def_readonly("times_s", &Trajectory::time_s);
  trajectory.def_readonly("start_time_s", &Trajectory::start_time_s);
  trajectory.def_readonly("motion_correction", &Trajectory::motion_correction);

  py::class_<PySimulator>(m, "Simulator", R"doc(
A simulator of a sensor in a scene. backend: "auto" (the GPU when one is usable), "cpu" or
"cuda"; the same seed gives the same frames on either.)doc")
      .def(py::init<std::shared_ptr<SensorProfile>, std::shared_ptr<Scene>, const std::string&,
                    uint64_t, unsigned, uint32_t, std::optional<Trajectory>>(),
           py::arg("profile").none(false), py::arg("scene").none(false), py::kw_only(),
           py::arg("backend") = "auto", py::arg("seed") = 0, py::arg("threads") = 0,
           py::arg("motion_slices") = 16, py::arg("trajectory") = py::none())
      .def("simulate", &PySimulator::Simulate, py::arg("pose") = py::none(), py::kw_only(),
           py::arg("trajectory") = py::none(), py::arg("frames") = 1, py::arg("first") = 0,
           R"doc(
Simulates `frames` frames from frame `first` (frame k covers [start + k T, start + (k+1) T), T the
profile's frame period) and returns them as a list of Frame. pose (a 4x4 matrix) places a still
sensor there; trajectory moves it; with neither, the simulator's own trajectory. Ctrl-C stops it
between frames (KeyboardInterrupt).)doc")
      .def("_time_cpp_frames", &PySimulator::TimeCppFrames, py::arg("frames") = 1,
           py::arg("first") = 0)
      .def_property_readonly("backend", &PySimulator::backend)
      .def_property_readonly("rays_per_frame", &PySimulator::rays_per_frame);
}

}  // namespace lt::python
