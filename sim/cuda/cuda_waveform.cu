// The waveform chain on the GPU outside a frame, for tests (against the CPU, sample by sample)
// and the bench (chain throughput): the kernel the simulator runs, on given contributions.
#include <algorithm>
#include <string>

#include "device_buffer.h"
#include "internal/waveform_setup.h"
#include "lidartwin/physics/photon_counting.h"
#include "lidartwin/physics/waveform.h"
#include "lidartwin/sim/cuda_backend.h"
#include "waveform_beam.cuh"
#include "waveform_warp.cuh"

namespace lt {

namespace {

using cuda::DeviceBuffer;

// One warp per two beams, as WaveformWarpKernel runs the simulator's beams: the chain and the
// ranging (the echo count of each beam to echo_counts), the record to records[b N ..] when
// records is not null.
template <uint32_t R>
__global__ void __launch_bounds__(cuda::kPairBlockThreads, cuda::kPairBlocksPerSm)
    WaveformKernel(physics::WaveformChain w, const physics::SignalContribution* contributions,
                   uint32_t n, double sun_w, uint64_t seed, const physics::ComplexF* step,
                   float* records, uint32_t* echo_counts, uint32_t beams) {
  extern __shared__ unsigned char shared[];
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x & 31u;
  const uint32_t first = 2 * (blockIdx.x * (blockDim.x / 32) + warp);
  const bool active = first < beams;
  const cuda::WarpPair p = cuda::WarpPairAt(shared, warp, w.samples, n > 0 ? n : 1);
  for (uint32_t k = lane; k < n; k += 32)
    p.contributions[0][k] = p.contributions[1][k] = contributions[k];
  __syncwarp();
  cuda::BlockWaveformPairs<R>(w, p, {p.contributions[0], n, sun_w, {seed, 0, first, 0, 0}},
                              {p.contributions[1], n, sun_w, {seed, 0, first + 1, 0, 0}}, step,
                              active);
  if (!active) return;  // after the block's last barrier
  for (uint32_t k = 0; k < 2 && first + k < beams; ++k) {
    const auto x = cuda::PairSamples<R>(p, w.samples, k);
    if (records) {
      for (uint32_t s = lane; s < w.samples; s += 32)
        records[uint64_t{first + k} * w.samples + s] = x[s];
    }
    physics::Echo echoes[physics::kMaxEchoesDetected];
    const uint32_t count = cuda::WarpRanging(w, x, p.above[k], 0.0, 1e9, echoes);
    if (lane == 0) echo_counts[first + k] = count;
    __syncwarp();
  }
}

// One warp a beam, beam after beam (BeamBlocks), with the circuit as recursions
// (waveform_beam.cuh), as WaveformBeamWarpKernel runs the simulator's beams; outputs as
// WaveformKernel's.
template <int kThreads>
__global__ void __launch_bounds__(kThreads, cuda::kBeamBlocksPerSm)
    WaveformBeamKernel(physics::WaveformChain w, const physics::SignalContribution* contributions,
                       uint32_t n, double sun_w, uint64_t seed, float* records,
                       uint32_t* echo_counts, uint8_t* sparse, uint32_t beams,
                       uint32_t* chunks_taken) {
  extern __shared__ unsigned char shared[];
  __shared__ uint32_t chunk_slots[2];
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x & 31u;
  const cuda::WarpBeam b = cuda::WarpBeamAt(shared, warp, w.samples, n > 0 ? n : 1);
  for (uint32_t k = lane; k < n; k += 32)
    b.contributions[k] = contributions[k];
  __syncwarp();
  cuda::BeamChunks chunks(chunks_taken, chunk_slots);
  for (uint32_t r = 0; chunks.More(beams); ++r) {
    const uint32_t beam = chunks.Beam();
    const bool active = beam < beams;
    chunks.Take(r);
    float highest;
    const uint8_t passes = cuda::BlockWaveformBeams(
        w, b, {b.contributions, n, sun_w, {seed, 0, beam, 0, 0}}, active, highest);
    chunks.Next(r);
    if (!active) continue;  // to the block's next barrier
    if (lane == 0) sparse[beam] = passes;
    if (records) {
      for (uint32_t s = lane; s < w.samples; s += 32)
        records[uint64_t{beam} * w.samples + s] = b.record[s];
    }
    physics::Echo echoes[physics::kMaxEchoesDetected];
    const uint32_t count = cuda::WarpRanging(w, b.record, b.above, 0.0, 1e9, echoes, highest);
    if (lane == 0) echo_counts[beam] = count;
    __syncwarp();
  }
}

// Runs `launch` `repeats` + 1 times (the first a warm-up), returning the median time of the
// others [ms] in `ms`.
template <typename Launch>
Status TimeLaunches(int repeats, double& ms, Launch launch) {
  cudaEvent_t start, stop;
  LT_CUDA_TRY(cudaEventCreate(&start));
  LT_CUDA_TRY(cudaEventCreate(&stop));
  std::vector<double> times;
  for (int r = 0; r <= std::max(0, repeats); ++r) {
    LT_CUDA_TRY(cudaEventRecord(start));
    launch();
    LT_CUDA_TRY(cudaGetLastError());
    LT_CUDA_TRY(cudaEventRecord(stop));
    LT_CUDA_TRY(cudaEventSynchronize(stop));
    float t = 0;
    LT_CUDA_TRY(cudaEventElapsedTime(&t, start, stop));
    if (r > 0) times.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  ms = 0;
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    ms = times[times.size() / 2];
  }
  return {};
}

// cuda::AllowWarpsSharedMemory, its refusal of records too long for the GPU named.
template <typename Kernel>
Expected<size_t> AllowSharedMemory(Kernel kernel, uint32_t warps, size_t warp_bytes,
                                   uint32_t samples) {
  if (warps == 0) {
    return Error{"CudaWaveforms: records of " + std::to_string(samples) +
                 " samples need more shared memory a block than this GPU has"};
  }
  size_t shared = 0;
  LT_CUDA_TRY(cuda::AllowWarpsSharedMemory(kernel, warps, warp_bytes, shared));
  return shared;
}

template <int kThreads>
Status TimeWaveformBeamKernelOf(const physics::WaveformChain& w,
                                const physics::SignalContribution* contributions, uint32_t n,
                                double sun_w, uint64_t seed, float* records, uint32_t* echo_counts,
                                uint8_t* sparse, uint32_t beams, uint32_t warps, int repeats,
                                double& ms) {
  const uint32_t slots = n > 0 ? n : 1;
  auto shared = AllowSharedMemory(WaveformBeamKernel<kThreads>, warps,
                                  cuda::WarpBeamBytes(w.samples, slots), w.samples);
  if (!shared.ok()) return shared.error();
  const uint32_t blocks = cuda::BeamBlocks(WaveformBeamKernel<kThreads>, beams, warps, *shared);
  DeviceBuffer<uint32_t> taken;  // BeamChunks' counter, cleared before each launch
  if (Status s = taken.Reserve(1); !s.ok()) return s;
  cudaError_t cleared = cudaSuccess;
  Status timed = TimeLaunches(repeats, ms, [&] {
    if (cudaError_t e = cudaMemsetAsync(taken.get(), 0, sizeof(uint32_t)); e != cudaSuccess)
      cleared = e;
    WaveformBeamKernel<kThreads><<<blocks, warps * 32, *shared>>>(
        w, contributions, n, sun_w, seed, records, echo_counts, sparse, beams, taken.get());
  });
  LT_CUDA_TRY(cleared);
  return timed;
}
Status TimeWaveformBeamKernel(const physics::WaveformChain& w,
                              const physics::SignalContribution* contributions, uint32_t n,
                              double sun_w, uint64_t seed, float* records, uint32_t* echo_counts,
                              uint8_t* sparse, uint32_t beams, int repeats, double& ms) {
  const uint32_t warps = cuda::BeamWarpsPerBlock(w.samples, n > 0 ? n : 1);
  if (cuda::UsesSmallBeamBlocks(warps))
    return TimeWaveformBeamKernelOf<cuda::kSmallBeamBlockThreads>(
        w, contributions, n, sun_w, seed, records, echo_counts, sparse, beams, warps, repeats, ms);
  return TimeWaveformBeamKernelOf<cuda::kBeamBlockThreads>(
      w, contributions, n, sun_w, seed, records, echo_counts, sparse, beams, warps, repeats, ms);
}

// Times WaveformKernel<R> as TimeLaunches does.
template <uint32_t R>
Status TimeWaveformKernel(const physics::WaveformChain& w,
                          const physics::SignalContribution* contributions, uint32_t n,
                          double sun_w, uint64_t seed, const physics::ComplexF* step,
                          float* records, uint32_t* echo_counts, uint32_t beams, int repeats,
                          double& ms) {
  const uint32_t slots = n > 0 ? n : 1;
  const uint32_t warps = cuda::WarpsPerBlock(w.samples, slots);
  auto shared =
      AllowSharedMemory(WaveformKernel<R>, warps, cuda::WarpPairBytes(w.samples, slots), w.samples);
  if (!shared.ok()) return shared.error();
  const uint32_t blocks = ((beams + 1) / 2 + warps - 1) / warps;
  return TimeLaunches(repeats, ms, [&] {
    WaveformKernel<R><<<blocks, warps * 32, *shared>>>(w, contributions, n, sun_w, seed, step,
                                                       records, echo_counts, beams);
  });
}

__global__ void PhotonCountKernel(const double* means, uint32_t n, uint64_t seed,
                                  uint32_t* counts) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const physics::RandomKey key{seed, 0, 0, 0, 0};
  counts[i] = physics::PhotonCount(means[i], key, i, physics::PhotonWords(key, i));
}

// One warp a record: the record into a WarpBeam's BlockPadded samples, then WarpRanging; lane
// 0 writes the echo count and the echoes (kMaxEchoesDetected a record).
__global__ void RangeRecordsKernel(physics::WaveformChain w, const float* volts, uint32_t records,
                                   double min_range_m, double max_range_m, bool block_highest,
                                   uint32_t* counts, physics::Echo* echoes) {
  extern __shared__ unsigned char shared[];
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x & 31u;
  const uint32_t r = blockIdx.x * (blockDim.x / 32) + warp;
  if (r >= records) return;  // no block-wide barrier below
  const uint32_t N = w.samples, L = N / 32;
  const cuda::WarpBeam b = cuda::WarpBeamAt(shared, warp, N, 1);
  for (uint32_t s = lane; s < N; s += 32)
    b.record[s] = volts[uint64_t{r} * N + s];
  __syncwarp();
  float highest = INFINITY;
  if (block_highest) {
    highest = -INFINITY;
    for (uint32_t s = lane * L; s < (lane + 1) * L; ++s)
      highest = fmaxf(highest, b.record[s]);
  }
  physics::Echo found[physics::kMaxEchoesDetected];
  const uint32_t count =
      cuda::WarpRanging(w, b.record, b.above, min_range_m, max_range_m, found, highest);
  if (lane == 0) {
    counts[r] = count;
    for (uint32_t e = 0; e < count; ++e)
      echoes[uint64_t{r} * physics::kMaxEchoesDetected + e] = found[e];
  }
}

__global__ void ThermalNormalKernel(const uint32_t* words, uint32_t pairs, float* normals) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < pairs)
    physics::ThermalNormalPair(words[2 * k], words[2 * k + 1], normals[2 * k], normals[2 * k + 1]);
}

}  // namespace

Expected<GpuWaveforms> CudaWaveforms(const SensorProfile& profile,
                                     const std::vector<physics::SignalContribution>& contributions,
                                     double sun_w, uint32_t beams, uint64_t seed, int repeats,
                                     bool keep_volts, bool transforms) {
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
  DeviceBuffer<physics::ComplexF> transfer, twiddles, step;
  DeviceBuffer<float> records, gap_powers;
  DeviceBuffer<physics::InternalBin> internal_bins;
  DeviceBuffer<uint32_t> internal_thresholds;
  DeviceBuffer<uint32_t> echo_counts;
  DeviceBuffer<uint8_t> sparse;
  DeviceBuffer<physics::SignalContribution> c;
  for (Status s : {transfer.Upload(tables.transfer), twiddles.Upload(tables.twiddles),
                   step.Upload(cuda::RegisterValues(n) > 0 ? cuda::StepTwiddles(n)
                                                           : std::vector<physics::ComplexF>{}),
                   c.Upload(contributions), gap_powers.Upload(tables.gap_powers),
                   internal_bins.Upload(tables.internal_bins),
                   internal_thresholds.Upload(tables.internal_thresholds),
                   records.Reserve(keep_volts ? size_t{n} * beams : 0), echo_counts.Reserve(beams),
                   sparse.Reserve(beams)}) {
    if (!s.ok()) return s.error();
  }
  physics::WaveformChain w = MakeWaveformChain(profile, transfer.get(), twiddles.get());
  w.gap_powers = gap_powers.get();
  w.internal = InternalReflectionView(tables, internal_bins.get(), internal_thresholds.get());
  GpuWaveforms out;
  const auto count = static_cast<uint32_t>(contributions.size());
  float* kept = keep_volts ? records.get() : nullptr;
  const Status timed = [&]() -> Status {
    if (w.sections.count > 0 && !transforms)
      return TimeWaveformBeamKernel(w, c.get(), count, sun_w, seed, kept, echo_counts.get(),
                                    sparse.get(), beams, repeats, out.ms);
    switch (cuda::RegisterValues(n)) {
      case 32:
        return TimeWaveformKernel<32>(w, c.get(), count, sun_w, seed, step.get(), kept,
                                      echo_counts.get(), beams, repeats, out.ms);
      case 64:
        return TimeWaveformKernel<64>(w, c.get(), count, sun_w, seed, step.get(), kept,
                                      echo_counts.get(), beams, repeats, out.ms);
      default:
        return TimeWaveformKernel<0>(w, c.get(), count, sun_w, seed, step.get(), kept,
                                     echo_counts.get(), beams, repeats, out.ms);
    }
  }();
  if (!timed.ok()) return timed.error();
  if (w.sections.count > 0 && !transforms) {
    std::vector<uint8_t> flags(beams);
    if (Status s = sparse.Download(flags.data(), beams); !s.ok()) return s.error();
    for (uint8_t f : flags) {
      out.photon_pass_beams += (f & cuda::kSparsePasses) != 0;
      out.warp_walk_beams += (f & cuda::kWarpWalkedBlocks) != 0;
      out.long_walk_beams += (f & cuda::kWarpWalkedLongBlocks) != 0;
    }
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

Expected<std::vector<std::vector<physics::Echo>>> CudaRangeRecords(
    const SensorProfile& profile, const std::vector<float>& volts, uint32_t records,
    double min_range_m, double max_range_m, bool block_highest) {
  if (Status s = CudaAvailable(); !s.ok()) return s.error();
  if (profile.detector.kind != DetectorKind::kWaveform) {
    return Error{"CudaRangeRecords: the profile's detector is not `waveform`"};
  }
  const physics::WaveformChain w = MakeWaveformChain(profile, nullptr, nullptr);
  const uint32_t n = w.samples;
  if (volts.size() != size_t{n} * records) {
    return Error{"CudaRangeRecords: " + std::to_string(volts.size()) + " samples for " +
                 std::to_string(records) + " records of " + std::to_string(n)};
  }
  DeviceBuffer<float> v;
  DeviceBuffer<uint32_t> counts;
  DeviceBuffer<physics::Echo> echoes;
  for (Status s : {v.Upload(volts), counts.Reserve(records),
                   echoes.Reserve(size_t{records} * physics::kMaxEchoesDetected)}) {
    if (!s.ok()) return s.error();
  }
  const uint32_t warps = cuda::BeamWarpsPerBlock(n, 1);
  auto shared = AllowSharedMemory(RangeRecordsKernel, warps, cuda::WarpBeamBytes(n, 1), n);
  if (!shared.ok()) return shared.error();
  if (records) {
    RangeRecordsKernel<<<(records + warps - 1) / warps, warps * 32, *shared>>>(
        w, v.get(), records, min_range_m, max_range_m, block_highest, counts.get(), echoes.get());
  }
  LT_CUDA_TRY(cudaGetLastError());
  LT_CUDA_TRY(cudaDeviceSynchronize());
  std::vector<uint32_t> c(records);
  std::vector<physics::Echo> e(size_t{records} * physics::kMaxEchoesDetected);
  for (Status s : {counts.Download(c.data(), c.size()), echoes.Download(e.data(), e.size())})
    if (!s.ok()) return s.error();
  std::vector<std::vector<physics::Echo>> out(records);
  for (uint32_t r = 0; r < records; ++r)
    out[r].assign(e.begin() + size_t{r} * physics::kMaxEchoesDetected,
                  e.begin() + size_t{r} * physics::kMaxEchoesDetected + c[r]);
  return out;
}

Expected<std::vector<float>> CudaThermalNormals(const std::vector<uint32_t>& words) {
  if (Status s = CudaAvailable(); !s.ok()) return s.error();
  if (words.size() % 2 != 0 || words.size() > (size_t{1} << 26)) {
    return Error{"CudaThermalNormals: an even number of words, at most 2^26"};
  }
  DeviceBuffer<uint32_t> w;
  DeviceBuffer<float> z;
  for (Status s : {w.Upload(words), z.Reserve(words.size())})
    if (!s.ok()) return s.error();
  const auto pairs = static_cast<uint32_t>(words.size() / 2);
  if (pairs) ThermalNormalKernel<<<(pairs + 255) / 256, 256>>>(w.get(), pairs, z.get());
  LT_CUDA_TRY(cudaGetLastError());
  LT_CUDA_TRY(cudaDeviceSynchronize());
  std::vector<float> out(words.size());
  if (Status s = z.Download(out.data(), out.size()); !s.ok()) return s.error();
  return out;
}

}  // namespace lt
