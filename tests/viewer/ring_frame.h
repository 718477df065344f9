// A spinning sensor's frame for the viewer's tests: rings and columns, smooth ranges, a few
// random drops, every field present.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

#include "lidartwin/base/frame.h"

namespace lt::viewer::test_frames {

// A spinning-sensor frame: `channels` rings, `columns` columns, ranges varying smoothly with a
// few random drops; every field present.
inline Frame RingFrame(uint32_t seed, int channels, int columns, double drop_fraction) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  Frame f;
  for (int c = 0; c < columns; ++c) {
    for (int ch = 0; ch < channels; ++ch) {
      if (u(rng) < drop_fraction) continue;
      const double az = 2 * M_PI * c / columns, el = (ch - channels / 2) * 0.01;
      const double r = 8 + 3 * std::sin(3 * az) + 0.01 * u(rng);
      FramePoint p;
      p.x_m = static_cast<float>(r * std::cos(el) * std::cos(az));
      p.y_m = static_cast<float>(r * std::cos(el) * std::sin(az));
      p.z_m = static_cast<float>(r * std::sin(el));
      p.range_m = static_cast<float>(r);
      p.intensity = static_cast<float>(100 * u(rng));
      p.reflectance = static_cast<float>(u(rng));
      p.channel = static_cast<uint16_t>(ch);
      p.column = static_cast<uint32_t>(c);
      p.timestamp_s = 1000.0 + c * 1e-4;
      p.return_index = static_cast<uint8_t>(u(rng) < 0.1);
      p.material_id = static_cast<uint16_t>(ch % 3);
      p.instance_id = static_cast<uint32_t>(c / 10);
      p.semantic_class = static_cast<uint16_t>(ch % 2 ? 2 : 64);
      f.Append(p);
    }
  }
  return f;
}

}  // namespace lt::viewer::test_frames
