#!/usr/bin/env bash
# The browser tests' data (issue 13), made by the CLI under test: a "real" recording (the
# threshold detector in room_without_ceiling.yaml: second returns the simulation lacks, no
# ceiling where the simulation has one) and a simulation of room.yaml, two frames each, their
# comparison with every pair (compare --pairs), the exported viewer and the report.
# usage: make_test_data.sh LIDARTWIN OUT_DIR
set -euo pipefail
cli=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
sensors=$here/../../configs/sensors
rm -rf "$out"
mkdir -p "$out"
cd "$out"
"$cli" simulate --sensor "$sensors/ouster_os0_128_threshold.yaml" \
  --scene "$here/data/room_without_ceiling.yaml" --frames 2 --seed 1 --out real.h5 > /dev/null
"$cli" simulate --sensor "$sensors/ouster_os0_128.yaml" --scene "$here/data/room.yaml" \
  --frames 2 --seed 2 --out sim.h5 > /dev/null
# A full OS0-128 frame a side for the frame rate: the closed room returns 130,848 of 131,072.
"$cli" simulate --sensor "$sensors/ouster_os0_128.yaml" --scene "$here/data/room.yaml" \
  --seed 3 --out full.h5 > /dev/null
# Dual returns outnumber the beams, so no drop accuracy (--beams-per-frame 0).
"$cli" compare --real real.h5 --sim sim.h5 --scene "$here/data/room.yaml" --beams-per-frame 0 \
  --pairs pairs.csv --out metrics.json > /dev/null 2> compare.log
"$cli" info real.h5 --json > real_info.json
"$cli" info sim.h5 --json > sim_info.json
"$cli" view --real real.h5 --sim sim.h5 --scene "$here/data/room.yaml" --export viewer.html
"$cli" view --real full.h5 --sim sim.h5 --sim-frames 0 --export full.html
"$cli" report metrics.json --out report > /dev/null
