// Incidence angles from the range image's neighbours (ouster_samples.h): the surface normal is
// the cross product of the point differences along the row and along the column.
#include <algorithm>
#include <cmath>
#include <limits>

#include "lidartwin/calib/ouster_samples.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/physics/vec3.h"

namespace lt::calib {

namespace {

using V = physics::Vec3<double>;

V Point(const RangeImage& img, size_t i) {
  return {img.x_m[i], img.y_m[i], img.z_m[i]};
}

bool OnSurface(const RangeImage& img, size_t centre, size_t other, const SampleOptions& o) {
  return img.Returned(other) && OnOneSurface(img, centre, other, o);
}

// The tangent along one direction: the central difference of the two neighbours, or the
// one-sided difference with the centre; false when neither neighbour is usable.
bool Tangent(const RangeImage& img, size_t centre, const size_t* before, const size_t* after,
             const SampleOptions& o, V* t) {
  const bool b = before && OnSurface(img, centre, *before, o);
  const bool a = after && OnSurface(img, centre, *after, o);
  if (a && b) {
    *t = Point(img, *after) - Point(img, *before);
  } else if (a) {
    *t = Point(img, *after) - Point(img, centre);
  } else if (b) {
    *t = Point(img, centre) - Point(img, *before);
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool OnOneSurface(const RangeImage& img, size_t a, size_t b, const SampleOptions& o) {
  const V pa = Point(img, a), pb = Point(img, b);
  // The angle between the two beams, from their points (atan2 keeps small angles exact).
  const double alpha = std::atan2(physics::Norm(physics::Cross(pa, pb)), physics::Dot(pa, pb));
  const double r = std::min(img.range_m[a], img.range_m[b]);
  return std::fabs(img.range_m[a] - img.range_m[b]) <=
         r * std::tan(o.surface_max_incidence_deg * physics::kDegToRad) * alpha + o.surface_step_m;
}

std::vector<float> IncidenceAngles(const RangeImage& img, const SampleOptions& o) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> out(img.range_m.size(), nan);
  const uint32_t w = img.columns;
  for (uint32_t r = 0; r < img.rows; ++r) {
    for (uint32_t u = 0; u < w; ++u) {
      const size_t i = img.Index(r, u);
      if (!img.Returned(i)) continue;
      // Columns wrap around the turn; rows do not.
      const size_t left = img.Index(r, (u + w - 1) % w), right = img.Index(r, (u + 1) % w);
      const size_t up = r > 0 ? img.Index(r - 1, u) : i;
      const size_t down = r + 1 < img.rows ? img.Index(r + 1, u) : i;
      V along_row, along_column;
      if (!Tangent(img, i, &left, &right, o, &along_row) ||
          !Tangent(img, i, r > 0 ? &up : nullptr, r + 1 < img.rows ? &down : nullptr, o,
                   &along_column)) {
        continue;
      }
      const V n = physics::Cross(along_row, along_column);
      const V p = Point(img, i);
      const double nn = physics::Norm(n), pp = physics::Norm(p);
      if (!(nn > 0) || !(pp > 0)) continue;
      const double c = std::min(1.0, std::fabs(physics::Dot(n, p)) / (nn * pp));
      out[i] = static_cast<float>(std::acos(c) / physics::kDegToRad);
    }
  }
  return out;
}

}  // namespace lt::calib
