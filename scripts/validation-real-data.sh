#!/usr/bin/env bash
# The real-vs-sim loop on the shared real recordings (docs/validation.md):
#   OS-1-128, three frames with poses: leave-one-out, each frame simulated from a scene
#   reconstructed from the other two;
#   HDL-32E: frames 1-5 of the capture (0 and 6 are partial revolutions), each of 2, 3, 4
#   simulated from a scene reconstructed from the other full revolutions.
# Then one report over all folds.   scripts/validation-real-data.sh BUILD_DIR OUT_DIR
set -euo pipefail
bin=$(realpath "${1:-build}")/bin/lidartwin
out=${2:-build/validation}
real=$(cd "$(dirname "$0")/.." && pwd)/../shared/real-data
mkdir -p "$out"
os1=$real/ouster-sdk/OS-1-128_v2.3.0_1024x10
for k in 0 1 2; do
  "$bin" reproduce --recording "${os1}_lb_n3.pcap" --metadata "$os1.json" \
    --poses "${os1}_lb_n3_poses_kitti.txt" --simulate-frame $k --out "$out/os1-128-frame$k" \
    2>&1 | grep -v "degenerate triangles"
done
for k in 2 3 4; do
  others=$(echo 1 2 3 4 5 | tr ' ' '\n' | grep -vx $k | paste -sd,)
  "$bin" reproduce --recording "$real/rust-lidar-utils/hdl32_example.pcap" \
    --calibration "$real/ros-velodyne/32db.yaml" --rotation-rate-hz 11.72 \
    --simulate-frame $k --reconstruct-frames "$others" --out "$out/hdl32e-frame$k" \
    2>&1 | grep -v "degenerate triangles"
done
"$bin" report "$out"/os1-128-frame*/metrics.json --out "$out/report-os1-128"
"$bin" report "$out"/hdl32e-frame*/metrics.json --out "$out/report-hdl32e"
