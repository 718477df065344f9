// What this build of the CLI brings to the libraries: its mesh loader (Open3D when built
// with it) and a progress display for simulation runs.
#pragma once

#include "lidartwin/datasets/simulation_run.h"
#include "lidartwin/sim/scene.h"

namespace lt::cli {

// The mesh loader of this build (Open3D), or an empty one.
MeshLoader BuiltInMeshLoader();

// RunSimulation with this build's mesh loader and version, and progress on stderr when it is
// a terminal.
Expected<SimulationResult> RunSimulationJob(SimulationJob job);

}  // namespace lt::cli
