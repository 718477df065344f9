// Whole-number keys of the procedural objects' entries (forests, streets): read and checked
// against the range of the type they are stored in.
#pragma once

#include <cmath>
#include <string>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/config_reader.h"

namespace lt {

inline constexpr double kMaxU32 = 4294967295.0;
// Seeds above 2^53 would not survive YAML's doubles.
inline constexpr double kMaxSeed = 9007199254740992.0;

// A whole number in [lo, hi], or lo with the problem recorded; `fallback` NaN makes the key
// required. Ranges narrower than the type's are the entry's Check's.
inline double WholeNumber(ConfigMap& o, const std::string& key, double fallback, double lo,
                          double hi) {
  const double v = std::isnan(fallback) ? o.Number(key) : o.Number(key, fallback);
  if (!(v >= lo && v <= hi) || v != std::floor(v)) {
    o.Fail(key, "must be a whole number in " + NumberText(lo) + ".." + NumberText(hi) + ", got " +
                    NumberText(v));
    return lo;
  }
  return v;
}

}  // namespace lt
