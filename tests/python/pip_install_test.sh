#!/usr/bin/env bash
# `pip install --no-build-isolation .` as the README has it (issue 39): into a fresh virtual
# environment over Debian's packages, with no index (--no-index: nothing may be fetched), the
# module built in BUILD_DIR (so the install only copies); then the package used from elsewhere,
# its configs found inside it.
# Usage: pip_install_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$(cd "$1" && pwd)
build_dir=$(cd "$2" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/lidartwin-pip-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 -m venv --system-site-packages "$work/venv"
LIDARTWIN_BUILD_DIR=$build_dir "$work/venv/bin/pip" install --quiet --no-build-isolation \
  --no-index "$source_dir"
cd "$work"
env -u LIDARTWIN_HOME -u PYTHONPATH "$work/venv/bin/python" - << 'PY'
import lidartwin as lt
from pathlib import Path

assert Path(lt.__file__).is_relative_to(Path.cwd() / "venv"), lt.__file__
assert lt.config_path().is_relative_to(Path(lt.__file__).parent), lt.config_path()
sim = lt.Simulator(lt.SensorProfile.load(lt.config_path("sensors/velodyne_vlp16.yaml")),
                   lt.Scene.load(lt.config_path("scenes/lab_plates.yaml")), backend="cpu")
frame = sim.simulate()[0]
assert len(frame) > 1000, len(frame)
print(f"pip install test: passed ({len(frame)} points from the installed package)")
PY
