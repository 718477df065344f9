#!/usr/bin/env bash
# Where the GPU's BVH builds spend their time, kernel by kernel, on the GPU machine: `ncu` times
# every build kernel of `lidartwin bench --gpu-triangles $TRIANGLES --repeats 1 --no-embree` at
# the GPU's own clocks (no locked clocks, no flushed caches, as the bench runs), and the
# sequence is printed a build at a time: a build starts at SahPrimitivesKernel (the binned-SAH
# builder) or InitBoundsKernel (the Morton builders, LBVH and PLOC), and runs of one kernel
# are folded into "name xcount total_us (min-max)". The bench builds each tree several times
# (a warm-up, the timed build, the quality and trace figures), in its own order. Run from a
# package made by scripts/make-device-package.sh; $BINARY picks another lidartwin build.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/devpkg-env.sh
kernels='^(Sah|Collapse|Place|Gather|InitBounds|CentroidBounds|Morton|Hierarchy|Boxes|Ploc|Parents|SingleTriangle|DeviceRadixSort)'
csv="$out/build-kernels-$(basename "$binary").csv"
ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum \
  --kernel-name "regex:$kernels" --csv "$binary" bench --gpu-triangles "${TRIANGLES:-1000000}" \
  --repeats 1 --no-embree > "$csv" 2> "$out/build-kernels.err" ||
  { echo "ncu failed: $(tail -3 "$out/build-kernels.err")"; exit 1; }
python3 - "$csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head, rows = rows[0], rows[1:]
name, unit, value = head.index("Kernel Name"), head.index("Metric Unit"), head.index("Metric Value")
scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
builds = []
for r in rows:
    # Kernels in unnamed namespaces print as "ns::<unnamed>::Name(...)" (or "(anonymous
    # namespace)"), templates as "Name<16>(...)".
    plain = r[name].replace("<unnamed>", "").replace("(anonymous namespace)", "")
    k = plain.split("(")[0].split("<")[0].strip().split()[-1].split("::")[-1]
    us = float(r[value].replace(",", "")) * scale[r[unit]]
    if k in ("SahPrimitivesKernel", "InitBoundsKernel") or not builds:
        builds.append([])
    builds[-1].append((k, us))
for i, b in enumerate(builds):
    runs = []
    for k, us in b:
        if runs and runs[-1][0] == k:
            runs[-1][1].append(us)
        else:
            runs.append((k, [us]))
    total = sum(us for _, us in b)
    kind = "binned SAH" if b[0][0] == "SahPrimitivesKernel" else "Morton"
    print(f"build {i + 1} ({kind}): {total:.0f} us in {len(b)} kernels")
    print("  " + ", ".join(f"{k} x{len(v)} {sum(v):.0f}" + (f" ({min(v):.0f}-{max(v):.0f})" if len(v) > 1 else "")
                          for k, v in runs))
PY
