#include "lidartwin/sim/frame_setup.h"

namespace lt {

std::vector<ObjectInfo> ObjectInfos(const Scene& scene, double wavelength_nm) {
  std::vector<ObjectInfo> out;
  out.reserve(scene.objects.size());
  for (const SceneObject& o : scene.objects) {
    out.push_back({scene.materials.materials[o.material_id].ReflectanceAt(wavelength_nm),
                   o.material_id, o.instance_id, o.semantic_class});
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
