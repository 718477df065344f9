// Reading fields of the export's JSON files (export.json, shard records) that may be damaged:
// a missing key or a value of the wrong type reads as empty instead of throwing (private to
// datasets/).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "lidartwin/datasets/sha256.h"

namespace lt {

// j[key] when j is an object and that value a string; "" otherwise.
inline std::string StringAt(const nlohmann::ordered_json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The most a shard record may hold: a digest a 64 MiB piece is 72 bytes of its JSON, so a shard
// of 7 TB (a million frames of a dense sensor) fits.
inline constexpr uint64_t kMaxShardRecordBytes = uint64_t{8} << 20;

// A file's checksums as the shard records and the manifest hold them (docs/datasets.md):
// "bytes", "piece_bytes" and "sha256_pieces", one lower-case hex SHA-256 a piece.
inline void PutPieceHashes(nlohmann::ordered_json& j, const FilePieceHashes& h) {
  j["bytes"] = h.bytes;
  j["piece_bytes"] = h.piece_bytes;
  j["sha256_pieces"] = h.sha256;
}

// The checksums j holds, or nothing when a key is missing or malformed: sizes that are not
// unsigned integers, a piece size outside 1 MiB..1 TiB, a digest that is not 64 hex digits, or
// a number of digests that is not the size's.
inline std::optional<FilePieceHashes> PieceHashesAt(const nlohmann::ordered_json& j) {
  if (!j.is_object()) return std::nullopt;
  const auto bytes = j.find("bytes"), piece = j.find("piece_bytes"), list = j.find("sha256_pieces");
  if (bytes == j.end() || piece == j.end() || list == j.end() || !bytes->is_number_unsigned() ||
      !piece->is_number_unsigned() || !list->is_array()) {
    return std::nullopt;
  }
  FilePieceHashes h;
  h.bytes = bytes->get<uint64_t>();
  h.piece_bytes = piece->get<uint64_t>();
  // What HashFilePieces writes is 64 MiB; a record claiming pieces of a byte would have the
  // join hash a shard into a digest a byte.
  if (h.piece_bytes < (uint64_t{1} << 20) || h.piece_bytes > (uint64_t{1} << 40)) {
    return std::nullopt;
  }
  const uint64_t pieces = h.bytes == 0 ? 1 : (h.bytes - 1) / h.piece_bytes + 1;
  if (list->size() != pieces) return std::nullopt;
  for (const auto& d : *list) {
    if (!d.is_string()) return std::nullopt;
    const std::string hex = d.get<std::string>();
    if (hex.size() != 64 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) {
      return std::nullopt;
    }
    h.sha256.push_back(hex);
  }
  return h;
}

}  // namespace lt
