// Several outputs replaced as one set (issues 11 and 12): a run writes everything into a
// staging folder, then moves it onto the targets here. The earlier outputs at those targets
// are set aside first and put back if a move fails or the run is interrupted, so the targets
// hold the earlier set or the new one, never a mix of two runs.
#pragma once

#include <filesystem>
#include <utility>
#include <vector>

#include "lidartwin/sim/status.h"

namespace lt {

// staged -> target pairs; a staged path may be a file or a folder (a folder replaces the
// earlier folder at its target whole). The caller checks beforehand that the targets may be
// written (CheckOutputTarget for files).
Status CommitOutputSet(
    const std::vector<std::pair<std::filesystem::path, std::filesystem::path>>& staged_to_target);

}  // namespace lt
