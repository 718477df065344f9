// Random beams like those of weather, for the threshold detector's tests on both backends
// (tests/physics/return_signal_test.cpp, tests/sim/cuda_backend_test.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "lidartwin/physics/return_signal.h"

namespace lt::test {

// A random beam like those of weather, for a threshold of 1 W: a comb of fog slabs falling as
// 1 / r^2 from near the sensor (above T there), zero to three surfaces, and drops and flakes
// scattered from 0.3 to 30 m of powers from 1e-3 T to 3 T; in range order.
inline std::vector<physics::SignalContribution> WeatherLikeBeam(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<physics::SignalContribution> c;
  const double fog = u(rng) < 0.7 ? 2 * u(rng) : 0;  // the comb's strength at 1 m [T]
  for (double r = 0.3; fog > 0 && r < 25; r += std::min(r / 4, 0.45))
    c.push_back({static_cast<float>(r), static_cast<float>(fog / (r * r)), 1, 0});
  const int surfaces = static_cast<int>(u(rng) * 4);
  for (int k = 0; k < surfaces; ++k) {
    c.push_back({static_cast<float>(1 + 40 * u(rng)),
                 static_cast<float>(std::pow(10, 3 * u(rng) - 0.5)), static_cast<uint32_t>(2 + k),
                 0});
  }
  const int particles = static_cast<int>(u(rng) * 30);
  for (int k = 0; k < particles; ++k) {
    c.push_back({static_cast<float>(0.3 + 30 * u(rng)),
                 static_cast<float>(std::pow(10, 3.5 * u(rng) - 3)), 10, 0});
  }
  physics::SortByRange(c.data(), static_cast<uint32_t>(c.size()));
  return c;
}

}  // namespace lt::test
