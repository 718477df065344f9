// SaveScene: the one writer of the scene schema, beside its loader (scene_loader.cpp; house
// rule 13). Every key is the loader's; a key is left out only where the loader's default is
// the value it would have written (pose and motion at zero).
#include "core/config_writer.h"
#include "lidartwin/sim/scene.h"

namespace lt {

namespace {

using config_writer::List;
using config_writer::Put;

bool Zero(const std::array<double, 3>& v) {
  return v[0] == 0 && v[1] == 0 && v[2] == 0;
}

void WriteForest(YAML::Emitter& e, const ForestDescription& f) {
  const ForestParams& p = f.params;
  List(e, "area_m", std::array<double, 2>{p.area_x_m, p.area_y_m});
  Put(e, "tree_count", p.tree_count);
  Put(e, "seed", p.seed);
  Put(e, "trunk_height_m", p.trunk_height_m);
  Put(e, "trunk_radius_m", p.trunk_radius_m);
  Put(e, "crown_radius_m", p.crown_radius_m);
  Put(e, "leaf_size_m", p.leaf_size_m);
  Put(e, "leaves_per_tree", p.leaves_per_tree);
  Put(e, "size_variation", p.size_variation);
  Put(e, "trunk_material", f.trunk_material);
  Put(e, "foliage_material", f.foliage_material);
  Put(e, "trunk_semantic_class", f.trunk_semantic_class);
  Put(e, "foliage_semantic_class", f.foliage_semantic_class);
  Put(e, "first_instance_id", f.first_instance_id);
}

void WriteStreet(YAML::Emitter& e, const StreetDescription& d) {
  const StreetParams& p = d.params;
  List(e, "blocks", std::array<double, 2>{double(p.blocks_x), double(p.blocks_y)});
  Put(e, "block_m", p.block_m);
  Put(e, "street_m", p.street_m);
  Put(e, "sidewalk_m", p.sidewalk_m);
  List(e, "building_height_m",
       std::array<double, 2>{p.building_height_min_m, p.building_height_max_m});
  Put(e, "city_triangles", p.city_triangles);
  Put(e, "cars", p.cars);
  Put(e, "car_triangles", p.car_triangles);
  List(e, "car_speed_m_s", std::array<double, 2>{p.car_speed_min_m_s, p.car_speed_max_m_s});
  Put(e, "pedestrians", p.pedestrians);
  Put(e, "pedestrian_triangles", p.pedestrian_triangles);
  Put(e, "pedestrian_speed_m_s", p.pedestrian_speed_m_s);
  Put(e, "seed", p.seed);
  Put(e, "road_material", d.road_material);
  Put(e, "building_material", d.building_material);
  Put(e, "car_material", d.car_material);
  Put(e, "pedestrian_material", d.pedestrian_material);
  Put(e, "road_semantic_class", d.road_semantic_class);
  Put(e, "building_semantic_class", d.building_semantic_class);
  Put(e, "car_semantic_class", d.car_semantic_class);
  Put(e, "pedestrian_semantic_class", d.pedestrian_semantic_class);
  Put(e, "first_instance_id", d.first_instance_id);
}

void WriteObject(YAML::Emitter& e, const SceneObjectDescription& o) {
  e << YAML::BeginMap;
  Put(e, "name", o.name);
  Put(e, "type", o.type);
  if (!Zero(o.position_m)) List(e, "position_m", o.position_m);
  if (!Zero(o.rotation_deg)) List(e, "rotation_deg", o.rotation_deg);
  if (o.type == "forest" || o.type == "street") {
    if (o.type == "forest") WriteForest(e, o.forest);
    if (o.type == "street") WriteStreet(e, o.street);
    e << YAML::EndMap;
    return;
  }
  if (o.type == "plate" || o.type == "plane" || o.type == "box") {
    List(e, "size_m", o.size_m);
  } else if (o.type == "disc") {
    Put(e, "radius_m", o.radius_m);
    Put(e, "segments", o.segments);
  } else if (o.type == "mesh") {
    Put(e, "file", o.file);
    Put(e, "scale", o.scale);
  }
  Put(e, "material", o.material);
  Put(e, "semantic_class", o.semantic_class);
  Put(e, "instance_id", o.instance_id);
  if (!Zero(o.velocity_m_s)) List(e, "velocity_m_s", o.velocity_m_s);
  if (o.yaw_rate_deg_s != 0) Put(e, "yaw_rate_deg_s", o.yaw_rate_deg_s);
  e << YAML::EndMap;
}

}  // namespace

std::string SaveScene(const SceneDescription& description, const std::string& header) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  Put(e, "materials", description.materials);
  if (description.sunlight != 0) Put(e, "sunlight", description.sunlight);
  if (description.weather.Any()) {
    e << YAML::Key << "weather" << YAML::Value << YAML::BeginMap;
    if (description.weather.fog) {
      e << YAML::Key << "fog" << YAML::Value << YAML::BeginMap;
      Put(e, "visibility_m", description.weather.fog->visibility_m);
      Put(e, "backscatter", description.weather.fog->backscatter);
      Put(e, "lidar_ratio_sr", description.weather.fog->lidar_ratio_sr);
      Put(e, "semantic_class", description.weather.fog->semantic_class);
      e << YAML::EndMap;
    }
    if (const auto& r = description.weather.rain) {
      e << YAML::Key << "rain" << YAML::Value << YAML::BeginMap;
      Put(e, "rate_mm_h", r->rate_mm_h);
      Put(e, "min_diameter_mm", r->min_diameter_mm);
      Put(e, "extinction_efficiency", r->extinction_efficiency);
      Put(e, "semantic_class", r->semantic_class);
      e << YAML::EndMap;
    }
    if (const auto& s = description.weather.snow) {
      e << YAML::Key << "snow" << YAML::Value << YAML::BeginMap;
      Put(e, "rate_mm_h", s->rate_mm_h);
      Put(e, "min_diameter_mm", s->min_diameter_mm);
      Put(e, "flake_reflectance", s->flake_reflectance);
      Put(e, "extinction_efficiency", s->extinction_efficiency);
      Put(e, "semantic_class", s->semantic_class);
      e << YAML::EndMap;
    }
    if (const auto& w = description.weather.wet) {
      e << YAML::Key << "wet" << YAML::Value << YAML::BeginMap;
      e << YAML::Key << "materials" << YAML::Value << YAML::Flow << w->materials;
      e << YAML::EndMap;
    }
    if (const auto& s = description.weather.spray) {
      e << YAML::Key << "spray" << YAML::Value << YAML::BeginMap;
      Put(e, "visibility_m", s->visibility_m);
      Put(e, "water_film_mm", s->water_film_mm);
      Put(e, "lidar_ratio_sr", s->lidar_ratio_sr);
      Put(e, "semantic_class", s->semantic_class);
      e << YAML::EndMap;
    }
    if (const auto& c = description.weather.cover) {
      e << YAML::Key << "cover" << YAML::Value << YAML::BeginMap;
      e << YAML::Key << "regions" << YAML::Value << YAML::BeginSeq;
      for (const CoverRegionDescription& r : c->regions) {
        e << YAML::BeginMap;
        e << YAML::Key << "azimuth_deg" << YAML::Value << YAML::Flow
          << std::vector<double>{r.azimuth_deg[0], r.azimuth_deg[1]};
        e << YAML::Key << "elevation_deg" << YAML::Value << YAML::Flow
          << std::vector<double>{r.elevation_deg[0], r.elevation_deg[1]};
        Put(e, "transmission", r.transmission);
        Put(e, "backscatter", r.backscatter);
        e << YAML::EndMap;
      }
      e << YAML::EndSeq;
      Put(e, "window_range_m", c->window_range_m);
      Put(e, "semantic_class", c->semantic_class);
      e << YAML::EndMap;
    }
    e << YAML::EndMap;
  }
  e << YAML::Key << "objects" << YAML::Value << YAML::BeginSeq;
  for (const SceneObjectDescription& o : description.objects)
    WriteObject(e, o);
  e << YAML::EndSeq << YAML::EndMap;
  return config_writer::Document(header, e);
}

}  // namespace lt
