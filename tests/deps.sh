#!/bin/sh
# Installs what building and testing ThreadMPI needs on Debian 12 (as root, or through sudo).
# With --compare, also Open MPI, MPICH and gnuplot, for the side-by-side benchmarks (bench/run.sh),
# and libfabric's and UCX's test tools (bench/netpath.sh).
set -e
pkgs="build-essential autoconf automake libtool pkg-config libhwloc-dev libnuma-dev libinih-dev libucx-dev libpmix-dev check gdb clang"
[ "${1:-}" = --compare ] && pkgs="$pkgs openmpi-bin libopenmpi-dev mpich libmpich-dev hyperfine gnuplot-nox libfabric-bin ucx-utils"
missing=
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq
# shellcheck disable=SC2086 # a list of package names
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing > /dev/null
