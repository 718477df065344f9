// Recordings in and frames out: lidartwin.Recording iterates the frames of every file the CLI's
// convert reads, one at a time (the memory of one frame, whatever the length of the recording),
// and write_frames writes frames where convert would (one .h5 or .mcap, or a file a frame).
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <map>
#include <optional>

#include "bindings.h"
#include "interruptible.h"
#include "lidartwin/datasets/frame_output.h"
#include "lidartwin/datasets/pulled_recording.h"
#include "lidartwin/datasets/recording.h"

namespace lt::python {
namespace {

class PyRecording {
 public:
  PyRecording(const std::filesystem::path& path, const std::filesystem::path& sidecar,
              const std::string& format, const std::string& topic,
              const std::filesystem::path& firetimes) {
    RecordingOptions options;
    options.format = format;
    options.topic = topic;
    options.firetimes = firetimes;
    auto source = RunInterruptibly([&] { return OpenRecording(path, sidecar, options); });
    pulled_ = std::make_unique<PulledRecording>(Unwrap(std::move(source)));
  }

  py::object Next() {
    auto next = RunInterruptibly([&] { return pulled_->Next(); });
    std::optional<Frame> frame = Unwrap(std::move(next));
    if (!frame) throw py::stop_iteration();
    return FrameToPython(std::move(*frame));
  }

  const Recording& header() const { return pulled_->header(); }
  double fraction() const { return pulled_->Fraction(); }

 private:
  std::unique_ptr<PulledRecording> pulled_;
};

std::vector<std::filesystem::path> WriteFrames(const std::filesystem::path& path,
                                               const py::iterable& frames,
                                               const std::string& sensor_name, double wavelength_nm,
                                               const std::string& intensity_unit) {
  DatasetInfo info;
  info.software_version = LT_VERSION;
  info.sensor_name = sensor_name;
  info.backend = "python";
  info.wavelength_nm = wavelength_nm;
  info.intensity_unit = intensity_unit;
  // Every item a Frame with its own index (a frames file keeps one row an index), checked
  // before anything is opened.
  std::vector<SharedFrame> list;
  std::map<uint32_t, size_t> seen;
  for (const auto& item : frames) {
    if (!py::isinstance<Frame>(item))
      throw py::type_error("frames[" + std::to_string(list.size()) + "] is a " +
                           std::string(py::str(item.get_type().attr("__name__"))) +
                           ", not a lidartwin.Frame");
    list.push_back(item.cast<SharedFrame>());
    const auto [at, fresh] = seen.emplace(list.back()->index, list.size() - 1);
    if (!fresh)
      throw py::value_error("frames[" + std::to_string(list.size() - 1) + "] has index " +
                            std::to_string(list.back()->index) + ", as frames[" +
                            std::to_string(at->second) +
                            "] has: give each frame its own Frame.index");
  }
  auto output = Unwrap(FrameOutput::Open(path, info));
  for (const SharedFrame& frame : list)
    ThrowIfError(RunInterruptibly([&] { return output.Write(*frame); }));
  ThrowIfError(RunInterruptibly([&] { return output.Close(); }));
  return output.written();
}

}  // namespace

void BindRecordings(py::module_& m) {
  py::class_<PyRecording>(m, "Recording", R"doc(
A recording read a frame at a time: iterate it for Frame objects. Every file `lidartwin convert`
reads: Ouster, Velodyne, Hesai and RoboSense pcap/pcapng (with their metadata or calibration as
sidecar), ROS 1 and ROS 2 bags, Ouster OSF, KITTI/nuScenes .bin, PCD, PLY, LAS and our HDF5.
notes says what was skipped (complete once the iteration has ended).)doc")
      .def(py::init<const std::filesystem::path&, const std::filesystem::path&, const std::string&,
                    const std::string&, const std::filesystem::path&>(),
           py::arg("path"), py::arg("sidecar") = "", py::kw_only(), py::arg("format") = "",
           py::arg("topic") = "", py::arg("firetimes") = "")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &PyRecording::Next)
      .def_property_readonly("reader", [](const PyRecording& r) { return r.header().reader; })
      .def_property_readonly("sensor", [](const PyRecording& r) { return r.header().sensor; })
      .def_property_readonly("intensity_unit",
                             [](const PyRecording& r) { return r.header().intensity_unit; })
      .def_property_readonly("wavelength_nm",
                             [](const PyRecording& r) { return r.header().wavelength_nm; })
      .def_property_readonly("frames_known",
                             [](const PyRecording& r) { return r.header().frames_known; })
      .def_property_readonly("notes", [](const PyRecording& r) { return r.header().notes; })
      .def_property_readonly("fraction_read", &PyRecording::fraction);

  m.def("write_frames", &WriteFrames, py::arg("path"), py::arg("frames"), py::kw_only(),
        py::arg("sensor_name") = "", py::arg("wavelength_nm") = 0.0,
        py::arg("intensity_unit") = kIntensityUnknown, R"doc(
Writes frames where the extension says: .h5 (one file), .mcap or .db3 (a ROS 2 bag of
PointCloud2), or .ply, .pcd, .las (one file a frame: out.ply for one frame, out_000000.ply, ...
for several). Nothing appears until every frame is written. intensity_unit says what the
intensity field holds ("percent", "ouster reflectivity 0-255", ...: datasets/schema/frames_v2.md).
Returns the files written.)doc");
}

}  // namespace lt::python
