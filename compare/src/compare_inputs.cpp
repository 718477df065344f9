#include "lidartwin/compare/compare_inputs.h"

namespace lt::compare {

uint32_t CompareInputs::RealFrameOfPair(size_t k) const {
  return k < real_frames.size() ? real_frames[k] : static_cast<uint32_t>(k);
}

uint32_t CompareInputs::SimFrameOfPair(size_t k) const {
  return k < sim_frames.size() ? sim_frames[k] : static_cast<uint32_t>(k);
}

}  // namespace lt::compare
