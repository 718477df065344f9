// The storage a bag is written in, by its extension (bag_writer.h); MCAP's through McapWriter.
#include "rosbag/bag_writer.h"

#include <map>

#include "rosbag/mcap_writer.h"

namespace lt::ros {
namespace {

// McapWriter keeps schemas and channels apart: one schema a message type, one channel a topic.
class McapBagWriter final : public BagWriter {
 public:
  explicit McapBagWriter(std::unique_ptr<McapWriter> mcap) : mcap_(std::move(mcap)) {}
  uint16_t AddTopic(const std::string& name, const std::string& type, const std::string& schema,
                    const std::string& qos) override {
    auto known = schemas_.find(type);
    if (known == schemas_.end())
      known = schemas_.emplace(type, mcap_->AddSchema(type, schema)).first;
    return mcap_->AddChannel(known->second, name, qos);
  }
  Status Write(uint16_t topic, int64_t time_ns, std::span<const uint8_t> cdr) override {
    return mcap_->Write(topic, time_ns, cdr);
  }
  Status Close() override { return mcap_->Close(); }

 private:
  std::unique_ptr<McapWriter> mcap_;
  std::map<std::string, uint16_t> schemas_;
};

}  // namespace

Expected<std::unique_ptr<BagWriter>> CreateBagWriter(const std::filesystem::path& target) {
  const std::string ext = target.extension().string();
  if (ext == ".db3") return CreateRosbag2SqliteWriter(target);
  if (ext != ".mcap") {
    return Error{target.string() + ": a ROS 2 bag is written as .mcap or .db3, not '" + ext + "'"};
  }
  auto mcap = McapWriter::Create(target);
  if (!mcap.ok()) return mcap.error();
  return std::unique_ptr<BagWriter>(std::make_unique<McapBagWriter>(std::move(mcap.value())));
}

}  // namespace lt::ros
