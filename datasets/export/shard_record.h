// A finished shard's record (shard-NNNNN-of-MMMMM.json) and the checksums it and the manifest
// hold (docs/datasets.md, "What the folder holds"), written and read with every key checked:
// the join and a resumed run meet records that were damaged or edited by hand, and the manifest
// is built from the checked fields alone (private to datasets/).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/export_run.h"
#include "lidartwin/datasets/sha256.h"

namespace lt {

// The most a shard record may hold: a digest a 64 MiB piece is 72 bytes of its JSON, so a shard
// of 7 TB (a million frames of a dense sensor) fits.
inline constexpr uint64_t kMaxShardRecordBytes = uint64_t{8} << 20;

struct ShardRecord {
  uint32_t shard = 0, shards = 0;
  FrameRange frames;
  uint64_t points = 0;
  std::string file;  // the shard's HDF5 file, a name in the export folder
  FilePieceHashes hashes;
  std::string identity_sha256;  // SHA-256 of the run's export.json
};

// What a record of shard `shard` of `shards` over `frames` frames must be: those numbers, its
// file's name, and the identity's hash. The first problem names the record and the key.
Expected<ShardRecord> ParseShardRecord(const std::string& text, const std::string& where,
                                       uint32_t shard, uint32_t shards, uint32_t frames,
                                       const std::string& identity_sha256);

// "bytes", "piece_bytes" and "sha256_pieces" of a file's checksums.
void PutPieceHashes(nlohmann::ordered_json& j, const FilePieceHashes& h);
// The record as written; without its identity's hash for the manifest.
nlohmann::ordered_json ShardRecordJson(const ShardRecord& r, bool with_identity);

}  // namespace lt
