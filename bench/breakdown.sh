#!/bin/sh
# Where the time of an 8-byte message goes (bench/breakdown.c): the injection overhead and the
# latency split into their parts with the profiler's timer, the model against the observed
# figures with its error, and what halving each part would give. Needs 2 cores.
#
#   bench/breakdown.sh [BUILDDIR] [SCALE]   (BUILDDIR: a ThreadMPI build tree, default the
#                                            current dir; SCALE multiplies the iterations)
set -eu
build=$(cd "${1:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$build/tests/mpicc-build" -O2 -I"$src" -o "$work/breakdown" "$src/bench/breakdown.c"
"$build/launcher/mpcrun" -n 2 --timeout 300 "$work/breakdown" "${2:-1}"
