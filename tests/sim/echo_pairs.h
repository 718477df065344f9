// Echoes of two frames of the same beams paired by (beam, return index): how backends' frames
// are compared echo for echo.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "lidartwin/sim/frame.h"

namespace lt::test {

struct EchoPairs {
  std::vector<std::pair<size_t, size_t>> pairs;  // (index in a, index in b)
  size_t only_a = 0, only_b = 0;
};

inline EchoPairs PairEchoes(const Frame& a, const Frame& b) {
  std::map<std::pair<uint32_t, uint8_t>, size_t> index;
  for (size_t k = 0; k < b.size(); ++k)
    index[{b.beam_id[k], b.return_index[k]}] = k;
  EchoPairs p;
  for (size_t k = 0; k < a.size(); ++k) {
    auto it = index.find({a.beam_id[k], a.return_index[k]});
    if (it == index.end()) {
      ++p.only_a;
      continue;
    }
    p.pairs.emplace_back(k, it->second);
  }
  p.only_b = b.size() - p.pairs.size();
  return p;
}

}  // namespace lt::test
