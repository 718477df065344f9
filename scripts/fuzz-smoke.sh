#!/usr/bin/env bash
# Brief, deterministic libFuzzer runs of every reader (run by `make test`; `make fuzz` too).
# Builds build-fuzz/ with clang (the whole library instrumented with ASan, UBSan and coverage),
# seeds each target from small valid inputs (real captures from ../shared/real-data when
# present) and runs a fixed number of inputs with a fixed seed, so CI sees the same runs.
#   RUNS=N  inputs per target (default 20000)
#   RUNS_HDF5=N  inputs for the HDF5 reader (default 2000: each input forks a child, see below)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build-fuzz
real=$src/../shared/real-data
runs=${RUNS:-20000}
if ! command -v clang++ >/dev/null; then echo "fuzz-smoke: clang++ not found" >&2; exit 1; fi
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DLT_BUILD_FUZZERS=ON -DLT_WITH_CUDA=OFF -DLT_WITH_OPEN3D=OFF -DLT_WITH_CERES=OFF -DLT_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$build" -j "${JOBS:-2}" --target fuzz_point_clouds fuzz_recording_files fuzz_hdf5
corpus=$build/corpus
rm -rf "$corpus" && mkdir -p "$corpus/clouds" "$corpus/files" "$corpus/hdf5"
printf '\x00VERSION 0.7\nFIELDS x y z ring\nSIZE 4 4 4 2\nTYPE F F F U\nPOINTS 1\nDATA ascii\n1 2 3 4\n' \
  >"$corpus/clouds/pcd"
printf '\x01ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n1 2 3\n' \
  >"$corpus/clouds/ply"
(printf '\x04'; cat "$src/tests/regression/lab_plates_baseline.json") >"$corpus/files/metrics"
# A shard record the target's checks accept (shard 1 of 3 over 7 frames: frames 3..4).
a64=$(printf 'a%.0s' $(seq 64))
printf '\x05{"shard": 1, "shards": 3, "frames": [3, 5], "points": 10, "file": "shard-00001-of-00003.h5", "bytes": 70000000, "piece_bytes": 67108864, "sha256_pieces": ["%s", "%s"], "identity_sha256": "%s"}' \
  "$a64" "$a64" "$a64" >"$corpus/files/shard-record"
if [ -d "$real" ]; then
  export LT_FUZZ_REAL_DATA=$real
  (printf '\x00'; head -c 12000 "$real/rust-lidar-utils/hdl32_example.pcap") >"$corpus/files/pcap-velodyne"
  (printf '\x00'; head -c 40000 "$real/ouster-sdk/OS-1-128_v2.3.0_1024x10_lb_n3.pcap") >"$corpus/files/pcap-ouster"
  python3 "$src/scripts/make-pcapng-seed.py" "$real/rust-lidar-utils/hdl32_example.pcap" 12000 \
    "$corpus/files/pcapng-velodyne"
  (printf '\x01'; cat "$real/ouster-sdk/OS-1-32-G_v2.1.1_1024x10.json") >"$corpus/files/json"
  (printf '\x02'; cat "$real/ros-velodyne/32db.yaml") >"$corpus/files/yaml"
  # A two-laser db.xml (Velodyne's calibration format), read by the same selector.
  printf '\x02<boost_serialization><DB><distLSB_>0.2</distLSB_><enabled_><count>2</count><item>1</item><item>1</item></enabled_><points_><count>2</count><item><px><id_>0</id_><rotCorrection_>-5.3</rotCorrection_><vertCorrection_>-7.2</vertCorrection_><distCorrection_>111</distCorrection_><distCorrectionX_>118</distCorrectionX_><distCorrectionY_>113</distCorrectionY_><vertOffsetCorrection_>19.7</vertOffsetCorrection_><horizOffsetCorrection_>2.6</horizOffsetCorrection_><focalDistance_>1400</focalDistance_><focalSlope_>1</focalSlope_></px></item><item><px><id_>1</id_><rotCorrection_>-2.1</rotCorrection_><vertCorrection_>-6.9</vertCorrection_></px></item></points_></DB></boost_serialization>\n' >"$corpus/files/xml"
  (printf '\x03'; head -c 4000 "$real/kitti-object-vis/velodyne/000000.bin") >"$corpus/files/kitti"
  # Bags and CDR messages of 40 VLP-16 and 40 Pandar64 packets, cut from nebula's bags: rosbag2
  # .db3 (first byte 6), the CDR message (7) and the same as a ROS 1 bag (9).
  python3 "$src/scripts/make-bag-seed.py" \
    "$real/nebula/velodyne-vlp16/1673400471837873222_0.db3" 40 "$corpus/files/bag-velodyne"
  python3 "$src/scripts/make-bag-seed.py" \
    "$real/nebula/hesai-pandar64/1673403880599376836_0.db3" 40 "$corpus/files/bag-hesai"
  # The ouster-ros ROS 1 bag's start: its header, and its chunk cut short (first byte 9).
  (printf '\x09'; head -c 60000 "$real/ouster-sdk/bags/512x10_raw.bag") >"$corpus/files/ros1-bag"
  # RoboSense packets: the Helios bag's DIFOP and first MSOP packets, and RS-LiDAR-16 and -32
  # headers on some of them (first byte 11).
  python3 "$src/scripts/make-robosense-seed.py" \
    "$real/nebula/robosense-helios16p/rosbag2_2023_08_03-11_02_46_0.db3" 8 "$corpus/files/robosense"
  # The OSF recording cut to its first scan (first byte 10).
  python3 "$src/scripts/make-osf-seed.py" \
    "$real/ouster-sdk/osf/OS-0-128_v3.0.1_1024x10_20241017_141645.osf" "$corpus/files/osf"
else
  echo "fuzz-smoke: ../shared/real-data not found; seeding from built-in inputs only" >&2
fi
# Hesai protocol 1.4, 3.2 and 4.3 packets (first byte 11) and an AT128 angle correction (2),
# and a pcap of HDL-64E packets (0), made from the layouts.
python3 "$src/scripts/make-hesai128-seed.py" "$corpus/files/hesai128"
python3 "$src/scripts/make-hdl64e-seed.py" "$corpus/files/pcap-hdl64e"
# A small frames file of our own (the writer under test's counterpart), HDF5 target's seed: one
# plate seen by a VLP-16, 45 kB, so each input is quick to read.
cat >"$corpus/plate.yaml" <<EOF
materials: $src/configs/materials/library.yaml
objects:
  - {name: plate, type: plate, size_m: [1, 1], position_m: [5, 0, 0], rotation_deg: [0, 0, 180],
     material: lambertian_50, semantic_class: 64, instance_id: 1}
EOF
"$build/../build/bin/lidartwin" --version >/dev/null 2>&1 &&
  "$build/../build/bin/lidartwin" simulate --sensor "$src/configs/sensors/velodyne_vlp16.yaml" \
    --scene "$corpus/plate.yaml" --out "$corpus/hdf5/plate.h5" >/dev/null ||
  printf 'not hdf5' >"$corpus/hdf5/none"
# The same plate as a ROS 2 bag (MCAP: PointCloud2, /tf, /tf_static), the files target's ninth
# reader (first byte 8).
"$build/../build/bin/lidartwin" simulate --sensor "$src/configs/sensors/velodyne_vlp16.yaml" \
  --scene "$corpus/plate.yaml" --out "$corpus/plate.mcap" >/dev/null &&
  (printf '\x08'; cat "$corpus/plate.mcap") >"$corpus/files/mcap" ||
  echo "fuzz-smoke: no MCAP seed (build/bin/lidartwin missing?)" >&2
# The same plate as a LAS 1.4 file, the point-cloud target's third parser (first byte 2).
"$build/../build/bin/lidartwin" simulate --sensor "$src/configs/sensors/velodyne_vlp16.yaml" \
  --scene "$corpus/plate.yaml" --out "$corpus/plate.las" >/dev/null &&
  (printf '\x02'; cat "$corpus/plate.las") >"$corpus/clouds/las" ||
  echo "fuzz-smoke: no LAS seed (build/bin/lidartwin missing?); LAS is fuzzed from nothing" >&2
cd "$build"
# fuzz_hdf5: libhdf5 1.10.8 itself overflows its buffers on some corrupted object headers (under
# H5Aexists); our reader walks the structure in a forked child first (datasets/hdf5/
# isolated_call.h), so such a crash must end the child only. Forking costs: fewer inputs.
targets="fuzz_point_clouds:clouds fuzz_recording_files:files fuzz_hdf5:hdf5"
for target in $targets; do
  status=0
  leaks=1
  target_runs=$runs
  if [ "${target%%:*}" = fuzz_hdf5 ]; then
    leaks=0  # libhdf5 keeps its global state to exit (no atexit cleanup, hdf5_id.h)
    target_runs=${RUNS_HDF5:-2000}
  fi
  ASAN_OPTIONS=detect_leaks=$leaks \
  "$build/bin/${target%%:*}" -seed=1 -runs="$target_runs" -max_len=262144 -timeout=10 \
    -artifact_prefix="$build/" \
    -detect_leaks=$leaks \
    "$corpus/${target##*:}" >"$build/${target%%:*}.log" 2>&1 || status=$?
  grep -E "ERROR|SUMMARY|Done" "$build/${target%%:*}.log" || true
  if [ $status -ne 0 ]; then
    echo "fuzz-smoke: ${target%%:*} failed (exit $status); see $build/${target%%:*}.log" >&2
    exit 1
  fi
done
echo "fuzz-smoke: passed"
