#!/usr/bin/env bash
# Submits a lidartwin export to Slurm: a job array with one task per shard, and a join step
# that runs once every task has ended (docs/datasets.md, "On a cluster").
#
#   scripts/slurm/export-array.sh --shards N --out FOLDER [--lidartwin PATH] [--wait]
#       [--sbatch "OPTIONS"] -- EXPORT_OPTIONS...
#
# EXPORT_OPTIONS are lidartwin export's run options (--sensor, --scene, --frames, --seed,
# --backend, ...). FOLDER must be on a file system every node sees. Array task i runs
# `lidartwin export EXPORT_OPTIONS --shard i/N --out FOLDER`; tasks are requeueable, and a
# requeued or resubmitted task continues from its shard's journal. The join step runs
# `lidartwin export --join --out FOLDER` once every task has ended (afterany: a task requeued
# by Slurm or by hand is waited for), which checks every shard (SHA-256, frame ranges) and
# fails naming the missing or unfinished ones, or writes dataset.h5 and manifest.json. --sbatch passes options to both submissions
# (partition, time limit, --gres=gpu:1, ...). --wait returns when the join step ends, with its
# exit status. Job logs go to FOLDER/slurm-*.log.
set -euo pipefail

die() { echo "export-array.sh: $*" >&2; exit 2; }

shards="" out="" lidartwin="lidartwin" wait=0 sbatch_options=""
while (($#)); do
  case "$1" in
    --shards) shards="${2:-}"; shift 2 ;;
    --out) out="${2:-}"; shift 2 ;;
    --lidartwin) lidartwin="${2:-}"; shift 2 ;;
    --sbatch) sbatch_options="${2:-}"; shift 2 ;;
    --wait) wait=1; shift ;;
    --) shift; break ;;
    *) die "unknown option '$1' (export options go after --)" ;;
  esac
done
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || die "--shards must be a whole number >= 1, got '$shards'"
[ -n "$out" ] || die "missing --out FOLDER"
(($#)) || die "missing the export options after -- (--sensor, --scene, --frames, ...)"
for a in "$@"; do
  case "$a" in
    --out|--out=*|--shard|--shard=*|--shards|--shards=*|--workers|--workers=*|--devices|\
      --devices=*|--join|--prepare)
      die "'$a' is set by this launcher; give only the run's options after --" ;;
  esac
done
command -v sbatch > /dev/null || die "sbatch not found: is Slurm installed on this machine?"
# Slurm's tools spend a minute looking for a configuration that is not there: a SLURM_CONF
# naming no file is refused at once, and the controller gets 20 s to answer.
if [ -n "${SLURM_CONF:-}" ] && [ ! -r "$SLURM_CONF" ]; then
  die "SLURM_CONF names '$SLURM_CONF', which is not a readable file"
fi
if ! timeout 20 scontrol ping > /dev/null 2>&1; then
  die "no Slurm controller answers 'scontrol ping' (is slurm.conf present, or SLURM_CONF set?)"
fi
lidartwin="$(command -v "$lidartwin")" || die "lidartwin binary not found (use --lidartwin PATH)"

# Refuses bad arguments and a folder of another run before anything is submitted.
"$lidartwin" export "$@" --shards "$shards" --out "$out" --prepare >&2
out="$(cd "$out" && pwd)"

# sbatch reads % in --output as a pattern: the folder's own % are doubled.
log_dir="${out//%/%%}"
# The --sbatch options split on spaces, never expanded as file names.
read -r -a sbatch_args <<< "$sbatch_options"

# The batch scripts, with every argument quoted as given.
quoted="$(printf '%q ' "$@")"
cat > "$out/slurm-shard.sh" << SH
#!/usr/bin/env bash
exec $(printf '%q' "$lidartwin") export $quoted --shard "\$SLURM_ARRAY_TASK_ID/$shards" --out $(printf '%q' "$out")
SH
array=$(sbatch --parsable "${sbatch_args[@]}" --job-name lidartwin-export --requeue \
  --array "0-$((shards - 1))" --open-mode append --output "$log_dir/slurm-shard-%A_%a.log" \
  "$out/slurm-shard.sh")
array="${array%%;*}"
# The join step waits for tasks still queued or running: Slurm (22.05) can release an afterany
# dependency while a task it is requeueing is between its two runs.
cat > "$out/slurm-join.sh" << SH
#!/usr/bin/env bash
while [ -n "\$(squeue -h -r -j $array -o %i 2> /dev/null)" ]; do sleep 2; done
exec $(printf '%q' "$lidartwin") export --join --out $(printf '%q' "$out")
SH
wait_flag=()
((wait)) && wait_flag=(--wait)
echo "export-array.sh: shards: job array $array (tasks 0-$((shards - 1))); logs in $out" >&2
status=0
join=$(sbatch --parsable "${wait_flag[@]}" "${sbatch_args[@]}" --job-name lidartwin-export-join \
  --dependency "afterany:$array" --output "$log_dir/slurm-join-%j.log" \
  "$out/slurm-join.sh") || status=$?
join="$(tail -n 1 <<< "$join")"
echo "export-array.sh: join: job ${join%%;*} (once every task has ended; it checks them all)" >&2
echo "$array ${join%%;*}"
if ((status != 0)); then
  echo "export-array.sh: the join step failed (exit $status): see $out/slurm-join-${join%%;*}.log" >&2
fi
exit "$status"
