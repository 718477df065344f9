#include "interruptible.h"

#include <pthread.h>

#include "lidartwin/base/cancellation.h"

namespace lt::python {
namespace {

extern "C" void OnInterrupt(int) {
  RequestCancel();
}

bool OnMainThread() {
  // Python delivers signals to its main thread only; a call from another thread keeps the
  // handler as it is (and cannot be interrupted, as Python code on that thread cannot).
  return PyGILState_Check() && _PyOS_IsMainThread();
}

}  // namespace

Interruptible::Interruptible() {
  ClearCancel();
  if (OnMainThread()) {
    struct sigaction ours {};
    ours.sa_handler = OnInterrupt;
    sigemptyset(&ours.sa_mask);
    installed_ = sigaction(SIGINT, &ours, &previous_) == 0;
  }
  release_.emplace();
}

Interruptible::~Interruptible() {
  release_.reset();  // the GIL back first: the caller goes on in Python
  if (installed_) sigaction(SIGINT, &previous_, nullptr);
}

}  // namespace lt::python
