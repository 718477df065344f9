#include "lidartwin/datasets/output_set.h"

#include <unistd.h>

#include <string>

#include "lidartwin/datasets/interrupt_cleanup.h"

namespace lt {

Status CommitOutputSet(
    const std::vector<std::pair<std::filesystem::path, std::filesystem::path>>& moves) {
  const size_t n = moves.size();
  // The earlier outputs at the targets are set aside first and put back if anything fails or
  // the run is interrupted: the set on disk is the earlier one or the new one, never a mix.
  std::vector<std::filesystem::path> backups(n);
  Status status;
  for (size_t k = 0; k < n && status.ok(); ++k) {
    const auto& target = moves[k].second;
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(target, ec))) continue;
    backups[k] = target.parent_path() /
                 ("." + target.filename().string() + ".old-" + std::to_string(::getpid()));
    RegisterBackup(backups[k], target);
    std::filesystem::rename(target, backups[k], ec);
    if (ec) {
      UnregisterBackup(backups[k]);
      backups[k].clear();
      status = Error{target.string() + ": cannot set the earlier output aside: " + ec.message()};
    }
  }
  // New outputs at the targets are temporaries until all are in place (every earlier one at
  // these names is aside by now, so an interruption removes only ours).
  size_t moved = 0;
  if (status.ok()) {
    for (const auto& m : moves)
      RegisterTemporaryPath(m.second);
    for (; moved < n; ++moved) {
      std::error_code ec;
      std::filesystem::rename(moves[moved].first, moves[moved].second, ec);
      if (ec) {
        status = Error{moves[moved].second.string() + ": cannot move into place: " + ec.message()};
        break;
      }
    }
  }
  std::vector<std::filesystem::path> targets;
  for (const auto& m : moves)
    targets.push_back(m.second);
  if (status.ok()) {
    // The commit point: from here an interruption leaves the new set, whole.
    ForgetTogether(targets, backups);
    for (const auto& b : backups) {
      std::error_code ec;
      if (!b.empty()) std::filesystem::remove_all(b, ec);
    }
    return status;
  }
  for (size_t k = 0; k < n; ++k) {
    std::error_code ec;
    if (k < moved) std::filesystem::remove_all(targets[k], ec);  // only ours
    UnregisterTemporaryPath(targets[k]);
    if (backups[k].empty()) continue;
    std::filesystem::rename(backups[k], targets[k], ec);
    UnregisterBackup(backups[k]);
  }
  return status;
}

}  // namespace lt
