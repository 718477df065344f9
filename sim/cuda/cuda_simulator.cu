// CUDA backend: the shared beam pipeline (beam_pipeline.h) in one thread per beam, closest
// hits on the GPU-built LBVH in float, refined in double on the hit triangle's plane exactly
// as the CPU backend refines Embree's hits (ADR 0002), so both report the same ranges.
#include <algorithm>
#include <cub/device/device_select.cuh>
#include <string>

#include "device_buffer.h"
#include "lbvh.h"
#include "lidartwin/physics/ray_triangle.h"
#include "lidartwin/sim/beam_pipeline.h"
#include "lidartwin/sim/cuda_backend.h"
#include "lidartwin/sim/frame_setup.h"

namespace lt {

namespace {

using cuda::DeviceBuffer;
using physics::Vec3;

// A triangle's plane in double, in input order: a vertex and the unit normal.
struct TrianglePlane {
  double a[3];
  double n[3];
};

__global__ void SimulateFrameKernel(FrameContext c, physics::BvhView bvh, const uint32_t* order,
                                    const TrianglePlane* planes, const uint32_t* tri_object,
                                    BeamRecord* out, uint32_t beams) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= beams) return;
  const auto closest = [&](const Vec3<double>& o, const Vec3<double>& d, double t_min,
                           double t_max) -> SurfaceHit {
    const float of[3] = {static_cast<float>(o.x), static_cast<float>(o.y), static_cast<float>(o.z)};
    const float df[3] = {static_cast<float>(d.x), static_cast<float>(d.y), static_cast<float>(d.z)};
    float t = 0;
    const int k = physics::BvhClosestHit(bvh, of, df, static_cast<float>(t_min),
                                         static_cast<float>(t_max), t);
    if (k < 0) return {false, 0, {0, 0, 0}, 0};
    const uint32_t tri = order[k];
    const TrianglePlane& p = planes[tri];
    const Vec3<double> n{p.n[0], p.n[1], p.n[2]};
    const double td = physics::RayPlaneDistance(o, d, Vec3<double>{p.a[0], p.a[1], p.a[2]}, n);
    if (!(td >= t_min && td <= t_max)) return {false, 0, {0, 0, 0}, 0};
    return {true, td, n, tri_object[tri]};
  };
  out[i] = SimulateBeam(c, i, closest);
}

struct IsValid {
  __device__ bool operator()(const BeamRecord& r) const { return r.valid != 0; }
};

}  // namespace

Status CudaAvailable() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    return Error{std::string("no usable CUDA device: ") + cudaGetErrorString(e)};
  }
  if (n == 0) return Error{"no CUDA device found"};
  return {};
}

std::string CudaDeviceName() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "unknown";
  return std::string(p.name) + " (" + std::to_string(p.totalGlobalMem >> 20) + " MiB, " +
         std::to_string(p.multiProcessorCount) + " SMs)";
}

struct CudaSimulator::Impl {
  const SensorProfile* profile = nullptr;
  const Trajectory* trajectory = nullptr;
  SimulationOptions options;
  uint32_t beams = 0;
  DeviceBuffer<float> triangles;
  DeviceBuffer<TrianglePlane> planes;
  DeviceBuffer<uint32_t> tri_object;
  DeviceBuffer<ObjectInfo> objects;
  DeviceBuffer<double> tables[3];
  DeviceBuffer<double> traj_time;
  DeviceBuffer<physics::Pose<double>> traj_pose;
  DeviceBuffer<BeamRecord> records;
  DeviceBuffer<BeamRecord> returns;  // the valid records, compacted in beam order
  DeviceBuffer<uint32_t> return_count;
  DeviceBuffer<unsigned char> select_temp;
  size_t select_temp_bytes = 0;
  BeamRecord* host_records = nullptr;  // pinned: the copy back runs at full PCIe speed
  cuda::DeviceBvh bvh;
  cudaEvent_t start = nullptr, kernel_done = nullptr, copied = nullptr;
  double kernel_ms = 0, total_ms = 0;
  ~Impl() {
    if (host_records) cudaFreeHost(host_records);
    if (start) cudaEventDestroy(start);
    if (kernel_done) cudaEventDestroy(kernel_done);
    if (copied) cudaEventDestroy(copied);
  }
};

CudaSimulator::CudaSimulator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CudaSimulator::~CudaSimulator() = default;

Expected<std::unique_ptr<CudaSimulator>> CudaSimulator::Create(const Scene& scene,
                                                               const SensorProfile& profile,
                                                               const Trajectory& trajectory,
                                                               SimulationOptions options) {
  if (Status s = CudaAvailable(); !s.ok()) return Error{"--backend cuda: " + s.message()};
  auto impl = std::make_unique<Impl>();
  impl->profile = &profile;
  impl->trajectory = &trajectory;
  impl->options = options;
  impl->beams = profile.BeamCount();
  // Scene as one triangle soup; planes and owners in the same (input) order.
  std::vector<float> soup;
  std::vector<TrianglePlane> planes;
  std::vector<uint32_t> owner;
  const std::vector<ObjectInfo> objects = ObjectInfos(scene, profile.wavelength_nm);
  soup.reserve(9 * scene.TriangleCount());
  for (uint32_t o = 0; o < scene.objects.size(); ++o) {
    const SceneObject& obj = scene.objects[o];
    for (const auto& t : obj.mesh.triangles) {
      const auto& a = obj.mesh.vertices[t[0]];
      const auto& b = obj.mesh.vertices[t[1]];
      const auto& c = obj.mesh.vertices[t[2]];
      for (const auto* v : {&a, &b, &c}) {
        for (int k = 0; k < 3; ++k)
          soup.push_back(static_cast<float>((*v)[k]));
      }
      const Vec3<double> va{a[0], a[1], a[2]};
      const Vec3<double> n = physics::Normalized(
          physics::Cross(Vec3<double>{b[0], b[1], b[2]} - va, Vec3<double>{c[0], c[1], c[2]} - va));
      planes.push_back({{a[0], a[1], a[2]}, {n.x, n.y, n.z}});
      owner.push_back(o);
    }
  }
  Impl& m = *impl;
  for (Status s :
       {m.triangles.Upload(soup), m.planes.Upload(planes), m.tri_object.Upload(owner),
        m.objects.Upload(objects), m.tables[0].Upload(profile.elevation_rad),
        m.tables[1].Upload(profile.azimuth_offset_rad), m.tables[2].Upload(profile.firing_offset_s),
        m.traj_time.Upload(trajectory.time_s), m.traj_pose.Upload(trajectory.poses),
        m.records.Reserve(m.beams), m.returns.Reserve(m.beams), m.return_count.Reserve(1)}) {
    if (!s.ok()) return s.error();
  }
  // PLOC: a scene is built once and traced every frame, and PLOC trees trace 1.4-1.5x faster
  // than LBVH trees on our benchmark cities (bench/RESULTS.md) for a 3-11 ms build.
  if (Status s = m.bvh.Build(m.triangles.get(), static_cast<uint32_t>(planes.size()), nullptr,
                             cuda::BvhBuilder::kPloc);
      !s.ok()) {
    return s.error();
  }
  LT_CUDA_TRY(cub::DeviceSelect::If(nullptr, m.select_temp_bytes, m.records.get(), m.returns.get(),
                                    m.return_count.get(), static_cast<int>(m.beams), IsValid()));
  if (Status s = m.select_temp.Reserve(m.select_temp_bytes); !s.ok()) return s.error();
  LT_CUDA_TRY(cudaEventCreate(&m.start));
  LT_CUDA_TRY(cudaEventCreate(&m.kernel_done));
  LT_CUDA_TRY(cudaEventCreate(&m.copied));
  LT_CUDA_TRY(cudaDeviceSynchronize());
  LT_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&m.host_records),
                             std::max<size_t>(1, m.beams) * sizeof(BeamRecord)));
  return std::unique_ptr<CudaSimulator>(new CudaSimulator(std::move(impl)));
}

uint64_t CudaSimulator::RaysPerFrame() const {
  return impl_->profile->RaysPerFrame();
}
double CudaSimulator::last_kernel_ms() const {
  return impl_->kernel_ms;
}
double CudaSimulator::last_total_ms() const {
  return impl_->total_ms;
}

Expected<Frame> CudaSimulator::Simulate(uint32_t frame_index) {
  Impl& m = *impl_;
  const SensorProfile& profile = *m.profile;
  const Trajectory& traj = *m.trajectory;
  const double period = profile.FramePeriodS();
  const double t0 = traj.start_time_s + frame_index * period;
  const double* tables[3] = {m.tables[0].get(), m.tables[1].get(), m.tables[2].get()};
  const FrameContext context{profile.Pattern(tables),
                             {m.traj_time.get(), m.traj_pose.get(),
                              static_cast<int>(traj.poses.size()), traj.motion_correction},
                             profile.Detector(),
                             profile.footprint,
                             m.objects.get(),
                             m.options.seed,
                             frame_index,
                             t0,
                             traj.At(t0 + period)};
  const int block = 128;
  const unsigned grid = (m.beams + block - 1) / block;
  LT_CUDA_TRY(cudaEventRecord(m.start));
  SimulateFrameKernel<<<grid, block>>>(context, m.bvh.View(), m.bvh.Order(), m.planes.get(),
                                       m.tri_object.get(), m.records.get(), m.beams);
  LT_CUDA_TRY(cudaGetLastError());
  LT_CUDA_TRY(cudaEventRecord(m.kernel_done));
  // Only the returns travel to the host (a third of the beams on the lab scene), in beam
  // order: DeviceSelect is stable.
  size_t temp_bytes = m.select_temp_bytes;
  LT_CUDA_TRY(cub::DeviceSelect::If(m.select_temp.get(), temp_bytes, m.records.get(),
                                    m.returns.get(), m.return_count.get(),
                                    static_cast<int>(m.beams), IsValid()));
  uint32_t count = 0;
  LT_CUDA_TRY(cudaMemcpy(&count, m.return_count.get(), sizeof(count), cudaMemcpyDeviceToHost));
  LT_CUDA_TRY(cudaMemcpy(m.host_records, m.returns.get(), count * sizeof(BeamRecord),
                         cudaMemcpyDeviceToHost));
  LT_CUDA_TRY(cudaEventRecord(m.copied));
  LT_CUDA_TRY(cudaEventSynchronize(m.copied));
  float k_ms = 0, t_ms = 0;
  LT_CUDA_TRY(cudaEventElapsedTime(&k_ms, m.start, m.kernel_done));
  LT_CUDA_TRY(cudaEventElapsedTime(&t_ms, m.start, m.copied));
  m.kernel_ms = k_ms;
  m.total_ms = t_ms;
  Frame f = FrameHeader(frame_index, t0, period, traj);
  AppendRecords(m.host_records, count, f);
  return f;
}

}  // namespace lt
