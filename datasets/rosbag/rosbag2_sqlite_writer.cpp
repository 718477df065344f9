// rosbag2's sqlite3 storage written (bag_writer.h): the tables its "sqlite3" plugin reads
// (rosbag2_storage_default_plugins, schema of Humble: topics and messages, a timestamp
// index), one transaction, to a temporary file renamed into place on Close. rosbag2's
// metadata.yaml is not written: a lone .db3 is what our reader and `ros2 bag reindex` take.
#include <sqlite3.h>

#include "lidartwin/base/atomic_file.h"
#include "rosbag/bag_writer.h"

namespace lt::ros {
namespace {

class Rosbag2SqliteWriter final : public BagWriter {
 public:
  explicit Rosbag2SqliteWriter(AtomicOutput out) : out_(std::move(out)) {}
  ~Rosbag2SqliteWriter() override {
    sqlite3_finalize(insert_);
    sqlite3_close(db_);
  }

  Status Open() {
    if (sqlite3_open_v2(out_.temp_path().c_str(), &db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
      return Failed("cannot create it");
    }
    // No journal: the file is a temporary one until Close renames it.
    if (Status s = Exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                        "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                        " type TEXT NOT NULL, serialization_format TEXT NOT NULL,"
                        " offered_qos_profiles TEXT NOT NULL);"
                        "CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL,"
                        " timestamp INTEGER NOT NULL, data BLOB NOT NULL);"
                        "BEGIN;");
        !s.ok()) {
      return s;
    }
    if (sqlite3_prepare_v2(db_, "INSERT INTO messages(topic_id, timestamp, data) VALUES (?, ?, ?)",
                           -1, &insert_, nullptr) != SQLITE_OK) {
      return Failed("cannot prepare its inserts");
    }
    return {};
  }

  uint16_t AddTopic(const std::string& name, const std::string& type, const std::string&,
                    const std::string& qos) override {
    const auto id = static_cast<uint16_t>(++topics_);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db_, "INSERT INTO topics VALUES (?, ?, ?, 'cdr', ?)", -1, &st, nullptr);
    sqlite3_bind_int(st, 1, id);
    sqlite3_bind_text(st, 2, name.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, type.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, qos.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE && error_.empty()) error_ = sqlite3_errmsg(db_);
    sqlite3_finalize(st);
    return id;
  }

  Status Write(uint16_t topic, int64_t time_ns, std::span<const uint8_t> cdr) override {
    if (!error_.empty()) return Failed(error_);
    sqlite3_reset(insert_);
    sqlite3_bind_int(insert_, 1, topic);
    sqlite3_bind_int64(insert_, 2, time_ns);
    sqlite3_bind_blob64(insert_, 3, cdr.data(), cdr.size(), SQLITE_STATIC);
    if (sqlite3_step(insert_) != SQLITE_DONE) return Failed("cannot write a message");
    return {};
  }

  Status Close() override {
    if (!error_.empty()) return Failed(error_);
    if (Status s = Exec("COMMIT; CREATE INDEX timestamp_idx ON messages (timestamp ASC);");
        !s.ok()) {
      return s;
    }
    sqlite3_finalize(insert_);
    insert_ = nullptr;
    if (sqlite3_close(db_) != SQLITE_OK) return Failed("cannot close it");
    db_ = nullptr;
    return out_.Commit();
  }

 private:
  Status Exec(const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      const std::string what = message ? message : "sqlite3 failed";
      sqlite3_free(message);
      return Failed(what);
    }
    return {};
  }
  Error Failed(const std::string& what) const {
    return Error{out_.target().string() + ": " + what +
                 (db_ ? std::string(" (") + sqlite3_errmsg(db_) + ")" : std::string())};
  }

  AtomicOutput out_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  int topics_ = 0;
  std::string error_;
};

}  // namespace

Expected<std::unique_ptr<BagWriter>> CreateRosbag2SqliteWriter(
    const std::filesystem::path& target) {
  if (Status s = CheckOutputTarget(target); !s.ok()) return s.error();
  auto w = std::make_unique<Rosbag2SqliteWriter>(AtomicOutput(target));
  if (Status s = w->Open(); !s.ok()) return s.error();
  return std::unique_ptr<BagWriter>(std::move(w));
}

}  // namespace lt::ros
