// Runs a read that a library might crash on (libhdf5 1.10 overflows its buffers on some
// corrupted object headers before any check of ours sees them) in a child process first, so a
// crash there becomes an error here (private to datasets/).
#pragma once

#include <functional>
#include <string>

#include "lidartwin/base/status.h"

namespace lt {

// Runs `probe` in a forked child with a time limit. The child's own result is not returned:
// an error it finds, the caller finds again in-process. Returns an error naming `what` only when
// the child died (a signal, a sanitizer's exit) or ran past `seconds`; then the caller must not
// repeat the call in-process. Where fork fails, returns ok and the caller goes on unprotected.
Status RunIsolated(const std::string& what, const std::function<bool()>& probe,
                   unsigned seconds = 120);

}  // namespace lt
