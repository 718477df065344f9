#include "rosbag/rosbag2_sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>

namespace lt::ros {
namespace {

// SQLite's file header (sqlite.org/fileformat.html, sec. 1.3).
constexpr char kSqliteMagic[16] = "SQLite format 3";

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct CloseBlob {
  void operator()(sqlite3_blob* b) const { sqlite3_blob_close(b); }
};
struct Finalize {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Db = std::unique_ptr<sqlite3, CloseDb>;
using Statement = std::unique_ptr<sqlite3_stmt, Finalize>;

// A file URI for sqlite3_open_v2, its reserved characters escaped (sqlite.org/uri.html); the
// path made absolute and normal (SQLite refuses a ".." that climbs past the root).
std::string FileUri(const std::filesystem::path& file, bool immutable) {
  std::string uri = "file:";
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(file), ec);
  for (char c : (ec ? std::filesystem::absolute(file).lexically_normal() : canonical).string()) {
    if (c == '%' || c == '?' || c == '#') {
      const char* hex = "0123456789ABCDEF";
      uri += {'%', hex[(c >> 4) & 15], hex[c & 15]};
    } else {
      uri += c;
    }
  }
  // immutable: read without locks or a journal, so a bag on a read-only medium opens too.
  return uri + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
}

// Every statement's work is bounded (a crafted view or trigger could run forever): SQLite calls
// this every kProgressSteps virtual-machine steps and stops the statement once it returns
// non-zero, after kMaxProgressCalls calls (10^11 steps: hours of real work on a real bag).
constexpr int kProgressSteps = 100000;
constexpr uint64_t kMaxProgressCalls = 1000000;
int Progress(void* calls) {
  return ++*static_cast<uint64_t*>(calls) > kMaxProgressCalls ? 1 : 0;
}

Expected<Db> OpenDatabase(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[16] = {};
  if (!in.read(magic, sizeof magic) || std::memcmp(magic, kSqliteMagic, sizeof magic) != 0)
    return Error{file.string() + ": not a rosbag2 sqlite3 file (no SQLite header)"};
  // A write-ahead log beside the file (rosbag2's resilient preset, a recorder that was killed)
  // holds messages not yet in the file: it is read, which an immutable open would not do.
  std::error_code ec;
  const bool wal = std::filesystem::file_size(file.string() + "-wal", ec) > 0 && !ec;
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(FileUri(file, !wal).c_str(), &raw,
                                 SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK)
    return Error{file.string() +
                 ": cannot open as SQLite: " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)) +
                 (wal ? " (with its write-ahead log " + file.string() +
                            "-wal, which needs its folder writable to be read)"
                      : "")};
  // A bag's schema is data, not code: no triggers or functions run from it.
  sqlite3_db_config(raw, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(raw, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  return db;
}

Expected<Statement> Prepare(sqlite3* db, const std::filesystem::path& file, const char* sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK) {
    Statement s(raw);
    const std::string why = sqlite3_errmsg(db);
    if (why.find("no such table") != std::string::npos ||
        why.find("no such column") != std::string::npos)
      return Error{file.string() + ": not a rosbag2 sqlite3 file (" + why + ")"};
    return Error{file.string() + ": " + why};
  }
  return Statement(raw);
}

std::string Text(sqlite3_stmt* s, int column) {
  const unsigned char* t = sqlite3_column_text(s, column);
  return t ? reinterpret_cast<const char*>(t) : "";
}

class SqliteBag : public RosBag {
 public:
  struct File {
    std::filesystem::path path;
    Db db;
    std::map<int64_t, size_t> topic_of;  // the file's topic id -> index in topics_
  };

  static Expected<std::unique_ptr<RosBag>> Open(const std::filesystem::path& path,
                                                const std::vector<std::filesystem::path>& files) {
    auto bag = std::make_unique<SqliteBag>();
    bag->path_ = path;
    bag->storage_ = "rosbag2-sqlite3";
    for (const auto& f : files) {
      std::error_code ec;
      const auto bytes = std::filesystem::file_size(f, ec);
      if (ec) return Error{f.string() + ": " + ec.message()};
      bag->bytes_total_ += bytes;
      auto db = OpenDatabase(f);
      if (!db.ok()) return db.error();
      File file{f, std::move(*db), {}};
      if (Status s = bag->ReadTopics(file); !s.ok()) return s.error();
      bag->files_.push_back(std::move(file));
    }
    return std::unique_ptr<RosBag>(std::move(bag));
  }

  uint64_t bytes_read() const override { return bytes_read_; }

  Status ForEachMessage(const std::vector<std::string>& names,
                        const BagMessageSink& sink) override {
    uint64_t index = 0;
    bytes_read_ = 0;  // a pass of its own (an earlier one found a RoboSense unit's DIFOP)
    for (File& file : files_) {
      // Only the chosen topics' rows are read (a camera topic's images are never loaded).
      std::string chosen;
      for (const auto& [id, at] : file.topic_of)
        if (names.empty() || std::find(names.begin(), names.end(), topics_[at].name) != names.end())
          chosen += (chosen.empty() ? "" : ",") + std::to_string(id);
      if (chosen.empty()) continue;
      // The rows in time order by their small columns only (the timestamp index serves the
      // order; without it the sort holds these keys, never the messages), and each message's
      // bytes read afterwards into one reused buffer: memory stays at the largest message.
      const std::string sql =
          "SELECT rowid, topic_id, timestamp, typeof(data), length(data) FROM messages "
          "WHERE topic_id IN (" +
          chosen + ") ORDER BY timestamp, rowid";
      auto statement = Prepare(file.db.get(), file.path, sql.c_str());
      if (!statement.ok()) return statement.error();
      sqlite3_stmt* s = statement->get();
      std::unique_ptr<sqlite3_blob, CloseBlob> blob;
      std::map<int64_t, uint64_t> seen;  // per topic id, for "message N of TOPIC"
      int rc = SQLITE_ROW;
      while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const int64_t row = sqlite3_column_int64(s, 0);
        const auto topic = file.topic_of.find(sqlite3_column_int64(s, 1));
        if (topic == file.topic_of.end()) {
          return Error{file.path.string() + ": message row " + std::to_string(row) +
                       " names topic id " + std::to_string(sqlite3_column_int64(s, 1)) +
                       ", which the topics table does not list"};
        }
        const BagTopic& t = topics_[topic->second];
        const uint64_t nth = seen[topic->first]++;
        BagMessage m;
        m.topic = &t;
        m.time_ns = sqlite3_column_int64(s, 2);
        m.index = index++;
        m.where = file.path.string() + ": message " + std::to_string(nth) + " of " + t.name +
                  " (row " + std::to_string(row) + ")";
        const std::string type = Text(s, 3);
        if (type != "blob")
          return Error{m.where + ": its data is " + type + ", not the serialized message's bytes"};
        const int64_t bytes = sqlite3_column_int64(s, 4);
        if (bytes < 0 || static_cast<uint64_t>(bytes) > kMaxMessageBytes)
          return Error{m.where + ": " + std::to_string(bytes) + " bytes, more than the " +
                       std::to_string(kMaxMessageBytes) + " a message may have"};
        bytes_read_ += static_cast<uint64_t>(bytes);
        sqlite3_blob* raw = blob.get();
        const int opened =
            raw ? sqlite3_blob_reopen(raw, row)
                : sqlite3_blob_open(file.db.get(), "main", "messages", "data", row, 0, &raw);
        if (!blob) blob.reset(raw);
        buffer_.resize(static_cast<size_t>(bytes));
        if (opened != SQLITE_OK || sqlite3_blob_bytes(raw) != bytes ||
            sqlite3_blob_read(raw, buffer_.data(), static_cast<int>(bytes), 0) != SQLITE_OK)
          return Error{m.where + ": reading its " + std::to_string(bytes) +
                       " bytes: " + sqlite3_errmsg(file.db.get())};
        m.data = {buffer_.data(), buffer_.size()};
        if (Status st = sink(m); !st.ok()) return st;
      }
      if (rc != SQLITE_DONE)
        return Error{file.path.string() +
                     ": reading the messages: " + sqlite3_errmsg(file.db.get())};
    }
    return {};
  }

 private:
  // rosbag2's two tables must be tables (a view could compute anything, forever).
  Status CheckTables(File& file) {
    auto statement = Prepare(file.db.get(), file.path,
                             "SELECT name, type FROM sqlite_master WHERE name IN "
                             "('topics', 'messages')");
    if (!statement.ok()) return statement.error();
    int tables = 0;
    while (sqlite3_step(statement->get()) == SQLITE_ROW) {
      if (Text(statement->get(), 1) != "table")
        return Error{file.path.string() + ": not a rosbag2 sqlite3 file ('" +
                     Text(statement->get(), 0) + "' is a " + Text(statement->get(), 1) +
                     ", not a table)"};
      ++tables;
    }
    if (tables != 2)
      return Error{file.path.string() +
                   ": not a rosbag2 sqlite3 file (no 'topics' and 'messages' tables)"};
    return {};
  }

  Status ReadTopics(File& file) {
    sqlite3_progress_handler(file.db.get(), kProgressSteps, Progress, &progress_calls_);
    if (Status s = CheckTables(file); !s.ok()) return s;
    // Every message must name a listed topic (one pass; a missing one is an error, not a loss).
    auto orphan = Prepare(file.db.get(), file.path,
                          "SELECT rowid, topic_id FROM messages WHERE topic_id NOT IN "
                          "(SELECT id FROM topics) LIMIT 1");
    if (!orphan.ok()) return orphan.error();
    if (sqlite3_step(orphan->get()) == SQLITE_ROW)
      return Error{file.path.string() + ": message row " +
                   std::to_string(sqlite3_column_int64(orphan->get(), 0)) + " names topic id " +
                   Text(orphan->get(), 1) + ", which the topics table does not list"};
    std::map<int64_t, uint64_t> counts;  // one pass over the messages, not one per topic
    auto count = Prepare(file.db.get(), file.path,
                         "SELECT topic_id, COUNT(*) FROM messages GROUP BY topic_id");
    if (!count.ok()) return count.error();
    while (sqlite3_step(count->get()) == SQLITE_ROW)
      counts[sqlite3_column_int64(count->get(), 0)] =
          static_cast<uint64_t>(sqlite3_column_int64(count->get(), 1));
    auto statement = Prepare(file.db.get(), file.path,
                             "SELECT id, name, type, serialization_format FROM topics ORDER BY id");
    if (!statement.ok()) return statement.error();
    sqlite3_stmt* s = statement->get();
    std::map<std::string, size_t> in_this_file;
    int rc = SQLITE_ROW;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      BagTopic t{Text(s, 1), Text(s, 2), Text(s, 3), counts[sqlite3_column_int64(s, 0)]};
      if (in_this_file.count(t.name))
        return Error{file.path.string() + ": topic " + t.name +
                     " is listed twice in the topics table"};
      in_this_file[t.name] = 0;
      // Some recorders leave the format empty; rosbag2 has only ever written CDR (rmw's).
      if (t.serialization.empty()) t.serialization = "cdr";
      // The same topic in several files of one bag is one topic.
      size_t at = 0;
      while (at < topics_.size() && topics_[at].name != t.name)
        ++at;
      if (at == topics_.size()) {
        topics_.push_back(t);
      } else if (topics_[at].type != t.type) {
        return Error{file.path.string() + ": topic " + t.name + " has type " + t.type +
                     " here and " + topics_[at].type + " in an earlier file of the bag"};
      } else {
        topics_[at].messages += t.messages;
      }
      file.topic_of[sqlite3_column_int64(s, 0)] = at;
    }
    if (rc != SQLITE_DONE)
      return Error{file.path.string() + ": reading the topics: " + sqlite3_errmsg(file.db.get())};
    return {};
  }

  std::vector<File> files_;
  uint64_t bytes_read_ = 0;
  std::vector<uint8_t> buffer_;  // the message in hand
  uint64_t progress_calls_ = 0;
};

}  // namespace

Expected<std::unique_ptr<RosBag>> OpenSqliteBag(const std::filesystem::path& path,
                                                const std::vector<std::filesystem::path>& files) {
  return SqliteBag::Open(path, files);
}

}  // namespace lt::ros
