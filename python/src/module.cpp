// The lidartwin Python module's native part, lidartwin._lidartwin; lidartwin/__init__.py is
// what users import (it adds the functions that return dicts and pass logs on).
#include "bindings.h"

PYBIND11_MODULE(_lidartwin, m) {
  m.doc() = "lidartwin's native module: use `import lidartwin`.";
  m.attr("__version__") = LT_VERSION;
  lt::python::BindErrors(m);
  lt::python::BindFrames(m);
  lt::python::BindSimulation(m);
  lt::python::BindRecordings(m);
  lt::python::BindJobs(m);
}
