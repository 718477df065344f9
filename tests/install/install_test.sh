#!/usr/bin/env bash
# `cmake --install` into a fresh prefix, then what a user does with it (issue 39):
#   - find_package(lidartwin CONFIG) in a CMake project, build and run a small program;
#   - the same program built with pkg-config;
#   - the installed CLI, run from elsewhere with no source tree in sight, finds its configs.
# Usage: install_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/lidartwin-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in bin/lidartwin lib/liblidartwin.so include/lidartwin/sim/simulator.h \
  lib/cmake/lidartwin/lidartwinConfig.cmake lib/pkgconfig/lidartwin.pc \
  share/lidartwin/configs/sensors/ouster_os0_128.yaml; do
  [[ -e $prefix/$f ]] || { echo "FAIL: $f not installed" >&2; exit 1; }
done

# CMake package.
cmake -S "$here/consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/consumer" > "$work/build.log"
"$work/consumer/consumer" "$work/cmake.h5" | tee "$work/run.log"
grep -Eq '^[1-9][0-9]* points$' "$work/run.log"
[[ -s $work/cmake.h5 ]]

# pkg-config.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046
g++ -O1 -o "$work/consumer_pc" "$here/consumer/main.cpp" $(pkg-config --cflags --libs lidartwin)
LD_LIBRARY_PATH=$prefix/lib "$work/consumer_pc" "$work/pc.h5" \
  "$(pkg-config --variable=configsdir lidartwin)" > /dev/null
[[ -s $work/pc.h5 ]]

# The installed CLI: its configs are the prefix's, and a run with them works from elsewhere.
cd "$work"
env -u LIDARTWIN_HOME "$prefix/bin/lidartwin" --version | tee "$work/version.log"
grep -qx "configs: $prefix/share/lidartwin/configs" "$work/version.log"
env -u LIDARTWIN_HOME "$prefix/bin/lidartwin" simulate \
  --sensor "$prefix/share/lidartwin/configs/sensors/velodyne_vlp16.yaml" \
  --scene "$prefix/share/lidartwin/configs/scenes/lab_plates.yaml" --out "$work/cli.h5" > /dev/null
[[ -s $work/cli.h5 ]]
echo "install test: passed"
