// A fixed set of threads running submitted tasks first in, first out (private to datasets/).
// Unlike a thread a task (std::async), the threads live as long as the pool, and so does what
// they keep thread_local: the chunk codec's zlib state and buffers (chunk_codec.cpp), which
// cost page faults to allocate afresh.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace lt {

template <typename Result>
class TaskPool {
 public:
  // Starts `threads` threads (at least one); std::system_error when none can start.
  explicit TaskPool(unsigned threads) {
    try {
      for (unsigned t = 0; t < std::max(1u, threads); ++t)
        workers_.emplace_back([this] { Run(); });
    } catch (const std::system_error&) {
      if (workers_.empty()) throw;  // the threads that did start are enough
    }
  }
  ~TaskPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_)
      w.join();
  }
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // The task's result, once a thread has run it (tasks left when the pool is destroyed run
  // first: every future submitted gets its value).
  std::future<Result> Submit(std::function<Result()> task) {
    std::packaged_task<Result()> packaged(std::move(task));
    std::future<Result> result = packaged.get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(packaged));
    }
    wake_.notify_one();
    return result;
  }

 private:
  void Run() {
    for (;;) {
      std::packaged_task<Result()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<Result()>> tasks_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace lt
