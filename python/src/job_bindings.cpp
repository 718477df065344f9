// The workflows as functions (jobs/): convert, compare, reconstruct, reproduce, labgen,
// calibrate and export, each taking the options of its command as keywords (snake_case, the
// Options struct's keys) and calling the same job the CLI calls, so that both give the same
// files and numbers. Each returns a dict with what it wrote and its log: "info" (the lines the
// CLI prints on stdout), "notes" and "warnings" (stderr's); lidartwin/__init__.py passes the
// log on to the `logging` and `warnings` modules.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <mutex>
#include <optional>

#include "bindings.h"
#include "interruptible.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/datasets/convert_recording.h"
#include "lidartwin/datasets/simulation_run.h"
#include "lidartwin/jobs/compare_recordings.h"
#include "lidartwin/jobs/export_here.h"
#include "lidartwin/jobs/job_log.h"
#if LT_WITH_OPEN3D
#include "lidartwin/jobs/reconstruct_recording.h"
#include "lidartwin/jobs/reproduce.h"
#include "lidartwin/reconstruct/posed_recording.h"
#endif
#if LT_WITH_CERES
#include "lidartwin/jobs/calibrate_lab.h"
#include "lidartwin/jobs/labgen.h"
#endif

namespace lt::python {
namespace {

using Path = std::filesystem::path;

// Where a library key and the Python keyword differ (the CLI's flags differ the same way).
constexpr std::initializer_list<std::pair<const char*, const char*>> kCompareKeywords = {
    {"association.max_angle_deg", "max_angle_deg"},
    {"association.max_distance_m", "max_distance_m"},
    {"distance_edges_m", "distance_bins"}};
constexpr std::initializer_list<std::pair<const char*, const char*>> kReconstructKeywords = {
    {"poisson_depth", "depth"}};
constexpr std::initializer_list<std::pair<const char*, const char*>> kResimulateKeywords = {
    {"poisson_depth", "depth"}, {"simulate_frame", "first_frame"}, {"simulate_frames", "frames"}};

// A job's lines, kept while it runs (on any of its threads) and handed back with its result.
class CollectedLog {
 public:
  jobs::JobLog Log() {
    jobs::JobLog log;
    log.info = [this](const std::string& line) { Add(info_, line); };
    log.note = [this](const std::string& line) { Add(notes_, line); };
    log.warning = [this](const std::string& line) { Add(warnings_, line); };
    return log;
  }
  py::dict Result() const {
    py::dict d;
    d["info"] = info_;
    d["notes"] = notes_;
    d["warnings"] = warnings_;
    return d;
  }

 private:
  void Add(std::vector<std::string>& to, const std::string& line) {
    std::lock_guard lock(mutex_);
    to.push_back(line);
  }
  std::mutex mutex_;
  std::vector<std::string> info_, notes_, warnings_;
};

template <typename T>
py::list PathList(const std::vector<T>& paths) {
  py::list out;
  for (const auto& p : paths)
    out.append(Path(p).string());
  return out;
}

py::dict Convert(const Path& recording, const Path& out, const Path& sidecar,
                 const std::string& format, const std::string& topic, const Path& firetimes) {
  ConvertOptions o;
  o.recording = recording;
  o.sidecar = sidecar;
  o.out = out;
  o.read.format = format;
  o.read.topic = topic;
  o.read.firetimes = firetimes;
  o.software_version = LT_VERSION;
  auto converted = Unwrap(RunInterruptibly([&] { return ConvertRecording(o); }));
  py::dict d;
  d["frames"] = converted.frames;
  d["points"] = converted.points;
  d["written"] = PathList(converted.written);
  d["reader"] = converted.source.reader;
  d["notes"] = converted.source.notes;
  return d;
}

py::dict Compare(const std::string& real, const std::string& sim, const Path& out,
                 const std::string& real_sidecar, const std::string& real_format,
                 const std::string& real_topic, const std::string& real_firetimes,
                 const std::vector<uint32_t>& real_frames, const std::vector<uint32_t>& sim_frames,
                 const std::string& rois, const std::string& scene, double roi_margin_m,
                 const std::string& associate, std::optional<double> max_angle_deg,
                 std::optional<double> max_distance_m, double min_range_m,
                 std::optional<std::vector<double>> distance_bins,
                 std::optional<uint64_t> beams_per_frame, const Path& pairs,
                 const std::string& label) {
  jobs::CompareRecordingsOptions o;
  compare::CompareInputs& in = o.inputs;
  in.real_file = real;
  in.sim_file = sim;
  in.real_sidecar = real_sidecar;
  in.real_format = real_format;
  in.real_topic = real_topic;
  in.real_firetimes = real_firetimes;
  in.real_frames = real_frames;
  in.sim_frames = sim_frames;
  in.rois_file = rois;
  in.scene_file = scene;
  in.roi_margin_m = roi_margin_m;
  auto method = compare::ParseAssociationMethod(associate);
  if (!method.ok()) Raise(OptionError("associate", "associate: " + method.message()));
  in.association.method = *method;
  if (max_angle_deg) in.association.max_angle_deg = *max_angle_deg;
  if (max_distance_m) in.association.max_distance_m = *max_distance_m;
  in.min_range_m = min_range_m;
  ThrowIfInvalid(in.Validate(), kCompareKeywords);
  o.distance_edges_m = distance_bins ? *distance_bins : compare::CompareOptions{}.distance_edges_m;
  o.beams_per_frame = beams_per_frame;
  o.out = out;
  o.pairs = pairs;
  o.label = label;
  o.mesh_loader = BuiltInMeshLoader();
  CollectedLog log;
  o.log = log.Log();
  ThrowIfInvalid(o.Validate(), kCompareKeywords);
  ThrowIfError(RunInterruptibly([&] { return jobs::CompareRecordings(o); }));
  py::dict d = log.Result();
  d["out"] = out.string();
  return d;
}

SimulationJob SimulationJobOf(const Path& sensor, const Path& scene,
                              const std::optional<Path>& trajectory, uint32_t frames, uint64_t seed,
                              const std::string& backend, unsigned threads,
                              uint32_t motion_slices) {
  SimulationJob job;
  // "auto", as Simulator and labgen take it: the GPU when one is usable.
  job.backend =
      backend == "auto" ? (BackendAvailable(Backend::kCuda).ok() ? "cuda" : "cpu") : backend;
  job.sensor = sensor;
  job.scene = scene;
  job.trajectory = trajectory;
  job.frames = frames;
  job.seed = seed;
  job.threads = threads;
  job.motion_slices = motion_slices;
  job.mesh_loader = BuiltInMeshLoader();
  job.software_version = LT_VERSION;
  return job;
}

py::dict Simulate(const Path& sensor, const Path& scene, const Path& out,
                  const std::optional<Path>& trajectory, uint32_t frames, uint64_t seed,
                  const std::string& backend, unsigned threads, uint32_t motion_slices) {
  SimulationJob job =
      SimulationJobOf(sensor, scene, trajectory, frames, seed, backend, threads, motion_slices);
  job.out = out;
  job.keep_frames = false;
  ThrowIfInvalid(job.Validate());
  auto result = Unwrap(RunInterruptibly([&] { return RunSimulation(job); }));
  py::dict d;
  d["frames"] = result.frames_written;
  d["points"] = result.points;
  d["rays"] = result.rays;
  d["seconds"] = result.seconds;
  d["written"] = PathList(result.written);
  return d;
}

py::dict Export(const Path& sensor, const Path& scene, const Path& out,
                const std::optional<Path>& trajectory, uint32_t frames, uint64_t seed,
                const std::string& backend, unsigned threads, uint32_t motion_slices,
                uint32_t shards, bool bag) {
  jobs::ExportOptions o;
  o.simulation =
      SimulationJobOf(sensor, scene, trajectory, frames, seed, backend, threads, motion_slices);
  o.folder = out;
  o.shards = shards;
  o.bag = bag;
  if (shards == 0) Raise(OptionError("shards", "shards 0: at least one"));
  // The simulation's own keys (its out is the folder's business): as simulate checks them.
  SimulationJob checked = o.simulation;
  checked.out = "dataset.h5";
  ThrowIfInvalid(checked.Validate());
  if (Status s = BackendAvailable(*ParseBackend(o.simulation.backend)); !s.ok())
    Raise(OptionError("backend", "backend " + o.simulation.backend + ": " + s.message()));
  CollectedLog log;
  o.log = log.Log();
  ThrowIfError(RunInterruptibly([&] { return jobs::RunExport(o); }));
  py::dict d = log.Result();
  d["out"] = out.string();
  return d;
}

#if LT_WITH_OPEN3D
ReconstructOptions ReconstructOptionsOf(const std::string& method, int depth, double voxel_m,
                                        double max_range_m, bool carve) {
  ReconstructOptions r;
  r.method = method;
  r.poisson_depth = depth;
  r.voxel_m = voxel_m;
  r.max_range_m = max_range_m;
  r.carve = carve;
  ConfigCheck check;
  r.Check(check);
  ThrowIfInvalid(check.ToStatus("reconstruction"), kReconstructKeywords);
  return r;
}

double PoseFraction(const std::string& pose_at) {
  auto fraction = PoseFractionOf(pose_at);
  if (!fraction.ok()) Raise(OptionError("pose_at", fraction.message()));
  return *fraction;
}

py::dict Reconstruct(const std::string& recording, const Path& out, const std::string& sidecar,
                     const std::string& format, const std::string& topic,
                     const std::string& firetimes, const std::vector<double>& frames,
                     const std::string& poses, const std::string& pose_at, bool static_sensor,
                     bool incremental, uint32_t columns, const std::string& method, int depth,
                     double voxel_m, double max_range_m, bool carve) {
  jobs::ReconstructRecordingOptions o;
  o.recording = recording;
  o.sidecar = sidecar;
  o.format = format;
  o.topic = topic;
  o.firetimes = firetimes;
  o.frames = frames;
  o.poses = poses;
  o.pose_fraction = PoseFraction(pose_at);
  o.static_sensor = static_sensor;
  o.incremental = incremental;
  o.columns = columns;
  o.reconstruct = ReconstructOptionsOf(method, depth, voxel_m, max_range_m, carve);
  o.out = out;
  CollectedLog log;
  o.log = log.Log();
  ThrowIfInvalid(o.Validate(), kReconstructKeywords);
  ThrowIfError(RunInterruptibly([&] { return jobs::ReconstructRecording(o); }));
  py::dict d = log.Result();
  d["out"] = out.string();
  return d;
}

// Runs reproduce's job on filled options (reproduce and resimulate alike), with the
// reconstruction's options, the seed and the output folder; max_range_m 0: out to the sensor's
// range (the CLI without --max-range-m).
py::dict RunReproduce(jobs::ReproduceOptions& o, const std::string& method, int depth,
                      double voxel_m, double max_range_m, uint64_t seed, const Path& out) {
  o.reconstruct_to_sensor_range = max_range_m == 0;
  o.reconstruct =
      ReconstructOptionsOf(method, depth, voxel_m,
                           max_range_m == 0 ? ReconstructOptions{}.max_range_m : max_range_m, true);
  o.seed = seed;
  o.out = out;
  o.mesh_loader = BuiltInMeshLoader();
  o.simulate = [](SimulationJob job) {
    job.software_version = LT_VERSION;
    return RunSimulation(job);
  };
  CollectedLog log;
  o.log = log.Log();
  ThrowIfInvalid(o.Validate(), o.resimulate ? kResimulateKeywords : kReconstructKeywords);
  ThrowIfError(RunInterruptibly([&] { return jobs::Reproduce(o); }));
  py::dict d = log.Result();
  d["out"] = o.out.string();
  return d;
}

py::dict Reproduce(const std::string& recording, const Path& out, uint32_t simulate_frame,
                   const std::string& sidecar, const std::string& topic, const std::string& sensor,
                   const std::string& firetimes, const std::vector<double>& reconstruct_frames,
                   const std::string& as_sensor, uint32_t reconstruct_channel_step,
                   const std::string& poses, const std::string& pose_at, bool static_sensor,
                   double rotation_rate_hz, const std::string& detector,
                   const std::string& intensity, const std::string& method, int depth,
                   double voxel_m, double max_range_m, uint64_t seed) {
  jobs::ReproduceOptions o;
  o.recording = recording;
  o.sidecar = sidecar;
  o.topic = topic;
  o.sensor = sensor;
  o.firetimes = firetimes;
  o.simulate_frame = simulate_frame;
  o.reconstruct_frames = reconstruct_frames;
  o.as_sensor = as_sensor;
  o.reconstruct_channel_step = reconstruct_channel_step;
  o.poses = poses;
  o.pose_fraction = PoseFraction(pose_at);
  o.static_sensor = static_sensor;
  o.rotation_rate_hz = rotation_rate_hz;
  o.detector = detector;
  o.intensity = intensity;
  return RunReproduce(o, method, depth, voxel_m, max_range_m, seed, out);
}

py::dict Resimulate(const std::string& recording, const Path& out, const std::string& as_sensor,
                    const std::string& sidecar, const std::string& topic,
                    const std::string& firetimes, uint32_t first_frame, uint32_t frames,
                    const std::vector<double>& reconstruct_frames, const std::string& poses,
                    const std::string& pose_at, bool static_sensor, double rotation_rate_hz,
                    const std::string& intensity, const std::string& method, int depth,
                    double voxel_m, double max_range_m, uint64_t seed) {
  jobs::ReproduceOptions o;
  o.resimulate = true;
  o.recording = recording;
  o.as_sensor = as_sensor;
  o.sidecar = sidecar;
  o.topic = topic;
  o.firetimes = firetimes;
  o.simulate_frame = first_frame;
  o.simulate_frames = frames;
  o.reconstruct_frames = reconstruct_frames;
  o.poses = poses;
  o.pose_fraction = PoseFraction(pose_at);
  o.static_sensor = static_sensor;
  o.rotation_rate_hz = rotation_rate_hz;
  o.intensity = intensity;
  return RunReproduce(o, method, depth, voxel_m, max_range_m, seed, out);
}
#endif

#if LT_WITH_CERES
py::dict Labgen(const Path& profile, const Path& out, uint64_t seed, const std::string& backend,
                const std::string& serial) {
  jobs::LabgenOptions o;
  o.profile = profile;
  o.out = out;
  o.seed = seed;
  o.backend = backend;
  o.serial = serial;
  CollectedLog log;
  o.log = log.Log();
  ThrowIfInvalid(o.Validate());
  ThrowIfError(RunInterruptibly([&] { return jobs::Labgen(o); }));
  py::dict d = log.Result();
  d["out"] = out.string();
  return d;
}

py::dict Calibrate(const Path& lab, const Path& base, const Path& out, const Path& report,
                   bool accept_poor_fits) {
  jobs::CalibrateLabOptions o;
  o.lab = lab;
  o.base = base;
  o.out = out;
  o.report = report;
  o.accept_poor_fits = accept_poor_fits;
  CollectedLog log;
  o.log = log.Log();
  ThrowIfInvalid(o.Validate());
  ThrowIfError(RunInterruptibly([&] { return jobs::CalibrateLab(o); }));
  py::dict d = log.Result();
  d["out"] = out.string();
  d["report"] = report.string();
  return d;
}
#endif

}  // namespace

void BindJobs(py::module_& m) {
  using py::arg;
  m.def("_convert", &Convert, arg("recording"), arg("out"), py::kw_only(), arg("sidecar") = "",
        arg("format") = "", arg("topic") = "", arg("firetimes") = "");
  const compare::AssociationOptions association;
  m.def("_compare", &Compare, arg("real"), arg("sim"), arg("out"), py::kw_only(),
        arg("real_sidecar") = "", arg("real_format") = "", arg("real_topic") = "",
        arg("real_firetimes") = "", arg("real_frames") = std::vector<uint32_t>{},
        arg("sim_frames") = std::vector<uint32_t>{}, arg("rois") = "", arg("scene") = "",
        arg("roi_margin_m") = compare::CompareInputs{}.roi_margin_m, arg("associate") = "auto",
        arg("max_angle_deg") = py::none(), arg("max_distance_m") = py::none(),
        arg("min_range_m") = 0.0, arg("distance_bins") = py::none(),
        arg("beams_per_frame") = py::none(), arg("pairs") = "", arg("label") = "");
  m.def("_simulate", &Simulate, arg("sensor"), arg("scene"), arg("out"), py::kw_only(),
        arg("trajectory") = py::none(), arg("frames") = 1, arg("seed") = 0, arg("backend") = "auto",
        arg("threads") = 0, arg("motion_slices") = 16);
  m.def("_export", &Export, arg("sensor"), arg("scene"), arg("out"), py::kw_only(),
        arg("trajectory") = py::none(), arg("frames") = 1, arg("seed") = 0, arg("backend") = "auto",
        arg("threads") = 0, arg("motion_slices") = 16, arg("shards") = 1, arg("bag") = false);
#if LT_WITH_OPEN3D
  const ReconstructOptions r;
  m.def("_reconstruct", &Reconstruct, arg("recording"), arg("out"), py::kw_only(),
        arg("sidecar") = "", arg("format") = "", arg("topic") = "", arg("firetimes") = "",
        arg("frames") = std::vector<double>{}, arg("poses") = "", arg("pose_at") = "start",
        arg("static_sensor") = false, arg("incremental") = false, arg("columns") = 0,
        arg("method") = r.method, arg("depth") = r.poisson_depth, arg("voxel_m") = r.voxel_m,
        arg("max_range_m") = r.max_range_m, arg("carve") = r.carve);
  const jobs::ReproduceOptions p;
  m.def("_reproduce", &Reproduce, arg("recording"), arg("out"), arg("simulate_frame"),
        py::kw_only(), arg("sidecar") = "", arg("topic") = "", arg("sensor") = "",
        arg("firetimes") = "", arg("reconstruct_frames") = std::vector<double>{},
        arg("as_sensor") = "", arg("reconstruct_channel_step") = p.reconstruct_channel_step,
        arg("poses") = "", arg("pose_at") = "start", arg("static_sensor") = false,
        arg("rotation_rate_hz") = 0.0, arg("detector") = p.detector, arg("intensity") = p.intensity,
        arg("method") = r.method, arg("depth") = r.poisson_depth, arg("voxel_m") = r.voxel_m,
        arg("max_range_m") = 0.0, arg("seed") = 0);
  m.def("_resimulate", &Resimulate, arg("recording"), arg("out"), arg("as_sensor"), py::kw_only(),
        arg("sidecar") = "", arg("topic") = "", arg("firetimes") = "", arg("first_frame") = 0,
        arg("frames") = 0, arg("reconstruct_frames") = std::vector<double>{}, arg("poses") = "",
        arg("pose_at") = "start", arg("static_sensor") = false, arg("rotation_rate_hz") = 0.0,
        arg("intensity") = p.intensity, arg("method") = r.method, arg("depth") = r.poisson_depth,
        arg("voxel_m") = r.voxel_m, arg("max_range_m") = 0.0, arg("seed") = 0);
#endif
#if LT_WITH_CERES
  m.def("_labgen", &Labgen, arg("profile"), arg("out"), py::kw_only(), arg("seed") = 1,
        arg("backend") = "auto", arg("serial") = "");
  m.def("_calibrate", &Calibrate, arg("lab"), arg("base"), arg("out"), arg("report"), py::kw_only(),
        arg("accept_poor_fits") = false);
#endif
}

}  // namespace lt::python
