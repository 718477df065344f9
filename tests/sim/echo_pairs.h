// Echoes of two frames of the same beams paired echo for echo, as backends' frames are compared:
// within each beam, the pairs of least range difference first. Pairing by return index instead
// would shift a beam's pairs when an echo at the threshold shows on one side only (a noise
// echo ahead of the target on one backend pairs the other's target with it).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "lidartwin/base/frame.h"

namespace lt::test {

struct EchoPairs {
  std::vector<std::pair<size_t, size_t>> pairs;  // (index in a, index in b)
  size_t only_a = 0, only_b = 0;
};

inline EchoPairs PairEchoes(const Frame& a, const Frame& b) {
  std::map<uint32_t, std::pair<std::vector<size_t>, std::vector<size_t>>> beams;
  for (size_t k = 0; k < a.size(); ++k)
    beams[a.beam_id[k]].first.push_back(k);
  for (size_t k = 0; k < b.size(); ++k)
    beams[b.beam_id[k]].second.push_back(k);
  EchoPairs p;
  for (const auto& [beam, echoes] : beams) {
    const auto& [in_a, in_b] = echoes;
    std::vector<std::tuple<double, size_t, size_t>> candidates;
    for (size_t i : in_a)
      for (size_t j : in_b)
        candidates.emplace_back(std::abs(double(a.range_m[i]) - b.range_m[j]), i, j);
    std::sort(candidates.begin(), candidates.end());
    std::vector<size_t> used_a, used_b;
    for (const auto& [dr, i, j] : candidates) {
      if (std::find(used_a.begin(), used_a.end(), i) != used_a.end() ||
          std::find(used_b.begin(), used_b.end(), j) != used_b.end())
        continue;
      used_a.push_back(i);
      used_b.push_back(j);
      p.pairs.emplace_back(i, j);
    }
  }
  std::sort(p.pairs.begin(), p.pairs.end());
  p.only_a = a.size() - p.pairs.size();
  p.only_b = b.size() - p.pairs.size();
  return p;
}

}  // namespace lt::test
