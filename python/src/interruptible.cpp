#include "interruptible.h"

#include "lidartwin/base/cancellation.h"

namespace lt::python {
namespace {

extern "C" void OnInterrupt(int) {
  RequestCancel();
}

// Whether Ctrl-C is Python's default here: the main thread (the only one Python delivers
// signals to) with signal.default_int_handler in place.
bool PythonDefaultInterrupt() {
  if (!_PyOS_IsMainThread()) return false;
  PyObject* signal = PyImport_ImportModule("signal");
  if (!signal) {
    PyErr_Clear();
    return false;
  }
  PyObject* current = PyObject_CallMethod(signal, "getsignal", "i", SIGINT);
  PyObject* fallback = PyObject_GetAttrString(signal, "default_int_handler");
  const bool is_default = current && fallback && current == fallback;
  Py_XDECREF(current);
  Py_XDECREF(fallback);
  Py_DECREF(signal);
  PyErr_Clear();
  return is_default;
}

}  // namespace

SigintTakeover::SigintTakeover() {
  if (!PythonDefaultInterrupt()) return;
  ClearCancel();  // a request left from an earlier call is not this one's
  struct sigaction ours {};
  ours.sa_handler = OnInterrupt;
  sigemptyset(&ours.sa_mask);
  installed_ = sigaction(SIGINT, &ours, &previous_) == 0;
}

SigintTakeover::~SigintTakeover() {
  if (installed_) sigaction(SIGINT, &previous_, nullptr);
}

}  // namespace lt::python
