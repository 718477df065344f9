// What the sensor profile's loader (sensor_profile.cpp) and writer (sensor_profile_writer.cpp)
// share, so that a key's spellings and a table's units are written down once (private to sim/).
#pragma once

#include <string>
#include <vector>

#include "lidartwin/physics/beam_footprint.h"
#include "lidartwin/physics/return_signal.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::profile_keys {

// The words a key takes for an enum, in the order the error message lists them.
template <typename E>
struct Named {
  const char* name;
  E value;
};

inline constexpr Named<physics::EchoRange> kEchoRanges[] = {
    {"peak", physics::EchoRange::kPeak},
    {"leading_edge", physics::EchoRange::kLeadingEdge},
    {"centre", physics::EchoRange::kCentre}};
inline constexpr Named<physics::ReturnMode> kReturnModes[] = {
    {"first", physics::ReturnMode::kFirst},
    {"last", physics::ReturnMode::kLast},
    {"strongest", physics::ReturnMode::kStrongest},
    {"dual", physics::ReturnMode::kDual}};
inline constexpr Named<physics::DivergenceMode> kDivergenceModes[] = {
    {"random_selection", physics::DivergenceMode::kRandomSelection},
    {"average", physics::DivergenceMode::kAverage}};
inline constexpr Named<RayDropTable::Decision> kRayDropDecisions[] = {
    {"sample", RayDropTable::Decision::kSample},
    {"most_likely", RayDropTable::Decision::kMostLikely}};

// The value named `word`, or nullptr.
template <typename E, size_t N>
const E* Find(const Named<E> (&table)[N], const std::string& word) {
  for (const auto& n : table)
    if (word == n.name) return &n.value;
  return nullptr;
}

// The word for `value`.
template <typename E, size_t N>
const char* NameOf(const Named<E> (&table)[N], E value) {
  for (const auto& n : table)
    if (n.value == value) return n.name;
  return table[0].name;
}

// "a, b or c", for error messages.
template <typename E, size_t N>
std::string Choices(const Named<E> (&table)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i)
    out += (i == 0 ? "" : (i + 1 == N ? " or " : ", ")) + std::string(table[i].name);
  return out;
}

// A table scaled by a unit factor (degrees <-> radians, us <-> s).
inline std::vector<double> Scaled(const std::vector<double>& v, double s) {
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = v[i] * s;
  return out;
}

}  // namespace lt::profile_keys
