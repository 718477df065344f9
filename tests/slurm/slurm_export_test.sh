#!/usr/bin/env bash
# scripts/slurm/export-array.sh on a real Slurm cluster: two slurmd on localhost
# (local_cluster.sh), a job array of 4 shards of which one is killed while it runs and
# requeued (scontrol requeue), and the join step after it. Passes when the joined dataset holds
# every frame, equal to a one-process run's, and the requeued shard resumed from its journal.
set -euo pipefail
cli="$1"
src="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
# shellcheck source=tests/slurm/local_cluster.sh
source "$src/tests/slurm/local_cluster.sh"
cleanup() {
  [ -n "${KEEP:-}" ] && { cluster_stop "$work/cluster"; echo "kept $work"; return; }
  cluster_stop "$work/cluster"
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  tail -n 30 "$work"/e/slurm-*.log 2> /dev/null >&2 || true
  exit 1
}

# A missing Slurm configuration is a clear error, before anything is written.
if out=$(SLURM_CONF="$work/none.conf" bash "$src/scripts/slurm/export-array.sh" --shards 2 \
  --out "$work/never" --lidartwin "$cli" -- --frames 2 2>&1); then
  fail "a missing slurm.conf was accepted"
fi
grep -q "SLURM_CONF names .*not a readable file" <<< "$out" || fail "unexpected message: $out"
[ ! -e "$work/never" ] || fail "a refused launch created its folder"

cluster_start "$work/cluster" || fail "the test cluster did not start"
run=(--sensor "$src/configs/sensors/ouster_os0_128.yaml"
  --scene "$src/configs/scenes/street_crossing.yaml" --frames 64 --threads 1)
ids=$(bash "$src/scripts/slurm/export-array.sh" --shards 4 --out "$work/e" --lidartwin "$cli" \
  -- "${run[@]}")
read -r array join <<< "$ids"
echo "array $array, join $join"

# Kill task 1 once it has finished a frame, and requeue it.
journal="$work/e/shard-00001-of-00004.journal"
for _ in $(seq 1 400); do
  if [ -f "$journal" ] && [ "$(stat -c %s "$journal")" -gt 2000 ]; then break; fi
  sleep 0.05
done
[ -f "$journal" ] || fail "task 1 never started writing"
scontrol requeue "${array}_1" || fail "scontrol requeue refused"
# Slurm holds a requeued job back (its BeginTime moves two minutes on); once it is pending
# again, let it start in 3 s (at once, slurmd refuses it: "job credential revoked" within the
# second of the requeue).
for _ in $(seq 1 100); do
  scontrol show job "${array}_1" | grep -q "JobState=PENDING" && break
  sleep 0.1
done
scontrol update JobId="${array}_1" StartTime=now+3 || fail "cannot release the requeued task"
echo "task ${array}_1 killed and requeued"

# The join job ends when every shard has succeeded.
state=""
SECONDS=0
for _ in $(seq 1 600); do
  state=$(scontrol show job "$join" 2> /dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
  case "$state" in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL) break ;; esac
  sleep 0.2
done
[ "$state" = COMPLETED ] || fail "join job ended $state"
echo "join completed ${SECONDS} s after the requeue"
scontrol show job "${array}_1" | grep -q "Restarts=1" || fail "task 1 was not requeued"
grep -q "frames resumed from the journal" "$work/e/slurm-shard-${array}_1.log" ||
  fail "task 1 did not resume from its journal"
grep -q '"frames": 64' "$work/e/manifest.json" || fail "manifest lacks the 64 frames"

# Frame for frame the same as one process on this machine.
"$cli" export "${run[@]}" --out "$work/local" > /dev/null 2>&1 || fail "local run failed"
/usr/bin/python3 - "$work/e/dataset.h5" "$work/local/dataset.h5" << 'PY' || fail "frames differ"
import sys
import h5py
import numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert len(a["frames/frame_index"]) == 64
for table in ("frames", "points", "waveforms"):
    assert sorted(a[table]) == sorted(b[table]), table
    for column in a[table]:
        assert np.array_equal(a[table][column][:], b[table][column][:]), (table, column)
print("64 frames identical to a one-process run")
PY
echo "PASS"
