// Procedural street (issue 42): city blocks, streets, cars and pedestrians, deterministic from
// a seed through Philox4x32-10 (physics/philox.h). See StreetParams in scene.h.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>

#include "lidartwin/base/config_check.h"
#include "lidartwin/physics/philox.h"
#include "lidartwin/physics/units.h"
#include "street_reader.h"

namespace lt {

namespace {

using physics::kPi;

// Counter word 3 of the street's draws, one per kind ("Str" 1..). Append only.
constexpr uint32_t kStreamHeights = 0x53747201u;      // building k's height
constexpr uint32_t kStreamCars = 0x53747202u;         // car k's slot (draw j)
constexpr uint32_t kStreamPedestrians = 0x53747203u;  // pedestrian k's slot (draw j), way
constexpr uint32_t kStreamLaneSpeeds = 0x53747204u;   // a lane's speed

physics::Philox4x32 Draw(uint64_t seed, uint32_t a, uint32_t b, uint32_t stream) {
  return physics::Philox4x32_10({{a, b, 0, stream}}, static_cast<uint32_t>(seed),
                                static_cast<uint32_t>(seed >> 32));
}

double Uniform(uint32_t word) {
  return physics::UniformOpen01<double>(word);
}

// The car and pedestrian extents [m] and shapes (superellipsoid exponents: boxy, rounder).
constexpr double kCarSize[3] = {4.5, 1.8, 1.5}, kCarExponent = 0.25;
constexpr double kPedestrianSize[3] = {0.5, 0.35, 1.75}, kPedestrianExponent = 0.6;
// Lanes: four per street, 3.5 m wide, centred on the street's middle; a car's slot is 10 m of
// lane, a pedestrian's 2 m of sidewalk, so that none starts inside another.
constexpr double kLaneM = 3.5, kCarSlotM = 10, kPedestrianSlotM = 2;

// The city's pitch (a block and a street) and size.
double Pitch(const StreetParams& p) {
  return p.block_m + p.street_m;
}
double CityX(const StreetParams& p) {
  return p.blocks_x * Pitch(p) + p.street_m;
}
double CityY(const StreetParams& p) {
  return p.blocks_y * Pitch(p) + p.street_m;
}

double Height(const StreetParams& p, uint32_t block) {
  const double u = Uniform(Draw(p.seed, block, 0, kStreamHeights).v[0]);
  return p.building_height_min_m + u * (p.building_height_max_m - p.building_height_min_m);
}

// A building's footprint side: its block less the sidewalk on each side.
double Footprint(const StreetParams& p) {
  return p.block_m - 2 * p.sidewalk_m;
}

// The side of the facades' quads that makes the buildings about city_triangles triangles (two
// per quad, two per roof).
double QuadSide(const StreetParams& p) {
  const uint32_t blocks = p.blocks_x * p.blocks_y;
  double area = 0;
  for (uint32_t b = 0; b < blocks; ++b)
    area += 4 * Footprint(p) * Height(p, b);
  const double quads = std::max(1.0, (p.city_triangles - 2.0 * blocks) / 2);
  return std::sqrt(area / quads);
}

// Quads along a length (at least 1; bounded so that no count overflows: Check keeps buildings
// at least 1 m wide and city_triangles within its cap, far inside this).
uint32_t Cells(double length_m, double side_m) {
  return static_cast<uint32_t>(std::clamp(std::round(length_m / side_m), 1.0, 1e7));
}

// One superellipsoid ring count for a triangle budget.
uint32_t Rings(double triangles) {
  return static_cast<uint32_t>(std::max(2.0, std::round(std::sqrt(triangles / 4))));
}

void AddQuad(TriangleMesh& m, const std::array<double, 3>& a, const std::array<double, 3>& b,
             const std::array<double, 3>& c, const std::array<double, 3>& d) {
  const auto i = static_cast<uint32_t>(m.vertices.size());
  m.vertices.insert(m.vertices.end(), {a, b, c, d});
  m.triangles.push_back({i, i + 1, i + 2});
  m.triangles.push_back({i, i + 2, i + 3});
}

// A box of footprint side s at (x0, y0) and height h, its four facades split into quads of
// about `quad` metres, its roof one quad.
TriangleMesh MakeBuilding(double x0, double y0, double s, double h, double quad) {
  TriangleMesh m;
  const double corners[5][2] = {{x0, y0}, {x0 + s, y0}, {x0 + s, y0 + s}, {x0, y0 + s}, {x0, y0}};
  const uint32_t cols = Cells(s, quad), rows = Cells(h, quad);
  for (int f = 0; f < 4; ++f) {
    const double ax = corners[f][0], ay = corners[f][1];
    const double dx = (corners[f + 1][0] - ax) / cols, dy = (corners[f + 1][1] - ay) / cols;
    for (uint32_t i = 0; i < cols; ++i)
      for (uint32_t j = 0; j < rows; ++j) {
        const double z0 = h * j / rows, z1 = h * (j + 1) / rows;
        const double xa = ax + dx * i, ya = ay + dy * i, xb = xa + dx, yb = ya + dy;
        AddQuad(m, {xa, ya, z0}, {xb, yb, z0}, {xb, yb, z1}, {xa, ya, z1});
      }
  }
  AddQuad(m, {x0, y0, h}, {x0 + s, y0, h}, {x0 + s, y0 + s, h}, {x0, y0 + s, h});
  return m;
}

// Each placed model: where its local origin stands, which way it heads (yaw), how fast.
struct Mover {
  double x, y, yaw, speed;
};

// The lane slots along a street of the given length: 10 m each, none reaching into a crossing
// (the streets across it, street_m wide every pitch from 0), so that cars on crossing streets
// never start in one another. Their centres.
std::vector<double> LaneSlots(const StreetParams& p, double length_m) {
  std::vector<double> out;
  for (double at = kCarSlotM / 2; at + kCarSlotM / 2 <= length_m; at += kCarSlotM) {
    const double into = std::fmod(at - kCarSlotM / 2, Pitch(p));  // from a crossing's start
    if (into >= p.street_m && into + kCarSlotM <= Pitch(p)) out.push_back(at);
  }
  return out;
}

// Each lane's speed: one per lane (its street, direction and lane), so that cars of a lane
// keep their distances; cross traffic passes through at the crossings (no lights).
double LaneSpeed(const StreetParams& p, uint32_t street, uint32_t lane, bool along_x) {
  const double u =
      Uniform(Draw(p.seed, street, lane + (along_x ? 0u : 4u), kStreamLaneSpeeds).v[0]);
  return p.car_speed_min_m_s + u * (p.car_speed_max_m_s - p.car_speed_min_m_s);
}

// The cars: each on a distinct slot of a lane, heading along its street (right-hand traffic:
// the two lanes right of the middle go one way, the two left the other).
std::vector<Mover> PlaceCars(const StreetParams& p) {
  const std::vector<double> along_x = LaneSlots(p, CityX(p)), along_y = LaneSlots(p, CityY(p));
  const uint64_t on_x_total = uint64_t{p.blocks_y + 1} * 4 * along_x.size();
  const uint64_t total = on_x_total + uint64_t{p.blocks_x + 1} * 4 * along_y.size();
  std::set<uint64_t> taken;
  std::vector<Mover> cars;
  for (uint32_t k = 0; k < p.cars; ++k) {
    for (uint32_t j = 0;; ++j) {  // the next draw until a free slot (Check: half are free)
      const physics::Philox4x32 w = Draw(p.seed, k, j, kStreamCars);
      const auto slot = static_cast<uint64_t>(Uniform(w.v[0]) * static_cast<double>(total));
      if (!taken.insert(slot).second) continue;
      const bool on_x = slot < on_x_total;
      const std::vector<double>& slots = on_x ? along_x : along_y;
      const uint64_t s = on_x ? slot : slot - on_x_total;
      const auto street = static_cast<uint32_t>(s / (4 * slots.size()));
      const auto lane = static_cast<uint32_t>(s / slots.size() % 4);
      const double position = slots[s % slots.size()];
      const double middle = street * Pitch(p) + p.street_m / 2;
      const double offset = (static_cast<double>(lane) - 1.5) * kLaneM;  // -5.25..5.25
      const double speed = LaneSpeed(p, street, lane, on_x);
      // Right of the middle heading +axis: along x that is y < middle, along y x > middle.
      if (on_x)
        cars.push_back({position, middle + offset, offset < 0 ? 0.0 : kPi, speed});
      else
        cars.push_back({middle + offset, position, offset > 0 ? kPi / 2 : -kPi / 2, speed});
      break;
    }
  }
  return cars;
}

// The sidewalk slots of one side of a block: 2 m each, between the block's corners (the
// corner squares belong to two sides), their distances from the side's start.
std::vector<double> WalkSlots(const StreetParams& p) {
  std::vector<double> out;
  for (double at = p.sidewalk_m + kPedestrianSlotM / 2;
       at + kPedestrianSlotM / 2 <= p.block_m - p.sidewalk_m; at += kPedestrianSlotM)
    out.push_back(at);
  return out;
}

// The pedestrians: each on a distinct slot of a block's sidewalk, walking along it one way
// or the other.
std::vector<Mover> PlacePedestrians(const StreetParams& p) {
  const std::vector<double> slots = WalkSlots(p);
  const uint64_t per_side = slots.size();
  const uint64_t total = uint64_t{p.blocks_x} * p.blocks_y * 4 * per_side;
  std::set<uint64_t> taken;
  std::vector<Mover> out;
  for (uint32_t k = 0; k < p.pedestrians; ++k) {
    for (uint32_t j = 0;; ++j) {
      const physics::Philox4x32 w = Draw(p.seed, k, j, kStreamPedestrians);
      const auto slot = static_cast<uint64_t>(Uniform(w.v[0]) * static_cast<double>(total));
      if (!taken.insert(slot).second) continue;
      const auto block = static_cast<uint32_t>(slot / (4 * per_side));
      const auto side = static_cast<uint32_t>(slot / per_side % 4);
      const double along = slots[slot % per_side];
      const double x0 = p.street_m + (block % p.blocks_x) * Pitch(p);
      const double y0 = p.street_m + (block / p.blocks_x) * Pitch(p);
      const double in = p.sidewalk_m / 2, b = p.block_m, v = p.pedestrian_speed_m_s;
      const double turn = w.v[1] & 1 ? 0 : kPi;
      switch (side) {
        case 0:
          out.push_back({x0 + along, y0 + in, turn, v});
          break;
        case 1:
          out.push_back({x0 + b - in, y0 + along, kPi / 2 + turn, v});
          break;
        case 2:
          out.push_back({x0 + along, y0 + b - in, turn, v});
          break;
        default:
          out.push_back({x0 + in, y0 + along, kPi / 2 + turn, v});
          break;
      }
      break;
    }
  }
  return out;
}

// An instance of a model at a mover: its pose the city's frame (`pose`) composed with the
// mover's place and heading; its motion the mover's velocity, turned into the world.
SceneObject Placed(std::shared_ptr<const TriangleMesh> model, const Mover& m,
                   const physics::Pose<double>& pose) {
  SceneObject o;
  o.pose = physics::ComposePoses(
      pose, physics::Pose<double>{physics::QuatFromRollPitchYaw(0.0, 0.0, m.yaw), {m.x, m.y, 0}});
  o.model = std::move(model);
  const double c = std::cos(m.yaw), s = std::sin(m.yaw);
  const auto velocity =
      physics::Rotate(pose.rotation, physics::Vec3<double>{c * m.speed, s * m.speed, 0});
  o.motion.velocity_m_s = {velocity.x, velocity.y, velocity.z};
  return o;
}

}  // namespace

TriangleMesh MakeSuperellipsoid(double size_x_m, double size_y_m, double size_z_m, double exponent,
                                double triangles) {
  const uint32_t rings = Rings(triangles) + 1, around = 2 * (rings - 1);
  const double a = size_x_m / 2, b = size_y_m / 2, c = size_z_m / 2;
  auto f = [exponent](double w) { return std::copysign(std::pow(std::fabs(w), exponent), w); };
  TriangleMesh m;
  m.vertices.push_back({0, 0, 0});  // the bottom pole
  for (uint32_t j = 1; j < rings; ++j) {
    const double lat = -kPi / 2 + kPi * j / rings;
    for (uint32_t i = 0; i < around; ++i) {
      const double lon = 2 * kPi * i / around;
      m.vertices.push_back({a * f(std::cos(lat)) * f(std::cos(lon)),
                            b * f(std::cos(lat)) * f(std::sin(lon)), c + c * f(std::sin(lat))});
    }
  }
  m.vertices.push_back({0, 0, 2 * c});  // the top pole
  const auto top = static_cast<uint32_t>(m.vertices.size() - 1);
  auto at = [&](uint32_t ring, uint32_t i) { return 1 + (ring - 1) * around + i % around; };
  for (uint32_t i = 0; i < around; ++i) {
    m.triangles.push_back({0, at(1, i + 1), at(1, i)});
    m.triangles.push_back({top, at(rings - 1, i), at(rings - 1, i + 1)});
    for (uint32_t j = 1; j + 1 < rings; ++j) {
      m.triangles.push_back({at(j, i), at(j, i + 1), at(j + 1, i + 1)});
      m.triangles.push_back({at(j, i), at(j + 1, i + 1), at(j + 1, i)});
    }
  }
  return m;
}

uint64_t StreetCarSlots(const StreetParams& p) {
  return uint64_t{p.blocks_y + 1} * 4 * LaneSlots(p, CityX(p)).size() +
         uint64_t{p.blocks_x + 1} * 4 * LaneSlots(p, CityY(p)).size();
}

uint64_t StreetWalkSlots(const StreetParams& p) {
  return uint64_t{p.blocks_x} * p.blocks_y * 4 * WalkSlots(p).size();
}

double StreetTriangles(const StreetParams& p) {
  const double car = 2.0 * 2 * (Rings(p.car_triangles)) * Rings(p.car_triangles);
  const double person = 2.0 * 2 * (Rings(p.pedestrian_triangles)) * Rings(p.pedestrian_triangles);
  const double tiles = 2.0 * (p.blocks_x + 1) * (p.blocks_y + 1);
  const uint32_t blocks = p.blocks_x * p.blocks_y;
  double buildings = 0;
  if (blocks > 0 && p.block_m > 2 * p.sidewalk_m) {
    const double quad = QuadSide(p);
    for (uint32_t b = 0; b < blocks; ++b)
      buildings += 8.0 * Cells(Footprint(p), quad) * Cells(Height(p, b), quad) + 2;
  }
  return tiles + buildings + p.cars * car + p.pedestrians * person;
}

std::vector<SceneObject> MakeStreet(const StreetDescription& d, const std::string& name,
                                    const physics::Pose<double>& pose,
                                    const StreetMaterials& materials) {
  const StreetParams& p = d.params;
  std::vector<SceneObject> out;
  uint32_t id = d.first_instance_id;
  // The ground: one tile per pitch (a ground quad spanning the city would put two huge
  // triangles under a tree's boxes, as bench/city_scene.cpp notes).
  SceneObject road;
  road.name = name + "/road";
  road.type = "street";
  road.material_id = materials.road;
  road.semantic_class = d.road_semantic_class;
  const double pitch = Pitch(p);
  for (uint32_t i = 0; i <= p.blocks_x; ++i)
    for (uint32_t j = 0; j <= p.blocks_y; ++j) {
      const double x0 = i * pitch, y0 = j * pitch;
      const double x1 = i == p.blocks_x ? CityX(p) : x0 + pitch;
      const double y1 = j == p.blocks_y ? CityY(p) : y0 + pitch;
      AddQuad(road.mesh, {x0, y0, 0}, {x1, y0, 0}, {x1, y1, 0}, {x0, y1, 0});
    }
  road.pose = pose;
  out.push_back(std::move(road));
  const double quad = QuadSide(p);
  for (uint32_t b = 0; b < p.blocks_x * p.blocks_y; ++b) {
    SceneObject o;
    o.name = name + "/building_" + std::to_string(b);
    o.type = "street";
    o.material_id = materials.building;
    o.semantic_class = d.building_semantic_class;
    o.instance_id = id++;
    const double x0 = p.street_m + (b % p.blocks_x) * pitch + p.sidewalk_m;
    const double y0 = p.street_m + (b / p.blocks_x) * pitch + p.sidewalk_m;
    o.pose = pose;
    o.mesh = MakeBuilding(x0, y0, Footprint(p), Height(p, b), quad);
    out.push_back(std::move(o));
  }
  const auto car = std::make_shared<const TriangleMesh>(
      MakeSuperellipsoid(kCarSize[0], kCarSize[1], kCarSize[2], kCarExponent, p.car_triangles));
  // Each mover an instance of its model (stored once), labelled, its id the next.
  auto place = [&](const std::shared_ptr<const TriangleMesh>& model,
                   const std::vector<Mover>& movers, const std::string& kind, uint32_t material,
                   uint16_t semantic_class) {
    for (size_t k = 0; k < movers.size(); ++k) {
      SceneObject o = Placed(model, movers[k], pose);
      o.name = name + "/" + kind + "_" + std::to_string(k);
      o.type = "street";
      o.material_id = material;
      o.semantic_class = semantic_class;
      o.instance_id = id++;
      out.push_back(std::move(o));
    }
  };
  place(car, PlaceCars(p), "car", materials.car, d.car_semantic_class);
  const auto person = std::make_shared<const TriangleMesh>(
      MakeSuperellipsoid(kPedestrianSize[0], kPedestrianSize[1], kPedestrianSize[2],
                         kPedestrianExponent, p.pedestrian_triangles));
  place(person, PlacePedestrians(p), "pedestrian", materials.pedestrian,
        d.pedestrian_semantic_class);
  return out;
}

}  // namespace lt
