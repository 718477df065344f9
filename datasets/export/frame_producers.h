// Frames [begin, end) simulated on threads, one a simulator, each taking the next frame not yet
// taken, handed out in order (private to datasets/; export_run.cpp). Each thread also claims
// the frame it will simulate after this one and tells its simulator (ExpectFollowing), so that
// the CUDA simulator can run it on the GPU while this one's points are appended; where it cannot
// claim one it says so, and the simulator starts nothing (its stride would guess the other
// thread's frame). With two simulators on
// one GPU the host's share of a frame (copies, the frame's arrays) overlaps the other's kernels: on
// the H100 the simulator spends most of a lab frame on the host. A simulator may join later
// (Add): the export makes its second one while the first already runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "lidartwin/sim/simulator.h"

namespace lt {

class FrameProducers {
 public:
  // Frames are taken at most `ahead` per simulator past the one Next() waits for, and each
  // thread's claim on its next frame at most one more.
  FrameProducers(std::vector<Simulator*> simulators, uint32_t begin, uint32_t end,
                 uint32_t ahead = 2)
      : next_(begin), take_(begin), end_(end), ahead_(ahead) {
    try {
      for (Simulator* sim : simulators)
        Add(sim);
    } catch (...) {  // no thread: the ones started stop before this throws on
      Stop();
      throw;
    }
  }
  ~FrameProducers() { Stop(); }
  FrameProducers(const FrameProducers&) = delete;
  FrameProducers& operator=(const FrameProducers&) = delete;

  // Another simulator on its own thread, taking frames from the next one not taken. Throws
  // when no thread can be started (the others go on).
  void Add(Simulator* sim) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++producers_;
    }
    try {
      threads_.emplace_back([this, sim] { Run(sim); });
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      --producers_;
      throw;
    }
  }

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

  void Run(Simulator* sim) {
    constexpr uint32_t kNone = UINT32_MAX;  // past any frame: end_ is at most UINT32_MAX
    uint32_t claimed = kNone;               // the frame this thread simulates next
    for (;;) {
      uint32_t k = 0;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        // take_ - next_: frames taken and not yet handed out (take_ >= next_ always; the
        // difference does not wrap near 2^32 where a sum would).
        auto may_take = [&](uint32_t window) {
          return take_ < end_ && take_ - next_ < window * producers_;
        };
        changed_.wait(
            lock, [&] { return stop_ || claimed != kNone || take_ >= end_ || may_take(ahead_); });
        if (stop_) return;
        if (claimed != kNone) {
          k = claimed;
        } else {
          if (take_ >= end_) return;
          k = take_++;
        }
        // The claim may go one frame a thread past the window: a thread holds the frame it
        // simulates and its claim, and within the window alone it seldom could (review of ADR
        // 0033: 1-3 claims in 10,000 calls while the export waited on its writers).
        claimed = may_take(ahead_ + 1) ? take_++ : kNone;
      }
      const auto t0 = std::chrono::steady_clock::now();
      Expected<Frame> frame = Error{""};
      try {
        if (claimed != kNone) {
          sim->ExpectFollowing(claimed);
        } else {
          sim->ExpectFollowing(std::nullopt);
        }
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
  uint32_t next_;  // the frame Next() hands out next
  uint32_t take_;  // the next frame not taken by a simulator
  uint32_t end_, ahead_;
  uint32_t producers_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace lt
