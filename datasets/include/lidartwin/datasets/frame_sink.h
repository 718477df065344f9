// Where a streaming reader puts each frame as soon as it is complete.
#pragma once

#include <functional>

#include "lidartwin/sim/frame.h"
#include "lidartwin/sim/status.h"

namespace lt {

// Called once per completed frame, in order; an error stops the reading and is returned by it.
using FrameSink = std::function<Status(Frame&&)>;

}  // namespace lt
