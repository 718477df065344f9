#include "internal/frame_setup.h"

#include <algorithm>

namespace lt {

SignalChain FrameSignalChain(const SensorProfile& p) {
  return {p.detector.link, p.Threshold(), p.detector.max_surfaces_per_sub_ray,
          p.detector.range_resolution_m, p.detector.outlier_probability};
}

std::vector<ObjectInfo> ObjectInfos(const Scene& scene, double wavelength_nm) {
  std::vector<ObjectInfo> out;
  out.reserve(scene.objects.size());
  for (const SceneObject& o : scene.objects) {
    const Material& m = scene.materials.materials[o.material_id];
    const double r0 = m.ReflectanceAt(wavelength_nm);
    const physics::SurfaceResponse response{r0,
                                            m.specular_albedo,
                                            m.specular_exponent,
                                            m.retroreflective_peak_sr,
                                            m.retroreflective_max_entrance_deg * physics::kDegToRad,
                                            m.transmittance,
                                            m.coverage};
    out.push_back({r0, o.material_id, o.instance_id, o.semantic_class, response});
  }
  return out;
}

std::vector<BeamSlice> MotionSlices(const physics::ScanPattern<double>& scan, uint32_t beams,
                                    double frame_start_s, uint32_t slices) {
  std::vector<BeamSlice> out;
  if (beams == 0) return out;
  slices = std::max(1u, std::min(slices, beams));
  for (uint32_t k = 0; k < slices; ++k) {
    const auto begin = static_cast<uint32_t>(uint64_t{beams} * k / slices);
    const auto end = static_cast<uint32_t>(uint64_t{beams} * (k + 1) / slices);
    const double t0 = physics::ScanBeam(scan, begin).time_s;
    const double t1 = physics::ScanBeam(scan, end - 1).time_s;
    out.push_back({begin, end, frame_start_s + 0.5 * (t0 + t1)});
  }
  return out;
}

Frame FrameHeader(uint32_t index, double start_s, double period_s, const Trajectory& trajectory) {
  Frame f;
  f.index = index;
  f.start_time_s = start_s;
  f.end_time_s = start_s + period_s;
  f.pose_start = trajectory.At(start_s);
  f.pose_end = trajectory.At(start_s + period_s);
  f.motion_corrected = trajectory.motion_correction;
  return f;
}

}  // namespace lt
