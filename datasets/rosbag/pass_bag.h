// What MCAP and ROS 1 bags share: they are read by passes over their files, one when opened to
// count each topic's messages and one per ForEachMessage; their channels (connections) name a
// topic and its type, and each message goes to the caller or is counted.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "lidartwin/base/message_text.h"
#include "lidartwin/datasets/ros_bag.h"

namespace lt::ros {

class PassBag : public RosBag {
 public:
  uint64_t bytes_read() const override { return bytes_read_; }
  Status ForEachMessage(const std::vector<std::string>& names,
                        const BagMessageSink& sink) override {
    return Pass(&sink, names);
  }

 protected:
  // One pass over the file: messages to `sink`, or counted into topics_ when it is null.
  virtual Status Pass(const BagMessageSink* sink, const std::vector<std::string>& names) = 0;

  // The index in topics_ of topic `name`, added on first sight; a second channel that gives
  // it another type is an error.
  Expected<size_t> TopicOf(const std::string& name, const std::string& type,
                           const std::string& serialization, const std::string& where) {
    const auto [known, added] = topic_index_.emplace(name, topics_.size());
    if (added) {
      topics_.push_back({name, type, serialization, 0, ""});
    } else if (topics_[known->second].type != type) {
      return Error{where + ": topic " + ShortenedForMessage(name) + " has channels of types " +
                   ShortenedForMessage(topics_[known->second].type) + " and " +
                   ShortenedForMessage(type)};
    }
    return known->second;
  }

  // Message `nth` of topic `topic`: counted when there is no sink, else handed to it when its
  // topic is chosen.
  Status Deliver(size_t topic, uint64_t nth, int64_t time_ns, std::span<const uint8_t> data,
                 const std::string& where, const BagMessageSink* sink,
                 const std::vector<std::string>& names, uint64_t& index) {
    BagTopic& t = topics_[topic];
    if (!sink) {
      ++t.messages;
      return {};
    }
    if (!names.empty() && std::find(names.begin(), names.end(), t.name) == names.end()) return {};
    if (data.size() > kMaxMessageBytes)
      return Error{where + ": a message of " + std::to_string(data.size()) + " bytes"};
    BagMessage m;
    m.topic = &t;
    m.time_ns = time_ns;
    m.index = index++;
    m.data = data;
    m.where = where + ": message " + std::to_string(nth) + " of " + t.name;
    return (*sink)(m);
  }

  uint64_t bytes_read_ = 0;

 private:
  std::map<std::string, size_t> topic_index_;
};

}  // namespace lt::ros
