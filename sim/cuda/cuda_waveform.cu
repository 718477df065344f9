// The waveform chain on the GPU outside a frame, for tests (against the CPU, sample by sample)
// and the bench (chain throughput): the kernel the simulator runs, on given contributions.
#include <algorithm>

#include "device_buffer.h"
#include "internal/waveform_setup.h"
#include "lidartwin/physics/photon_counting.h"
#include "lidartwin/physics/waveform.h"
#include "lidartwin/sim/cuda_backend.h"
#include "waveform_warp.cuh"

namespace lt {

namespace {

using cuda::DeviceBuffer;

// One warp per beam, as WaveformWarpKernel runs the simulator's beams: the chain and the
// ranging (the echo count of each beam to echo_counts), the record to records[b N ..] when
// records is not null.
__global__ void WaveformKernel(physics::WaveformChain w,
                               const physics::SignalContribution* contributions, uint32_t n,
                               double sun_w, uint64_t seed, float* records, uint32_t* echo_counts,
                               uint32_t beams) {
  extern __shared__ unsigned char shared[];
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x & 31u;
  const uint32_t b = blockIdx.x * (blockDim.x / 32) + warp;
  if (b >= beams) return;
  const cuda::WarpRecord rec = cuda::WarpRecordAt(shared, warp, w.samples);
  for (uint32_t k = lane; k < n; k += 32)
    rec.contributions[k] = contributions[k];
  __syncwarp();
  cuda::WarpWaveform(w, rec.contributions, n, sun_w, physics::RandomKey{seed, 0, b, 0, 0}, rec.x);
  if (records) {
    for (uint32_t s = lane; s < w.samples; s += 32)
      records[uint64_t{b} * w.samples + s] = rec.x[s].re;
  }
  physics::Echo echoes[physics::kMaxEchoesDetected];
  const uint32_t count = cuda::WarpRanging(w, rec.x, rec.above, 0.0, 1e9, echoes);
  if (lane == 0) echo_counts[b] = count;
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
  if (contributions.size() > kMaxContributions) {
    return Error{"CudaWaveforms: at most " + std::to_string(kMaxContributions) +
                 " contributions a beam"};
  }
  DeviceBuffer<physics::ComplexF> transfer, twiddles;
  DeviceBuffer<float> records;
  DeviceBuffer<uint32_t> echo_counts;
  DeviceBuffer<physics::SignalContribution> c;
  for (Status s :
       {transfer.Upload(tables.transfer), twiddles.Upload(tables.twiddles), c.Upload(contributions),
        records.Reserve(keep_volts ? size_t{n} * beams : 0), echo_counts.Reserve(beams)}) {
    if (!s.ok()) return s.error();
  }
  const uint32_t warps = cuda::WarpsPerBlock(n);
  const size_t shared = warps * cuda::WarpRecordBytes(n);
  LT_CUDA_TRY(cudaFuncSetAttribute(WaveformKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(shared)));
  const physics::WaveformChain w = MakeWaveformChain(profile, transfer.get(), twiddles.get());
  cudaEvent_t start, stop;
  LT_CUDA_TRY(cudaEventCreate(&start));
  LT_CUDA_TRY(cudaEventCreate(&stop));
  std::vector<double> times;
  for (int r = 0; r <= std::max(0, repeats); ++r) {
    LT_CUDA_TRY(cudaEventRecord(start));
    WaveformKernel<<<(beams + warps - 1) / warps, warps * 32, shared>>>(
        w, c.get(), static_cast<uint32_t>(contributions.size()), sun_w, seed,
        keep_volts ? records.get() : nullptr, echo_counts.get(), beams);
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
    out.volts.resize(size_t{n} * beams);
    if (Status s = records.Download(out.volts.data(), out.volts.size()); !s.ok()) return s.error();
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
