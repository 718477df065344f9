#!/usr/bin/env bash
# Builds the CUDA backend for Hopper (sm_90) without Open3D or the viewer into build-device/ and packs the
# binaries and the non-system shared libraries they need into .devpkg/ (git-ignored through
# .git/info/exclude), small enough for the GPU machine's 64 MiB working-tree limit. Run
# scripts/device-gpu-check.sh there with .devpkg carried.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DLT_WITH_OPEN3D=OFF -DLT_WITH_CERES=OFF \
  -DLT_WITH_VIEWER=OFF -DLT_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-lineinfo > /dev/null
cmake --build build-device -j2 --target lidartwin sim_cuda_tests bench_cuda_tests
rm -rf .devpkg && mkdir -p .devpkg/bin .devpkg/lib
cp build-device/bin/{lidartwin,sim_cuda_tests,bench_cuda_tests} .devpkg/bin/
strip .devpkg/bin/*
# Libraries a CUDA image may lack: Embree and TBB (the peer), yaml-cpp, fmt, Debian's HDF5
# and its szip, libcrypto, zlib and libdeflate (the export manifest, journal and chunks), and the C++ runtime
# these were built against.
for b in .devpkg/bin/*; do ldd "$b" | awk '$3 ~ /^\// {print $3}'; done | sort -u |
  grep -E "libembree3|libtbb\.|libyaml-cpp|libfmt|libhdf5_serial|libsz|libaec|libstdc\+\+|libgcc_s|libcrypto|libz\.|libdeflate" |
  xargs -r -I{} cp -L {} .devpkg/lib/
# Embree alone is 44 MB, the binaries 20 MB each: compressed, the package keeps within the
# limit; scripts/device-gpu-check.sh unpacks them.
xz -T2 -6 .devpkg/lib/libembree3.so.3 .devpkg/bin/lidartwin .devpkg/bin/sim_cuda_tests \
  .devpkg/bin/bench_cuda_tests
mkdir -p .git/info && { grep -qx "/.devpkg/" .git/info/exclude 2>/dev/null || echo "/.devpkg/" >> .git/info/exclude; }
du -sh .devpkg
