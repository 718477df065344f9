// Our errors as Python exceptions. lidartwin.Error carries the message as we wrote it (file,
// key or offset, problem); OptionError is also a ValueError, for a refused argument, and says
// which option in `.option` (the keyword's name, as the functions take it).
#include <cstring>

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

// Our messages are UTF-8, but may quote a file's bytes or a path that are not: those are
// escaped (\xff) rather than lost.
py::object MessageText(const std::string& message) {
  PyObject* text = PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()),
                                        "backslashreplace");
  if (!text) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(text);
}

void Raise(const Error& error) {
  if (error.message == kCancelledMessage) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
  } else if (!error.option.empty()) {
    py::object e =
        py::reinterpret_borrow<py::object>(option_error_type)(MessageText(error.message));
    e.attr("option") = error.option;
    PyErr_SetObject(option_error_type, e.ptr());
  } else {
    PyErr_SetObject(error_type, MessageText(error.message).ptr());
  }
  throw py::error_already_set();
}

void ThrowIfInvalid(const Status& status,
                    std::initializer_list<std::pair<const char*, const char*>> keywords) {
  if (status.ok()) return;
  Error e = status.error();
  if (e.option.empty()) {  // ConfigCheck's "<what>: key '<key>': <problem>"
    const std::string mark = "key '";
    const size_t at = e.message.find(mark);
    const size_t end = at == std::string::npos ? at : e.message.find('\'', at + mark.size());
    if (end != std::string::npos)
      e.option = e.message.substr(at + mark.size(), end - at - mark.size());
  }
  for (const auto& [key, keyword] : keywords) {
    if (e.option != key) continue;
    e.option = keyword;
    // "association.max_angle_deg: ..." reads "max_angle_deg: ..." as the caller wrote it, and
    // "key 'poisson_depth'" reads "key 'depth'".
    if (e.message.rfind(key, 0) == 0) e.message = keyword + e.message.substr(std::strlen(key));
    const std::string quoted = "key '" + std::string(key) + "'";
    if (const size_t at = e.message.find(quoted); at != std::string::npos)
      e.message.replace(at, quoted.size(), "key '" + std::string(keyword) + "'");
  }
  if (e.option.empty()) e.option = "options";  // refused, though the message names no key
  Raise(e);
}

void FinishInterruptible(bool took_over, bool succeeded) {
  const bool requested = CancelRequested();
  // A call on another thread leaves the request for the one that took SIGINT over.
  if (took_over) ClearCancel();
  if (requested && succeeded) Raise(Error{kCancelledMessage});
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
