// A long call stopped from outside without killing the process: the Python layer's Ctrl-C. The
// CLI never needs it (a signal ends the process and interrupt_cleanup.h removes what it left);
// a library caller that wants a run to stop asks for it here (from a signal handler too), and
// the workflows look between frames and steps (CheckCancelled) and return its error, which
// unwinds them as any other failure does: temporaries removed, earlier outputs kept.
#pragma once

#include "lidartwin/base/status.h"

namespace lt {

// Asks every running workflow to stop at its next check. Async-signal-safe (one atomic store).
void RequestCancel();
// Forgets a request: before a new call starts.
void ClearCancel();
bool CancelRequested();

// The error a workflow returns when asked to stop ("interrupted"), or OK.
Status CheckCancelled();
inline constexpr const char* kCancelledMessage = "interrupted";

}  // namespace lt
