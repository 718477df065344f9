// What the binding files share: each registers its part of the module, and every C++ failure
// reaches Python the same way (errors.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <initializer_list>
#include <memory>
#include <utility>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/physics/pose.h"
#include "lidartwin/sim/scene.h"

namespace lt::python {

namespace py = pybind11;

void BindErrors(py::module_& m);
void BindFrames(py::module_& m);
void BindSimulation(py::module_& m);
void BindRecordings(py::module_& m);
void BindJobs(py::module_& m);

// Raises the Python exception for `error`: lidartwin.OptionError (a ValueError) when it names
// an option, KeyboardInterrupt when the call was interrupted, else lidartwin.Error. The message
// is ours, unchanged.
[[noreturn]] void Raise(const Error& error);

inline void ThrowIfError(const Status& status) {
  if (!status.ok()) Raise(status.error());
}

// An Options struct's Validate() failing: an argument refused, raised as OptionError naming its
// key ("simulation options: key 'motion_slices': ..." names motion_slices). `keywords` maps a
// library key to the keyword the Python function takes where they differ
// ({"association.max_angle_deg", "max_angle_deg"}); the message then says the keyword too.
void ThrowIfInvalid(const Status& status,
                    std::initializer_list<std::pair<const char*, const char*>> keywords = {});
template <typename T>
T Unwrap(Expected<T>&& value) {
  if (!value.ok()) Raise(value.error());
  return std::move(value.value());
}

// A frame as Python holds it: shared, so that the numpy arrays viewing its fields keep it alive.
using SharedFrame = std::shared_ptr<Frame>;
py::object FrameToPython(Frame&& frame);
// The mesh loader of this build: Open3D's, or none (scenes with mesh files then fail to load).
MeshLoader BuiltInMeshLoader();

// A 4x4 (or 3x4) sensor -> world matrix [R t] as a pose; anything else is a ValueError.
physics::Pose<double> PoseFromMatrix(const py::handle& matrix);

}  // namespace lt::python
