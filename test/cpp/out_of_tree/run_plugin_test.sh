#!/usr/bin/env bash
# Builds the toy backend the way a vendor would and runs the plugin loader test on it:
# installs Ember from a build tree into a temporary prefix, configures and builds
# examples/out_of_tree_backend against that prefix with its own CMake run, then runs the
# loader with EMBER_TOY_PLUGIN pointing at the built .so. The temporary tree is removed.
#
# usage: run_plugin_test.sh BUILD_DIR SOURCE_DIR LOADER [SANITIZE]
#   SANITIZE  libember's EMBER_SANITIZE (e.g. address,undefined); the plugin gets the same.
# Environment (CMake's add_test sets these to the main build's tools):
#   EMBER_CMAKE         cmake executable (default: cmake)
#   CXX                 C++ compiler for the plugin (default: CMake's choice)
#   EMBER_MAKE_PROGRAM  ninja executable (default: CMake's choice)
#   EMBER_KEEP_TMP=1    keep the temporary tree for inspection
set -euo pipefail

if [[ $# -lt 3 || $# -gt 4 ]]; then
  echo "usage: $0 BUILD_DIR SOURCE_DIR LOADER [SANITIZE]" >&2
  exit 2
fi
build_dir=$1
source_dir=$2
loader=$3
sanitize=${4:-}
cmake=${EMBER_CMAKE:-cmake}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ember-oot.XXXXXX")
cleanup() {
  if [[ ${EMBER_KEEP_TMP:-0} == 1 ]]; then
    echo "kept $tmp"
  else
    rm -rf "$tmp"
  fi
}
trap cleanup EXIT

# Runs a step quietly; on failure shows its output and stops.
step() {
  local name=$1
  shift
  echo "== $name"
  if ! "$@" >"$tmp/$name.log" 2>&1; then
    cat "$tmp/$name.log" >&2
    echo "run_plugin_test.sh: step '$name' failed: $*" >&2
    exit 1
  fi
}

step install "$cmake" --install "$build_dir" --prefix "$tmp/prefix"

configure=("$cmake" -S "$source_dir/examples/out_of_tree_backend" -B "$tmp/plugin-build" -G Ninja
           -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo
           -DEMBER_SANITIZE="$sanitize")
if [[ -n ${EMBER_MAKE_PROGRAM:-} ]]; then
  configure+=(-DCMAKE_MAKE_PROGRAM="$EMBER_MAKE_PROGRAM")
fi
step configure "${configure[@]}"
step build "$cmake" --build "$tmp/plugin-build"

plugin="$tmp/plugin-build/libember_toy_backend.so"
[[ -f $plugin ]] || { echo "run_plugin_test.sh: $plugin was not built" >&2; exit 1; }

# Under ASan no LeakSanitizer suppression is needed: the plugin frees what it allocates
# before it unloads. (A real leak in it would be reported with "<unknown module>" frames,
# as its code is unmapped by the time LeakSanitizer runs at exit.)
echo "== run $loader"
EMBER_TOY_PLUGIN="$plugin" "$loader"
