// Frames [begin, end) simulated on threads, one a simulator, frame k by simulator
// (k - begin) mod n, handed out in order (private to datasets/; export_run.cpp). With two
// simulators on one GPU the host's share of a frame (copies, the frame's arrays) overlaps the
// other's kernels: on the H100 the simulator spends most of a lab frame on the host.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "lidartwin/sim/simulator.h"

namespace lt {

class FrameProducers {
 public:
  // Each thread simulates at most `ahead` frames past the one Next() waits for.
  FrameProducers(std::vector<Simulator*> simulators, uint32_t begin, uint32_t end,
                 uint32_t ahead = 2)
      : next_(begin), end_(end), ahead_(ahead) {
    const uint32_t n = static_cast<uint32_t>(simulators.size());
    for (uint32_t p = 0; p < n; ++p) {
      try {
        Start(simulators[p], begin + p, n);
      } catch (...) {  // no thread: the ones started stop before this throws on
        Stop();
        throw;
      }
    }
  }
  ~FrameProducers() { Stop(); }
  FrameProducers(const FrameProducers&) = delete;
  FrameProducers& operator=(const FrameProducers&) = delete;

  // The next frame in order, and the seconds its simulator spent on it.
  Expected<Frame> Next(double* seconds) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return done_.count(next_) > 0; });
    auto it = done_.find(next_);
    Expected<Frame> frame = std::move(it->second.frame);
    *seconds = it->second.seconds;
    done_.erase(it);
    ++next_;
    changed_.notify_all();
    return frame;
  }

 private:
  struct Done {
    Expected<Frame> frame;
    double seconds;
  };

  void Start(Simulator* sim, uint32_t first, uint32_t n) {
    threads_.emplace_back([this, sim, first, n] {
      for (uint32_t k = first; k < end_; k += n) {
        {
          std::unique_lock<std::mutex> lock(mutex_);
          changed_.wait(lock, [&] { return stop_ || k < next_ + ahead_ * n; });
          if (stop_) return;
        }
        const auto t0 = std::chrono::steady_clock::now();
        Expected<Frame> frame = Error{""};
        try {
          frame = sim->Simulate(k);
        } catch (const std::exception& ex) {  // an error at its frame, not the process's end
          frame = Error{"frame " + std::to_string(k) + ": " + ex.what()};
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::lock_guard<std::mutex> lock(mutex_);
        done_.emplace(k, Done{std::move(frame), seconds});
        changed_.notify_all();
      }
    });
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (auto& t : threads_)
      t.join();
    threads_.clear();
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<uint32_t, Done> done_;
  uint32_t next_, end_, ahead_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace lt
