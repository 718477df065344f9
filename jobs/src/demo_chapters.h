// The demo's chapters beside its main table (demo.h), and what they share.
#pragma once

#include <fmt/core.h>

#include <string>
#include <utility>

#include "lidartwin/jobs/demo.h"

namespace lt::jobs {

// A line of the demo's tables, formatted as fmt::print would print it.
template <typename... Args>
void Say(const JobLog& log, fmt::format_string<Args...> format, Args&&... args) {
  log.Info(fmt::format(format, std::forward<Args>(args)...));
}

// The demo's simulation of `job`, with its mesh loader and runner.
Expected<SimulationResult> Simulate(const DemoOptions& o, SimulationJob job);

// The Cube 1 with its waveform detector (configs/sensors/blickfeld_cube1.yaml) looks at a
// 10 % Lambertian plate at 5, 10, ..., 40 m (seed 002 sec. 6.2), in the lab and in full
// sunlight; per distance, the beams on the plate, how many of them the detector reports and
// their mean intensity, and the detection range in each light (issue 15).
Status WaveformChapter(const DemoOptions& o);

// The OS0-128's threshold detector, cut to one beam, sees a 10 % and an 80 % plate in clear
// air and in fog of visibility 100, 50 and 30 m: their detection ranges, simulated and from the
// link budget (issue 43).
Status WeatherChapter(const DemoOptions& o);

// A unit that differs from its data sheet gets a virtual lab, is calibrated from it, and the
// calibrated and the data-sheet profiles are both compared with the unit's own recording of
// the lab scene (issue 10). Needs Ceres.
Status CalibrationChapter(const DemoOptions& o);

}  // namespace lt::jobs
