#include "lidartwin/jobs/export_progress.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>

namespace lt::jobs {

ExportProgressDisplay::ExportProgressDisplay(uint64_t total_frames)
    : total_(total_frames),
      enabled_(::isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {}

void ExportProgressDisplay::Update(uint32_t shard, uint32_t done, uint32_t total,
                                   uint32_t resumed) {
  shards_[shard] = {done, total, resumed};
}

uint64_t ExportProgressDisplay::simulated() const {
  uint64_t n = 0;
  for (const auto& [_, s] : shards_)
    n += s.done - s.resumed;
  return n;
}

double ExportProgressDisplay::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string ExportProgressDisplay::Text() const {
  uint64_t done = 0;
  for (const auto& [_, s] : shards_)
    done += s.done;
  const double rate = seconds() > 0 ? simulated() / seconds() : 0;
  std::string eta = "-";
  if (rate > 0 && total_ >= done) {
    const uint64_t left = static_cast<uint64_t>((total_ - done) / rate + 0.5);
    eta = fmt::format("{}:{:02}:{:02}", left / 3600, left / 60 % 60, left % 60);
  }
  std::string text =
      fmt::format("export: {}/{} frames, {:.1f} frames/s, ETA {}", done, total_, rate, eta);
  std::string running;
  for (const auto& [id, s] : shards_) {
    if (s.done < s.total) running += fmt::format(" s{} {}/{}", id, s.done, s.total);
  }
  if (!running.empty()) text += "  [" + running.substr(1) + "]";
  return text;
}

void ExportProgressDisplay::Draw(bool force) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  std::fprintf(stderr, "\r%s\033[K", Text().c_str());
  std::fflush(stderr);
}

void ExportProgressDisplay::Finish() {
  if (!enabled_) return;
  Draw(true);
  std::fprintf(stderr, "\n");
}

}  // namespace lt::jobs
