#!/usr/bin/env bash
# Runs the gpu-labelled tests, compute-sanitizer and `lidartwin bench` on a GPU machine, from a
# package made by scripts/make-device-package.sh (binaries in .devpkg/bin, the shared
# libraries they need in .devpkg/lib). Logs go to $OUT (or ./device-out).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/devpkg-env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
missing=$(ldd .devpkg/bin/lidartwin | grep "not found")
[ -n "$missing" ] && echo "missing libraries: $missing"
# The simulator's CUDA tests, then the bench's binned-SAH builder's (bench_cuda_tests).
for binary in sim_cuda_tests bench_cuda_tests; do
  for t in $(.devpkg/bin/$binary --gtest_list_tests | awk '/^[^ ]/{suite=$1} /^  /{print suite $1}'); do
    echo "$binary $t"
  done
done | while read -r binary t; do
  timeout 300 .devpkg/bin/$binary --gtest_filter="$t" > "$out/test_$t.log" 2>&1
  rc=$?
  echo "$t rc=$rc"
  grep -E "^\[(parity|bvh|mismatch|batches)\]" "$out/test_$t.log" | grep -v simulating | head -20
  [ $rc -ne 0 ] && tail -5 "$out/test_$t.log"
done | tee "$out/gpu_tests_summary.log"
if [ "${SANITIZE:-1}" = 1 ]; then
  compute-sanitizer --leak-check full --error-exitcode 9 .devpkg/bin/sim_cuda_tests \
    --gtest_filter='CudaBackend.SameSeedSameFrame:CudaBackend.FramesInAnyOrderAreTheFramesInTurn:CudaBvh.SingleAndTwoTriangleScenes:CudaBackend.BatchedFramesAndSplitScenesGiveTheSameFrames:CudaBvh.TreeOnTheHostIsWhole:CudaWaveform.RecordsMatchTheCpuSampleBySample:CudaWaveform.PhotonDrawsAreIdenticalToTheCpu:CudaWaveform.RangingOfGivenRecordsMatchesTheCpu' \
    > "$out/sanitizer.log" 2>&1
  echo "compute-sanitizer rc=$?"; grep -E "ERROR SUMMARY|LEAK SUMMARY" "$out/sanitizer.log"
  compute-sanitizer --leak-check full --error-exitcode 9 .devpkg/bin/bench_cuda_tests \
    --gtest_filter='GpuBinnedSah.TreeOnTheHostIsWhole:GpuBinnedSah.SingleAndTwoTriangleScenes' \
    > "$out/sanitizer_binned_sah.log" 2>&1
  echo "compute-sanitizer (binned SAH) rc=$?"
  grep -E "ERROR SUMMARY|LEAK SUMMARY" "$out/sanitizer_binned_sah.log"
  # Shared-memory hazards in the builder's blocks and warps, both forms of its subtree phase.
  compute-sanitizer --tool racecheck --error-exitcode 9 .devpkg/bin/bench_cuda_tests \
    --gtest_filter='GpuBinnedSah.TreeOnTheHostIsWhole' > "$out/racecheck_binned_sah.log" 2>&1
  echo "racecheck (binned SAH) rc=$?"
  grep -E "RACECHECK SUMMARY" "$out/racecheck_binned_sah.log"
fi
# The CLI end to end on the GPU backend.
.devpkg/bin/lidartwin simulate --sensor configs/sensors/ouster_os0_128.yaml \
  --scene configs/scenes/lab_plates.yaml --backend cuda --frames 3 --out "$out/cuda.h5" &&
  .devpkg/bin/lidartwin info "$out/cuda.h5" | head -4 && rm -f "$out/cuda.h5"
# The waveform detector (Cube 1) on the GPU backend, in sunlight.
.devpkg/bin/lidartwin simulate --sensor configs/sensors/blickfeld_cube1.yaml \
  --scene configs/scenes/lab_plates.yaml --backend cuda --frames 2 --out "$out/cube.h5" &&
  .devpkg/bin/lidartwin info "$out/cube.h5" | head -4 && rm -f "$out/cube.h5"
# Moving traffic on the GPU backend.
.devpkg/bin/lidartwin simulate --sensor configs/sensors/ouster_os0_128.yaml \
  --scene configs/scenes/street_crossing.yaml --backend cuda --frames 5 --out "$out/street.h5" &&
  rm -f "$out/street.h5"
if [ "${BENCH:-1}" = 1 ]; then
  timeout 300 .devpkg/bin/lidartwin bench --json "$out/bench.json" --repeats "${REPEATS:-10}" \
    2>&1 | tee "$out/bench.log"
fi
