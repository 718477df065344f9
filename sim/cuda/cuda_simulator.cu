// CUDA backend: the shared beam pipeline (beam_pipeline.h) in one thread per beam, closest
// hits on the GPU-built BVHs in float, refined in double on the hit triangle's plane exactly
// as the CPU backend refines Embree's hits (ADR 0002), so both report the same ranges.
// The kernels are in trace_kernels.cuh, threshold_kernels.cuh and waveform_kernels.cuh; here
// the scene's upload, the frame's stages and their launches.
#include <thrust/iterator/transform_output_iterator.h>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "device_fog_table.h"
#include "internal/beam_pipeline.h"
#include "internal/frame_columns.h"
#include "internal/frame_setup.h"
#include "internal/gpu_memory_plan.h"
#include "internal/instance_tree.h"
#include "internal/spray_setup.h"
#include "internal/two_level_hit.h"
#include "internal/waveform_setup.h"
#include "internal/weather_setup.h"
#include "lbvh.h"
#include "lidartwin/physics/ray_triangle.h"
#include "lidartwin/sim/cuda_backend.h"
#include "lidartwin/sim/weather_check.h"
#include "threshold_kernels.cuh"
#include "trace_kernels.cuh"
#include "waveform_kernels.cuh"

namespace lt {

namespace {

using cuda::BeamEchoKernel;
using cuda::BeamWorkKernel;
using cuda::BvhChunk;
using cuda::DeviceBuffer;
using cuda::GpuClosestHit;
using cuda::LaunchWaveformWarps;
using cuda::SimulateFrameKernel;
using cuda::SubRaySignalKernel;
using cuda::TraceRasterKernel;
using physics::Vec3;

// Float vertices (9 per triangle) and double planes of a mesh's triangles, in its frame.
void AppendTriangles(const TriangleMesh& mesh, std::vector<float>& soup,
                     std::vector<TrianglePlane>& planes) {
  const auto& vertices = mesh.vertices;
  for (const auto& t : mesh.triangles) {
    const auto& a = vertices[t[0]];
    const auto& b = vertices[t[1]];
    const auto& c = vertices[t[2]];
    for (const auto* v : {&a, &b, &c}) {
      for (int k = 0; k < 3; ++k)
        soup.push_back(static_cast<float>((*v)[k]));
    }
    const Vec3<double> va{a[0], a[1], a[2]};
    const Vec3<double> n = physics::Normalized(
        physics::Cross(Vec3<double>{b[0], b[1], b[2]} - va, Vec3<double>{c[0], c[1], c[2]} - va));
    planes.push_back({{a[0], a[1], a[2]}, {n.x, n.y, n.z}});
  }
}

struct IsValid {
  __device__ bool operator()(const BeamRecord& r) const { return r.valid != 0; }
};

// The select writes the valid records straight into their compact form.
struct ToCompact {
  __device__ CompactRecord operator()(const BeamRecord& r) const { return Compact(r); }
};
inline auto CompactOutput(CompactRecord* out) {
  return thrust::make_transform_output_iterator(out, ToCompact());
}

// The compacted returns as the frame's columns (frame_columns.h), laid out for their count,
// which only the device knows when this runs.
__global__ void FrameColumnsKernel(const CompactRecord* returns, const uint32_t* count,
                                   bool with_pulse_width, ColumnClock clock, unsigned char* out) {
  const uint32_t n = *count;
  const PackedColumns p = PackColumns(n, with_pulse_width);
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    PutFrameColumns(returns[i], i, p, with_pulse_width, clock, out);
}

}  // namespace

namespace {

// "12.4" from CUDA's 12040.
std::string CudaVersionText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// Why the GPUs may be hidden: CUDA_VISIBLE_DEVICES, where it is set.
std::string VisibleDevicesNote() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return visible ? std::string(" (CUDA_VISIBLE_DEVICES='") + visible + "' may hide them)" : "";
}

}  // namespace

Status CudaAvailable() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  // The runtime answers "driver version is insufficient" when there is no driver at all: the
  // driver's version (0 when no libcuda is installed) tells the two apart.
  int driver = 0;
  if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess &&
      driver == 0)
    return Error{"no GPU found: this machine has no NVIDIA driver; the cpu backend needs none"};
  if (e == cudaErrorInsufficientDriver)
    return Error{"the NVIDIA driver (CUDA " + CudaVersionText(driver) +
                 ") is older than the CUDA runtime this build uses (" +
                 CudaVersionText(CUDART_VERSION) + "): update the driver, or use the cpu backend"};
  if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0))
    return Error{"no GPU found: the NVIDIA driver sees no CUDA device" + VisibleDevicesNote() +
                 "; the cpu backend needs none"};
  if (e != cudaSuccess)
    return Error{std::string("no usable GPU: CUDA: ") + cudaGetErrorString(e) + " (" +
                 cudaGetErrorName(e) + ")"};
  return {};
}

void CudaStartContext() {
  (void)cudaFree(nullptr);  // frees nothing; as any first runtime call, creates the context
}

std::string CudaDeviceName() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "unknown";
  return std::string(p.name) + " (" + std::to_string(p.totalGlobalMem >> 20) + " MiB, " +
         std::to_string(p.multiProcessorCount) + " SMs)";
}

uint64_t CudaMemoryInUse() {
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return 0;
  return total_bytes - free_bytes;
}

struct CudaSimulator::Impl {
  const Scene* scene = nullptr;
  const SensorProfile* profile = nullptr;
  Trajectory trajectory;  // a copy: small, and callers pass temporaries
  SimulationOptions options;
  uint32_t beams = 0;
  GpuMemoryPlan plan;
  // The still geometry (objects not placed): one soup in world coordinates.
  DeviceBuffer<float> triangles;
  DeviceBuffer<TrianglePlane> planes;
  DeviceBuffer<uint32_t> tri_object;
  DeviceBuffer<ObjectInfo> objects;
  // The signal chain, weather included, made once with the objects and the contribution
  // slots it sizes: a scene changed after Create cannot outgrow them.
  SignalChain signal;
  cuda::DeviceFogTable fog_table;  // the threshold detector's table of the fog's slabs
  DeviceBuffer<double> tables[3];
  DeviceBuffer<physics::Vec3<double>> beam_directions;  // FrameContext::beam_directions, or none
  DeviceBuffer<float> kernel_cdf, kernel_weight;        // a table footprint's sampling tables
  DeviceBuffer<RasterPixel> raster;                     // raster gathering: the frame's raster
  // Threshold detector: each sub-ray's contribution slots and counts, for one batch.
  DeviceBuffer<physics::SignalContribution> contributions;
  DeviceBuffer<uint8_t> contribution_counts;
  DeviceBuffer<SubRayClear> sub_ray_clear;  // in fog: FrameContext::sub_ray_clear
  // Road spray: the objects that throw it up, the frame's plumes and clusters made on the host
  // (FrameSpray) and their copies here, which FrameContext::spray points at (PrepareSpray).
  std::vector<SpraySource> spray_sources;
  std::vector<SprayPlume> spray_plumes;
  std::vector<SprayCluster> spray_clusters;
  DeviceBuffer<SprayPlume> spray_plumes_gpu;
  DeviceBuffer<SprayCluster> spray_clusters_gpu;
  SprayView spray;  // the frame's, with the device pointers
  // Waveform detector: the circuit's spectrum, the twiddles and a batch's records.
  WaveformTables waveform_tables;  // host copies
  DeviceBuffer<physics::ComplexF> transfer, twiddles;
  DeviceBuffer<float> gap_powers;                    // WaveformTables::gap_powers
  DeviceBuffer<physics::InternalBin> internal_bins;  // WaveformTables::internal_bins
  DeviceBuffer<uint32_t> internal_thresholds;        // and internal_thresholds
  DeviceBuffer<physics::ComplexF> step_twiddles;     // the register transform's (register_fft.cuh)
  // The beams whose records a frame keeps (sorted) and their records, one frame's.
  DeviceBuffer<uint32_t> kept_beams;
  DeviceBuffer<float> kept_volts;
  DeviceBuffer<uint32_t> beam_chunks;  // the beam kernel's chunk counter (cuda::BeamChunks)
  // Beams of the batch with a signal, sorted by their detection work (BeamWorkKernel).
  DeviceBuffer<uint32_t> work_keys, work_keys_sorted, work_ids, active, active_count;
  DeviceBuffer<unsigned char> active_temp;
  size_t active_temp_bytes = 0;
  uint32_t echoes_per_beam = 1;
  DeviceBuffer<double> traj_time;
  DeviceBuffer<physics::Pose<double>> traj_pose;
  std::vector<std::unique_ptr<cuda::DeviceBvh>> bvhs;
  DeviceBuffer<BvhChunk> chunks;
  // The placed objects (docs/adr/0030): each model's tree and planes built once in its frame,
  // the instances (object index, model index, model box) and the top level over them, rebuilt
  // on the host and copied up whenever they move.
  struct PlacedModel {
    std::unique_ptr<cuda::DeviceBvh> bvh;
    DeviceBuffer<float> triangles;
    DeviceBuffer<TrianglePlane> planes;
    physics::BvhBox box;
  };
  std::vector<PlacedModel> placed_models;
  DeviceBuffer<ModelTree> model_trees;
  std::vector<uint32_t> instance_object, instance_model;
  // Every slice's instances and the frame's top level (GpuClosestHit), host copies and device
  // ones.
  // One frame's placements: every slice's records, the top level's nodes and leaves and the
  // slices' first beams, written in pinned memory for the frame's one upload.
  struct Placements {
    unsigned char* pinned = nullptr;
    size_t capacity = 0, bytes = 0;
    size_t nodes_at = 0, leaves_at = 0, begins_at = 0;
    uint32_t top_leaves = 0, slices = 0;
    int64_t frame = -1;  // the frame they place (-1: none, or Create's)
    ~Placements() {
      if (pinned) cudaFreeHost(pinned);
    }
    // The buffer grown to hold `size` bytes, its first `kept` kept.
    Status Grow(size_t size, size_t kept);
  };
  // The last frame's (uploaded) and a spare: while a frame's kernels run, the spare is filled
  // for the frame expected next (PrepareNext), which then only uploads it.
  Placements placements[2];
  int uploaded = 0;           // which of the two went up last
  uint32_t slice_count = 0;   // the uploaded placements' slices
  int64_t last_frame = -1;    // the frame asked for before this one
  uint32_t frame_stride = 1;  // frames between a simulator's calls, for PrepareNext
  // The frame asked for after this call (ExpectFollowing): a frame, or kGuess (the stride's),
  // or kNoneFollows (the caller knows none: run nothing ahead).
  static constexpr int64_t kGuess = -1, kNoneFollows = -2;
  int64_t expected = kGuess;
  int64_t prepare = -1;  // the frame whose placements LaunchBatch makes (PrepareNext), or -1
  DeviceBuffer<unsigned char> placed;  // on the device: the views below point into it
  const InstanceRecord* placed_instances = nullptr;
  const uint32_t* placed_slice_begin = nullptr;
  physics::WideBvhView top{nullptr, nullptr, 0};
  DeviceBuffer<BeamRecord> records;     // one batch
  DeviceBuffer<CompactRecord> returns;  // its valid records, compacted in beam order
  DeviceBuffer<uint32_t> return_count;
  DeviceBuffer<unsigned char> columns;  // and as the frame's columns (frame_columns.h)
  DeviceBuffer<unsigned char> select_temp;
  size_t select_temp_bytes = 0;
  // A batch on its way back: its events, and the pinned memory its count and columns are
  // copied into (pinned: the copy back runs at full PCIe speed). Two, so that the frame expected
  // next can run on the GPU while this one's columns are appended on the host (RunAhead).
  struct Batch {
    unsigned char* host_columns = nullptr;
    uint32_t* host_count = nullptr;
    uint32_t guess = 0;  // the returns copied with the count
    cudaEvent_t start = nullptr, kernel_done = nullptr, copied = nullptr, signal_done = nullptr;
    ~Batch() { Free(); }
    bool ready() const { return host_count != nullptr; }  // Create succeeded
    // All or nothing: on an error nothing is left made.
    Status Create(uint64_t column_bytes);
    void Free();
  };
  Batch batches[2];
  // The batch of the frame simulated when asked for; a frame run ahead is in the other one.
  int batch_at = 0;
  int64_t ahead = -1;             // the frame batches[1 - batch_at] runs ahead, or -1
  RunAheadCounts run_ahead;       // frames launched ahead, used and dropped
  uint64_t column_bytes = 0;      // a batch's packed columns at most
  uint32_t returns_expected = 0;  // the last batch's returns (WaitForBatch)
  double kernel_ms = 0, total_ms = 0;
  double signal_ms = 0;  // threshold detector: raster and sub-ray stage (stages 1-3)
  ~Impl() {
    // Copies queued by a frame run ahead, or by one whose launch failed part way, may still
    // target the batches' pinned memory: everything queued finishes before it goes.
    cudaDeviceSynchronize();
  }

  GpuClosestHit Closest() const {
    return {chunks.get(),       static_cast<uint32_t>(bvhs.size()),
            planes.get(),       tri_object.get(),
            placed_slice_begin, slice_count,
            placed_instances,   static_cast<uint32_t>(instance_object.size()),
            model_trees.get(),  top,
            placed_instances};
  }
  // The placed objects' models, built once (Create).
  Status BuildModels();
  // Traces the frame's angular raster into `raster` and points the context at it.
  Status TraceRaster(FrameContext& context, const physics::Pose<double>& pose);
  // Writes where the placed objects are in each motion slice into p (host work only): their
  // transforms per slice and one top level over their swept boxes.
  Status ComputePlacements(const std::vector<BeamSlice>& slices, Placements& p) const;
  // Queues p's upload before the frame's kernels (no wait) and points the traversal at it.
  Status UploadPlacements(const Placements& p);
  // The frame's placements up: the spare's where PrepareNext made them for this frame,
  // otherwise made now.
  Status PlaceFrame(uint32_t frame, double frame_start_s);
  // While the GPU runs a frame: the spare filled for `frame`, the one expected after it. Errors
  // are left to that frame's own PlaceFrame.
  void PrepareNext(uint64_t frame);
  // The frame's spray clusters made and copied to the device (synchronously: the kernels of
  // the frame before have finished by then), for Context.
  Status PrepareSpray(uint32_t frame_index);
  // The frame's context on the device: its pattern, trajectory, detector and chain, time.
  FrameContext Context(uint32_t frame_index) const;
  // Simulates beams [begin, end) in batches and appends their returns to f.
  Status SimulateBeams(const FrameContext& context, uint32_t begin, uint32_t end, Frame& f);
  // Queues beams [begin, begin + n)'s kernels and the copy back of their returns as packed
  // columns into `batch` (no wait), then calls PrepareNext where `prepare` asks for it.
  Status LaunchBatch(const FrameContext& context, uint32_t begin, uint32_t n, Batch& batch);
  // Waits for the batch's returns on the host, adds its kernel times; returns their count.
  Expected<uint32_t> WaitForBatch(Batch& batch);
  // Appends a waited batch's count returns to f.
  void AppendBatch(const Batch& batch, uint32_t count, double frame_start_s, Frame& f);
  // Whether a frame's beams can run ahead of the call that asks for them: one batch, no raster
  // pass and no records kept (each of those waits on the host within the frame).
  bool CanRunAhead() const;
  // Launches `frame` on the spare batch, to be waited for by the call that asks for it. Where it
  // cannot be placed nothing runs: that call then meets the error itself.
  void RunAhead(uint32_t frame);
  // Waits for a frame run ahead that was not asked for, and forgets it.
  Status DropAhead();
};

void CudaSimulator::Impl::Batch::Free() {
  if (host_columns) cudaFreeHost(host_columns);
  if (host_count) cudaFreeHost(host_count);
  for (cudaEvent_t e : {start, kernel_done, copied, signal_done})
    if (e) cudaEventDestroy(e);
  // Field by field: assigning a fresh Batch would run its destructor, and so Free, again.
  host_columns = nullptr;
  host_count = nullptr;
  guess = 0;
  start = kernel_done = copied = signal_done = nullptr;
}

Status CudaSimulator::Impl::Batch::Create(uint64_t column_bytes) {
  auto made = [&]() -> Status {
    for (cudaEvent_t* e : {&start, &kernel_done, &copied, &signal_done})
      LT_CUDA_TRY(cudaEventCreate(e));
    LT_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&host_columns),
                               std::max<uint64_t>(1, column_bytes)));
    LT_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&host_count), sizeof(uint32_t)));
    return {};
  }();
  if (!made.ok()) Free();
  return made;
}

Status CudaSimulator::Impl::BuildModels() {
  std::map<const TriangleMesh*, uint32_t> index;
  for (uint32_t o = 0; o < scene->objects.size(); ++o) {
    const SceneObject& obj = scene->objects[o];
    if (!obj.placed()) continue;
    const auto [it, added] =
        index.emplace(&obj.stored(), static_cast<uint32_t>(placed_models.size()));
    if (added) {
      PlacedModel model;
      std::vector<float> soup;
      std::vector<TrianglePlane> model_planes;
      AppendTriangles(obj.stored(), soup, model_planes);
      if (Status s = cuda::CheckBvhCoordinates(soup); !s.ok()) {
        return Error{"object '" + obj.name + "': its model's " + s.message()};
      }
      model.box = ModelBox(obj.stored().vertices);
      model.bvh = std::make_unique<cuda::DeviceBvh>();
      for (Status s : {model.triangles.Upload(soup), model.planes.Upload(model_planes)}) {
        if (!s.ok()) return s;
      }
      if (Status s =
              model.bvh->Build(model.triangles.get(), static_cast<uint32_t>(model_planes.size()),
                               nullptr, cuda::BvhBuilder::kPloc);
          !s.ok()) {
        return s;
      }
      LT_CUDA_TRY(cudaDeviceSynchronize());
      model.bvh->ReleaseBuildMemory();
      placed_models.push_back(std::move(model));
    }
    instance_object.push_back(o);
    instance_model.push_back(it->second);
  }
  std::vector<ModelTree> trees;
  for (const PlacedModel& model : placed_models)
    trees.push_back({model.bvh->View(), model.planes.get()});
  if (Status s = model_trees.Upload(trees); !s.ok()) return s;
  // A still scene's placements, once.
  if (instance_object.empty()) return {};
  if (Status s = ComputePlacements({BeamSlice{0, beams, 0.0}}, placements[0]); !s.ok()) return s;
  uploaded = 0;
  return UploadPlacements(placements[0]);
}

// An error naming the object when its box at time t leaves the GPU trees' coordinate range.
Status CheckPlacedBox(const physics::BvhBox& box, const std::string& name, double t) {
  for (int a = 0; a < 3; ++a) {
    if (!(std::fabs(box.lo[a]) <= physics::kMaxBvhCoordinate &&
          std::fabs(box.hi[a]) <= physics::kMaxBvhCoordinate)) {
      return Error{"object '" + name + "' at t = " + std::to_string(t) +
                   " s lies beyond the GPU BVH's coordinates (+-" +
                   std::to_string(static_cast<double>(physics::kMaxBvhCoordinate)) + " m)"};
    }
  }
  return {};
}

Status CudaSimulator::Impl::Placements::Grow(size_t size, size_t kept) {
  if (size <= capacity) return {};
  unsigned char* grown = nullptr;
  LT_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&grown), size));
  if (kept) std::memcpy(grown, pinned, kept);
  if (pinned) cudaFreeHost(pinned);
  pinned = grown;
  capacity = size;
  return {};
}

Status CudaSimulator::Impl::ComputePlacements(const std::vector<BeamSlice>& slices,
                                              Placements& p) const {
  const size_t n = instance_object.size();
  p.frame = -1;
  // The records go straight into the pinned buffer (a street frame's 1,120 records are 170
  // kB, which a host vector, a packed copy and the pinned copy had written three times).
  const size_t records_bytes = slices.size() * n * sizeof(InstanceRecord);
  if (Status s = p.Grow(records_bytes, 0); !s.ok()) return s;
  auto* records = reinterpret_cast<InstanceRecord*>(p.pinned);
  // Each instance's box through the slices: the frame's one top level finds every instance a
  // ray may meet in any slice, and the slice's transform decides.
  constexpr float kInf = __builtin_huge_valf();
  std::vector<physics::BvhBox> swept(n, {{kInf, kInf, kInf}, {-kInf, -kInf, -kInf}});
  std::vector<uint32_t> begins;
  for (size_t slice = 0; slice < slices.size(); ++slice) {
    const double t = slices[slice].time_s;
    for (size_t k = 0; k < n; ++k) {
      const SceneObject& obj = scene->objects[instance_object[k]];
      const physics::RigidTransform x = StoredToWorld(obj, t);
      records[slice * n + k] = {physics::FloatInverse(x), x, instance_model[k], instance_object[k]};
      // A box moved along a line sweeps the box of its two ends: an instance that does not
      // turn needs its boxes at the first and last slices only.
      const bool ends = slice == 0 || slice + 1 == slices.size();
      if (!ends && obj.motion.yaw_rate_rad_s == 0) continue;
      const physics::BvhBox b = PlacedBox(placed_models[instance_model[k]].box, x);
      if (Status s = CheckPlacedBox(b, obj.name, t); !s.ok()) return s;
      for (int a = 0; a < 3; ++a) {
        swept[k].lo[a] = std::min(swept[k].lo[a], b.lo[a]);
        swept[k].hi[a] = std::max(swept[k].hi[a], b.hi[a]);
      }
    }
    begins.push_back(slices[slice].begin);
  }
  const physics::WideBvhTree tree = BuildBoxTree(swept);
  if (tree.nodes.empty()) return Error{"the placed objects' top-level tree is too deep"};
  // The rest after the records, each part 16-byte aligned.
  const void* parts[3] = {tree.nodes.data(), tree.triangles.data(), begins.data()};
  const size_t part_bytes[3] = {tree.nodes.size() * sizeof(physics::WideNode),
                                tree.triangles.size() * sizeof(physics::WideTriangle),
                                begins.size() * sizeof(uint32_t)};
  size_t at[3], end = records_bytes;
  for (int k = 0; k < 3; ++k) {
    at[k] = (end + 15) / 16 * 16;
    end = at[k] + part_bytes[k];
  }
  if (Status s = p.Grow(end, records_bytes); !s.ok()) return s;
  for (int k = 0; k < 3; ++k) {
    if (part_bytes[k]) std::memcpy(p.pinned + at[k], parts[k], part_bytes[k]);
  }
  p.bytes = end;
  p.nodes_at = at[0];
  p.leaves_at = at[1];
  p.begins_at = at[2];
  p.top_leaves = static_cast<uint32_t>(tree.triangles.size());
  p.slices = static_cast<uint32_t>(slices.size());
  return {};
}

Status CudaSimulator::Impl::UploadPlacements(const Placements& p) {
  // One copy from pinned memory, queued before the frame's kernels (four copies from pageable
  // memory, each waiting, had cost a street frame about 0.1 ms).
  if (Status s = placed.Reserve(p.bytes); !s.ok()) return s;
  LT_CUDA_TRY(cudaMemcpyAsync(placed.get(), p.pinned, p.bytes, cudaMemcpyHostToDevice));
  unsigned char* d = placed.get();
  placed_instances = reinterpret_cast<const InstanceRecord*>(d);
  top = {reinterpret_cast<const physics::WideNode*>(d + p.nodes_at),
         reinterpret_cast<const physics::WideTriangle*>(d + p.leaves_at), p.top_leaves};
  placed_slice_begin = reinterpret_cast<const uint32_t*>(d + p.begins_at);
  slice_count = p.slices;
  return {};
}

Status CudaSimulator::Impl::PlaceFrame(uint32_t frame, double frame_start_s) {
  // Every earlier frame was copied back, so neither buffer's upload is still running.
  const int spare = 1 - uploaded;
  if (placements[spare].frame != frame) {
    const std::vector<BeamSlice> slices =
        MotionSlices(profile->Pattern(), beams, frame_start_s, options.motion_slices);
    if (Status s = ComputePlacements(slices, placements[spare]); !s.ok()) return s;
  }
  if (Status s = UploadPlacements(placements[spare]); !s.ok()) return s;
  uploaded = spare;
  return {};
}

void CudaSimulator::Impl::PrepareNext(uint64_t next) {
  Placements& spare = placements[1 - uploaded];  // not the one going up for this frame
  spare.frame = -1;
  if (next > UINT32_MAX) return;
  const double start = trajectory.start_time_s + next * profile->FramePeriodS();
  const std::vector<BeamSlice> slices =
      MotionSlices(profile->Pattern(), beams, start, options.motion_slices);
  if (ComputePlacements(slices, spare).ok()) spare.frame = static_cast<int64_t>(next);
}

Status CudaSimulator::Impl::TraceRaster(FrameContext& context, const physics::Pose<double>& pose) {
  auto planned = PlanRaster(*profile);
  if (!planned.ok()) return planned.error();
  context.raster = planned.value();
  const uint64_t pixels = uint64_t{context.raster.naz} * context.raster.nel;
  if (Status s = raster.Reserve(pixels); !s.ok()) return s;
  context.raster.pixels = raster.get();
  constexpr int kBlock = 128;
  Batch& batch = batches[batch_at];
  LT_CUDA_TRY(cudaEventRecord(batch.start));
  TraceRasterKernel<<<static_cast<unsigned>((pixels + kBlock - 1) / kBlock), kBlock>>>(
      context, Closest(), pose, raster.get());
  LT_CUDA_TRY(cudaGetLastError());
  LT_CUDA_TRY(cudaEventRecord(batch.kernel_done));
  LT_CUDA_TRY(cudaEventSynchronize(batch.kernel_done));
  float ms = 0;
  LT_CUDA_TRY(cudaEventElapsedTime(&ms, batch.start, batch.kernel_done));
  kernel_ms += ms;  // the raster is part of the frame's kernel time
  total_ms += ms;
  signal_ms += ms;
  return {};
}

Status CudaSimulator::Impl::LaunchBatch(const FrameContext& context, uint32_t b, uint32_t n,
                                        Batch& batch) {
  constexpr int kBlock = 128;
  const uint32_t k = echoes_per_beam;
  const uint32_t slots = n * k;
  const ColumnClock clock =
      MakeColumnClock(profile->Pattern(), context.frame_start_s, tables[2].get());
  LT_CUDA_TRY(cudaEventRecord(batch.start));
  if (profile->detector.kind == DetectorKind::kWaveform) {
    const uint64_t threads = uint64_t{n} * profile->footprint.sub_rays;
    SubRaySignalKernel<<<static_cast<unsigned>((threads + kBlock - 1) / kBlock), kBlock>>>(
        context, Closest(), contributions.get(), contribution_counts.get(), b, n);
    LT_CUDA_TRY(cudaGetLastError());
    LT_CUDA_TRY(cudaEventRecord(batch.signal_done));
    // A beam's contributions: all its sub-rays' slots and its fog slabs (BeamSlots).
    const uint32_t beam_slots = BeamSlots(context.signal, profile->footprint.sub_rays);
    LT_CUDA_TRY(LaunchWaveformWarps(context, contributions.get(), contribution_counts.get(),
                                    records.get(), b, n, beam_slots, step_twiddles.get(),
                                    kept_beams.get(), static_cast<uint32_t>(kept_beams.size()),
                                    kept_volts.get(), beam_chunks.get()));
  } else if (profile->detector.kind == DetectorKind::kThreshold) {
    const uint64_t threads = uint64_t{n} * profile->footprint.sub_rays;
    SubRaySignalKernel<<<static_cast<unsigned>((threads + kBlock - 1) / kBlock), kBlock>>>(
        context, Closest(), contributions.get(), contribution_counts.get(), b, n);
    LT_CUDA_TRY(cudaGetLastError());
    LT_CUDA_TRY(cudaEventRecord(batch.signal_done));
    LT_CUDA_TRY(cudaMemsetAsync(records.get(), 0, size_t{slots} * sizeof(BeamRecord)));
    LT_CUDA_TRY(cudaMemsetAsync(active_count.get(), 0, sizeof(uint32_t)));
    BeamWorkKernel<<<(n + kBlock - 1) / kBlock, kBlock>>>(
        context, contributions.get(), contribution_counts.get(), n, work_keys.get(), work_ids.get(),
        active_count.get());
    LT_CUDA_TRY(cudaGetLastError());
    size_t bytes = active_temp_bytes;
    LT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(active_temp.get(), bytes, work_keys.get(),
                                                work_keys_sorted.get(), work_ids.get(),
                                                active.get(), static_cast<int>(n)));
    BeamEchoKernel<<<(n + kBlock - 1) / kBlock, kBlock>>>(context, contributions.get(),
                                                          contribution_counts.get(), active.get(),
                                                          active_count.get(), records.get(), b);
  } else {
    SimulateFrameKernel<<<(n + kBlock - 1) / kBlock, kBlock>>>(context, Closest(), records.get(), b,
                                                               n);
  }
  LT_CUDA_TRY(cudaGetLastError());
  LT_CUDA_TRY(cudaEventRecord(batch.kernel_done));
  // Only the returns travel to the host (a third of the beams on the lab scene), in beam
  // order: DeviceSelect is stable.
  size_t temp_bytes = select_temp_bytes;
  LT_CUDA_TRY(cub::DeviceSelect::If(select_temp.get(), temp_bytes, records.get(),
                                    CompactOutput(returns.get()), return_count.get(),
                                    static_cast<int>(slots), IsValid()));
  FrameColumnsKernel<<<(slots + kBlock - 1) / kBlock, kBlock>>>(
      returns.get(), return_count.get(), profile->detector.ReadsReturnSignal(), clock,
      columns.get());
  LT_CUDA_TRY(cudaGetLastError());
  if (prepare >= 0) {  // host work while the kernels run (0.1 ms of a 0.5-ms street frame)
    PrepareNext(static_cast<uint64_t>(prepare));
    prepare = -1;
  }
  // The count and as many returns as the last batch had, and a 32nd more, go back in one pass
  // with one wait (a static scene's frames have exactly as many, a moving one's about as many);
  // only returns past those are copied after the count is known (WaitForBatch). Two blocking
  // copies, the count's then the returns', had left the GPU idle while the host turned round
  // between them: the OS0-128 frame's copy back took 0.13-0.27 ms (bench/RESULTS.md, ninth
  // step).
  batch.guess = static_cast<uint32_t>(
      std::min<uint64_t>(slots, uint64_t{returns_expected} + returns_expected / 32));
  LT_CUDA_TRY(cudaMemcpyAsync(batch.host_count, return_count.get(), sizeof(uint32_t),
                              cudaMemcpyDeviceToHost));
  // The device lays the columns out for the true count, in bytes [0, bytes(count)): where
  // count <= guess, the copy of [0, bytes(guess)) holds them all.
  const uint64_t guess_bytes =
      PackColumns(batch.guess, profile->detector.ReadsReturnSignal()).bytes;
  if (guess_bytes > 0) {
    LT_CUDA_TRY(
        cudaMemcpyAsync(batch.host_columns, columns.get(), guess_bytes, cudaMemcpyDeviceToHost));
  }
  LT_CUDA_TRY(cudaEventRecord(batch.copied));
  return {};
}

Expected<uint32_t> CudaSimulator::Impl::WaitForBatch(Batch& batch) {
  LT_CUDA_TRY(cudaEventSynchronize(batch.copied));
  const uint32_t count = *batch.host_count;
  if (count > batch.guess) {  // the rest of the range, now that the count is known
    const bool pulse = profile->detector.ReadsReturnSignal();
    const uint64_t guess_bytes = PackColumns(batch.guess, pulse).bytes;
    const uint64_t bytes = PackColumns(count, pulse).bytes;
    LT_CUDA_TRY(cudaMemcpyAsync(batch.host_columns + guess_bytes, columns.get() + guess_bytes,
                                bytes - guess_bytes, cudaMemcpyDeviceToHost));
    LT_CUDA_TRY(cudaEventRecord(batch.copied));
    LT_CUDA_TRY(cudaEventSynchronize(batch.copied));
  }
  returns_expected = count;
  float k_ms = 0, t_ms = 0;
  LT_CUDA_TRY(cudaEventElapsedTime(&k_ms, batch.start, batch.kernel_done));
  LT_CUDA_TRY(cudaEventElapsedTime(&t_ms, batch.start, batch.copied));
  kernel_ms += k_ms;
  total_ms += t_ms;
  if (profile->detector.ReadsReturnSignal()) {
    float s_ms = 0;
    LT_CUDA_TRY(cudaEventElapsedTime(&s_ms, batch.start, batch.signal_done));
    signal_ms += s_ms;
  }
  return count;
}

void CudaSimulator::Impl::AppendBatch(const Batch& batch, uint32_t count, double frame_start_s,
                                      Frame& f) {
  const size_t first = f.size();
  AppendFrameColumns(batch.host_columns, count, profile->detector.ReadsReturnSignal(),
                     profile->Pattern(), frame_start_s, f);
  ApplyIntensityGains(profile->intensity_gains, first, f);
}

Status CudaSimulator::Impl::SimulateBeams(const FrameContext& context, uint32_t begin, uint32_t end,
                                          Frame& f) {
  Batch& batch = batches[batch_at];
  for (uint32_t b = begin; b < end; b += plan.beams_per_batch) {
    const uint32_t n = std::min(end - b, plan.beams_per_batch);
    if (Status s = LaunchBatch(context, b, n, batch); !s.ok()) return s;
    auto count = WaitForBatch(batch);
    if (!count.ok()) return count.error();
    AppendBatch(batch, *count, context.frame_start_s, f);
  }
  return {};
}

bool CudaSimulator::Impl::CanRunAhead() const {
  return plan.batch_count == 1 && !profile->raster_gather && options.waveform_beams.empty();
}

Status CudaSimulator::Impl::PrepareSpray(uint32_t frame_index) {
  const std::optional<SprayDescription>& d = scene->description.weather.spray;
  if (!d) return {};
  const double period = profile->FramePeriodS();
  spray =
      FrameSpray(spray_sources, *d, options.seed, trajectory.start_time_s + frame_index * period,
                 period, spray_clusters, spray_plumes);
  spray.least_power_w = NegligiblePowerW(*profile);
  if (Status s = spray_plumes_gpu.Upload(spray_plumes); !s.ok()) return s;
  if (Status s = spray_clusters_gpu.Upload(spray_clusters); !s.ok()) return s;
  spray.plume = spray_plumes_gpu.get();
  spray.cluster = spray_clusters_gpu.get();
  return {};
}

void CudaSimulator::Impl::RunAhead(uint32_t frame) {
  if (!PrepareSpray(frame).ok()) return;  // met again by the call that asks for the frame
  const FrameContext context = Context(frame);
  const bool moving = scene->HasMovingObjects() && !instance_object.empty();
  if (moving && !PlaceFrame(frame, context.frame_start_s).ok()) return;
  prepare = moving ? int64_t{frame} + frame_stride : -1;  // a guess: the call after may say
  Batch& batch = batches[1 - batch_at];
  if (!batch.ready() && !batch.Create(column_bytes).ok()) return;
  // A CUDA error: the call that asks for this frame simulates it itself and meets the error
  // where it is sticky.
  if (!LaunchBatch(context, 0, beams, batch).ok()) return;
  ahead = frame;
  ++run_ahead.launched;
}

Status CudaSimulator::Impl::DropAhead() {
  if (ahead < 0) return {};
  ahead = -1;
  ++run_ahead.dropped;
  LT_CUDA_TRY(cudaEventSynchronize(batches[1 - batch_at].copied));
  return {};
}

CudaSimulator::CudaSimulator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CudaSimulator::~CudaSimulator() = default;

Expected<std::unique_ptr<CudaSimulator>> CudaSimulator::Create(const Scene& scene,
                                                               const SensorProfile& profile,
                                                               const Trajectory& trajectory,
                                                               SimulationOptions options) {
  if (Status s = CudaAvailable(); !s.ok())
    return OptionError("backend", "backend cuda: " + s.message());
  if (Status s = CheckWeather(profile, scene.description); !s.ok()) return s.error();
  auto impl = std::make_unique<Impl>();
  Impl& m = *impl;
  m.scene = &scene;
  m.profile = &profile;
  m.trajectory = trajectory;
  m.options = options;
  m.beams = profile.BeamCount();
  m.echoes_per_beam = profile.EchoesPerBeam();
  size_t free_bytes = 0, total_bytes = 0;
  LT_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Per beam of a batch: its K records, their compact copies and columns, CUB's scan state (a
  // few bytes); threshold detector: its sub-rays' contribution slots and counts, and the work
  // sort's keys, ids and scratch (32 bytes).
  // (The waveform detector's records live in shared memory, one warp a beam.)
  const bool threshold = profile.detector.kind == DetectorKind::kThreshold;
  const bool signal = profile.detector.ReadsReturnSignal();
  const bool waveform = profile.detector.kind == DetectorKind::kWaveform;
  const size_t sub_ray_slots =
      signal ? size_t{profile.footprint.sub_rays} *
                   SlotsPerSubRay(FrameSignalChain(profile, scene.description, 0))
             : 0;
  // In fog that returns, each sub-ray's clear length and weight (FogView).
  const size_t clear_per_beam =
      signal && FogReturns(scene.description.weather) ? profile.footprint.sub_rays : 0;
  // The waveform echoes' beam directions for scans of up to 2^20 beams (24 MiB), held for the
  // whole run; beyond, the kernel computes them.
  const bool direction_table = waveform && m.beams <= (1u << 20);
  const size_t direction_bytes =
      direction_table ? size_t{m.beams} * sizeof(physics::Vec3<double>) : 0;
  free_bytes -= std::min(free_bytes, direction_bytes);
  // Road spray's plumes and clusters, uploaded each frame: at most kMostSprayClustersPerPlume a
  // spraying vehicle, held for the whole run. The frame's objects: the scene's, then the
  // spray's plumes, then the weather's others (AppendWeatherObjects).
  m.spray_sources = SpraySources(scene, static_cast<uint32_t>(scene.objects.size()));
  const size_t spray_bytes =
      m.spray_sources.size() *
      (sizeof(SprayPlume) + size_t{kMostSprayClustersPerPlume} * sizeof(SprayCluster));
  if (spray_bytes > free_bytes) {
    return OptionError("backend", "backend cuda: road spray (weather.spray) needs " +
                                      std::to_string(spray_bytes >> 20) +
                                      " MiB of GPU memory and " + std::to_string(free_bytes >> 20) +
                                      " MiB are free; simulate it on the CPU backend");
  }
  free_bytes -= spray_bytes;
  size_t still_triangles = 0;
  for (const SceneObject& obj : scene.objects) {
    if (!obj.placed()) still_triangles += obj.mesh.triangles.size();
  }
  auto plan = PlanGpuMemory(free_bytes, still_triangles, m.beams,
                            m.echoes_per_beam * (sizeof(BeamRecord) + sizeof(CompactRecord) +
                                                 PackColumns(1, true).bytes + 16) +
                                sub_ray_slots * sizeof(physics::SignalContribution) +
                                clear_per_beam * sizeof(SubRayClear) +
                                (signal ? profile.footprint.sub_rays : 0) + (threshold ? 32 : 0),
                            options.max_triangles_per_bvh, options.max_beams_per_batch);
  if (!plan.ok()) return OptionError("backend", "backend cuda: " + plan.message());
  m.plan = plan.value();
  // The still geometry as one triangle soup; planes and owners in the same (input) order.
  std::vector<float> soup;
  std::vector<TrianglePlane> planes;
  std::vector<uint32_t> owner;
  soup.reserve(9 * still_triangles);
  for (uint32_t o = 0; o < scene.objects.size(); ++o) {
    const SceneObject& obj = scene.objects[o];
    if (obj.placed()) continue;
    AppendTriangles(obj.mesh, soup, planes);
    owner.resize(planes.size(), o);
  }
  if (Status s = cuda::CheckBvhCoordinates(soup); !s.ok()) {
    return OptionError("backend", "backend cuda: the scene's " + s.message());
  }
  const std::vector<ObjectInfo> objects = ObjectInfos(scene, profile.wavelength_nm);
  m.waveform_tables = MakeWaveformTables(profile);
  std::vector<physics::Vec3<double>> directions;  // direction_table's
  if (direction_table) {
    const physics::ScanPattern<double> pattern = profile.Pattern();
    directions.resize(m.beams);
    for (uint32_t i = 0; i < m.beams; ++i) {
      const physics::BeamSample<double> b = physics::ScanBeam(pattern, i);
      directions[i] = physics::BeamDirection(b.azimuth_rad, b.elevation_rad);
    }
  }
  const uint32_t batch = m.plan.beams_per_batch * m.echoes_per_beam;  // record slots
  m.signal = FrameSignalChain(profile, scene.description,
                              static_cast<uint32_t>(scene.objects.size() + m.spray_sources.size()));
  if (threshold) {
    if (Status s =
            m.fog_table.Upload(FogTable(m.signal.fog, m.signal.threshold), &m.signal.fog.table);
        !s.ok()) {
      return s.error();
    }
  }
  for (Status s :
       {m.triangles.Upload(soup),
        m.planes.Upload(planes),
        m.tri_object.Upload(owner),
        m.objects.Upload(objects),
        m.tables[0].Upload(profile.elevation_rad),
        m.tables[1].Upload(profile.azimuth_offset_rad),
        m.tables[2].Upload(profile.firing_offset_s),
        m.beam_directions.Upload(directions),
        m.traj_time.Upload(trajectory.time_s),
        m.traj_pose.Upload(trajectory.poses),
        m.kernel_cdf.Upload(profile.kernel.cdf),
        m.kernel_weight.Upload(profile.kernel.weight),
        m.records.Reserve(batch),
        m.returns.Reserve(batch),
        m.return_count.Reserve(1),
        m.columns.Reserve(PackColumns(batch, signal).bytes),
        m.contributions.Reserve(size_t{m.plan.beams_per_batch} * sub_ray_slots),
        m.contribution_counts.Reserve(
            signal ? size_t{m.plan.beams_per_batch} * profile.footprint.sub_rays : 0),
        m.sub_ray_clear.Reserve(size_t{m.plan.beams_per_batch} * clear_per_beam),
        m.kept_beams.Upload(options.waveform_beams),
        m.kept_volts.Reserve(
            waveform ? options.waveform_beams.size() * profile.detector.waveform.samples : 0),
        m.beam_chunks.Reserve(waveform ? 1 : 0),
        m.transfer.Upload(m.waveform_tables.transfer),
        m.twiddles.Upload(m.waveform_tables.twiddles),
        m.gap_powers.Upload(m.waveform_tables.gap_powers),
        m.internal_bins.Upload(m.waveform_tables.internal_bins),
        m.internal_thresholds.Upload(m.waveform_tables.internal_thresholds),
        m.step_twiddles.Upload(waveform && cuda::RegisterValues(profile.detector.waveform.samples)
                                   ? cuda::StepTwiddles(profile.detector.waveform.samples)
                                   : std::vector<physics::ComplexF>{})}) {
    if (!s.ok()) return s.error();
  }
  // PLOC: a scene is built once and traced every frame, and PLOC trees trace 1.6-2.2x faster
  // than LBVH trees on our benchmark cities (bench/RESULTS.md) for a 2-11 ms build. One BVH
  // per chunk of the plan, built in turn, each freeing its scratch memory for the next.
  std::vector<BvhChunk> chunks;
  const auto n = static_cast<uint32_t>(planes.size());
  for (uint32_t first = 0; first < n; first += m.plan.triangles_per_bvh) {
    auto bvh = std::make_unique<cuda::DeviceBvh>();
    const uint32_t count = std::min(n - first, m.plan.triangles_per_bvh);
    if (Status s = bvh->Build(m.triangles.get() + 9 * size_t{first}, count, nullptr,
                              cuda::BvhBuilder::kPloc);
        !s.ok()) {
      return s.error();
    }
    LT_CUDA_TRY(cudaDeviceSynchronize());
    bvh->ReleaseBuildMemory();
    chunks.push_back({bvh->View(), first});
    m.bvhs.push_back(std::move(bvh));
  }
  if (Status s = m.chunks.Upload(chunks); !s.ok()) return s.error();
  if (Status s = m.BuildModels(); !s.ok()) return s.error();
  if (threshold) {
    const uint32_t batch_beams = m.plan.beams_per_batch;
    for (Status s : {m.work_keys.Reserve(batch_beams), m.work_keys_sorted.Reserve(batch_beams),
                     m.work_ids.Reserve(batch_beams), m.active.Reserve(batch_beams),
                     m.active_count.Reserve(1)}) {
      if (!s.ok()) return s.error();
    }
    LT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, m.active_temp_bytes, m.work_keys.get(),
                                                m.work_keys_sorted.get(), m.work_ids.get(),
                                                m.active.get(), static_cast<int>(batch_beams)));
    if (Status s = m.active_temp.Reserve(m.active_temp_bytes); !s.ok()) return s.error();
  }
  LT_CUDA_TRY(cub::DeviceSelect::If(nullptr, m.select_temp_bytes, m.records.get(),
                                    CompactOutput(m.returns.get()), m.return_count.get(),
                                    static_cast<int>(batch), IsValid()));
  if (Status s = m.select_temp.Reserve(m.select_temp_bytes); !s.ok()) return s.error();
  LT_CUDA_TRY(cudaDeviceSynchronize());
  m.column_bytes = PackColumns(batch, signal).bytes;
  if (Status s = m.batches[0].Create(m.column_bytes); !s.ok()) return s.error();
  return std::unique_ptr<CudaSimulator>(new CudaSimulator(std::move(impl)));
}

uint64_t CudaSimulator::RaysPerFrame() const {
  return impl_->profile->RaysPerFrame();
}
double CudaSimulator::last_kernel_ms() const {
  return impl_->kernel_ms;
}
double CudaSimulator::last_signal_ms() const {
  return impl_->signal_ms;
}
double CudaSimulator::last_total_ms() const {
  return impl_->total_ms;
}
uint32_t CudaSimulator::bvh_count() const {
  return impl_->plan.bvh_count;
}
void CudaSimulator::ExpectFollowing(std::optional<uint32_t> frame_index) {
  impl_->expected = frame_index ? int64_t{*frame_index} : Impl::kNoneFollows;
}
CudaSimulator::RunAheadCounts CudaSimulator::run_ahead_counts() const {
  return impl_->run_ahead;
}
uint32_t CudaSimulator::batches_per_frame() const {
  return impl_->plan.batch_count;
}

FrameContext CudaSimulator::Impl::Context(uint32_t frame_index) const {
  const double period = profile->FramePeriodS();
  const double t0 = trajectory.start_time_s + frame_index * period;
  const double* scan_tables[3] = {tables[0].get(), tables[1].get(), tables[2].get()};
  FrameContext context{
      profile->Pattern(scan_tables),
      {traj_time.get(), traj_pose.get(), static_cast<int>(trajectory.poses.size()),
       trajectory.motion_correction},
      profile->Detector(),
      profile->FootprintView(kernel_cdf.get(), kernel_weight.get()),
      signal,
      AngularRasterView{},
      echoes_per_beam,
      objects.get(),
      options.seed,
      frame_index,
      t0,
      trajectory.At(t0 + period),
      {profile->beam_origin_m[0], profile->beam_origin_m[1], profile->beam_origin_m[2]},
      {}};
  context.beam_origin_radius_m = profile->beam_origin_radius_m;
  context.range_offset_m = profile->range_offset_m;
  if (signal.fog.slabs > 0) context.sub_ray_clear = sub_ray_clear.get();
  context.spray = spray;
  if (profile->detector.kind == DetectorKind::kWaveform) {
    context.waveform = MakeWaveformChain(*profile, transfer.get(), twiddles.get());
    context.waveform.gap_powers = gap_powers.get();
    context.waveform.internal =
        InternalReflectionView(waveform_tables, internal_bins.get(), internal_thresholds.get());
    if (beam_directions.size() > 0) context.beam_directions = beam_directions.get();
  }
  return context;
}

// A frame either ran ahead (launched by the call before, which expected it) or runs now. Where
// frames can run ahead (CanRunAhead, and a next frame told or guessed), once its returns are on
// the host and before they are appended, the frame expected next is launched, so that the GPU
// computes it while the host appends this one: the same kernels on the same inputs, so the same
// bits, only earlier.
Expected<Frame> CudaSimulator::Simulate(uint32_t frame_index) {
  Impl& m = *impl_;
  const SensorProfile& profile = *m.profile;
  const Trajectory& traj = m.trajectory;
  const double period = profile.FramePeriodS();
  const double t0 = traj.start_time_s + frame_index * period;
  const bool in_turn = m.last_frame >= 0 && frame_index > m.last_frame;
  if (in_turn) m.frame_stride = frame_index - static_cast<uint32_t>(m.last_frame);
  m.last_frame = frame_index;
  m.kernel_ms = m.total_ms = m.signal_ms = 0;
  Frame f = FrameHeader(frame_index, t0, period, traj);
  const bool told = m.expected >= 0, none_follows = m.expected == Impl::kNoneFollows;
  const uint64_t next =
      told ? static_cast<uint64_t>(m.expected) : uint64_t{frame_index} + m.frame_stride;
  m.expected = Impl::kGuess;
  const bool run_ahead =
      (told || (in_turn && !none_follows)) && m.CanRunAhead() && next <= UINT32_MAX;
  if (m.ahead == frame_index) {  // launched by the call before
    m.ahead = -1;
    ++m.run_ahead.used;
    m.batch_at = 1 - m.batch_at;
    Impl::Batch& batch = m.batches[m.batch_at];
    auto count = m.WaitForBatch(batch);
    if (!count.ok()) return count.error();
    if (run_ahead) m.RunAhead(static_cast<uint32_t>(next));
    m.AppendBatch(batch, *count, t0, f);
  } else {
    if (Status s = m.DropAhead(); !s.ok()) return s.error();
    if (Status s = m.PrepareSpray(frame_index); !s.ok()) return s.error();
    FrameContext context = m.Context(frame_index);
    if (profile.raster_gather) {
      if (Status s = CheckRasterGather(profile, *m.scene, traj); !s.ok()) return s.error();
      if (Status s = m.TraceRaster(context, traj.At(t0)); !s.ok()) return s.error();
    }
    if (!m.options.waveform_beams.empty()) {
      f.waveform_beams = m.options.waveform_beams;
      f.waveform_samples = context.waveform.samples;
      f.waveform_dt_s = context.waveform.dt_s;
      f.waveform_volts.resize(f.waveform_beams.size() * f.waveform_samples);
    }
    // Every slice's placements up at once, the frame's beams in one pass (each beam traces its
    // own slice's top level, GpuClosestHit::ForBeam); a still scene's were placed at Create.
    const bool moving = m.scene->HasMovingObjects() && !m.instance_object.empty();
    if (moving) {
      if (Status s = m.PlaceFrame(frame_index, t0); !s.ok()) return s.error();
    }
    // The frame expected next (the one told, else the stride's), run ahead or not.
    m.prepare = moving ? static_cast<int64_t>(next) : -1;
    if (run_ahead) {  // one batch, as SimulateBeams but with the next frame launched meanwhile
      Impl::Batch& batch = m.batches[m.batch_at];
      if (Status s = m.LaunchBatch(context, 0, m.beams, batch); !s.ok()) return s.error();
      auto count = m.WaitForBatch(batch);
      if (!count.ok()) return count.error();
      m.RunAhead(static_cast<uint32_t>(next));
      m.AppendBatch(batch, *count, t0, f);
    } else {
      if (Status s = m.SimulateBeams(context, 0, m.beams, f); !s.ok()) return s.error();
    }
  }
  if (!f.waveform_volts.empty()) {
    if (Status s = m.kept_volts.Download(f.waveform_volts.data(), f.waveform_volts.size()); !s.ok())
      return s.error();
  }
  ApplyRayDrop(profile, m.options.seed, frame_index, f);
  return f;
}

}  // namespace lt
