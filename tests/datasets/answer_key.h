// nebula's answer keys (../shared/real-data/nebula/*/<stamp>.pcd) are the cloud the driver
// published while it decoded the bag message of that stamp (docs/formats/). This runs a bag's
// packets up to that message through one of our decoders and returns the last frame it
// completed before the packets ran out (not the partial frames the end of input flushes).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "lidartwin/base/frame.h"
#include "lidartwin/datasets/frame_sink.h"
#include "lidartwin/datasets/pcap.h"
#include "lidartwin/datasets/ros_bag.h"
#include "rosbag/bag_packets.h"

namespace lt::test {

using PacketDecoder = std::function<Status(const PacketSource&, const FrameSink&)>;

inline Expected<Frame> FrameCompletedIn(const std::filesystem::path& bag_path, int64_t stamp_ns,
                                        const PacketDecoder& decode) {
  auto opened = OpenRosBag(bag_path);
  if (!opened.ok()) return opened.error();
  std::shared_ptr<RosBag> bag = std::move(opened.value());
  auto topic = ros::ChooseLidarTopic(*bag, "");
  if (!topic.ok()) return topic.error();
  const PacketSource all = ros::BagPackets(bag, **topic);
  // A message's packets are stamped before it is; those of later messages after `stamp`.
  const double last_s = static_cast<double>(stamp_ns) * 1e-9;
  const std::string kEnough = "(past the key's message)";
  std::vector<Frame> frames;
  size_t completed = 0;
  PacketSource upto{all.file, [&](const UdpSink& sink, CaptureStats& stats) -> Status {
                      Status s = all.read(
                          [&](const UdpDatagram& d) -> Status {
                            if (d.capture_time_s > last_s) return Error{kEnough};
                            return sink(d);
                          },
                          stats);
                      completed = frames.size();
                      if (!s.ok() && s.message() == kEnough) return {};
                      return s;
                    }};
  Status s = decode(upto, [&](Frame&& f) -> Status {
    frames.push_back(std::move(f));
    return {};
  });
  if (!s.ok()) return s.error();
  if (completed == 0) return Error{"no frame completed up to the key's message"};
  return std::move(frames[completed - 1]);
}

}  // namespace lt::test
