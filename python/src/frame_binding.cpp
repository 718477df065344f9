// lidartwin.Frame: one frame (base/frame.h) whose per-point fields are numpy arrays viewing our
// memory (no copy: each array keeps the frame alive), with its times and poses.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "bindings.h"
#include "lidartwin/physics/pose.h"

namespace lt::python {
namespace {

template <typename T>
py::array ViewOf(const FieldView& field, py::handle owner) {
  if (field.size == 0) return py::array_t<T>(0);
  return py::array_t<T>({field.size}, {sizeof(T)}, static_cast<const T*>(field.data), owner);
}

py::array FieldArray(const FieldView& field, py::handle owner) {
  switch (field.type) {
    case FieldType::kFloat32:
      return ViewOf<float>(field, owner);
    case FieldType::kFloat64:
      return ViewOf<double>(field, owner);
    case FieldType::kUInt8:
      return ViewOf<uint8_t>(field, owner);
    case FieldType::kUInt16:
      return ViewOf<uint16_t>(field, owner);
    case FieldType::kUInt32:
      return ViewOf<uint32_t>(field, owner);
    case FieldType::kUInt64:
      return ViewOf<uint64_t>(field, owner);
  }
  return py::none();
}

// Whether a field is carried: a value per point. A field the source lacks (a recording's
// labels, an optional field the source does not give) is absent: None in Python.
bool Carried(const Frame& f, const FieldView& field) {
  return field.size == f.size() && (f.size() > 0 || !IsOptionalFrameField(field.name));
}

// A sensor -> world pose as the 4x4 matrix [R t; 0 0 0 1].
py::array_t<double> PoseMatrix(const physics::Pose<double>& pose) {
  py::array_t<double> m({4, 4});
  auto a = m.mutable_unchecked<2>();
  const physics::Vec3<double> axes[3] = {physics::Rotate(pose.rotation, {1.0, 0.0, 0.0}),
                                         physics::Rotate(pose.rotation, {0.0, 1.0, 0.0}),
                                         physics::Rotate(pose.rotation, {0.0, 0.0, 1.0})};
  for (int c = 0; c < 3; ++c) {
    a(0, c) = axes[c].x;
    a(1, c) = axes[c].y;
    a(2, c) = axes[c].z;
  }
  a(0, 3) = pose.translation.x;
  a(1, 3) = pose.translation.y;
  a(2, 3) = pose.translation.z;
  a(3, 0) = a(3, 1) = a(3, 2) = 0;
  a(3, 3) = 1;
  return m;
}

template <typename T>
void CopyInto(Frame& f, const std::string& name, const py::handle& values, size_t n) {
  auto array = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(values);
  if (!array || array.ndim() != 1)
    throw py::value_error("field " + name + ": expected a one-dimensional array");
  if (static_cast<size_t>(array.shape(0)) != n)
    throw py::value_error("field " + name + ": " + std::to_string(array.shape(0)) + " values for " +
                          std::to_string(n) + " points (x has " + std::to_string(n) + ")");
  FieldType type;
  void* data = ResizeFrameField(f, name, n, &type);
  if (n) std::memcpy(data, array.data(), n * sizeof(T));
}

}  // namespace

physics::Pose<double> PoseFromMatrix(const py::handle& matrix) {
  auto m = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(matrix);
  if (!m || m.ndim() != 2 || m.shape(0) < 3 || m.shape(0) > 4 || m.shape(1) != 4)
    throw py::value_error("a pose is a 4x4 (or 3x4) matrix [R t]");
  const double* d = m.data();
  for (py::ssize_t i = 0; i < m.size(); ++i) {
    if (!std::isfinite(d[i])) throw py::value_error("a pose has a value that is not finite");
  }
  // A rotation: orthonormal rows (R R^T = I within 1e-6, what a float-printed matrix keeps) and
  // a determinant of +1 (not a reflection); a 4x4's last row [0 0 0 1].
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      const double dot =
          d[4 * a] * d[4 * b] + d[4 * a + 1] * d[4 * b + 1] + d[4 * a + 2] * d[4 * b + 2];
      if (std::abs(dot - (a == b ? 1.0 : 0.0)) > 1e-6)
        throw py::value_error("a pose's 3x3 part is not a rotation (its rows are not orthonormal)");
    }
  }
  const double det = d[0] * (d[5] * d[10] - d[6] * d[9]) - d[1] * (d[4] * d[10] - d[6] * d[8]) +
                     d[2] * (d[4] * d[9] - d[5] * d[8]);
  if (det < 0) throw py::value_error("a pose's 3x3 part is a reflection (determinant -1)");
  if (m.shape(0) == 4 && (d[12] != 0 || d[13] != 0 || d[14] != 0 || d[15] != 1))
    throw py::value_error("a 4x4 pose's last row must be [0, 0, 0, 1]");
  return {physics::QuatFromRotationMatrix(d, 4), {d[3], d[7], d[11]}};
}

py::object FrameToPython(Frame&& frame) {
  return py::cast(std::make_shared<Frame>(std::move(frame)));
}

// A frame from per-point arrays (write_frames, tests): x, y and z required, range computed from
// them when not given, every other field absent unless given (never zeros: base/frame.h).
SharedFrame FrameFromArrays(const py::dict& fields) {
  auto f = std::make_shared<Frame>();
  if (!fields.contains("x")) throw py::value_error("a frame needs the field x (and y, z)");
  const size_t n = static_cast<size_t>(py::len(fields["x"]));
  for (const auto& [key, values] : fields) {
    const std::string name = py::str(key);
    bool known = false;
    for (const FieldView& field : FrameFields(*f)) {
      if (name != field.name) continue;
      known = true;
      switch (field.type) {
        case FieldType::kFloat32:
          CopyInto<float>(*f, name, values, n);
          break;
        case FieldType::kFloat64:
          CopyInto<double>(*f, name, values, n);
          break;
        case FieldType::kUInt8:
          CopyInto<uint8_t>(*f, name, values, n);
          break;
        case FieldType::kUInt16:
          CopyInto<uint16_t>(*f, name, values, n);
          break;
        case FieldType::kUInt32:
          CopyInto<uint32_t>(*f, name, values, n);
          break;
        case FieldType::kUInt64:
          CopyInto<uint64_t>(*f, name, values, n);
          break;
      }
      break;
    }
    if (!known) {
      std::string names;
      for (const FieldView& field : FrameFields(*f))
        names += (names.empty() ? "" : ", ") + std::string(field.name);
      throw py::value_error("unknown field '" + name + "' (fields: " + names + ")");
    }
  }
  for (const char* axis : {"y", "z"}) {
    if (!fields.contains(axis))
      throw py::value_error(std::string("a frame needs the field ") + axis);
  }
  if (!fields.contains("range")) {
    f->range_m.resize(n);
    for (size_t i = 0; i < n; ++i)
      f->range_m[i] =
          std::sqrt(f->x_m[i] * f->x_m[i] + f->y_m[i] * f->y_m[i] + f->z_m[i] * f->z_m[i]);
  }
  return f;
}

void BindFrames(py::module_& m) {
  py::class_<Frame, SharedFrame> frame(m, "Frame", R"doc(
One frame of a recording or a simulation. Its per-point fields are numpy arrays that view the
frame's own memory (no copy); each keeps the frame alive. A field the source does not carry
(return_type, echo_pulse_width) is None.)doc");
  frame.def(py::init(&FrameFromArrays), py::arg("fields"),
            "A frame from a dict of per-point arrays: x, y, z required, range computed from them "
            "when not given, the fields not given absent (None).");
  frame.def("__len__", &Frame::size);
  frame.def_readwrite("index", &Frame::index, "The frame's index in its run or recording.");
  frame.def_readwrite("start_time_s", &Frame::start_time_s,
                      "Frame start on the trajectory (or recording) clock [s].");
  frame.def_readwrite("end_time_s", &Frame::end_time_s, "Frame end [s].");
  frame.def_readwrite("motion_corrected", &Frame::motion_corrected,
                      "True when points are in the sensor frame at pose_end.");
  frame.def_property(
      "pose_start", [](const Frame& f) { return PoseMatrix(f.pose_start); },
      [](Frame& f, const py::handle& p) { f.pose_start = PoseFromMatrix(p); },
      "Sensor -> world pose at the frame's start, 4x4.");
  frame.def_property(
      "pose_end", [](const Frame& f) { return PoseMatrix(f.pose_end); },
      [](Frame& f, const py::handle& p) { f.pose_end = PoseFromMatrix(p); },
      "Sensor -> world pose at the frame's end, 4x4.");
  for (const FieldView& field : FrameFields(Frame{})) {
    const std::string name = field.name;
    const std::string doc = "Per point: " + name + " [" + field.unit + "]; a view of the frame.";
    frame.def_property_readonly(
        name.c_str(),
        [name](py::object self) -> py::object {
          const Frame& f = self.cast<const Frame&>();
          for (const FieldView& v : FrameFields(f)) {
            if (name == v.name) return Carried(f, v) ? FieldArray(v, self) : py::object(py::none());
          }
          return py::none();
        },
        doc.c_str());
  }
  frame.def(
      "fields",
      [](py::object self) {
        const Frame& f = self.cast<const Frame&>();
        py::dict out;
        for (const FieldView& v : FrameFields(f)) {
          if (Carried(f, v)) out[v.name] = FieldArray(v, self);
        }
        return out;
      },
      "The fields it carries, name -> array (views, in the order of the frames file).");
  frame.def_property_readonly("absent_fields", &AbsentFields,
                              "The fields this frame lacks (its source never had them).");
  frame.def_static(
      "units",
      [] {
        py::dict out;
        for (const FieldView& v : FrameFields(Frame{}))
          out[v.name] = v.unit;
        return out;
      },
      "Each field's unit, as the frames file records it; intensity's is each recording's own "
      "(Recording.intensity_unit).");
  frame.def("__repr__", [](const Frame& f) {
    return "<lidartwin.Frame " + std::to_string(f.index) + ": " + std::to_string(f.size()) +
           " points>";
  });
}

}  // namespace lt::python
