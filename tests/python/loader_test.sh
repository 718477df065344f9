#!/usr/bin/env bash
# The Python loader example (examples/python/lidartwin_loader.py) on a real export: two
# workers, three shards; two epochs must see every frame once each and every point the
# manifest lists (the script exits non-zero otherwise). Debian's python3 with python3-h5py and
# python3-numpy (scripts/install-deps.sh).
set -euo pipefail
cli="$1"
src="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$cli" export --sensor "$src/configs/sensors/velodyne_vlp16.yaml" \
  --scene "$src/configs/scenes/street_crossing.yaml" --frames 9 --workers 2 --shards 3 \
  --out "$work/e" > "$work/export.log" 2>&1 || { cat "$work/export.log"; exit 1; }
out="$(/usr/bin/python3 "$src/examples/python/lidartwin_loader.py" "$work/e" --batch 4 --epochs 2)"
echo "$out"
grep -q "^18 frames" <<< "$out"
# Same seed, same order; a batch is collated with its batch index in column 0.
/usr/bin/python3 - "$src/examples/python" "$work/e" << 'PY'
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from lidartwin_loader import LidartwinFrames
data = LidartwinFrames(sys.argv[2])
a = [b["frame_index"].tolist() for b in data.batches(4, seed=7, epoch=0)]
b = [b["frame_index"].tolist() for b in data.batches(4, seed=7, epoch=0)]
c = [b["frame_index"].tolist() for b in data.batches(4, seed=7, epoch=1)]
assert a == b and a != c, (a, b, c)
batch = next(data.batches(3, seed=1, epoch=0))
first = data[int(batch["frame_index"][0])]
n = len(first["points"])
assert np.array_equal(batch["points"][:n, 1:], first["points"]), "collated points differ"
assert set(np.unique(batch["points"][:, 0])) == {0, 1, 2}
assert len(batch["semantic_class"]) == len(batch["points"])
print("loader order and collation ok")
PY
