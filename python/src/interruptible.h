// A long C++ call made from Python: the GIL released so that other Python threads run, and
// Ctrl-C turned into a request to stop (base/cancellation.h) that the workflows honour between
// frames and steps; the call then returns the "interrupted" error, which Raise turns into
// KeyboardInterrupt. Python's own SIGINT handler only sets a flag that Python code would check,
// and no Python code runs while C++ works, so the call takes SIGINT over while it runs and gives
// it back after.
#pragma once

#include <pybind11/pybind11.h>

#include <csignal>
#include <optional>

namespace lt::python {

class Interruptible {
 public:
  Interruptible();  // with the GIL held
  ~Interruptible();
  Interruptible(const Interruptible&) = delete;
  Interruptible& operator=(const Interruptible&) = delete;

 private:
  bool installed_ = false;  // only the main thread takes SIGINT over
  struct sigaction previous_ {};
  std::optional<pybind11::gil_scoped_release> release_;
};

// Raises KeyboardInterrupt when Ctrl-C came during the last interruptible call (errors.cpp).
void RaiseIfInterrupted();

// Runs `work` (returning a Status or an Expected) interruptibly and returns what it returns; a
// Ctrl-C that came after its last check still raises, as it would have in Python code.
template <typename Work>
auto RunInterruptibly(Work&& work) {
  auto result = [&] {
    Interruptible scope;
    return work();
  }();
  if (result.ok()) RaiseIfInterrupted();
  return result;
}

}  // namespace lt::python
