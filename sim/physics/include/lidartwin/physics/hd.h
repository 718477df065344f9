// LT_HD marks a function that runs on the host and, under nvcc, on the device as well.
// Physics functions carry it so that the CPU reference, the CUDA kernels and the Ceres cost
// functors all call the one definition of each equation (DESIGN.md sec. 3).
#pragma once

#if defined(__CUDACC__)
#define LT_HD __host__ __device__
#else
#define LT_HD
#endif
