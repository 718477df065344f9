# Sourced by the device scripts from the repository root: unpacks the binaries and libraries
# scripts/make-device-package.sh compressed into .devpkg/, points lidartwin (its configs) and
# the loader (its libraries) at them, and sets what every device script takes: $out, the
# folder for logs and results ($OUT, or ./device-out), and $binary, the lidartwin build to run
# ($BINARY, or the package's).
for f in .devpkg/bin/*.xz .devpkg/lib/*.xz; do [ -e "$f" ] && xz -d -f "$f"; done
chmod +x .devpkg/bin/*
export LIDARTWIN_HOME=$PWD LD_LIBRARY_PATH=$PWD/.devpkg/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
out=${OUT:-device-out}
mkdir -p "$out"
binary=${BINARY:-.devpkg/bin/lidartwin}
