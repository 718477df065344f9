#!/usr/bin/env bash
# Where the labelled export's time goes on one and two GPUs (issue 44), from a package made by
# scripts/make-device-package.sh, on a machine with two GPUs: the host's CPU topology, then
# `lidartwin export` of each scene with --devices 0 and --devices 0,1, each printing every
# shard's split (loading, frames, simulators' rate, encoding summed over its threads, writing,
# finishing), and two plain exports started together, one a GPU, without a parent (is what the
# two shards share the parent's or the host's?). Log to $OUT/profile.log (or ./device-out).
#   FRAMES="2000 10000"  the runs' lengths
#   SCENES="lab_plates street_crossing"  configs/scenes/NAME.yaml
#   HOST_CORES="0"       --host-cores values to try (0: the process's own cores)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/devpkg-env.sh
bin=.devpkg/bin/lidartwin
exec > >(tee "$out/profile.log") 2>&1
lscpu | grep -E "^(Model name|Socket|Core|Thread|CPU\(s\)|NUMA)"
nvidia-smi --query-gpu=name --format=csv,noheader
work=$(mktemp -d)
millis() { date +%s%3N; }
for scene in ${SCENES:-lab_plates street_crossing}; do
  run=(--backend cuda --sensor configs/sensors/ouster_os0_128.yaml
    --scene "configs/scenes/$scene.yaml")
  for cores in ${HOST_CORES:-0}; do
    for frames in ${FRAMES:-2000 10000}; do
      for devices in 0 0,1; do
        echo "== $scene, host cores $cores, $frames frames, devices $devices"
        extra=()
        [ "$cores" != 0 ] && extra=(--host-cores "$cores")
        rm -rf "$work/e"
        start=$(millis)
        /usr/bin/time -f "max RSS %M KiB (largest process)" "$bin" export "${run[@]}" \
          --devices "$devices" "${extra[@]}" --frames "$frames" --out "$work/e" 2>&1
        echo "wall $(($(millis) - start)) ms"
      done
    done
  done
  for frames in ${FRAMES:-2000 10000}; do
    echo "== $scene, two plain exports of $((frames / 2)) frames started together, one a GPU"
    rm -rf "$work/a" "$work/b"
    start=$(millis)
    CUDA_VISIBLE_DEVICES=0 "$bin" export "${run[@]}" --frames $((frames / 2)) --out "$work/a" 2>&1 &
    first=$!
    CUDA_VISIBLE_DEVICES=1 "$bin" export "${run[@]}" --frames $((frames / 2)) --out "$work/b" 2>&1 &
    wait "$first" $!  # not a bare wait: that would wait for the log's tee too
    echo "wall $(($(millis) - start)) ms"
  done
done
rm -rf "$work"
