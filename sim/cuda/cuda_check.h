// CUDA error handling for host code in sim/cuda: every CUDA call is checked (STYLE.md rule 6)
// and a failure becomes an lt::Error naming the call and CUDA's message.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "lidartwin/base/status.h"

namespace lt::cuda {

inline Status CudaStatus(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return {};
  return Error{std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e)};
}

}  // namespace lt::cuda

// Returns the error from the enclosing function (which returns Status or Expected<T>).
#define LT_CUDA_TRY(call)                                                      \
  do {                                                                         \
    if (::lt::Status lt_s = ::lt::cuda::CudaStatus((call), #call); !lt_s.ok()) \
      return lt_s.error();                                                     \
  } while (0)
