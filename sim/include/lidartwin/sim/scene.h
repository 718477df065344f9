// Scene: triangles with per-object material, semantic class and instance id.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/status.h"
#include "lidartwin/physics/pose.h"
#include "lidartwin/physics/rigid_transform.h"
#include "lidartwin/sim/material_library.h"

namespace lt {

struct TriangleMesh {
  std::vector<std::array<double, 3>> vertices;
  std::vector<std::array<uint32_t, 3>> triangles;
};

// Rigid motion of an object from scene time 0 (where its pose puts it): translation at a
// constant velocity and a constant yaw rate about the world z axis through its position.
struct ObjectMotion {
  std::array<double, 3> velocity_m_s{0, 0, 0};
  double yaw_rate_rad_s = 0;
  bool moving() const {
    return velocity_m_s[0] != 0 || velocity_m_s[1] != 0 || velocity_m_s[2] != 0 ||
           yaw_rate_rad_s != 0;
  }
};

struct SceneObject {
  std::string name;
  std::string type;  // plane, box, disc, plate, mesh, forest, street
  uint32_t material_id = 0;
  uint16_t semantic_class = 0;
  uint32_t instance_id = 0;
  physics::Pose<double> pose{{1, 0, 0, 0}, {0, 0, 0}};
  std::array<double, 3> size_m{0, 0, 0};  // plate/plane: width, height; box: x y z; disc: r
  TriangleMesh mesh;                      // world coordinates at scene time 0 (not an instance)
  // An instance of a model (issue 42, docs/adr/0030): the model's triangles in the object's
  // local frame, stored once and shared by every object placed from it (a street's cars, the
  // mesh entries of one file at one scale); `mesh` is then empty and the pose (moved by the
  // motion) places the model in the world.
  std::shared_ptr<const TriangleMesh> model;
  ObjectMotion motion;
  size_t degenerate_triangles_dropped = 0;

  bool instanced() const { return model != nullptr; }
  // The triangles as stored: the model's (local frame) or the mesh (world at time 0).
  const TriangleMesh& stored() const { return model ? *model : mesh; }
  // Placed by a transform in the ray casters' top-level tree (an instance, or a moving object
  // whose mesh is moved rigidly), rather than flattened with the still geometry.
  bool placed() const { return instanced() || motion.moving(); }
};

// Loads a mesh file (PLY, OBJ) into local coordinates. Supplied by an adapter outside the
// simulator core (datasets/ uses Open3D), so the core builds without Open3D. The scene's
// loader calls it from several threads at once, one file each: it must be safe to do so.
using MeshLoader = std::function<Expected<TriangleMesh>(const std::filesystem::path&)>;

// Procedural primitives in local coordinates (see configs/README.md for their frames).
TriangleMesh MakePlate(double width_m, double height_m);   // in local y-z, normal +x
TriangleMesh MakePlane(double size_x_m, double size_y_m);  // in local x-y, normal +z
TriangleMesh MakeBox(double size_x_m, double size_y_m, double size_z_m);
TriangleMesh MakeDisc(double radius_m, int segments);  // in local y-z, normal +x
// A superellipsoid |x/a|^(2/e) + |y/b|^(2/e) + |z/c|^(2/e) = 1 (e = 1 an ellipsoid, towards 0 a
// box) of the given extents, standing on z = 0 with its centre above the origin, x its length,
// of about `triangles` triangles (2 nu (nv - 1) with nu = 2 (nv - 1)).
TriangleMesh MakeSuperellipsoid(double size_x_m, double size_y_m, double size_z_m, double exponent,
                                double triangles);

// Procedural forest (seed 001 sec. 3 and Fig. 3: canopies that let part of the pulses through
// to the ground). Trees stand on the local x-y plane (z up) of the forest, one per cell of a
// grid over the area, at a random place in their cell; each has a trunk, a prism of
// kForestTrunkSides sides from the ground to the crown centre, and a crown, a sphere
// holding leaves_per_tree leaves: equilateral triangles of side leaf_size_m with centres
// uniform in the sphere and orientations uniform on the sphere. The gaps between them let
// rays through: a vertical ray crossing a crown along a chord of length L gets through with
// probability exp(-G a n L / V) (G = 1/2 for isotropic leaves, a the leaf area, n the leaves,
// V the crown volume). Every draw is Philox4x32-10 keyed by `seed`, so the same seed gives the
// same triangles on every machine. Keys and defaults: configs/README.md.
struct ForestParams {
  double area_x_m = 0;  // the stems stand in this rectangle, centred on the origin
  double area_y_m = 0;
  uint32_t tree_count = 0;
  double trunk_height_m = 8;  // ground to the crown centre
  double trunk_radius_m = 0.2;
  double crown_radius_m = 3;
  double leaf_size_m = 0.25;  // side of a leaf triangle
  uint32_t leaves_per_tree = 2000;
  double size_variation = 0;  // each tree scaled by a factor uniform in [1 - v, 1 + v]
  uint64_t seed = 0;
};

inline constexpr int kForestTrunkSides = 8;
inline constexpr uint32_t kForestTrunkTriangles = 2 * kForestTrunkSides + kForestTrunkSides - 2;

struct ForestTree {
  double x_m = 0, y_m = 0;  // stem position on the forest's ground
  double scale = 1;         // trunk height and radius, crown radius x scale
};

// The grid of cells: columns x rows >= tree_count, cells as square as the area allows.
struct ForestGrid {
  uint32_t columns = 0, rows = 0;
  double cell_x_m = 0, cell_y_m = 0;
};
ForestGrid ForestCells(const ForestParams& p);

// Where the trees stand: tree_count distinct cells drawn at random, each stem at a uniform
// place in its cell at least its trunk radius from the cell's edges (stems never touch).
std::vector<ForestTree> PlaceForestTrees(const ForestParams& p);

struct ForestTreeMesh {
  TriangleMesh trunk;    // kForestTrunkTriangles triangles: the sides and the top
  TriangleMesh foliage;  // leaves_per_tree triangles
};
// Tree `index` (its own random stream) in the forest's local coordinates.
ForestTreeMesh MakeForestTree(const ForestParams& p, uint32_t index, const ForestTree& tree);

// Procedural street (issue 42: traffic, not lab plates): a grid of city blocks, each a
// building on its own ground tile behind a sidewalk, streets between them, cars driving along
// the streets' lanes and pedestrians walking along the sidewalks, at constant velocities (the
// scene's motion model). The buildings' facades are subdivided into quads so that the city
// holds about city_triangles triangles (a city mesh of 10^6-10^7); every car is one car mesh
// of about car_triangles (a rounded box 4.5 x 1.8 x 1.5 m, a superellipsoid), every pedestrian
// one of about pedestrian_triangles (0.5 x 0.35 x 1.75 m): the same mesh placed many times,
// as a traffic scene repeats its models. Draws from a Philox4x32-10 stream keyed by `seed`.
// The city's local frame: x east, y north, z up, the ground at z = 0, the city's south-west
// corner at the origin. Keys and defaults: configs/README.md, "Streets".
struct StreetParams {
  uint32_t blocks_x = 4, blocks_y = 4;
  double block_m = 60;   // a block's side, sidewalk included
  double street_m = 14;  // road width between blocks: two lanes each way
  double sidewalk_m = 3;
  double building_height_min_m = 8, building_height_max_m = 40;
  double city_triangles = 1e6;
  uint32_t cars = 50;
  double car_triangles = 2e4;
  double car_speed_min_m_s = 5, car_speed_max_m_s = 15;
  uint32_t pedestrians = 20;
  double pedestrian_triangles = 1e4;
  double pedestrian_speed_m_s = 1.4;
  uint64_t seed = 0;
};

// The keys of a `type: street` entry besides name, type and pose.
struct StreetDescription {
  StreetParams params;
  std::string road_material, building_material, car_material, pedestrian_material;
  // LAS 1.4: 11 road surface, 6 building; 64 and 65 (user-defined) cars and pedestrians.
  uint16_t road_semantic_class = 11, building_semantic_class = 6;
  uint16_t car_semantic_class = 64, pedestrian_semantic_class = 65;
  uint32_t first_instance_id = 1;  // buildings, then cars, then pedestrians, one id each

  // Ranges and the geometry as a whole (key paths relative to the entry).
  void Check(ConfigCheck& check) const;
};

// The triangles a street makes (the quads' subdivision rounds city_triangles).
double StreetTriangles(const StreetParams& params);
// The lanes' 10 m slots clear of the crossings, and the sidewalks' 2 m slots clear of the
// blocks' corners: at most half of each may hold a car or a pedestrian.
uint64_t StreetCarSlots(const StreetParams& params);
uint64_t StreetWalkSlots(const StreetParams& params);

// ---- The scene file as written (configs/README.md, "Scenes") ----
// What SaveScene writes and LoadScene reads before it makes the meshes. Paths are as the
// file's reader should open them: LoadSceneDescription makes them absolute; relative ones
// (built in code) resolve against the directory of the scene file they are written into.

// The object types, in the order messages list them.
inline constexpr const char* kSceneObjectTypes[] = {"plane", "box",    "disc",  "plate",
                                                    "mesh",  "forest", "street"};

// The keys of a `type: forest` entry besides name, type and pose.
struct ForestDescription {
  ForestParams params;
  std::string trunk_material, foliage_material;
  uint16_t trunk_semantic_class = 5;  // LAS 1.4 class 5: high vegetation
  uint16_t foliage_semantic_class = 5;
  uint32_t first_instance_id = 1;  // tree k has first_instance_id + k

  // Ranges and the geometry as a whole: area positive, 1..10^6 trees whose stems fit their
  // cells, positive lengths, the crown above the ground, at most 2 x 10^7 triangles, ids that
  // fit in 32 bits, a seed that survives YAML's doubles (<= 2^53).
  void Check(ConfigCheck& check) const;
};

// One entry of `objects`.
struct SceneObjectDescription {
  std::string name;
  std::string type;  // one of kSceneObjectTypes
  std::array<double, 3> position_m{0, 0, 0};
  std::array<double, 3> rotation_deg{0, 0, 0};  // roll, pitch, yaw (R = Rz Ry Rx)
  // Every type but forest:
  std::string material;
  uint16_t semantic_class = 0;
  uint32_t instance_id = 0;
  std::array<double, 3> velocity_m_s{0, 0, 0};
  double yaw_rate_deg_s = 0;
  // plate, plane: [width, height]; box: [x, y, z].
  std::vector<double> size_m;
  // disc:
  double radius_m = 0;
  uint32_t segments = 128;
  // mesh:
  std::string file;
  double scale = 1;
  // forest:
  ForestDescription forest;
  // street:
  StreetDescription street;

  // The keys its type takes, each in range (key paths relative to the entry).
  void Check(ConfigCheck& check) const;
};

// Fog or haze on the whole scene (physics/fog.h): its visibility as meteorological optical
// range. It attenuates the return signal over both paths and, with `backscatter`, returns light
// of its own (its backscatter coefficient its extinction over `lidar_ratio_sr`; the default is
// physics::kWaterFogLidarRatioSr, water droplets): the near-range hump and, in dense fog,
// echoes labelled `semantic_class`.
struct FogDescription {
  double visibility_m = 0;  // MOR [m], in [kLeastVisibilityM, kMostVisibilityM]
  bool backscatter = true;
  double lidar_ratio_sr = 18.8;  // [kLeastLidarRatioSr, kMostLidarRatioSr]
  uint16_t semantic_class = 102;
};
// Visibility within range: below 5 m (denser than the fog chambers' densest) a 10 % target
// would be lost within a metre; above 100 km the air is as clear as the profile's own
// extinction.
inline constexpr double kLeastVisibilityM = 5;
inline constexpr double kMostVisibilityM = 1e5;
// Lidar ratios within range: water fog and clouds 18-20 sr, aerosols up to about 100 sr.
inline constexpr double kLeastLidarRatioSr = 5;
inline constexpr double kMostLidarRatioSr = 200;

// Rain and snow on the whole scene (physics/precipitation.h): falling particles of an
// exponential size distribution, each a point scatterer along the beams, and the extinction of
// all of them. Particles at least min_diameter_mm across are drawn one by one; smaller ones
// only attenuate. Their echoes carry `semantic_class` and an instance of their own.
// `extinction_efficiency` (Q_ext, [1, 2]): 2 for a receiver that loses the light the
// particles diffract forward, nearer 1 for one whose field of view takes it back
// (physics::PrecipitationExtinctionPerM).
struct RainDescription {
  double rate_mm_h = 0;          // (0, kMostRainMmH], Marshall-Palmer
  double min_diameter_mm = 0.5;  // [kLeastParticleMm, kMostDropMm)
  uint16_t semantic_class = 101;
  double extinction_efficiency = 2;
};
struct SnowDescription {
  double rate_mm_h = 0;            // melted water, (0, kMostSnowMmH], Gunn-Marshall
  double min_diameter_mm = 0.5;    // melted, [kLeastParticleMm, kMostDropMm)
  double flake_reflectance = 0.8;  // at the sensor's wavelength, [0, 1]
  uint16_t semantic_class = 103;
  double extinction_efficiency = 2;
};
// Heavier than the heaviest recorded rain rates over minutes (about 300 mm/h); snow's water
// equivalent rarely passes 10 mm/h.
inline constexpr double kMostRainMmH = 300;
inline constexpr double kMostSnowMmH = 50;
// Drops above about 6 mm break up as they fall (Pruppacher and Klett, "Microphysics of Clouds
// and Precipitation", 1997, sec. 10.3.5); the size distribution is cut there. Below 0.1 mm a
// drop's echo is 3600 times weaker than a 6 mm one's.
inline constexpr double kLeastParticleMm = 0.1;
inline constexpr double kMostDropMm = 6;

// Surfaces under a film of water (physics/wet_surface.h): the objects of these materials, the
// film thicker than their texture. Names are checked against the library when the scene is
// built.
struct WetDescription {
  std::vector<std::string> materials;
};

// A dirty or wet cover (physics/cover.h): regions of the sensor's window, each with its
// one-way transmission and the share of the emitted pulse it scatters back into the receiver.
// Angles in the sensor's frame [deg]: azimuth from azimuth_deg[0] to azimuth_deg[1] (may
// straddle +-180), elevation from elevation_deg[0] to elevation_deg[1].
struct CoverRegionDescription {
  double azimuth_deg[2] = {-180, 180};
  double elevation_deg[2] = {-90, 90};
  double transmission = 1;  // (0, 1]
  double backscatter = 0;   // [0, kMostCoverBackscatter]
};
struct CoverDescription {
  std::vector<CoverRegionDescription> regions;  // 1 .. physics::kMostCoverRegions
  double window_range_m = 0.02;                 // [0, kMostWindowRangeM]: where its echo is
  uint16_t semantic_class = 104;
};
// A window that sends back 1 % of the emitted pulse is blind, not dirty; a window 10 cm from
// the emitter is not a sensor's cover.
inline constexpr double kMostCoverBackscatter = 1e-2;
inline constexpr double kMostWindowRangeM = 0.1;

// Road spray (physics/spray.h): every object moving faster than 50 km/h on a road under a
// film of `water_film_mm` throws up clusters of drops behind it (Linnhoff et al.'s model), each
// as dense as a fog of MOR `visibility_m` when fresh, thinning as it ages. They dim what lies
// behind them and return light of their own (lidar ratio `lidar_ratio_sr`), labelled
// `semantic_class` with an instance per vehicle's plume.
struct SprayDescription {
  double visibility_m = 0;   // inside a fresh cluster, [kLeastSprayVisibilityM, kMostVisibilityM]
  double water_film_mm = 0;  // (0, kMostWaterFilmMm]
  double lidar_ratio_sr = 18.8;
  uint16_t semantic_class = 105;
};
inline constexpr double kLeastSprayVisibilityM = 1;
// Deeper than 10 mm water is a flooded road, not a film.
inline constexpr double kMostWaterFilmMm = 10;

// The scene's weather (issue 43, docs/physics.md "Weather"): only the detectors that read the
// return signal (threshold, waveform) can simulate it.
struct WeatherDescription {
  std::optional<FogDescription> fog;
  std::optional<RainDescription> rain;
  std::optional<SnowDescription> snow;
  std::optional<WetDescription> wet;
  std::optional<CoverDescription> cover;
  std::optional<SprayDescription> spray;
  bool Any() const { return fog || rain || snow || wet || cover || spray; }
  // The weather's keys present, as `weather.fog, weather.rain`.
  std::string Keys() const;
  // Key paths relative to `weather`.
  void Check(ConfigCheck& check) const;
};

struct SceneDescription {
  std::string materials;  // the material library
  std::vector<SceneObjectDescription> objects;
  // Sunlight on the scene as a fraction of the ASTM G173 global-tilt spectrum (1000 W/m^2 in
  // all; 0: night or a lab). Only the waveform detector sees it (seed 002 eq. 4).
  double sunlight = 0;
  WeatherDescription weather;

  // A library named, at least one object, each object valid (`objects[i]...`). Material
  // names are checked against the library when the scene is built.
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

struct Scene {
  std::vector<SceneObject> objects;
  MaterialLibrary materials;
  SceneDescription description;  // what the objects were made from
  std::string source_text;       // the scene YAML as read (as written, when built in code)
  // Triangles stored: each model once, however many objects place it.
  size_t TriangleCount() const;
  bool HasMovingObjects() const;
};

// Checks a mesh: NaN/inf vertices and out-of-range indices are errors (named by `what`);
// degenerate triangles (zero area) are removed and counted.
Status CleanMesh(TriangleMesh& mesh, const std::string& what, size_t* degenerate_dropped);

// The rigid transform from an object's stored vertices to the world at scene time t_s. Its
// motion turns it by Rz(w t) about the vertical through its position c and moves it by v t:
// an instance is placed by x = Rz(w t) R_pose m + c + v t, a world mesh moved by
// x = c + Rz(w t) (x(0) - c) + v t (the identity for a still one).
physics::RigidTransform StoredToWorld(const SceneObject& object, double t_s);
// World vertices of an object at scene time t_s: its stored vertices through StoredToWorld.
std::vector<std::array<double, 3>> VerticesAt(const SceneObject& object, double t_s);
// The model's triangle count placed as many times as it is: what a flattened scene would hold.
size_t PlacedTriangleCount(const Scene& scene);

// Reads a scene YAML into its description (paths made absolute) and validates it; errors
// name the file, the key path and its line. Meshes and the material library are not read.
Expected<SceneDescription> LoadSceneDescription(const std::filesystem::path& file);
Expected<SceneDescription> ParseSceneDescription(const std::string& yaml_text,
                                                 const std::filesystem::path& file);

// Makes the scene a description describes: validates it, loads the material library, makes
// the primitives and forests, loads the meshes, and places every object in the world.
// Relative paths resolve against `directory`. Errors name the key path ("objects[2].material:
// unknown material ...").
Expected<Scene> BuildScene(const SceneDescription& description,
                           const std::filesystem::path& directory, const MeshLoader& mesh_loader);

// Loads a scene YAML: LoadSceneDescription, then BuildScene, errors with the file's lines.
// mesh_loader may be empty: scenes with meshes then fail with a message.
Expected<Scene> LoadScene(const std::filesystem::path& file, const MeshLoader& mesh_loader);

// The description as YAML that ParseSceneDescription reads back to the same description (the
// one writer beside the one loader; tests/sim/scene_writer_test.cpp): each object with the
// keys of its type, pose and motion keys when not zero. `header` (may be empty) goes first,
// as '#' comment lines.
std::string SaveScene(const SceneDescription& description, const std::string& header = "");

}  // namespace lt
