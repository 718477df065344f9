// An owning device allocation (RAII); kernels get the raw pointer by value.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "cuda_check.h"

namespace lt::cuda {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), size_(o.size_) {
    o.ptr_ = nullptr;
    o.size_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    Free();
    ptr_ = o.ptr_;
    size_ = o.size_;
    o.ptr_ = nullptr;
    o.size_ = 0;
    return *this;
  }
  ~DeviceBuffer() { Free(); }

  // Grows to at least n elements (contents not kept).
  Status Reserve(size_t n) {
    if (n <= size_) return {};
    Free();
    LT_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&ptr_), (n ? n : 1) * sizeof(T)));
    size_ = n;
    return {};
  }
  Status Upload(const T* host, size_t n) {
    if (Status s = Reserve(n); !s.ok()) return s;
    if (n) LT_CUDA_TRY(cudaMemcpy(ptr_, host, n * sizeof(T), cudaMemcpyHostToDevice));
    return {};
  }
  Status Upload(const std::vector<T>& host) { return Upload(host.data(), host.size()); }
  Status Download(T* host, size_t n) const {
    if (n) LT_CUDA_TRY(cudaMemcpy(host, ptr_, n * sizeof(T), cudaMemcpyDeviceToHost));
    return {};
  }
  // Frees the allocation now (size 0 again).
  void Release() { Free(); }
  T* get() const { return ptr_; }
  size_t size() const { return size_; }

 private:
  void Free() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    size_ = 0;
  }
  T* ptr_ = nullptr;
  size_t size_ = 0;
};

}  // namespace lt::cuda
