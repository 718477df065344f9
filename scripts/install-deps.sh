#!/usr/bin/env bash
# Installs the Debian packages lidartwin builds and tests with. Idempotent: when every
# package is already installed it does nothing (no apt-get update, no network).
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache pkg-config clang-format
  clang libclang-rt-14-dev  # libFuzzer for scripts/fuzz-smoke.sh
  libeigen3-dev libfmt-dev libgtest-dev libhdf5-dev libyaml-cpp-dev nlohmann-json3-dev
  libembree-dev libopen3d-dev libceres-dev libssl-dev
  zlib1g-dev libcpp-httplib-dev  # the viewer's document and server (issue 13)
  libdeflate-dev                 # the export's deflate streams (ADR 0021)
  libsqlite3-dev libzstd-dev liblz4-dev libbz2-dev  # ROS bags: sqlite3, MCAP and ROS 1 chunks
  libflatbuffers-dev flatbuffers-compiler libpng-dev  # Ouster OSF files (ADR 0024)
  nodejs chromium                # the viewer's bundle (npm) and its browser tests
  python3-h5py python3-numpy     # the export's Python loader example and its test (issue 16)
  python3-zstandard              # the independent MCAP check of our bags (issue 38)
  python3-pybind11 python3-setuptools python3-venv  # the Python module and pip install (issue 39)
  python3-pytest python3-matplotlib                  # its tests and examples
  slurmctld slurmd slurm-client munge  # the export's Slurm test: a cluster on localhost
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm comes with some Node.js builds (NodeSource's) and as its own package with Debian's.
command -v npm > /dev/null || missing+=(npm)
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
