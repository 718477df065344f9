// What kind of echo a reported point is: the codes of the `return_type` field that Autoware's
// nebula drivers publish in sensor_msgs/PointCloud2 (nebula_common's ReturnType), so that a
// perception stack reading our bags, or comparing our decode with its driver's, sees the
// numbers it knows. A frame's return_type column holds these; it is absent where the source
// does not say (a KITTI .bin, a PCD without the field), and kUnknown where the source carries
// the column but a point's kind cannot be told (an HDL-64E, whose return mode is not in its
// data packets).
#pragma once

#include <cstdint>

#include "lidartwin/physics/hd.h"

namespace lt::physics {

enum class ReturnType : uint8_t {
  kUnknown = 0,
  kLast = 1,
  kFirst = 2,
  kStrongest = 3,
  kFirstWeak = 4,  // the nearer of two returns, and the weaker
  kLastWeak = 5,   // the farther of two returns, and the weaker
  kIdentical = 6,  // the firing's returns were one echo, reported more than once
  kSecond = 7,     // the second in range order
  kSecondStrongest = 8,
  kFirstStrongest = 9,  // the nearer of two returns, and the stronger
  kLastStrongest = 10,  // the farther of two returns, and the stronger
};

inline constexpr uint8_t kReturnTypeCount = 11;

LT_HD constexpr uint8_t Code(ReturnType t) {
  return static_cast<uint8_t>(t);
}

// The type's name as nebula prints it ("LastStrongest"); "" for a code past the list.
constexpr const char* ReturnTypeName(uint8_t code) {
  constexpr const char* kNames[kReturnTypeCount] = {
      "Unknown",   "Last",   "First",           "Strongest",      "FirstWeak",    "LastWeak",
      "Identical", "Second", "SecondStrongest", "FirstStrongest", "LastStrongest"};
  return code < kReturnTypeCount ? kNames[code] : "";
}

// The kinds of two returns of one firing as nearer/farther and stronger/weaker, nebula's
// labels for a Velodyne dual-return pair: `near` and `far` are the two ranges, `near_strength`
// and `far_strength` their intensities; equal intensities make the farther the stronger (as
// nebula's VLP decoders do). Equal ranges are one echo twice: both kIdentical.
LT_HD constexpr void NearFarTypes(double near_m, double far_m, double near_strength,
                                  double far_strength, ReturnType* near_type,
                                  ReturnType* far_type) {
  if (near_m == far_m) {
    *near_type = *far_type = ReturnType::kIdentical;
    return;
  }
  const bool far_stronger = far_strength >= near_strength;
  *near_type = far_stronger ? ReturnType::kFirstWeak : ReturnType::kFirstStrongest;
  *far_type = far_stronger ? ReturnType::kLastStrongest : ReturnType::kLastWeak;
}

}  // namespace lt::physics
