// The launch policy of work done beside the calling thread (std::async), by the cores this
// process may use.
#pragma once

#include <future>

#include "lidartwin/base/host_cores.h"

namespace lt {

// The launch policy of one piece of work done beside this thread (std::async): on a thread of
// its own where this process may use more than one core, else run where its result is asked
// for. With both flags libstdc++ also falls back to the latter where no thread can be started
// (std::errc::resource_unavailable_try_again) rather than throw std::system_error.
inline std::launch BesideThisThread() {
  return UsableCores() > 1 ? std::launch::async | std::launch::deferred : std::launch::deferred;
}

}  // namespace lt
