// compare --pairs: every association as a CSV table, one row per pair and one per point left
// without a partner, by each point's index in its frame in the file, so a user can find the
// points the metrics count (and the viewer tests check the page against it).
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>

#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/status.h"
#include "lidartwin/compare/compare_inputs.h"
#include "lidartwin/compare/frame_pairing.h"

namespace lt::compare {

// Columns: pair, real_frame, sim_frame, real_point, sim_point, range_error_m,
// intensity_error. A point without a partner has the other point's column (and the errors)
// empty. Errors are simulated minus real, as in metrics.json.
class PairsTableWriter {
 public:
  // Checks the target (atomic_file.h) and opens a temporary file beside it.
  static Expected<PairsTableWriter> Open(const std::filesystem::path& path);
  Status Add(size_t pair, const CompareInputs& in, const FramePairing& pairing);
  // Renames the table into place; without it the temporary file is removed.
  Status Commit();

 private:
  explicit PairsTableWriter(AtomicOutput output);
  AtomicOutput output_;
  std::unique_ptr<std::ofstream> stream_;
};

}  // namespace lt::compare
