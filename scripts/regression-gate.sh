#!/usr/bin/env bash
# The CI regression gate (run by `make test` through ctest): the demo lab scene simulated with
# seed 0 is compared with a reference simulated with seed 1, and the metrics are held against
# the stored baseline tests/regression/lab_plates_baseline.json within
# tests/regression/tolerances.yaml. Exit 3 means a metric got worse beyond its tolerance.
#
#   scripts/regression-gate.sh LIDARTWIN_BINARY OUT_DIR
#   SENSOR=profile.yaml  simulate the candidate with another sensor profile (planted regressions)
#   UPDATE=1             after a deliberate change: write the new metrics over the baseline
set -euo pipefail
bin=${1:?usage: regression-gate.sh LIDARTWIN_BINARY OUT_DIR}
out=${2:?usage: regression-gate.sh LIDARTWIN_BINARY OUT_DIR}
bin=$(realpath "$bin")
src=$(cd "$(dirname "$0")/.." && pwd)
scene=$src/configs/scenes/lab_plates.yaml
reference_sensor=$src/configs/sensors/ouster_os0_128.yaml
sensor=${SENSOR:-$reference_sensor}
baseline=$src/tests/regression/lab_plates_baseline.json
mkdir -p "$out"
cd "$out"  # file names in metrics.json stay relative, so the stored baseline has no local paths

"$bin" simulate --sensor "$reference_sensor" --scene "$scene" --seed 1 --out reference.h5 >/dev/null
"$bin" simulate --sensor "$sensor" --scene "$scene" --seed 0 --out candidate.h5 >/dev/null
"$bin" compare --real reference.h5 --sim candidate.h5 --scene "$scene" \
  --label lab_plates_seed0_vs_seed1 --out metrics.json >/dev/null
if [ "${UPDATE:-0}" = 1 ]; then
  cp metrics.json "$baseline"
  echo "regression gate: baseline updated ($baseline); review and commit it"
  exit 0
fi
status=0
"$bin" report metrics.json --baseline "$baseline" \
  --tolerances "$src/tests/regression/tolerances.yaml" --out report || status=$?
# In a CI job with a summary page (GitHub Actions), the Markdown report goes there.
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat report/report.md >>"$GITHUB_STEP_SUMMARY"; fi
exit $status
