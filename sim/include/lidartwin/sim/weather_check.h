// Whether a profile can see a scene's weather (issue 43).
#pragma once

#include "lidartwin/base/status.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt {

// Weather is seen through the return signal: an error for a scene with weather and a profile
// whose detector does not read it (ideal, capability), naming the weather's key. Both backends,
// CreateSimulator and LoadSimulation check it.
Status CheckWeather(const SensorProfile& profile, const SceneDescription& scene);

}  // namespace lt
