#include "shard_record.h"

#include <algorithm>
#include <set>

#include "json_fields.h"

namespace lt {

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kKeys[] = {"shard", "shards",      "frames",        "points",         "file",
                                 "bytes", "piece_bytes", "sha256_pieces", "identity_sha256"};

bool IsSha256Value(const nlohmann::json& v) {
  return v.is_string() && lt::IsSha256Hex(v.get_ref<const std::string&>());
}

}  // namespace

Expected<ShardRecord> ParseShardRecord(const std::string& text, const std::string& where,
                                       uint32_t shard, uint32_t shards, uint32_t frames,
                                       const std::string& identity_sha256) {
  // A record is two levels deep ("frames": [b, e]); a deeper one (edited by hand) is refused
  // before it is built. nlohmann::json's map finds keys in log time (ordered_json's list of
  // pairs would take the square of a record's key count).
  if (JsonNestingDepth(text) > 2) return Error{where + ": nested deeper than a shard record"};
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Error{where + ": not a shard record (JSON object)"};
  }
  const std::set<std::string> known(std::begin(kKeys), std::end(kKeys));
  for (const auto& [key, value] : j.items()) {
    if (!known.count(key)) {
      // A key of any length and bytes, shown tamed: at most 64 bytes, not cut inside a UTF-8
      // character, control bytes as '?'.
      size_t cut = std::min<size_t>(key.size(), 64);
      while (cut > 0 && cut < key.size() && (static_cast<unsigned char>(key[cut]) & 0xC0) == 0x80)
        --cut;
      std::string shown = key.substr(0, cut);
      for (char& c : shown)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
      return Error{where + ": key '" + shown + "' is not one of a shard record's"};
    }
  }
  auto fail = [&](const char* key, const std::string& problem) {
    return Error{where + ": key '" + key + "' " + problem};
  };
  auto unsigned_at = [&](const char* key, uint64_t max, uint64_t& out) -> Status {
    const auto it = j.find(key);
    if (it == j.end()) return fail(key, "is missing");
    if (!it->is_number_unsigned() || it->get<uint64_t>() > max) {
      return fail(key, "must be a whole number from 0 to " + std::to_string(max));
    }
    out = it->get<uint64_t>();
    return {};
  };
  ShardRecord r;
  uint64_t value = 0;
  // The identity first: a record of another run is named as such, whatever else differs.
  const auto id = j.find("identity_sha256");
  if (id == j.end()) return fail("identity_sha256", "is missing");
  if (!IsSha256Value(*id)) return fail("identity_sha256", "is not a SHA-256 (64 hex digits)");
  if (id->get<std::string>() != identity_sha256) {
    return Error{where + ": belongs to another run than the folder's export.json"};
  }
  r.identity_sha256 = identity_sha256;
  if (Status s = unsigned_at("shard", UINT32_MAX, value); !s.ok()) return s.error();
  r.shard = static_cast<uint32_t>(value);
  if (Status s = unsigned_at("shards", UINT32_MAX, value); !s.ok()) return s.error();
  r.shards = static_cast<uint32_t>(value);
  if (r.shard != shard || r.shards != shards) {
    return Error{where + ": is the record of shard " + std::to_string(r.shard) + " of " +
                 std::to_string(r.shards) + ", not of " + std::to_string(shard) + " of " +
                 std::to_string(shards)};
  }
  const FrameRange range = ShardFrames(frames, shard, shards);
  const auto f = j.find("frames");
  if (f == j.end() || !f->is_array() || f->size() != 2 || !(*f)[0].is_number_unsigned() ||
      !(*f)[1].is_number_unsigned() || (*f)[0].get<uint64_t>() != range.begin ||
      (*f)[1].get<uint64_t>() != range.end) {
    return fail("frames", "must be [" + std::to_string(range.begin) + ", " +
                              std::to_string(range.end) + "], the shard's frames");
  }
  r.frames = range;
  if (Status s = unsigned_at("points", UINT64_MAX, r.points); !s.ok()) return s.error();
  const std::string stem = ShardStem(shard, shards);
  const auto file = j.find("file");
  if (file == j.end() || !file->is_string() || file->get<std::string>() != stem + ".h5") {
    return fail("file", "must be \"" + stem + ".h5\", the shard's file in this folder");
  }
  r.file = stem + ".h5";
  if (Status s = unsigned_at("bytes", UINT64_MAX, r.hashes.bytes); !s.ok()) return s.error();
  // What HashFilePieces writes is 64 MiB; a record claiming pieces of a byte would have the
  // join hash a shard into a digest a byte.
  constexpr uint64_t kMinPiece = uint64_t{1} << 20, kMaxPiece = uint64_t{1} << 40;
  const auto piece = j.find("piece_bytes");
  if (piece == j.end() || !piece->is_number_unsigned() || piece->get<uint64_t>() < kMinPiece ||
      piece->get<uint64_t>() > kMaxPiece) {
    return fail("piece_bytes", "must be a whole number from 1 MiB to 1 TiB");
  }
  r.hashes.piece_bytes = piece->get<uint64_t>();
  const uint64_t pieces = HashPieceCount(r.hashes.bytes, r.hashes.piece_bytes);
  const auto list = j.find("sha256_pieces");
  if (list == j.end() || !list->is_array() || list->size() != pieces) {
    return fail("sha256_pieces", "must list " + std::to_string(pieces) +
                                     " SHA-256 digest(s), one a " +
                                     std::to_string(r.hashes.piece_bytes) + " bytes of the file");
  }
  for (size_t i = 0; i < list->size(); ++i) {
    if (!IsSha256Value((*list)[i])) {
      return fail("sha256_pieces",
                  "entry " + std::to_string(i) + " is not 64 lower-case hex digits");
    }
    r.hashes.sha256.push_back((*list)[i].get<std::string>());
  }
  return r;
}

void PutPieceHashes(Json& j, const FilePieceHashes& h) {
  j["bytes"] = h.bytes;
  j["piece_bytes"] = h.piece_bytes;
  j["sha256_pieces"] = h.sha256;
}

Json ShardRecordJson(const ShardRecord& r, bool with_identity) {
  Json j;
  j["shard"] = r.shard;
  j["shards"] = r.shards;
  j["frames"] = {r.frames.begin, r.frames.end};
  j["points"] = r.points;
  j["file"] = r.file;
  PutPieceHashes(j, r.hashes);
  if (with_identity) j["identity_sha256"] = r.identity_sha256;
  return j;
}

}  // namespace lt
