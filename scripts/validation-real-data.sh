#!/usr/bin/env bash
# The real-vs-sim loop on the shared real recordings (docs/validation.md, issue 12): every
# capture with two or more frames, leave-one-out, each held-out frame simulated from a scene
# reconstructed from the others and compared with the recorded frame; beside it, the recorded
# frame against its real neighbour (the floor). One report per recording over its folds, one
# for the floors.
#   OS-1-128 (3 frames): with the capture's SLAM poses (holding the end of each frame:
#     --pose-at end, the instant that fits best, docs/validation.md "Poses"), and with poses
#     estimated by ICP instead;
#   HDL-32E (7 frames, no poses: estimated by ICP; frames 0 and 6 are partial revolutions, so
#     frames 1-5, each from the other four);
#   KITTI odometry scans (6 frames, a folder of .bin scans, no metadata: frames 1-4, each from
#     the other five);
#   OS-0-128 OSF (3 frames, frame 0 partial: frames 1 and 2 from the other two, static);
#   VLP-16 (2 frames, frame 0 a third of a revolution: frame 1 from frame 0, static sensor);
#   the nebula bags (Hesai, Velodyne, RoboSense ROS 2 bags of raw packets), each full
#   revolution from the others.
# With METHODS=1 it also compares the reconstruction methods on the OS-1-128 folds.
#
#   scripts/validation-real-data.sh BUILD_DIR OUT_DIR
set -euo pipefail
bin=$(realpath "${1:-build}")/bin/lidartwin
out=${2:-build/validation}
real=$(cd "$(dirname "$0")/.." && pwd)/../shared/real-data
mkdir -p "$out"

# reproduce NAME FOLD ARGS...: one fold into $out/NAME-frameFOLD, its log beside it.
reproduce() {
  local name=$1 fold=$2
  shift 2
  local dir=$out/$name-frame$fold
  "$bin" reproduce --simulate-frame "$fold" --out "$dir" "$@" >"$dir.log" 2>&1 ||
    { cat "$dir.log" >&2; return 1; }
  sed -n '/metric/,/^wrote/p' "$dir.log" | sed "s/^/[$name frame $fold] /"
}

# report NAME: the simulated folds and the floors of one recording.
report() {
  local name=$1
  "$bin" report "$out/$name"-frame*/metrics.json --out "$out/report-$name" >/dev/null
  "$bin" report "$out/$name"-frame*/floor_metrics.json --out "$out/report-$name-floor" >/dev/null
  echo "wrote $out/report-$name and $out/report-$name-floor"
}

os1=$real/ouster-sdk/OS-1-128_v2.3.0_1024x10
os1_args=(--recording "${os1}_lb_n3.pcap" --metadata "$os1.json"
          --poses "${os1}_lb_n3_poses_kitti.txt" --pose-at end)
for k in 0 1 2; do reproduce os1-128 $k "${os1_args[@]}"; done
report os1-128
for k in 0 1 2; do
  reproduce os1-128-icp $k --recording "${os1}_lb_n3.pcap" --metadata "$os1.json"
done
report os1-128-icp

hdl=(--recording "$real/rust-lidar-utils/hdl32_example.pcap"
     --calibration "$real/ros-velodyne/32db.yaml" --rotation-rate-hz 11.72)
for k in 1 2 3 4 5; do
  others=$(echo 1 2 3 4 5 | tr ' ' '\n' | grep -vx $k | paste -sd,)
  reproduce hdl32e $k "${hdl[@]}" --reconstruct-frames "$others"
done
report hdl32e

# The KITTI odometry scans (a folder of six .bin scans, HDL-64E, no metadata: the sensor is
# measured from the points, the poses by ICP; the car drives 0.68 m a frame): frames 1-4, each
# from the other five.
kitti=$real/kitti-odometry-patchworkpp
for k in 1 2 3 4; do
  others=$(echo 0 1 2 3 4 5 | tr ' ' '\n' | grep -vx $k | paste -sd,)
  reproduce kitti $k --recording "$kitti" --reconstruct-frames "$others"
done
report kitti

# The OS-0-128 OSF (raw signal photons, 3 frames, frame 0 partial): frames 1 and 2 each from
# the other two; a desk scene where ICP has too little to hold on to, and the sensor stood
# still.
osf=$real/ouster-sdk/osf/OS-0-128_v3.0.1_1024x10_20241017_141645.osf
for k in 1 2; do reproduce os0-128-osf $k --recording "$osf" --static; done
report os0-128-osf

vlp=(--recording "$real/rust-lidar-utils/velodyne_example_vlp16.pcap"
     --calibration "$real/ros-velodyne/VLP16db.yaml" --static)
reproduce vlp16 1 "${vlp[@]}"
report vlp16

# The nebula bags (ROS 2, raw packets; issue 40's intensity target): every full revolution
# from the other full ones (the first and last messages' partial revolutions left out, as the
# HDL-32E's are). They are desk captures of sensors standing still (ICP finds 1-6 mm and
# 0.02-0.2 deg between frames, its own noise), so static poses (docs/validation.md). Each line:
# NAME FULL-FRAMES.
nebula=$real/nebula
while read -r name frames; do
  bag=$(ls "$nebula/$name"/*.db3)
  # The angle file (a Hesai .csv, a Velodyne .yaml): not the bag's metadata.yaml. The RoboSense
  # unit's come from its DIFOP packet: the fixture's 16-line file is not its 32 lasers'
  # (docs/formats/velodyne-robosense-answer-keys.md).
  cal=(--calibration "$(find "$nebula/$name" -maxdepth 1 \( -name '*.csv' -o -name '*.yaml' \) \
          ! -name metadata.yaml | sort | head -1)")
  case $name in robosense-*) cal=() ;; esac
  for k in ${frames//,/ }; do
    others=$(echo "$frames" | tr , '\n' | grep -vx "$k" | paste -sd,)
    reproduce "nebula-$name" "$k" --recording "$bag" "${cal[@]}" \
      --reconstruct-frames "$others" --static
  done
  report "nebula-$name"
done <<'LIST'
hesai-pandar64 1,2,3,4
hesai-pandar40p 1,2,3,4
hesai-qt64 1,2,3,4
hesai-xt16 1,2,3
velodyne-vlp16 0,1,2,3
velodyne-vls128 1,2,3
robosense-helios16p 0,1,2,3,4
LIST

if [ "${METHODS:-0}" = 1 ]; then
  for method in ${METHOD_LIST:-range-image surfels poisson ball-pivoting tsdf}; do
    for k in 0 1 2; do
      start=$(date +%s.%N)
      reproduce "method-$method-os1-128" $k "${os1_args[@]}" --method "$method" >/dev/null
      echo "method $method fold $k: $(echo "$(date +%s.%N) - $start" | bc) s"
    done
    "$bin" report "$out/method-$method-os1-128"-frame*/metrics.json \
      --out "$out/report-method-$method" >/dev/null
    echo "wrote $out/report-method-$method"
  done
fi
