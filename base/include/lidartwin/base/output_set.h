// Several outputs replaced as one set (issues 11, 12 and 36): a run writes everything into a
// staging folder or temporary files, then moves them onto the targets here. The targets hold
// the earlier set or the new one, never a mix of two runs, whatever stops the run:
//  - a failed move or a caught signal puts the earlier outputs back at once;
//  - a kill that nothing can catch (SIGKILL, power loss) leaves an intent journal beside the
//    first target, and the next commit into that folder finishes the dead run's work: the
//    earlier set restored before the commit point, the new one kept after it
//    (src/commit_journal.h). A set spread over folders (calibrate's profile and report) is
//    finished by the next commit into the first target's folder.
#pragma once

#include <cstddef>
#include <filesystem>
#include <utility>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt {

// staged -> target pairs; a staged path may be a file or a folder (a folder replaces the
// earlier folder at its target whole). `removals`: earlier outputs that are not part of the new
// set (an earlier, longer run's extra frames), removed as part of the same commit. The caller
// checks beforehand that the targets may be written (CheckOutputTarget for files).
Status CommitOutputSet(
    const std::vector<std::pair<std::filesystem::path, std::filesystem::path>>& staged_to_target,
    const std::vector<std::filesystem::path>& removals = {});

// Finishes the commits in `dir` whose process is gone (run by CommitOutputSet for its targets'
// folders, and by writers before they stage anything). Returns how many it finished.
size_t RecoverInterruptedCommits(const std::filesystem::path& dir);

}  // namespace lt
