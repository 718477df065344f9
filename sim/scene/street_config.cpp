// The keys of a `type: street` entry: read, checked (configs/README.md, "Streets").
#include <cmath>

#include "lidartwin/base/config_check.h"
#include "street_reader.h"
#include "whole_number.h"

namespace lt {

namespace {

// The most triangles a street may make: a ray caster's copy takes about 300 bytes each (as the
// forests' cap, scene.h).
constexpr double kMostStreetTriangles = 2e7;

}  // namespace

StreetDescription ReadStreet(ConfigMap& o) {
  StreetDescription d;
  StreetParams& p = d.params;
  const std::vector<double> blocks =
      o.Has("blocks") ? o.Numbers("blocks") : std::vector<double>{4, 4};
  if (blocks.size() != 2 || blocks[0] != std::floor(blocks[0]) ||
      blocks[1] != std::floor(blocks[1]) || !(blocks[0] >= 1 && blocks[0] <= 1000) ||
      !(blocks[1] >= 1 && blocks[1] <= 1000)) {
    o.Fail("blocks", "expected two whole numbers [x, y] in 1..1000");
  } else {
    p.blocks_x = static_cast<uint32_t>(blocks[0]);
    p.blocks_y = static_cast<uint32_t>(blocks[1]);
  }
  p.block_m = o.Number("block_m", p.block_m);
  p.street_m = o.Number("street_m", p.street_m);
  p.sidewalk_m = o.Number("sidewalk_m", p.sidewalk_m);
  const std::vector<double> heights =
      o.Has("building_height_m")
          ? o.Numbers("building_height_m")
          : std::vector<double>{p.building_height_min_m, p.building_height_max_m};
  if (heights.size() != 2) {
    o.Fail("building_height_m",
           "expected 2 numbers [lowest, highest], got " + std::to_string(heights.size()));
  } else {
    p.building_height_min_m = heights[0];
    p.building_height_max_m = heights[1];
  }
  p.city_triangles = o.Number("city_triangles", p.city_triangles);
  p.cars = static_cast<uint32_t>(WholeNumber(o, "cars", p.cars, 0, kMaxU32));
  p.car_triangles = o.Number("car_triangles", p.car_triangles);
  const std::vector<double> speeds =
      o.Has("car_speed_m_s") ? o.Numbers("car_speed_m_s")
                             : std::vector<double>{p.car_speed_min_m_s, p.car_speed_max_m_s};
  if (speeds.size() != 2) {
    o.Fail("car_speed_m_s",
           "expected 2 numbers [slowest, fastest], got " + std::to_string(speeds.size()));
  } else {
    p.car_speed_min_m_s = speeds[0];
    p.car_speed_max_m_s = speeds[1];
  }
  p.pedestrians = static_cast<uint32_t>(WholeNumber(o, "pedestrians", p.pedestrians, 0, kMaxU32));
  p.pedestrian_triangles = o.Number("pedestrian_triangles", p.pedestrian_triangles);
  p.pedestrian_speed_m_s = o.Number("pedestrian_speed_m_s", p.pedestrian_speed_m_s);
  p.seed = static_cast<uint64_t>(WholeNumber(o, "seed", 0, 0, kMaxSeed));
  d.road_material = o.String("road_material");
  d.building_material = o.String("building_material");
  d.car_material = o.String("car_material");
  d.pedestrian_material = o.String("pedestrian_material");
  d.road_semantic_class =
      static_cast<uint16_t>(WholeNumber(o, "road_semantic_class", d.road_semantic_class, 0, 65535));
  d.building_semantic_class = static_cast<uint16_t>(
      WholeNumber(o, "building_semantic_class", d.building_semantic_class, 0, 65535));
  d.car_semantic_class =
      static_cast<uint16_t>(WholeNumber(o, "car_semantic_class", d.car_semantic_class, 0, 65535));
  d.pedestrian_semantic_class = static_cast<uint16_t>(
      WholeNumber(o, "pedestrian_semantic_class", d.pedestrian_semantic_class, 0, 65535));
  d.first_instance_id =
      static_cast<uint32_t>(WholeNumber(o, "first_instance_id", d.first_instance_id, 0, kMaxU32));
  return d;
}

void StreetDescription::Check(ConfigCheck& check) const {
  const StreetParams& p = params;
  const auto length = [&](const char* key, double v, double lo, double hi) {
    if (!(v >= lo && v <= hi))
      check.Fail(
          key, "must be in " + NumberText(lo) + ".." + NumberText(hi) + " m, got " + NumberText(v));
  };
  length("block_m", p.block_m, 1, 10000);
  length("street_m", p.street_m, 4 * 3.5, 1000);  // four 3.5 m lanes
  length("sidewalk_m", p.sidewalk_m, 0.5, 100);
  if (!(p.building_height_min_m >= 1 && p.building_height_max_m <= 1000 &&
        p.building_height_min_m <= p.building_height_max_m)) {
    check.Fail("building_height_m", "expected 1 <= lowest <= highest <= 1000 m, got [" +
                                        NumberText(p.building_height_min_m) + ", " +
                                        NumberText(p.building_height_max_m) + "]");
  }
  if (!(p.city_triangles >= 100 && p.city_triangles <= kMostStreetTriangles))
    check.Fail("city_triangles", "must be in 100..2e7, got " + NumberText(p.city_triangles));
  for (const auto& [key, v] : {std::pair<const char*, double>{"car_triangles", p.car_triangles},
                               {"pedestrian_triangles", p.pedestrian_triangles}}) {
    if (!(v >= 16 && v <= 1e7)) check.Fail(key, "must be in 16..1e7, got " + NumberText(v));
  }
  if (!(p.car_speed_min_m_s >= 0 && p.car_speed_min_m_s <= p.car_speed_max_m_s &&
        p.car_speed_max_m_s <= 100)) {
    check.Fail("car_speed_m_s", "expected 0 <= slowest <= fastest <= 100 m/s, got [" +
                                    NumberText(p.car_speed_min_m_s) + ", " +
                                    NumberText(p.car_speed_max_m_s) + "]");
  }
  if (!(p.pedestrian_speed_m_s >= 0 && p.pedestrian_speed_m_s <= 10))
    check.Fail("pedestrian_speed_m_s",
               "must be in 0..10 m/s, got " + NumberText(p.pedestrian_speed_m_s));
  for (const auto& [key, v] :
       {std::pair<const char*, const std::string*>{"road_material", &road_material},
        {"building_material", &building_material},
        {"car_material", &car_material},
        {"pedestrian_material", &pedestrian_material}}) {
    if (v->empty()) check.Fail(key, "must name a material");
  }
  if (first_instance_id < 1)
    check.Fail("first_instance_id", "must be at least 1 (0 is background)");
  const double ids = double(p.blocks_x) * p.blocks_y + p.cars + p.pedestrians;
  if (static_cast<double>(first_instance_id) + ids - 1 > kMaxU32) {
    check.Fail("first_instance_id", std::to_string(first_instance_id) + " + " + NumberText(ids) +
                                        " objects runs past the largest instance id, 2^32 - 1");
  }
  if (!check.ok()) return;
  // The geometry as a whole: the city within the scene's position limit, room in the lanes
  // and on the sidewalks, the triangles within the cap.
  const double city = std::max(p.blocks_x, p.blocks_y) * (p.block_m + p.street_m) + p.street_m;
  if (city > kMaxPositionM)
    check.Fail("blocks", "the city is " + NumberText(city) + " m across, more than 1e7 m");
  if (!(p.block_m >= 2 * p.sidewalk_m + 1))
    check.Fail("sidewalk_m", "two sidewalks of " + NumberText(p.sidewalk_m) + " m on a block of " +
                                 NumberText(p.block_m) + " m leave no building at least 1 m wide");
  const double car_slots = static_cast<double>(StreetCarSlots(p));
  if (p.cars > car_slots / 2)
    check.Fail("cars", NumberText(p.cars) + " cars in lanes of " + NumberText(car_slots) +
                           " 10 m slots clear of the crossings: at most half of them may hold a "
                           "car");
  const double walk_slots = static_cast<double>(StreetWalkSlots(p));
  if (p.pedestrians > walk_slots / 2)
    check.Fail("pedestrians", NumberText(p.pedestrians) + " pedestrians on sidewalks of " +
                                  NumberText(walk_slots) +
                                  " 2 m slots: at most half of them may hold one");
  if (p.city_triangles < 10.0 * p.blocks_x * p.blocks_y)
    check.Fail("city_triangles", NumberText(p.city_triangles) + " for " +
                                     NumberText(double(p.blocks_x) * p.blocks_y) +
                                     " buildings: each takes 10 at least (four walls and a roof)");
  if (!check.ok()) return;
  const double triangles = StreetTriangles(p);
  if (triangles > kMostStreetTriangles)
    check.Fail("city_triangles", "the street makes " + NumberText(triangles) +
                                     " triangles (city, cars, pedestrians), more than 2 x 10^7");
}

}  // namespace lt
