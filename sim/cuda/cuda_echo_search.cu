// CudaDetectEchoes (cuda_backend.h): the threshold detector's warp search (threshold_warp.cuh)
// on given contributions, for the tests that hold it to physics::DetectEchoes.
#include <string>

#include "device_buffer.h"
#include "internal/beam_limits.h"
#include "lidartwin/sim/cuda_backend.h"
#include "threshold_warp.cuh"

namespace lt {
namespace {

using cuda::DeviceBuffer;

constexpr uint32_t kWarpsPerBlock = 4;

// Beam b's contributions are given[offsets[b] .. offsets[b + 1]); its echoes go to
// echoes[b kMaxEchoesDetected ..], their count and the detected count to counts[2 b ..].
__global__ void DetectGivenKernel(physics::ThresholdDetector d,
                                  const physics::SignalContribution* given, const uint32_t* offsets,
                                  uint32_t beams, double gate_m, physics::Echo* echoes,
                                  uint32_t* counts) {
  __shared__ physics::SignalContribution signal[kWarpsPerBlock][kMaxContributions];
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x & 31u;
  const uint32_t b = blockIdx.x * kWarpsPerBlock + warp;
  if (b >= beams) return;
  const uint32_t n = offsets[b + 1] - offsets[b];
  for (uint32_t k = lane; k < n; k += 32)
    signal[warp][k] = given[offsets[b] + k];
  __syncwarp();
  physics::Echo out[physics::kMaxEchoesDetected];
  uint32_t detected = 0;
  const uint32_t count = cuda::WarpDetectEchoes(d, signal[warp], n, out, &detected, gate_m);
  if (lane != 0) return;
  for (uint32_t e = 0; e < count; ++e)
    echoes[size_t{b} * physics::kMaxEchoesDetected + e] = out[e];
  counts[2 * b] = count;
  counts[2 * b + 1] = detected;
}

}  // namespace

Expected<std::vector<std::vector<physics::Echo>>> CudaDetectEchoes(
    const physics::ThresholdDetector& detector,
    const std::vector<std::vector<physics::SignalContribution>>& beams, double gate_m,
    std::vector<uint32_t>* detected) {
  if (Status s = CudaAvailable(); !s.ok()) return s.error();
  std::vector<physics::SignalContribution> given;
  std::vector<uint32_t> offsets{0};
  for (size_t b = 0; b < beams.size(); ++b) {
    if (beams[b].size() > kMaxContributions) {
      return Error{"CudaDetectEchoes: beam " + std::to_string(b) + " has " +
                   std::to_string(beams[b].size()) + " contributions, at most " +
                   std::to_string(kMaxContributions)};
    }
    given.insert(given.end(), beams[b].begin(), beams[b].end());
    offsets.push_back(static_cast<uint32_t>(given.size()));
  }
  const auto n = static_cast<uint32_t>(beams.size());
  DeviceBuffer<physics::SignalContribution> g;
  DeviceBuffer<uint32_t> o, counts;
  DeviceBuffer<physics::Echo> echoes;
  for (Status s : {g.Upload(given), o.Upload(offsets), counts.Reserve(2 * size_t{n}),
                   echoes.Reserve(size_t{n} * physics::kMaxEchoesDetected)}) {
    if (!s.ok()) return s.error();
  }
  if (n) {
    DetectGivenKernel<<<(n + kWarpsPerBlock - 1) / kWarpsPerBlock, 32 * kWarpsPerBlock>>>(
        detector, g.get(), o.get(), n, gate_m, echoes.get(), counts.get());
  }
  LT_CUDA_TRY(cudaGetLastError());
  LT_CUDA_TRY(cudaDeviceSynchronize());
  std::vector<uint32_t> c(2 * size_t{n});
  std::vector<physics::Echo> e(size_t{n} * physics::kMaxEchoesDetected);
  for (Status s : {counts.Download(c.data(), c.size()), echoes.Download(e.data(), e.size())})
    if (!s.ok()) return s.error();
  std::vector<std::vector<physics::Echo>> out(n);
  if (detected) detected->resize(n);
  for (uint32_t b = 0; b < n; ++b) {
    out[b].assign(e.begin() + size_t{b} * physics::kMaxEchoesDetected,
                  e.begin() + size_t{b} * physics::kMaxEchoesDetected + c[2 * b]);
    if (detected) (*detected)[b] = c[2 * b + 1];
  }
  return out;
}

}  // namespace lt
