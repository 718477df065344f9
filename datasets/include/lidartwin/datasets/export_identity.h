// What makes two export runs the same run: the bytes of the sensor profile, scene and
// trajectory, the frame count, seed, shard count, backend, motion slices, waveform beams and
// the software version. Shards of one run may be written by different processes and machines
// and resumed later; each checks the folder's export.json against its own identity before it
// writes, and a difference is refused with its key named.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/sha256.h"
#include "lidartwin/datasets/simulation_run.h"

namespace lt {

// The identity as JSON text (one key a line, stable order, so identical runs give identical
// bytes); the three files are read to hash their bytes.
Expected<std::string> ExportIdentity(const SimulationJob& job, uint32_t shards);

// Empty when the two identities are the same run; otherwise what differs, key by key
// ("seed: the folder's run has 7, this one 8; sensor profile: different bytes (sha256 ab12..
// there, 9f3e.. here)"). `theirs` that is not an identity at all says so.
std::string IdentityDifference(const std::string& theirs, const std::string& ours);

// export.json in `folder`: written if absent (atomically, so that of shards starting at once
// exactly one writes it), else compared; a different run is an error naming the folder and the
// difference.
Status ClaimExportFolder(const std::filesystem::path& folder, const std::string& identity);

}  // namespace lt
