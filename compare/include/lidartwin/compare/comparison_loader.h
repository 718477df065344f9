// Reads what a comparison is made of (CompareInputs): both recordings, the frames chosen, the
// regions of interest and the material names, into the frames and options Compare and the
// viewer take. One loader for compare, view and report's embedded viewer, so all three pair
// the same frames the same way.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/compare/compare_inputs.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/datasets/recording.h"
#include "lidartwin/sim/scene.h"

namespace lt::compare {

struct LoadedComparison {
  // Each recording's header (reader, sensor, notes) and the chosen frames, in compare order.
  Recording real, sim;
  // in.association, in.min_range_m, the targets and the scene's material names.
  CompareOptions options;
  // Beams per frame of the simulated file's sensor profile (a lidartwin .h5 that holds one);
  // 0 where unknown.
  uint64_t sim_profile_beams_per_frame = 0;
};

// `path` made absolute against the working folder and normalised; empty stays empty, and a
// path the file system cannot resolve is returned as given.
std::string AbsolutePath(const std::string& path);

// Makes every path in `in` absolute (so report finds the files from any folder) and records
// the size and modification time of both recordings.
void StampInputs(CompareInputs& in);
// An error naming the file when a stamped recording's size or modification time changed (or
// it is gone): the file is no longer the one compared.
Status CheckInputsUnchanged(const CompareInputs& in);

// Errors name the file and what is wrong: unreadable recordings, a frame index beyond a file's
// frames ("frame 7 does not exist (x.pcap has 3 frame(s))"), a frame listed twice, frame
// counts that differ once chosen, a bad targets file or scene.
Expected<LoadedComparison> LoadComparison(const CompareInputs& in, const MeshLoader& meshes);

// The same comparison streamed pair by pair: both recordings are read in step, a frame of
// each in memory, so that compare's memory follows a frame pair, not the recordings' length
// (issue 36). Frames chosen out of file order are held, as many as are listed.
class ComparisonStream {
 public:
  // Opens both recordings (headers, metadata) and reads the targets and scene; the errors of
  // LoadComparison that need no frame.
  static Expected<ComparisonStream> Open(const CompareInputs& in, const MeshLoader& meshes);
  ComparisonStream(ComparisonStream&&) noexcept;
  ~ComparisonStream();

  // As LoadedComparison's: the caller may set the bins and beams before Run.
  CompareOptions options;
  uint64_t sim_profile_beams_per_frame = 0;

  // Compares every pair; on_frame gets (pairs done, frames known of the real side or 0). The
  // errors of LoadComparison about frames (missing, counts that differ) come from here.
  Expected<ComparisonMetrics> Run(const CompareProgress& on_frame = {},
                                  const PairingSink& on_pairing = {});
  // Each recording's header; its notes are complete once Run has returned.
  const Recording& real_header() const;
  const Recording& sim_header() const;
  // Fraction of the real recording read (0..1), for progress.
  double Fraction() const;

 private:
  class Side;
  ComparisonStream();
  CompareInputs in_;
  std::unique_ptr<Side> real_, sim_;
};

}  // namespace lt::compare
