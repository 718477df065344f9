// A long C++ call made from Python: the GIL released so that other Python threads run, and
// Ctrl-C turned into a request to stop (base/cancellation.h) that the workflows honour between
// frames and steps; the call then returns the "interrupted" error, which Raise turns into
// KeyboardInterrupt. Python's own SIGINT handler only sets a flag that Python code would check,
// and no Python code runs while C++ works, so the call takes SIGINT over while it runs and gives
// it back after: on the main thread (where Python delivers signals), and only while Python's
// handler is its default (a program that ignores SIGINT or handles it itself keeps that).
//
// A request stops every lidartwin call in progress in the process (the workflows read one flag):
// calls on other threads then raise KeyboardInterrupt too.
#pragma once

#include <pybind11/pybind11.h>

#include <csignal>
#include <exception>
#include <optional>
#include <utility>

namespace lt::python {

// SIGINT taken over for the scope of a call; no GIL work in its constructor or destructor.
class SigintTakeover {
 public:
  SigintTakeover();  // with the GIL held
  ~SigintTakeover();
  SigintTakeover(const SigintTakeover&) = delete;
  SigintTakeover& operator=(const SigintTakeover&) = delete;
  bool installed() const { return installed_; }

 private:
  bool installed_ = false;
  struct sigaction previous_ {};
};

// After an interruptible call: the call that took SIGINT over forgets a request (once, here);
// one that succeeded although a request came raises KeyboardInterrupt, as Python code would
// have (errors.cpp). A call that failed with "interrupted" raises through Raise.
void FinishInterruptible(bool took_over, bool succeeded);

// Runs `work` (returning a Status or an Expected) with the GIL released and SIGINT taken over, and
// returns what it returns; a Ctrl-C that came after its last check still raises, as it would have
// in Python code. The GIL is taken back here, not in a destructor: at interpreter exit taking it
// back ends a daemon thread by unwinding its stack, which must not cross a noexcept frame.
template <typename Work>
auto RunInterruptibly(Work&& work) {
  std::optional<SigintTakeover> takeover(std::in_place);
  std::optional<decltype(work())> result;
  std::exception_ptr failure;
  PyThreadState* state = PyEval_SaveThread();
  try {
    result.emplace(work());
  } catch (...) {
    failure = std::current_exception();  // no memory, say: rethrown with the GIL held
  }
  PyEval_RestoreThread(state);
  const bool took_over = takeover->installed();
  takeover.reset();  // Python's handler back before the request is read: none is lost between
  FinishInterruptible(took_over, !failure && result->ok());
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

}  // namespace lt::python
