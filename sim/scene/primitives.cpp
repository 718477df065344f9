// Procedural primitives as triangle meshes in local coordinates.
#include <cmath>
#include <unordered_set>

#include "lidartwin/physics/scan_pattern.h"
#include "lidartwin/sim/scene.h"

namespace lt {

TriangleMesh MakePlate(double width_m, double height_m) {
  const double w = width_m / 2, h = height_m / 2;
  // In the local y-z plane, centred, normal +x: width along y, height along z.
  return {{{0, -w, -h}, {0, w, -h}, {0, w, h}, {0, -w, h}}, {{0, 1, 2}, {0, 2, 3}}};
}

TriangleMesh MakePlane(double size_x_m, double size_y_m) {
  const double x = size_x_m / 2, y = size_y_m / 2;
  return {{{-x, -y, 0}, {x, -y, 0}, {x, y, 0}, {-x, y, 0}}, {{0, 1, 2}, {0, 2, 3}}};
}

TriangleMesh MakeBox(double size_x_m, double size_y_m, double size_z_m) {
  const double x = size_x_m / 2, y = size_y_m / 2, z = size_z_m / 2;
  TriangleMesh m;
  m.vertices = {{-x, -y, -z}, {x, -y, -z}, {x, y, -z}, {-x, y, -z},
                {-x, -y, z},  {x, -y, z},  {x, y, z},  {-x, y, z}};
  // Two triangles per face, counter-clockwise seen from outside.
  m.triangles = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                 {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
  return m;
}

TriangleMesh MakeDisc(double radius_m, int segments) {
  // A fan around the centre in the local y-z plane; the polygon's vertices lie on the
  // circle, so its area is (segments / 2) sin(2 pi / segments) r^2.
  TriangleMesh m;
  m.vertices.push_back({0, 0, 0});
  for (int k = 0; k < segments; ++k) {
    const double a = 2 * physics::kPi * k / segments;
    m.vertices.push_back({0, radius_m * std::cos(a), radius_m * std::sin(a)});
  }
  for (int k = 0; k < segments; ++k) {
    m.triangles.push_back(
        {0, static_cast<uint32_t>(1 + k), static_cast<uint32_t>(1 + (k + 1) % segments)});
  }
  return m;
}

Status CleanMesh(TriangleMesh& mesh, const std::string& what, size_t* degenerate_dropped) {
  for (size_t i = 0; i < mesh.vertices.size(); ++i) {
    const auto& v = mesh.vertices[i];
    if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2])) {
      return Error{what + ": vertex " + std::to_string(i) + " is not finite (" +
                   std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " +
                   std::to_string(v[2]) + ")"};
    }
  }
  std::vector<std::array<uint32_t, 3>> kept;
  kept.reserve(mesh.triangles.size());
  size_t dropped = 0;
  for (size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    for (uint32_t idx : tri) {
      if (idx >= mesh.vertices.size()) {
        return Error{what + ": triangle " + std::to_string(t) + " refers to vertex " +
                     std::to_string(idx) + " but there are only " +
                     std::to_string(mesh.vertices.size())};
      }
    }
    const auto& a = mesh.vertices[tri[0]];
    const auto& b = mesh.vertices[tri[1]];
    const auto& c = mesh.vertices[tri[2]];
    const physics::Vec3<double> e1{b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const physics::Vec3<double> e2{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double area2 = physics::Norm(physics::Cross(e1, e2));
    const double scale = std::max(physics::Dot(e1, e1), physics::Dot(e2, e2));
    // Zero area relative to the edge lengths: collinear or repeated vertices.
    if (!(area2 > 1e-12 * scale)) {
      ++dropped;
      continue;
    }
    kept.push_back(tri);
  }
  mesh.triangles = std::move(kept);
  *degenerate_dropped = dropped;
  return {};
}

size_t Scene::TriangleCount() const {
  size_t n = 0;
  std::unordered_set<const TriangleMesh*> models;
  for (const auto& o : objects) {
    n += o.mesh.triangles.size();
    if (o.model && models.insert(o.model.get()).second) n += o.model->triangles.size();
  }
  return n;
}

size_t PlacedTriangleCount(const Scene& scene) {
  size_t n = 0;
  for (const auto& o : scene.objects)
    n += o.stored().triangles.size();
  return n;
}

bool Scene::HasMovingObjects() const {
  for (const auto& o : objects) {
    if (o.motion.moving()) return true;
  }
  return false;
}

physics::RigidTransform StoredToWorld(const SceneObject& object, double t_s) {
  const ObjectMotion& m = object.motion;
  const double yaw = m.yaw_rate_rad_s * t_s;
  // At yaw +-0 the values cos and sin give (sin keeps the zero's sign), without their cost for
  // the many objects that do not turn: the GPU places every instance in every motion slice of
  // every frame.
  const double cy = yaw == 0 ? 1.0 : std::cos(yaw), sy = yaw == 0 ? yaw : std::sin(yaw);
  const physics::Vec3<double> c = object.pose.translation;
  const physics::Vec3<double> v{m.velocity_m_s[0] * t_s, m.velocity_m_s[1] * t_s,
                                m.velocity_m_s[2] * t_s};
  if (object.instanced()) {
    // Rz(yaw) R_pose, and c + v t.
    const physics::RigidTransform pose = physics::TransformOfPose(object.pose);
    physics::RigidTransform x{};
    for (int j = 0; j < 3; ++j) {
      x.r[j] = cy * pose.r[j] - sy * pose.r[3 + j];
      x.r[3 + j] = sy * pose.r[j] + cy * pose.r[3 + j];
      x.r[6 + j] = pose.r[6 + j];
    }
    x.t[0] = c.x + v.x;
    x.t[1] = c.y + v.y;
    x.t[2] = c.z + v.z;
    return x;
  }
  // Rz(yaw), and c + v t - Rz(yaw) c.
  return {{cy, -sy, 0, sy, cy, 0, 0, 0, 1},
          {c.x + v.x - (cy * c.x - sy * c.y), c.y + v.y - (sy * c.x + cy * c.y), v.z}};
}

std::vector<std::array<double, 3>> VerticesAt(const SceneObject& object, double t_s) {
  const TriangleMesh& stored = object.stored();
  std::vector<std::array<double, 3>> out;
  out.reserve(stored.vertices.size());
  if (!object.placed()) {
    out = stored.vertices;
    return out;
  }
  const physics::RigidTransform x = StoredToWorld(object, t_s);
  for (const auto& p : stored.vertices) {
    const auto w = physics::PlacePoint(x, {p[0], p[1], p[2]});
    out.push_back({w.x, w.y, w.z});
  }
  return out;
}

}  // namespace lt
