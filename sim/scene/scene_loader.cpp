// The scene schema's loader (configs/README.md, "Scenes") in two steps: the file is read into a
// SceneDescription (keys, types, whole numbers) and validated (SceneDescription::Check), then
// BuildScene makes the objects (library, primitives, meshes, forests). Problems of either
// step name the key path, and LoadScene maps it to the line of the file.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "lidartwin/base/config_reader.h"
#include "lidartwin/base/parallel_for.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/physics/cover.h"
#include "lidartwin/physics/pose.h"
#include "lidartwin/physics/scan_pattern.h"
#include "lidartwin/sim/scene.h"

#include "forest_reader.h"
#include "street_reader.h"

namespace lt {

namespace {

bool KnownObjectType(const std::string& type) {
  return std::any_of(std::begin(kSceneObjectTypes), std::end(kSceneObjectTypes),
                     [&](const char* t) { return type == t; });
}

// "plane, box, ... or forest"
std::string ObjectTypeChoices() {
  std::string out;
  const size_t n = std::size(kSceneObjectTypes);
  for (size_t i = 0; i < n; ++i)
    out += (i == 0 ? "" : (i + 1 == n ? " or " : ", ")) + std::string(kSceneObjectTypes[i]);
  return out;
}

std::filesystem::path Resolve(const std::filesystem::path& directory, const std::string& path) {
  const std::filesystem::path p(path);
  return p.is_absolute() ? p : directory / p;
}

// ---- reading ----

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

// A whole number in 0..max (the range of its type), or 0 with the problem recorded.
double WholeNumber(ConfigMap& o, const std::string& key, double fallback, double max,
                   const std::string& range_text) {
  const double v = o.Number(key, fallback);
  if (v < 0 || v > max || v != std::floor(v)) {
    o.Fail(key, "must be a whole number in 0.." + range_text);
    return 0;
  }
  return v;
}

SceneObjectDescription ReadObject(ConfigMap& o) {
  SceneObjectDescription d;
  d.name = o.String("name");
  d.type = o.String("type");
  d.position_m = Vector3(o, "position_m", d.position_m);
  d.rotation_deg = Vector3(o, "rotation_deg", d.rotation_deg);
  if (d.type == "forest") {
    // One entry, two objects per tree (configs/README.md, "Forests").
    d.forest = ReadForest(o);
    return d;
  }
  if (d.type == "street") {
    // One entry, an object per building, car and pedestrian (configs/README.md, "Streets").
    d.street = ReadStreet(o);
    return d;
  }
  if (!KnownObjectType(d.type)) return d;  // Check names the type
  d.material = o.String("material");
  d.semantic_class = static_cast<uint16_t>(WholeNumber(o, "semantic_class", 0, 65535, "65535"));
  d.instance_id = static_cast<uint32_t>(WholeNumber(o, "instance_id", 0, 4294967295.0, "2^32-1"));
  d.velocity_m_s = Vector3(o, "velocity_m_s", d.velocity_m_s);
  d.yaw_rate_deg_s = o.Number("yaw_rate_deg_s", 0);
  if (d.type == "plate" || d.type == "plane" || d.type == "box") {
    d.size_m = o.Numbers("size_m");
  } else if (d.type == "disc") {
    d.radius_m = o.Number("radius_m");
    d.segments = static_cast<uint32_t>(WholeNumber(o, "segments", 128, 4294967295.0, "2^32-1"));
  } else if (d.type == "mesh") {
    const std::string file = o.String("file");
    if (!file.empty())
      d.file = std::filesystem::absolute(o.Resolve(file)).lexically_normal().string();
    d.scale = o.Number("scale", 1.0);
  }
  return d;
}

// One region of weather.cover: an angle pair given is two numbers (checked here, as Numbers
// reads any length), the rest by WeatherDescription::Check.
CoverRegionDescription ReadCoverRegion(ConfigMap& m) {
  CoverRegionDescription r;
  for (const auto& [key, out] : {std::pair<const char*, double*>{"azimuth_deg", r.azimuth_deg},
                                 {"elevation_deg", r.elevation_deg}}) {
    if (!m.Has(key)) continue;
    const std::vector<double> v = m.Numbers(key);
    if (v.size() != 2) {
      m.Fail(key, "must be two angles [from, to] in degrees, got " + std::to_string(v.size()) +
                      " numbers");
      continue;
    }
    out[0] = v[0];
    out[1] = v[1];
  }
  r.transmission = m.Number("transmission", r.transmission);
  r.backscatter = m.Number("backscatter", r.backscatter);
  return r;
}

// The description of the file `root` was read from, validated; problems recorded on root.
Expected<SceneDescription> ReadDescription(ConfigMap& root) {
  SceneDescription d;
  const std::string library = root.String("materials");
  if (!library.empty())
    d.materials = std::filesystem::absolute(root.Resolve(library)).lexically_normal().string();
  for (ConfigMap& o : root.MapList("objects"))
    d.objects.push_back(ReadObject(o));
  d.sunlight = root.Number("sunlight", 0);
  // Present even where empty (`weather:`), so that Map names what is missing rather than the
  // unknown-key check calling a known key unknown.
  auto present = [](const ConfigMap& m, const std::string& key) {
    for (const std::string& k : m.Keys())
      if (k == key) return true;
    return false;
  };
  if (present(root, "weather")) {
    ConfigMap weather = root.Map("weather");
    if (present(weather, "fog")) {
      ConfigMap m = weather.Map("fog");
      FogDescription f;
      f.visibility_m = m.Number("visibility_m");
      f.backscatter = m.Bool("backscatter", f.backscatter);
      f.lidar_ratio_sr = m.Number("lidar_ratio_sr", f.lidar_ratio_sr);
      f.semantic_class =
          static_cast<uint16_t>(WholeNumber(m, "semantic_class", f.semantic_class, 65535, "65535"));
      d.weather.fog = f;
    }
    if (present(weather, "rain")) {
      ConfigMap m = weather.Map("rain");
      RainDescription r;
      r.rate_mm_h = m.Number("rate_mm_h");
      r.min_diameter_mm = m.Number("min_diameter_mm", r.min_diameter_mm);
      r.extinction_efficiency = m.Number("extinction_efficiency", r.extinction_efficiency);
      r.semantic_class =
          static_cast<uint16_t>(WholeNumber(m, "semantic_class", r.semantic_class, 65535, "65535"));
      d.weather.rain = r;
    }
    if (present(weather, "snow")) {
      ConfigMap m = weather.Map("snow");
      SnowDescription s;
      s.rate_mm_h = m.Number("rate_mm_h");
      s.min_diameter_mm = m.Number("min_diameter_mm", s.min_diameter_mm);
      s.flake_reflectance = m.Number("flake_reflectance", s.flake_reflectance);
      s.extinction_efficiency = m.Number("extinction_efficiency", s.extinction_efficiency);
      s.semantic_class =
          static_cast<uint16_t>(WholeNumber(m, "semantic_class", s.semantic_class, 65535, "65535"));
      d.weather.snow = s;
    }
    if (present(weather, "wet"))
      d.weather.wet = WetDescription{weather.Map("wet").Strings("materials")};
    if (present(weather, "spray")) {
      ConfigMap m = weather.Map("spray");
      SprayDescription s;
      s.visibility_m = m.Number("visibility_m");
      s.water_film_mm = m.Number("water_film_mm");
      s.lidar_ratio_sr = m.Number("lidar_ratio_sr", s.lidar_ratio_sr);
      s.semantic_class =
          static_cast<uint16_t>(WholeNumber(m, "semantic_class", s.semantic_class, 65535, "65535"));
      d.weather.spray = s;
    }
    if (present(weather, "cover")) {
      ConfigMap m = weather.Map("cover");
      CoverDescription c;
      for (ConfigMap& r : m.MapList("regions"))
        c.regions.push_back(ReadCoverRegion(r));
      c.window_range_m = m.Number("window_range_m", c.window_range_m);
      c.semantic_class =
          static_cast<uint16_t>(WholeNumber(m, "semantic_class", c.semantic_class, 65535, "65535"));
      d.weather.cover = c;
    }
  }
  if (Status s = root.FirstError(); !s.ok()) return s.error();
  ConfigCheck check;
  d.Check(check);
  if (!check.ok()) root.Fail(*check.problem());
  if (Status s = root.Finish(); !s.ok()) return s.error();
  return d;
}

// ---- building ----

// Checks a mesh as an object's (or a model's, named by the first object placing it).
Status CheckObjectMesh(const std::string& what, TriangleMesh& mesh, size_t* degenerate_dropped) {
  if (Status s = CleanMesh(mesh, what, degenerate_dropped); !s.ok()) return s.error();
  if (mesh.triangles.empty()) return Error{what + ": has no usable triangles"};
  return {};
}

// Models checked so far: each to the one to place (itself, or its cleaned copy).
using CheckedModels = std::map<const TriangleMesh*, std::shared_ptr<const TriangleMesh>>;

// Checks an object's mesh, takes it to world coordinates and adds the object to the scene. An
// instance's model stays in the model's frame and is checked once, by the first object placing
// it (a model made in code may hold what CleanMesh drops; its cleaned copy is placed instead).
Status AddObject(const std::string& where, SceneObject obj, Scene& scene, CheckedModels& checked) {
  const std::string what = where + ": object '" + obj.name + "'";
  if (obj.instanced()) {
    if (!obj.mesh.vertices.empty() || !obj.mesh.triangles.empty())
      return Error{what + ": has both a mesh and a model"};
    auto [it, first] = checked.emplace(obj.model.get(), obj.model);
    if (first) {
      TriangleMesh copy = *obj.model;
      size_t dropped = 0;
      if (Status s = CheckObjectMesh(what + "'s model", copy, &dropped); !s.ok()) return s;
      if (dropped > 0) {
        it->second = std::make_shared<const TriangleMesh>(std::move(copy));
        obj.degenerate_triangles_dropped = dropped;
      }
    }
    obj.model = it->second;
    scene.objects.push_back(std::move(obj));
    return {};
  }
  if (Status s = CheckObjectMesh(what, obj.mesh, &obj.degenerate_triangles_dropped); !s.ok()) {
    return s;
  }
  // To world coordinates.
  for (auto& v : obj.mesh.vertices) {
    const auto w = physics::TransformPoint(obj.pose, physics::Vec3<double>{v[0], v[1], v[2]});
    v = {w.x, w.y, w.z};
  }
  scene.objects.push_back(std::move(obj));
  return {};
}

// The material named by `key`, or 0 with the problem recorded.
uint32_t MaterialId(const MaterialLibrary& library, const std::string& library_file,
                    const std::string& name, const std::string& key, ConfigCheck& check) {
  const int id = library.Find(name);
  if (id < 0) check.Fail(key, "unknown material '" + name + "' (not in " + library_file + ")");
  return static_cast<uint32_t>(std::max(id, 0));
}

// A model placed by one object that does not move gains nothing from being an instance: it
// becomes a world mesh again, still geometry that the GPU's memory plan sizes and splits (a
// large scan read from a file, placed once).
// Each object on its own, several at a time (a reconstruction's 200 meshes are 100 MB to copy).
void FlattenSingleStillInstances(Scene& scene) {
  std::map<const TriangleMesh*, int> uses;
  for (const SceneObject& o : scene.objects)
    if (o.instanced()) ++uses[o.model.get()];
  std::vector<SceneObject*> single;
  for (SceneObject& o : scene.objects)
    if (o.instanced() && !o.motion.moving() && uses[o.model.get()] == 1) single.push_back(&o);
  ParallelFor(single.size(), [&](size_t i) {
    SceneObject& o = *single[i];
    o.mesh.vertices = VerticesAt(o, 0);
    o.mesh.triangles = o.model->triangles;
    o.model = nullptr;
  });
}

// The mesh files of a description's objects, each (file, scale) read once, several at a time:
// a reconstruction's scene is one PLY file per reflectance class (200 on an OS-1-128 fold,
// whose reading on one core was a third of its simulation step). Files that cannot be read
// (missing, a directory, a FIFO that would block) are left for Build to report in the objects'
// order; so are the loader's errors, kept by key.
using MeshKey = std::pair<std::string, double>;
std::map<MeshKey, Expected<TriangleMesh>> ReadMeshFiles(const SceneDescription& d,
                                                        const std::filesystem::path& directory,
                                                        const MeshLoader& mesh_loader) {
  std::map<MeshKey, Expected<TriangleMesh>> read;
  if (!mesh_loader) return read;
  std::vector<MeshKey> keys;
  std::set<MeshKey> seen;
  for (const SceneObjectDescription& o : d.objects) {
    if (o.type != "mesh") continue;
    const std::filesystem::path path = Resolve(directory, o.file);
    MeshKey key{path.string(), o.scale};
    if (seen.insert(key).second && CheckReadableFile(path).ok()) keys.push_back(std::move(key));
  }
  std::vector<std::optional<Expected<TriangleMesh>>> meshes(keys.size());
  ParallelFor(keys.size(), [&](size_t i) {
    try {  // an allocation failing: reported as the file's, not thrown from a worker thread
      meshes[i] = mesh_loader(keys[i].first);
    } catch (const std::exception& e) {
      meshes[i] = Error{keys[i].first + ": cannot read mesh: " + e.what()};
    }
  });
  for (size_t i = 0; i < keys.size(); ++i)
    read.emplace(std::move(keys[i]), std::move(*meshes[i]));
  return read;
}

// The mesh ReadMeshFiles read for `key`, moved out (the file is read now if it was not then).
Expected<TriangleMesh> TakeMesh(std::map<MeshKey, Expected<TriangleMesh>>& read, const MeshKey& key,
                                const MeshLoader& mesh_loader) {
  const auto it = read.find(key);
  if (it == read.end()) return mesh_loader(key.first);
  Expected<TriangleMesh> mesh = std::move(it->second);
  read.erase(it);
  return mesh;
}

// Makes the objects of a valid description. Problems with a key go to `check` (and the result
// is an empty Error); problems with a mesh are an Error naming `where` and the object.
Expected<Scene> Build(const SceneDescription& d, const std::filesystem::path& directory,
                      const MeshLoader& mesh_loader, ConfigCheck& check, const std::string& where) {
  Scene scene;
  scene.description = d;
  const std::filesystem::path library_file = Resolve(directory, d.materials);
  auto library = LoadMaterialLibrary(library_file);
  if (!library.ok()) {
    check.Fail("materials", library.message());
    return Error{""};
  }
  scene.materials = std::move(library.value());
  // Mesh files read so far, by path and scale: each is stored once and placed as instances.
  std::map<std::pair<std::string, double>, std::shared_ptr<const TriangleMesh>> models;
  std::map<MeshKey, Expected<TriangleMesh>> read = ReadMeshFiles(d, directory, mesh_loader);
  CheckedModels checked;
  for (size_t i = 0; i < d.objects.size(); ++i) {
    const SceneObjectDescription& o = d.objects[i];
    ConfigCheck entry = check.Sub("objects", i);
    const double k = physics::kDegToRad;
    const physics::Pose<double> pose{
        physics::QuatFromRollPitchYaw(o.rotation_deg[0] * k, o.rotation_deg[1] * k,
                                      o.rotation_deg[2] * k),
        {o.position_m[0], o.position_m[1], o.position_m[2]}};
    if (o.type == "forest") {
      const uint32_t trunk = MaterialId(scene.materials, library_file.string(),
                                        o.forest.trunk_material, "trunk_material", entry);
      const uint32_t foliage = MaterialId(scene.materials, library_file.string(),
                                          o.forest.foliage_material, "foliage_material", entry);
      if (!check.ok()) return Error{""};
      for (SceneObject& part : MakeForest(o.forest, o.name, pose, trunk, foliage)) {
        if (Status s = AddObject(where, std::move(part), scene, checked); !s.ok()) return s.error();
      }
      continue;
    }
    if (o.type == "street") {
      const std::string lib = library_file.string();
      const StreetDescription& st = o.street;
      const StreetMaterials ids{
          MaterialId(scene.materials, lib, st.road_material, "road_material", entry),
          MaterialId(scene.materials, lib, st.building_material, "building_material", entry),
          MaterialId(scene.materials, lib, st.car_material, "car_material", entry),
          MaterialId(scene.materials, lib, st.pedestrian_material, "pedestrian_material", entry)};
      if (!check.ok()) return Error{""};
      for (SceneObject& part : MakeStreet(st, o.name, pose, ids)) {
        if (Status s = AddObject(where, std::move(part), scene, checked); !s.ok()) return s.error();
      }
      continue;
    }
    SceneObject obj;
    obj.name = o.name;
    obj.type = o.type;
    obj.pose = pose;
    obj.material_id =
        MaterialId(scene.materials, library_file.string(), o.material, "material", entry);
    obj.semantic_class = o.semantic_class;
    obj.instance_id = o.instance_id;
    obj.motion = {o.velocity_m_s, o.yaw_rate_deg_s * k};
    if (o.type == "plate") {
      obj.size_m = {o.size_m[0], o.size_m[1], 0};
      obj.mesh = MakePlate(o.size_m[0], o.size_m[1]);
    } else if (o.type == "plane") {
      obj.size_m = {o.size_m[0], o.size_m[1], 0};
      obj.mesh = MakePlane(o.size_m[0], o.size_m[1]);
    } else if (o.type == "box") {
      obj.size_m = {o.size_m[0], o.size_m[1], o.size_m[2]};
      obj.mesh = MakeBox(o.size_m[0], o.size_m[1], o.size_m[2]);
    } else if (o.type == "disc") {
      obj.size_m = {o.radius_m, 0, 0};
      obj.mesh = MakeDisc(o.radius_m, static_cast<int>(o.segments));
    } else if (o.type == "mesh") {
      const std::filesystem::path path = Resolve(directory, o.file);
      if (!mesh_loader) {
        entry.Fail("file", "this build has no mesh loader (built without Open3D)");
      } else if (Status readable = CheckReadableFile(path); !readable.ok()) {
        // Missing, unreadable, a FIFO (which would block the loader) or a directory.
        entry.Fail("file", "mesh file " + readable.message());
      } else if (auto cached = models.find({path.string(), o.scale}); cached != models.end()) {
        // The same file at the same scale: one more instance of the model read before (its
        // dropped triangles reported with the first).
        obj.model = cached->second;
      } else if (auto mesh = TakeMesh(read, {path.string(), o.scale}, mesh_loader); !mesh.ok()) {
        entry.Fail("file", mesh.message());
      } else {
        for (auto& v : mesh->vertices) {
          for (double& c : v)
            c *= o.scale;
        }
        if (Status s = CheckObjectMesh(where + ": object '" + o.name + "'", mesh.value(),
                                       &obj.degenerate_triangles_dropped);
            !s.ok()) {
          return s.error();
        }
        obj.model = std::make_shared<const TriangleMesh>(std::move(mesh.value()));
        models[{path.string(), o.scale}] = obj.model;
        checked.emplace(obj.model.get(), obj.model);  // cleaned above
      }
    }
    if (!check.ok()) return Error{""};
    if (Status s = AddObject(where, std::move(obj), scene, checked); !s.ok()) return s.error();
  }
  // The wet materials, after the objects' own (whose problems a reader looks for first).
  if (d.weather.wet) {
    ConfigCheck wet = check.Sub("weather").Sub("wet");
    for (const std::string& name : d.weather.wet->materials)
      MaterialId(scene.materials, library_file.string(), name, "materials", wet);
    if (!check.ok()) return Error{""};
  }
  FlattenSingleStillInstances(scene);
  return scene;
}

}  // namespace

// ---- validation ----

namespace {
// An object's sizes reach at most across the positions it may have (kMaxPositionM either side);
// a mesh scale beyond 1e6 turns a metre into 1,000 km. 1e308 was accepted (issue 36).
constexpr double kMostObjectSizeM = 2 * kMaxPositionM;
constexpr double kMostMeshScale = 1e6;
}  // namespace

void SceneObjectDescription::Check(ConfigCheck& check) const {
  if (name.empty()) check.Fail("name", "must not be empty");
  if (!KnownObjectType(type)) {
    check.Fail("type", "unknown object type '" + type + "' (expected " + ObjectTypeChoices() + ")");
    return;
  }
  if (const std::string problem = PositionLimitProblem(position_m[0], position_m[1], position_m[2]);
      !problem.empty()) {
    check.Fail("position_m", problem);
  }
  if (const std::string problem =
          AngleLimitProblem(rotation_deg[0], rotation_deg[1], rotation_deg[2]);
      !problem.empty()) {
    check.Fail("rotation_deg", problem);
  }
  if (type == "forest") {
    forest.Check(check);  // its keys sit in the entry itself
    return;
  }
  if (type == "street") {
    street.Check(check);
    return;
  }
  if (material.empty()) check.Fail("material", "must name a material of the library");
  for (double v : velocity_m_s) {
    if (!(std::abs(v) <= kMostSpeedMS)) {
      check.Fail("velocity_m_s", "each component must be within +-1e4 m/s, got " + NumberText(v));
      break;
    }
  }
  if (!(std::abs(yaw_rate_deg_s) <= kMostYawRateDegS))
    check.Fail("yaw_rate_deg_s", "must be within +-1e6 deg/s, got " + NumberText(yaw_rate_deg_s));
  if (type == "plate" || type == "plane" || type == "box") {
    const size_t count = type == "box" ? 3 : 2;
    if (size_m.size() != count) {
      check.Fail("size_m", "expected " + std::to_string(count) + " numbers, got " +
                               std::to_string(size_m.size()));
    }
    for (double s : size_m) {
      if (!(s > 0 && std::isfinite(s))) {
        check.Fail("size_m", "sizes must be positive, got " + NumberText(s));
        break;
      }
      if (s > kMostObjectSizeM) {
        check.Fail("size_m", "sizes must be at most 2e7 m, got " + NumberText(s));
        break;
      }
    }
  } else if (type == "disc") {
    if (!(radius_m > 0 && std::isfinite(radius_m)))
      check.Fail("radius_m", "must be positive, got " + NumberText(radius_m));
    else if (radius_m > kMostObjectSizeM)
      check.Fail("radius_m", "must be at most 2e7 m, got " + NumberText(radius_m));
    if (segments < 3 || segments > 1000000) {
      check.Fail("segments",
                 "must be a whole number in 3..1000000, got " + std::to_string(segments));
    }
  } else if (type == "mesh") {
    if (file.empty()) check.Fail("file", "must name a mesh file");
    if (!(scale > 0 && std::isfinite(scale)))
      check.Fail("scale", "must be positive, got " + NumberText(scale));
    else if (scale > kMostMeshScale)
      check.Fail("scale", "must be at most 1e6, got " + NumberText(scale));
  }
}

namespace {

// A precipitation's rate in (0, most], its least particle diameter in [0.1, 6) mm and its
// extinction efficiency in [1, 2].
void CheckPrecipitation(ConfigCheck check, double rate_mm_h, double most_mm_h,
                        double min_diameter_mm, double extinction_efficiency,
                        const std::string& what) {
  if (!(extinction_efficiency >= 1 && extinction_efficiency <= 2)) {
    check.Fail("extinction_efficiency",
               "must be in [1, 2] (2: the diffracted light lost, 1: all of it received), got " +
                   NumberText(extinction_efficiency));
  }
  if (!(rate_mm_h > 0 && rate_mm_h <= most_mm_h)) {
    check.Fail("rate_mm_h", "must be " + what + " in (0, " + NumberText(most_mm_h) +
                                "] mm/h, got " + NumberText(rate_mm_h));
  }
  if (!(min_diameter_mm >= kLeastParticleMm && min_diameter_mm < kMostDropMm)) {
    check.Fail("min_diameter_mm", "must be in [0.1, 6) mm (drops larger than 6 mm break up), got " +
                                      NumberText(min_diameter_mm));
  }
}

}  // namespace

namespace {

// A volume's lidar ratio (fog, spray: key paths relative to it).
void CheckLidarRatio(ConfigCheck check, double s) {
  if (!(s >= kLeastLidarRatioSr && s <= kMostLidarRatioSr)) {
    check.Fail("lidar_ratio_sr",
               "must be an extinction-to-backscatter ratio in [5, 200] sr, got " + NumberText(s));
  }
}

// weather.cover's regions and window (key paths relative to `cover`).
void CheckCover(ConfigCheck check, const CoverDescription& c) {
  if (c.regions.empty() || c.regions.size() > physics::kMostCoverRegions) {
    check.Fail("regions", "must list 1 to " + std::to_string(physics::kMostCoverRegions) +
                              " regions of the window, got " + std::to_string(c.regions.size()));
  }
  for (size_t i = 0; i < c.regions.size(); ++i) {
    const CoverRegionDescription& r = c.regions[i];
    ConfigCheck region = check.Sub("regions", i);
    const double span = r.azimuth_deg[1] - r.azimuth_deg[0];
    if (!(std::abs(r.azimuth_deg[0]) <= 360 && std::abs(r.azimuth_deg[1]) <= 360 && span > 0 &&
          span <= 360)) {
      region.Fail("azimuth_deg",
                  "must be [from, to] within [-360, 360] with 0 < to - from <= 360, got [" +
                      NumberText(r.azimuth_deg[0]) + ", " + NumberText(r.azimuth_deg[1]) + "]");
    }
    if (!(r.elevation_deg[0] >= -90 && r.elevation_deg[1] <= 90 &&
          r.elevation_deg[0] < r.elevation_deg[1])) {
      region.Fail("elevation_deg", "must be [from, to] within [-90, 90] with from < to, got [" +
                                       NumberText(r.elevation_deg[0]) + ", " +
                                       NumberText(r.elevation_deg[1]) + "]");
    }
    if (!(r.transmission > 0 && r.transmission <= 1)) {
      region.Fail("transmission", "must be the window's one-way transmission in (0, 1], got " +
                                      NumberText(r.transmission));
    }
    if (!(r.backscatter >= 0 && r.backscatter <= kMostCoverBackscatter)) {
      region.Fail("backscatter",
                  "must be the share of the emitted pulse sent back in [0, 0.01], got " +
                      NumberText(r.backscatter));
    }
  }
  if (!(c.window_range_m >= 0 && c.window_range_m <= kMostWindowRangeM)) {
    check.Fail("window_range_m",
               "must be the window's distance along the beam in [0, 0.1] m, got " +
                   NumberText(c.window_range_m));
  }
}

}  // namespace

void WeatherDescription::Check(ConfigCheck& check) const {
  if (fog) {
    const double v = fog->visibility_m;
    if (!(v >= kLeastVisibilityM && v <= kMostVisibilityM)) {
      check.Sub("fog").Fail(
          "visibility_m",
          "must be a meteorological optical range in [5, 100000] m, got " + NumberText(v));
    }
    CheckLidarRatio(check.Sub("fog"), fog->lidar_ratio_sr);
  }
  if (rain) {
    CheckPrecipitation(check.Sub("rain"), rain->rate_mm_h, kMostRainMmH, rain->min_diameter_mm,
                       rain->extinction_efficiency, "a rain rate");
  }
  if (snow) {
    CheckPrecipitation(check.Sub("snow"), snow->rate_mm_h, kMostSnowMmH, snow->min_diameter_mm,
                       snow->extinction_efficiency, "a snowfall rate as melted water");
    if (!(snow->flake_reflectance >= 0 && snow->flake_reflectance <= 1)) {
      check.Sub("snow").Fail("flake_reflectance",
                             "must be in [0, 1], got " + NumberText(snow->flake_reflectance));
    }
  }
  if (wet && wet->materials.empty())
    check.Sub("wet").Fail("materials", "must name at least one material");
  if (cover) CheckCover(check.Sub("cover"), *cover);
  if (spray) {
    const double v = spray->visibility_m;
    if (!(v >= kLeastSprayVisibilityM && v <= kMostVisibilityM)) {
      check.Sub("spray").Fail(
          "visibility_m",
          "must be the meteorological optical range inside a fresh spray cluster in [1, 100000] "
          "m, got " +
              NumberText(v));
    }
    const double h = spray->water_film_mm;
    if (!(h > 0 && h <= kMostWaterFilmMm)) {
      check.Sub("spray").Fail("water_film_mm",
                              "must be the road's water film in (0, 10] mm, got " + NumberText(h));
    }
    CheckLidarRatio(check.Sub("spray"), spray->lidar_ratio_sr);
  }
}

std::string WeatherDescription::Keys() const {
  std::string out;
  for (const auto& [key, present] : {std::pair<const char*, bool>{"weather.fog", fog.has_value()},
                                     {"weather.rain", rain.has_value()},
                                     {"weather.snow", snow.has_value()},
                                     {"weather.wet", wet.has_value()},
                                     {"weather.cover", cover.has_value()},
                                     {"weather.spray", spray.has_value()}}) {
    if (!present) continue;
    if (!out.empty()) out += ", ";
    out += key;
  }
  return out;
}

void SceneDescription::Check(ConfigCheck& check) const {
  if (materials.empty()) check.Fail("materials", "must name a material library");
  if (objects.empty()) check.Fail("objects", "the scene has no objects");
  if (!(sunlight >= 0 && sunlight <= 2)) {
    check.Fail("sunlight", "must be a fraction of the ASTM G173 spectrum in [0, 2], got " +
                               NumberText(sunlight));
  }
  if (weather.Any()) {
    ConfigCheck w = check.Sub("weather");
    weather.Check(w);
  }
  double forest_triangles = 0;
  for (size_t i = 0; i < objects.size(); ++i) {
    ConfigCheck entry = check.Sub("objects", i);
    objects[i].Check(entry);
    if (objects[i].type == "forest") forest_triangles += ForestTriangles(objects[i].forest.params);
    if (objects[i].type == "street" && entry.ok())
      forest_triangles += StreetTriangles(objects[i].street.params);
  }
  // The cap is the scene's, not each forest's or street's: three forests within it each took
  // 6.9 GB together (issue 36).
  if (forest_triangles > kMostForestTriangles) {
    check.Fail("objects", "the scene's forests and streets make " + NumberText(forest_triangles) +
                              " triangles together, more than 2 x 10^7");
  }
}

Status SceneDescription::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("scene");
}

// ---- entry points ----

Expected<SceneDescription> ParseSceneDescription(const std::string& yaml_text,
                                                 const std::filesystem::path& file) {
  auto parsed = ConfigMap::FromText(yaml_text, file.string());
  if (!parsed.ok()) return parsed.error();
  return ReadDescription(parsed.value());
}

Expected<SceneDescription> LoadSceneDescription(const std::filesystem::path& file) {
  auto text = ReadTextFile(file, " scene");
  if (!text.ok()) return text.error();
  return ParseSceneDescription(*text, file);
}

Expected<Scene> BuildScene(const SceneDescription& description,
                           const std::filesystem::path& directory, const MeshLoader& mesh_loader) {
  ConfigCheck check;
  description.Check(check);
  if (!check.ok()) return check.ToStatus("scene").error();
  auto scene = Build(description, directory, mesh_loader, check, "scene");
  if (!check.ok()) return check.ToStatus("scene").error();
  if (!scene.ok()) return scene.error();
  scene->source_text = SaveScene(description);
  return scene;
}

Expected<Scene> LoadScene(const std::filesystem::path& file, const MeshLoader& mesh_loader) {
  auto text = ReadTextFile(file, " scene");
  if (!text.ok()) return text.error();
  auto parsed = ConfigMap::FromText(*text, file.string());
  if (!parsed.ok()) return parsed.error();
  ConfigMap& root = parsed.value();
  auto description = ReadDescription(root);
  if (!description.ok()) return description.error();
  ConfigCheck check;
  auto scene = Build(*description, file.parent_path(), mesh_loader, check, file.string());
  if (!check.ok()) {
    root.Fail(*check.problem());
    return root.FirstError().error();
  }
  if (!scene.ok()) return scene.error();
  scene->source_text = std::move(*text);
  return scene;
}

}  // namespace lt
