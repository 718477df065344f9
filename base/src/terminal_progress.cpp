#include "lidartwin/base/terminal_progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace lt {

Progress::Progress(std::string what, uint64_t total)
    : what_(std::move(what)),
      total_(total),
      enabled_(::isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {}

void Progress::Update(uint64_t done, uint64_t rays_done) {
  if (!enabled_) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const int width = 30;
  const int filled = total_ ? static_cast<int>(width * done / total_) : width;
  std::fprintf(stderr, "\r%s [%.*s%*s] %llu/%llu  %.2f Mrays/s", what_.c_str(), filled,
               "##############################", width - filled, "",
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_),
               s > 0 ? rays_done / s / 1e6 : 0.0);
  std::fflush(stderr);
}

void Progress::Step(uint64_t done, const std::string& note) {
  if (!enabled_) return;
  const int width = 30;
  const int filled = total_ ? static_cast<int>(width * std::min(done, total_) / total_) : width;
  // \033[K clears what a longer note left behind.
  std::fprintf(stderr, "\r%s [%.*s%*s] %llu/%llu  %s\033[K", what_.c_str(), filled,
               "##############################", width - filled, "",
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_),
               note.c_str());
  std::fflush(stderr);
}

void Progress::Status(double fraction, const std::string& text) {
  if (!enabled_) return;
  const int width = 30;
  const double f = fraction < 0 ? 0 : (fraction > 1 ? 1 : fraction);
  const int filled = static_cast<int>(width * f);
  // Trailing spaces clear a longer previous line.
  std::fprintf(stderr, "\r%s [%.*s%*s] %3d%%  %s   ", what_.c_str(), filled,
               "##############################", width - filled, "", static_cast<int>(100 * f),
               text.c_str());
  std::fflush(stderr);
}

void Progress::Finish() {
  if (enabled_) std::fprintf(stderr, "\n");
}

}  // namespace lt
