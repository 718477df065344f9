#!/usr/bin/env bash
# The layers of docs/architecture.md, checked over every #include line (issue 37; ADR 0022):
# a module may include its own headers and those of the modules below it, never one above or
# beside it, and never another module's private src/ through a relative path. Run by
# `make test`; exits 1 naming every include that climbs.
# With file arguments (paths as from the repository root, relative to the current folder),
# checks those instead of every tracked file: how the test shows a climbing include is caught.
set -euo pipefail
if [[ $# -eq 0 ]]; then cd "$(dirname "$0")/.."; fi

# module -> the lidartwin/<module>/ headers it may include (its own included).
declare -A allowed=(
  [physics]="physics"
  [base]="physics base"
  [sim]="physics base sim"
  [datasets]="physics base sim datasets"
  [reconstruct]="physics base sim datasets reconstruct"
  [compare]="physics base sim datasets compare"
  [reports]="physics base sim datasets compare reports"
  [calib]="physics base sim datasets compare reports calib"
  [viewer]="physics base sim datasets compare reports viewer"
  [bench]="physics base sim datasets bench"
  [jobs]="physics base sim datasets reconstruct compare reports calib viewer bench jobs"
  [fuzz]="physics base sim datasets reconstruct compare fuzz"
)

# The module a source file belongs to (apps and tests may include every library).
module_of() {
  case "$1" in
    sim/physics/*) echo physics ;;
    sim/*) echo sim ;;
    base/* | datasets/* | reconstruct/* | compare/* | reports/* | calib/* | viewer/* | bench/* | jobs/* | fuzz/*)
      echo "${1%%/*}" ;;
    *) echo "" ;;
  esac
}

status=0
while IFS= read -r file; do
  module=$(module_of "$file")
  [[ -z "$module" ]] && continue
  while IFS= read -r hit; do
    line=${hit%%:*}
    include=${hit#*:}
    if [[ "$include" =~ \#include\ \"lidartwin/([a-z_0-9]+)/ ]]; then
      target=${BASH_REMATCH[1]}
      if [[ " ${allowed[$module]} " != *" $target "* ]]; then
        echo "$file:$line: $module may not include lidartwin/$target/ (a layer above or beside it)"
        status=1
      fi
    elif [[ "$module" != fuzz && "$include" =~ \#include\ \"\.\./ ]]; then
      # (Fuzzers, like tests, drive private parsers directly.)
      echo "$file:$line: a relative include reaches out of the module: $include"
      status=1
    fi
  done < <(grep -n '^#include "' "$file" || true)
done < <(if [[ $# -gt 0 ]]; then printf '%s\n' "$@"; else git ls-files '*.h' '*.cpp' '*.cu' '*.cuh'; fi)

if [[ $status -eq 0 ]]; then echo "include layers: every #include stays within its layer"; fi
exit $status
