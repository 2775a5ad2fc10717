#!/bin/sh
# bench/hosts.sh (ThreadMPI between two network namespaces as two hosts, beside Open MPI over
# TCP): one short run of 8-byte messages prints a row with ThreadMPI's time (and Open MPI's
# with its ratio when Open MPI is installed), and leaves no namespace behind. A SKIP, saying
# why, where the machine cannot: not root, or no network namespaces.
. "$TM_SRCDIR/tests/mpi/lib.sh"
skip() {
    echo "SKIP: bench_hosts: $*"
    exit 77
}
[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
ip netns add tmbenchprobe 2> /dev/null || skip "this machine does not permit network namespaces"
ip netns del tmbenchprobe

RUNS=1 SIZES=8 sh "$TM_SRCDIR/bench/hosts.sh" "$TM_BUILDDIR" > "$out" 2> "$err" ||
    fail "hosts.sh: $(cat "$err")"
if command -v mpirun.openmpi > /dev/null; then
    row='^\| 8 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+x \| [0-9.]+ \| [0-9.]+ \|$'
else
    row='^\| 8 \| [0-9.]+ \| - \| - \| [0-9.]+ \| - \|$'
fi
grep -Eq "$row" "$out" || fail "no row for 8 bytes: $(cat "$out" "$err")"
ip netns list | grep -q '^tmbench' && fail "namespaces left behind: $(ip netns list)"
echo "bench_hosts: ok"
