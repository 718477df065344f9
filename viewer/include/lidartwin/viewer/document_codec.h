// The bytes a viewer document travels in (viewer/DOCUMENT.md, "Encoding"): a JSON header and
// one column per field, each quantised to what a person can see (1 mm, 12 significant bits,
// 100 ns), delta coded against the previous point of the same channel, split into byte planes
// and deflated (zlib), which the browser undoes with its own DecompressionStream. Two OS0-128
// frames fit in a few MB (issue 13: <= 5 MB for the export).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/viewer/viewer_document.h"

namespace lt::viewer {

inline constexpr uint32_t kDocumentFormatVersion = 1;

// The zlib stream of the encoded document.
Expected<std::string> EncodeViewerDocument(const ViewerDocument& doc);

// What view serves or exports for a command line: the encoded document, a one-line summary
// ("2 frame pair(s), 204012 real and 261696 simulated points, paired by beam") and what the
// readers skipped or guessed.
struct EncodedComparison {
  std::string bytes;
  std::string summary;
  std::vector<std::string> notes;
};
Expected<EncodedComparison> EncodeComparison(const compare::CompareInputs& in,
                                             const MeshLoader& meshes);

// What DecodeViewerDocument gives back: the header (JSON text) and, per frame and side
// ("real", "sim"), each column by name in its unit (m, s, counts ...).
struct DecodedDocument {
  std::string header_json;
  std::vector<std::map<std::string, std::map<std::string, std::vector<double>>>> frames;
};

// The inverse of EncodeViewerDocument (the page's decoder in C++, for tests and checks);
// errors name the offset or column that is wrong.
Expected<DecodedDocument> DecodeViewerDocument(const std::string& bytes);

// Quantisers, exposed for tests: metres to whole millimetres; a float rounded to 12
// significant bits (what 11 explicit mantissa bits keep); seconds to 100 ns steps.
int32_t QuantiseMm(double metres);
float RoundTo12Bits(float v);
int32_t Quantise100ns(double seconds);

}  // namespace lt::viewer
