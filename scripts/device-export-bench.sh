#!/usr/bin/env bash
# The export figures of issue 16 on a GPU machine (bench/RESULTS.md, "Labelled export"), from a
# package made by scripts/make-device-package.sh: `lidartwin bench --export` on the lab plates
# and the street (2000 and 10,000 frames each), one process and one process per GPU of
# DEVICES (default 0; 0,1 on a two-GPU machine), and one `lidartwin export` whose summary line
# splits a shard's time (loading, frames, finishing). Logs and JSON go to $OUT (or ./device-out).
#   FRAMES_LONG=N  frames of the long runs (default 10000; 0 leaves them out)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/devpkg-env.sh
bin=.devpkg/bin/lidartwin
devices=${DEVICES:-0}
nvidia-smi --query-gpu=name --format=csv,noheader
nproc
bench() {  # scene frames
  "$bin" bench --export --backend cuda --devices "$devices" --export-frames "$2" \
    --scene "configs/scenes/$1.yaml" --json "$out/export-$1-$2.json" > "$out/export-$1-$2.log" 2>&1
  echo "bench --export $1 $2 frames: rc=$?"
  cat "$out/export-$1-$2.log"
}
bench lab_plates 2000
bench street_crossing 2000
if [ "${FRAMES_LONG:-10000}" != 0 ]; then
  bench lab_plates "${FRAMES_LONG:-10000}"
  bench street_crossing "${FRAMES_LONG:-10000}"
fi
work=$(mktemp -d)
"$bin" export --backend cuda --sensor configs/sensors/ouster_os0_128.yaml \
  --scene configs/scenes/lab_plates.yaml --frames 2000 --out "$work/e" > "$out/export-split.log" 2>&1
echo "export 2000 lab frames: rc=$?"
grep -E "frames|joined" "$out/export-split.log"
rm -rf "$work"
