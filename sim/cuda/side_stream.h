// A second stream for work that may run beside a stream's own (RAII, move-only): Fork(from)
// lets what is queued on it next start once what `from` has queued so far is done, Join(to)
// makes what `to` queues next wait for what it holds (call Fork first), Wait waits for it on
// the host. Created on first use, non-blocking (it does not wait on the legacy default stream),
// with events that keep no time.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "cuda_check.h"

namespace lt::cuda {

class SideStream {
 public:
  SideStream() = default;
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;
  SideStream(SideStream&& o) noexcept { Swap(o); }
  SideStream& operator=(SideStream&& o) noexcept {
    SideStream gone(std::move(o));
    Swap(gone);
    return *this;
  }
  ~SideStream() {
    if (stream_) cudaStreamSynchronize(stream_);  // nothing of it outlives what it reads
    if (join_) cudaEventDestroy(join_);
    if (fork_) cudaEventDestroy(fork_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  Status Fork(cudaStream_t from) {
    if (!stream_) {  // all three or none, so a failed creation is tried again next time
      SideStream made;
      LT_CUDA_TRY(cudaStreamCreateWithFlags(&made.stream_, cudaStreamNonBlocking));
      LT_CUDA_TRY(cudaEventCreateWithFlags(&made.fork_, cudaEventDisableTiming));
      LT_CUDA_TRY(cudaEventCreateWithFlags(&made.join_, cudaEventDisableTiming));
      Swap(made);
    }
    LT_CUDA_TRY(cudaEventRecord(fork_, from));
    LT_CUDA_TRY(cudaStreamWaitEvent(stream_, fork_, 0));
    return {};
  }
  Status Join(cudaStream_t to) {
    LT_CUDA_TRY(cudaEventRecord(join_, stream_));
    LT_CUDA_TRY(cudaStreamWaitEvent(to, join_, 0));
    return {};
  }
  // Waits on the host for what it holds (returns at once where that is done).
  Status Wait() {
    if (stream_) LT_CUDA_TRY(cudaStreamSynchronize(stream_));
    return {};
  }
  cudaStream_t get() const { return stream_; }

 private:
  void Swap(SideStream& o) noexcept {
    std::swap(stream_, o.stream_);
    std::swap(fork_, o.fork_);
    std::swap(join_, o.join_);
  }
  cudaStream_t stream_ = nullptr;
  cudaEvent_t fork_ = nullptr, join_ = nullptr;
};

}  // namespace lt::cuda
