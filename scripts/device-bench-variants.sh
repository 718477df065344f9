#!/usr/bin/env bash
# Compares builds of lidartwin on the GPU machine in one lease: every .devpkg/bin/lidartwin.NAME
# (a variant's binary, copied there after scripts/make-device-package.sh, compressed or not)
# runs `lidartwin bench --gpu-triangles $TRIANGLES --repeats 5 --no-embree`, the variants
# alternated, $ROUNDS rounds, so that a clock or neighbour that drifts shows in all of them. One
# line a variant, round and scene: the GPU binned-SAH build (ms) and the same with its subtrees
# split a depth at a time, its SAH cost and its unbounded coherent and random rays/s, then
# PLOC's and LBVH's builds and PLOC's coherent rate.
# The JSON of every run goes to $OUT (or ./device-out).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/devpkg-env.sh
variants=()
for f in .devpkg/bin/lidartwin.*; do
  [ -e "$f" ] && variants+=("${f#.devpkg/bin/lidartwin.}")
done
[ ${#variants[@]} -gt 0 ] || { echo "no .devpkg/bin/lidartwin.NAME to compare" >&2; exit 2; }
echo "# variant round triangles | sah: build_ms depthwise_ms cost coherent/s random/s | ploc: build_ms coherent/s | lbvh: build_ms"
for round in $(seq 1 "${ROUNDS:-2}"); do
  for v in "${variants[@]}"; do
    json="$out/bench-$v-$round.json"
    timeout 400 ".devpkg/bin/lidartwin.$v" bench --gpu-triangles "${TRIANGLES:-1000000,10000000}" \
      --repeats 5 --no-embree --json "$json" > "$out/bench-$v-$round.log" 2>&1 ||
      { echo "$v round $round: rc=$?"; tail -3 "$out/bench-$v-$round.log"; continue; }
    python3 - "$json" "$v" "$round" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for s in j["gpu"]["scenes"]:
    sah, t = s["gpu_binned_sah"], s["trees"]["gpu_binned_sah"]
    print(f'{sys.argv[2]} {sys.argv[3]} {s["triangles"]} | {sah["bvh_build_ms"]:.3f} '
          f'{sah.get("bvh_build_ms_subtrees_depthwise", 0):.3f} '
          f'{t["sah_cost"]:.2f} {sah["coherent_gpu_rays_per_s"]:.3e} '
          f'{sah["random_gpu_rays_per_s"]:.3e} | {s["bvh_build_ms"]:.3f} '
          f'{s["coherent_os0_8_subrays"]["gpu_rays_per_s"]:.3e} | {s["lbvh"]["bvh_build_ms"]:.3f}')
PY
  done
done
