// The waveform chain on the GPU outside a frame, for tests (against the CPU, sample by sample)
// and the bench (chain throughput): the kernel the simulator runs, on given contributions.
#include <algorithm>

#include "device_buffer.h"
#include "internal/waveform_setup.h"
#include "lidartwin/physics/photon_counting.h"
#include "lidartwin/physics/waveform.h"
#include "lidartwin/sim/cuda_backend.h"

namespace lt {

namespace {

using cuda::DeviceBuffer;

// One thread per beam, records interleaved as in WaveformEchoKernel.
__global__ void WaveformKernel(physics::WaveformChain w,
                               const physics::SignalContribution* contributions, uint32_t n,
                               double sun_w, uint64_t seed, physics::ComplexF* records,
                               uint32_t beams) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= beams) return;
  physics::SimulateWaveform(w, contributions, n, sun_w, physics::RandomKey{seed, 0, b, 0, 0},
                            physics::StridedSamples{records + b, beams});
}

__global__ void PhotonCountKernel(const double* means, uint32_t n, uint64_t seed,
                                  uint32_t* counts) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const physics::RandomKey key{seed, 0, 0, 0, 0};
  counts[i] = physics::PhotonCount(means[i], key, i, physics::PhotonWords(key, i));
}

}  // namespace

Expected<GpuWaveforms> CudaWaveforms(const SensorProfile& profile,
                                     const std::vector<physics::SignalContribution>& contributions,
                                     double sun_w, uint32_t beams, uint64_t seed, int repeats,
                                     bool keep_volts) {
  if (Status s = CudaAvailable(); !s.ok()) return s.error();
  if (profile.detector.kind != DetectorKind::kWaveform) {
    return Error{"CudaWaveforms: the profile's detector is not `waveform`"};
  }
  const WaveformTables tables = MakeWaveformTables(profile);
  const uint32_t n = profile.detector.waveform.samples;
  DeviceBuffer<physics::ComplexF> transfer, twiddles, records;
  DeviceBuffer<physics::SignalContribution> c;
  for (Status s : {transfer.Upload(tables.transfer), twiddles.Upload(tables.twiddles),
                   c.Upload(contributions), records.Reserve(size_t{n} * beams)}) {
    if (!s.ok()) return s.error();
  }
  const physics::WaveformChain w = MakeWaveformChain(profile, transfer.get(), twiddles.get());
  cudaEvent_t start, stop;
  LT_CUDA_TRY(cudaEventCreate(&start));
  LT_CUDA_TRY(cudaEventCreate(&stop));
  std::vector<double> times;
  constexpr int kBlock = 128;
  for (int r = 0; r <= std::max(0, repeats); ++r) {
    LT_CUDA_TRY(cudaEventRecord(start));
    WaveformKernel<<<(beams + kBlock - 1) / kBlock, kBlock>>>(
        w, c.get(), static_cast<uint32_t>(contributions.size()), sun_w, seed, records.get(), beams);
    LT_CUDA_TRY(cudaGetLastError());
    LT_CUDA_TRY(cudaEventRecord(stop));
    LT_CUDA_TRY(cudaEventSynchronize(stop));
    float ms = 0;
    LT_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
    if (r > 0) times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  GpuWaveforms out;
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    out.ms = times[times.size() / 2];
  }
  if (keep_volts) {
    std::vector<physics::ComplexF> host(size_t{n} * beams);
    if (Status s = records.Download(host.data(), host.size()); !s.ok()) return s.error();
    out.volts.resize(host.size());
    for (uint32_t b = 0; b < beams; ++b)
      for (uint32_t i = 0; i < n; ++i)
        out.volts[size_t{b} * n + i] = host[size_t{i} * beams + b].re;
  }
  return out;
}

Expected<std::vector<uint32_t>> CudaPhotonCounts(const std::vector<double>& means, uint64_t seed) {
  if (Status s = CudaAvailable(); !s.ok()) return s.error();
  if (means.size() > 65536) return Error{"CudaPhotonCounts: at most 65536 samples"};
  DeviceBuffer<double> m;
  DeviceBuffer<uint32_t> counts;
  for (Status s : {m.Upload(means), counts.Reserve(means.size())})
    if (!s.ok()) return s.error();
  const auto n = static_cast<uint32_t>(means.size());
  if (n) PhotonCountKernel<<<(n + 127) / 128, 128>>>(m.get(), n, seed, counts.get());
  LT_CUDA_TRY(cudaGetLastError());
  LT_CUDA_TRY(cudaDeviceSynchronize());
  std::vector<uint32_t> out(n);
  if (Status s = counts.Download(out.data(), n); !s.ok()) return s.error();
  return out;
}

}  // namespace lt
