// Skips a `gpu` test when no CUDA device can be used (CI has none), with the reason.
#pragma once

#include <gtest/gtest.h>

#include "lidartwin/sim/cuda_backend.h"

#define LT_REQUIRE_GPU()                                                              \
  do {                                                                                \
    if (::lt::Status s = ::lt::CudaAvailable(); !s.ok()) GTEST_SKIP() << s.message(); \
  } while (0)
