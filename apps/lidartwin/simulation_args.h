// The simulation options simulate and export share (--sensor, --scene, --trajectory, --frames,
// --seed, --backend, --threads, --motion-slices, --waveforms), read into a SimulationJob.
#pragma once

#include <string>
#include <vector>

#include "command.h"
#include "lidartwin/datasets/simulation_run.h"

namespace lt::cli {

// The option names, for an ArgSpec.
std::vector<std::string> SimulationOptionNames();
// The job those options describe (out left empty); the error names the option.
Expected<SimulationJob> SimulationJobFromArgs(const Args& args);

}  // namespace lt::cli
