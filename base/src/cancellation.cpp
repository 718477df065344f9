#include "lidartwin/base/cancellation.h"

#include <atomic>

namespace lt {
namespace {

// Lock-free so that a signal handler may store to it (std::atomic<bool> is, on every platform
// we build for; checked below).
std::atomic<bool> cancel_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

}  // namespace

void RequestCancel() {
  cancel_requested.store(true, std::memory_order_relaxed);
}
void ClearCancel() {
  cancel_requested.store(false, std::memory_order_relaxed);
}
bool CancelRequested() {
  return cancel_requested.load(std::memory_order_relaxed);
}

Status CheckCancelled() {
  if (CancelRequested()) return Error{kCancelledMessage};
  return {};
}

}  // namespace lt
