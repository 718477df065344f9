#!/usr/bin/env bash
# Where one build kernel's time goes, line by line, on the GPU machine: `ncu` profiles the first
# launch of $KERNEL (default SahSubtreeKernel) in `lidartwin bench --gpu-triangles $TRIANGLES
# --repeats 1 --no-embree` with its source counters and warp-state samples, and writes the
# report, the per-SASS-instruction table (CSV: samples, instructions executed, shared-memory
# conflicts; the CUDA-line view of `--print-source cuda` printed the source without metrics)
# and the details page to $OUT (or ./device-out). The package is built with -lineinfo
# (scripts/make-device-package.sh); the sources are found through the path they were compiled
# at, linked to this tree where it is missing.
# $BINARY picks another lidartwin build.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/devpkg-env.sh
kernel=${KERNEL:-SahSubtreeKernel}
compiled_at=${COMPILED_AT:-/work/main}
[ -e "$compiled_at" ] || { mkdir -p "$(dirname "$compiled_at")" && ln -s "$PWD" "$compiled_at"; }
ncu --clock-control none --kernel-name "regex:$kernel" --launch-count 1 \
  --section SourceCounters --section WarpStateStats --section Occupancy --section LaunchStats \
  --section SpeedOfLight --import-source yes -o "$out/$kernel" -f "$binary" bench \
  --gpu-triangles "${TRIANGLES:-1000000}" --repeats 1 --no-embree > "$out/$kernel.log" 2>&1 ||
  { echo "ncu failed: $(tail -3 "$out/$kernel.log")"; exit 1; }
ncu -i "$out/$kernel.ncu-rep" --page source --csv --print-source sass > "$out/$kernel-sass.csv" \
  2> "$out/$kernel-sass.err" || echo "no source page: $(tail -2 "$out/$kernel-sass.err")"
ncu -i "$out/$kernel.ncu-rep" --page details > "$out/$kernel-details.txt" 2>&1
grep -E "Registers Per|Theoretical Occupancy|Achieved Occupancy|Duration|Executed Ipc A|No Eligible" \
  "$out/$kernel-details.txt"
