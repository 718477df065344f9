#include <cmath>

#include "lidartwin/physics/pose.h"
#include "lidartwin/physics/scan_pattern.h"
#include "lidartwin/sim/config_reader.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/text_file.h"

#include "forest_reader.h"

namespace lt {

namespace {

std::array<double, 3> Vector3(ConfigMap& m, const std::string& key,
                              std::array<double, 3> fallback) {
  if (!m.Has(key)) return fallback;
  const std::vector<double> v = m.Numbers(key);
  if (v.size() != 3) {
    m.Fail(key, "expected 3 numbers, got " + std::to_string(v.size()));
    return fallback;
  }
  return {v[0], v[1], v[2]};
}

std::vector<double> Sizes(ConfigMap& m, size_t count) {
  const std::vector<double> v = m.Numbers("size_m");
  if (v.size() != count) {
    m.Fail("size_m",
           "expected " + std::to_string(count) + " numbers, got " + std::to_string(v.size()));
    return std::vector<double>(count, 1.0);
  }
  for (double s : v) {
    if (!(s > 0)) {
      m.Fail("size_m", "sizes must be positive");
      return std::vector<double>(count, 1.0);
    }
  }
  return v;
}

physics::Pose<double> ReadPose(ConfigMap& o) {
  const auto position = Vector3(o, "position_m", {0, 0, 0});
  const auto rpy = Vector3(o, "rotation_deg", {0, 0, 0});
  return {physics::QuatFromRollPitchYaw(rpy[0] * physics::kDegToRad, rpy[1] * physics::kDegToRad,
                                        rpy[2] * physics::kDegToRad),
          {position[0], position[1], position[2]}};
}

// Checks an object's mesh, takes it to world coordinates and adds the object to the scene.
Status AddObject(const std::filesystem::path& file, SceneObject obj, Scene& scene) {
  const std::string what = file.string() + ": object '" + obj.name + "'";
  if (Status s = CleanMesh(obj.mesh, what, &obj.degenerate_triangles_dropped); !s.ok()) {
    return s.error();
  }
  if (obj.mesh.triangles.empty()) {
    return Error{what + ": has no usable triangles"};
  }
  // To world coordinates.
  for (auto& v : obj.mesh.vertices) {
    const auto w = physics::TransformPoint(obj.pose, physics::Vec3<double>{v[0], v[1], v[2]});
    v = {w.x, w.y, w.z};
  }
  scene.objects.push_back(std::move(obj));
  return {};
}

}  // namespace

Expected<Scene> LoadScene(const std::filesystem::path& file, const MeshLoader& mesh_loader) {
  auto parsed = ConfigMap::FromFile(file);
  if (!parsed.ok()) return parsed.error();
  ConfigMap& root = parsed.value();
  Scene scene;
  if (auto text = ReadTextFile(file); text.ok()) scene.source_text = std::move(*text);
  const std::string library_path = root.String("materials");
  if (Status s = root.FirstError(); !s.ok()) return s.error();
  auto library = LoadMaterialLibrary(root.Resolve(library_path));
  if (!library.ok()) {
    return Error{file.string() + ": key 'materials': " + library.message()};
  }
  scene.materials = std::move(library.value());

  for (ConfigMap& o : root.MapList("objects")) {
    SceneObject obj;
    obj.name = o.String("name");
    obj.type = o.String("type");
    obj.pose = ReadPose(o);
    if (obj.type == "forest") {
      // One entry, two objects per tree (configs/README.md, "Forests").
      std::vector<SceneObject> parts =
          ReadForest(o, obj.name, obj.pose, scene.materials, library_path);
      if (Status s = root.FirstError(); !s.ok()) return s.error();
      for (SceneObject& part : parts) {
        if (Status s = AddObject(file, std::move(part), scene); !s.ok()) return s.error();
      }
      continue;
    }
    const std::string material = o.String("material");
    const double semantic = o.Number("semantic_class", 0);
    const double instance = o.Number("instance_id", 0);
    if (semantic < 0 || semantic > 65535 || semantic != std::floor(semantic)) {
      o.Fail("semantic_class", "must be a whole number in 0..65535");
    }
    if (instance < 0 || instance > 4294967295.0 || instance != std::floor(instance)) {
      o.Fail("instance_id", "must be a whole number in 0..2^32-1");
    }
    obj.semantic_class = static_cast<uint16_t>(semantic);
    obj.instance_id = static_cast<uint32_t>(instance);

    const auto velocity = Vector3(o, "velocity_m_s", {0, 0, 0});
    const double yaw_rate = o.Number("yaw_rate_deg_s", 0);
    for (double v : velocity) {
      if (!std::isfinite(v)) o.Fail("velocity_m_s", "must be finite");
    }
    if (!std::isfinite(yaw_rate)) o.Fail("yaw_rate_deg_s", "must be finite");
    obj.motion = {velocity, yaw_rate * physics::kDegToRad};

    const int material_id = scene.materials.Find(material);
    if (!material.empty() && material_id < 0) {
      o.Fail("material", "unknown material '" + material + "' (not in " + library_path + ")");
    }
    obj.material_id = static_cast<uint32_t>(std::max(material_id, 0));

    if (obj.type == "plate") {
      const auto s = Sizes(o, 2);
      obj.size_m = {s[0], s[1], 0};
      obj.mesh = MakePlate(s[0], s[1]);
    } else if (obj.type == "plane") {
      const auto s = Sizes(o, 2);
      obj.size_m = {s[0], s[1], 0};
      obj.mesh = MakePlane(s[0], s[1]);
    } else if (obj.type == "box") {
      const auto s = Sizes(o, 3);
      obj.size_m = {s[0], s[1], s[2]};
      obj.mesh = MakeBox(s[0], s[1], s[2]);
    } else if (obj.type == "disc") {
      const double r = o.Number("radius_m");
      const double segments = o.Number("segments", 128);
      if (!(r > 0)) o.Fail("radius_m", "must be positive");
      if (segments < 3 || segments > 1e6 || segments != std::floor(segments)) {
        o.Fail("segments", "must be a whole number >= 3");
      } else if (r > 0) {
        obj.size_m = {r, 0, 0};
        obj.mesh = MakeDisc(r, static_cast<int>(segments));
      }
    } else if (obj.type == "mesh") {
      const std::string mesh_file = o.String("file");
      const double scale = o.Number("scale", 1.0);
      if (!(scale > 0)) o.Fail("scale", "must be positive");
      if (!mesh_file.empty()) {
        const auto path = o.Resolve(mesh_file);
        if (!mesh_loader) {
          o.Fail("file", "this build has no mesh loader (built without Open3D)");
        } else if (!std::filesystem::exists(path)) {
          o.Fail("file", "mesh file '" + path.string() + "' does not exist");
        } else {
          auto mesh = mesh_loader(path);
          if (!mesh.ok()) {
            o.Fail("file", mesh.message());
          } else {
            obj.mesh = std::move(mesh.value());
            for (auto& v : obj.mesh.vertices) {
              for (double& c : v)
                c *= scale;
            }
          }
        }
      }
    } else {
      o.Fail("type", "unknown object type '" + obj.type +
                         "' (expected plane, box, disc, plate, mesh or forest)");
    }
    if (Status s = root.FirstError(); !s.ok()) return s.error();

    if (Status s = AddObject(file, std::move(obj), scene); !s.ok()) return s.error();
  }
  if (Status s = root.Finish(); !s.ok()) return s.error();
  if (scene.objects.empty()) return Error{file.string() + ": the scene has no objects"};
  return scene;
}

}  // namespace lt
