// Progress of a long job on stderr, only when stderr is a terminal: "frames 3/10, 2.1 Mrays/s".
// Step() draws the same bar with a note for jobs that are not ray tracing (compare, reconstruct).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace lt {

class Progress {
 public:
  Progress(std::string what, uint64_t total);
  void Update(uint64_t done, uint64_t rays_done);
  // The bar with a note instead of a ray rate ("compare [####  ] 3/10  frame pairs").
  void Step(uint64_t done, const std::string& note);
  // A job measured by the fraction of its input read (0..1), with a free text after the bar.
  void Status(double fraction, const std::string& text);
  void Finish();
  // For jobs that learn their length once started (reconstruct's steps depend on the method).
  void SetTotal(uint64_t total) { total_ = total; }

 private:
  std::string what_;
  uint64_t total_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace lt
