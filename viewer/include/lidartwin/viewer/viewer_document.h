// The viewer document (viewer/DOCUMENT.md): a comparison of a real and a simulated recording
// frame by frame, with the compare library's pairing of every point and the regions of interest
// with their N_points and I_mean, ready to be encoded for the page (document_codec.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/compare/comparison_loader.h"
#include "lidartwin/compare/frame_pairing.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/targets.h"

namespace lt::viewer {

struct ViewerSource {
  std::string file, reader, sensor;
  std::string intensity_unit;  // "" where the file does not say
};

// Which optional per-point fields a frame carried as read (the pairing's frames hold every
// field, zero where the file had none).
struct PresentFields {
  bool intensity = false, reflectance = false, channel = false, column = false, time = false,
       return_index = false, material = false, instance = false, semantic = false;
};
PresentFields PresentFieldsOf(const Frame& f);

struct ViewerFrame {
  std::string label;
  uint32_t real_index = 0, sim_index = 0;  // positions of the frames in their files
  compare::FramePairing pairing;           // the points shown and their association
  PresentFields real_fields, sim_fields;
  std::vector<compare::TargetMetrics> rois;  // one per document target, this frame
};

struct ViewerDocument {
  std::string title;
  ViewerSource real, sim;
  std::string association_method, association_reason;  // of the first frame, as compare
  std::vector<std::string> materials;                  // names by material id
  std::vector<std::string> semantic_classes;           // names by class id (may be empty)
  std::vector<std::string> notes;                      // what the readers skipped or guessed
  std::vector<compare::Target> targets;                // the boxes of ViewerFrame::rois
  std::vector<ViewerFrame> frames;
};

// Points a document may hold over all its frames and both sides: 2^25, 128 frame pairs of an
// OS0-128 (about 150 MB encoded). Beyond it view asks for fewer frames.
inline constexpr uint64_t kMaxViewerPoints = uint64_t{1} << 25;

// Pairs the loaded frames (all of them, or the pair positions in `pairs`) as Compare does and
// gathers what the page shows. `in` names the files and frames; errors name the frame pair.
Expected<ViewerDocument> BuildViewerDocument(const compare::LoadedComparison& loaded,
                                             const compare::CompareInputs& in,
                                             const std::vector<size_t>& pairs = {});

// LoadComparison and BuildViewerDocument in one: what view shows for its command line.
Expected<ViewerDocument> LoadViewerDocument(const compare::CompareInputs& in,
                                            const MeshLoader& meshes);

// The size and modification time of every input file, as text: the server builds its
// document again when this changes (a new simulation written over the old one).
std::string InputsSignature(const compare::CompareInputs& in);

// The unit of a recording's intensity field, as its reader recorded it ("" where unknown).
std::string IntensityUnitOf(const Recording& r);

}  // namespace lt::viewer
