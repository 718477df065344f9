#include "compared_returns.h"

#include <algorithm>
#include <vector>

namespace lt::jobs {

size_t KeepFirstRevolution(Frame& f, uint32_t columns) {
  if (columns == 0 || f.column.size() != f.size() || f.size() == 0) return 0;
  const auto [lo, hi] = std::minmax_element(f.column.begin(), f.column.end());
  const uint64_t first = *lo, span = uint64_t{*hi} - *lo + 1;
  if (span > columns + columns / 10) return 0;  // not one revolution and a little more
  std::vector<bool> keep(f.size());
  size_t past = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    keep[i] = f.column[i] - first < columns;
    past += !keep[i];
  }
  if (past) KeepPoints(f, keep);
  return past;
}

size_t KeepFirstReturns(Frame& f) {
  if (f.return_index.size() != f.size() ||
      std::none_of(f.return_index.begin(), f.return_index.end(), [](uint8_t r) { return r > 0; }))
    return 0;
  std::vector<bool> keep(f.size());
  size_t left_out = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    keep[i] = f.return_index[i] == 0;
    left_out += !keep[i];
  }
  KeepPoints(f, keep);
  return left_out;
}

}  // namespace lt::jobs
