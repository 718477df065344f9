// Our errors as Python exceptions. lidartwin.Error carries the message as we wrote it (file,
// key or offset, problem); OptionError is also a ValueError, for a refused argument, and says
// which option in `.option` (the keyword's name, as the functions take it).
#include "bindings.h"
#include "interruptible.h"
#include "lidartwin/base/cancellation.h"

namespace lt::python {
namespace {

// Owned for the life of the process: the module is never unloaded, and a py::object here would
// be released after the interpreter has gone.
PyObject* error_type = nullptr;
PyObject* option_error_type = nullptr;

}  // namespace

void Raise(const Error& error) {
  if (error.message == kCancelledMessage) {
    ClearCancel();
    PyErr_SetNone(PyExc_KeyboardInterrupt);
  } else if (!error.option.empty()) {
    py::object e = py::reinterpret_borrow<py::object>(option_error_type)(error.message);
    e.attr("option") = error.option;
    PyErr_SetObject(option_error_type, e.ptr());
  } else {
    PyErr_SetString(error_type, error.message.c_str());
  }
  throw py::error_already_set();
}

void RaiseIfInterrupted() {
  if (CancelRequested()) Raise(Error{kCancelledMessage});
}

void BindErrors(py::module_& m) {
  error_type = PyErr_NewExceptionWithDoc(
      "lidartwin.Error",
      "A lidartwin call failed; the message names the file, the key or offset and the problem.",
      PyExc_RuntimeError, nullptr);
  py::tuple bases = py::make_tuple(py::reinterpret_borrow<py::object>(error_type),
                                   py::reinterpret_borrow<py::object>(PyExc_ValueError));
  option_error_type = PyErr_NewExceptionWithDoc(
      "lidartwin.OptionError",
      "An argument was refused: .option names it, and the message begins with it.", bases.ptr(),
      nullptr);
  if (!error_type || !option_error_type) throw py::error_already_set();
  m.attr("Error") = py::reinterpret_borrow<py::object>(error_type);
  m.attr("OptionError") = py::reinterpret_borrow<py::object>(option_error_type);
}

}  // namespace lt::python
