// A bag's lidar packets as a packet decoder takes them (PacketSource, ADR 0023), and the choice
// of the topic to read.
#pragma once

#include <memory>
#include <string>

#include "lidartwin/datasets/pcap.h"
#include "lidartwin/datasets/ros_bag.h"
#include "rosbag/packet_messages.h"

namespace lt::ros {

// The UDP port a vendor's driver receives its data packets on (the manuals' defaults; the
// decoders judge a datagram by its port): Velodyne and Hesai 2368, RoboSense MSOP 6699 and
// DIFOP 7788, Ouster 7502.
uint16_t DataPort(PacketVendor vendor);
inline constexpr uint16_t kRobosenseDifopPort = 7788;

// The packets of `topic`'s messages, each a datagram to its vendor's data port with the
// packet's stamp as its capture time and `place` naming the message and packet. For RoboSense
// packets the DIFOP topic (a name with "difop") in `topic`'s namespace, else the bag's only one,
// is read with `topic`, in the bag's order. A
// message that cannot be read (its CDR cut short or lying) is skipped, counted (malformed_messages)
// and named in the stats' warnings; the decoder's own checks then judge the packets. `port`: the
// port the datagrams go to (0: the vendor's data port), for a decoder that takes its port from the
// sensor's metadata.
PacketSource BagPackets(std::shared_ptr<RosBag> bag, const BagTopic& topic, uint16_t port = 0);

// The topic to read lidar data from: `wanted` when given (it must exist), else the one topic
// of a packet type or sensor_msgs/PointCloud2 (ouster-ros's .../imu_packets and ros_rslidar's
// .../rslidar_packets_difop, of lidar packet types, aside); an error lists the candidates when
// there are several and what the bag holds when there are none.
Expected<const BagTopic*> ChooseLidarTopic(const RosBag& bag, const std::string& wanted);

}  // namespace lt::ros
