#!/bin/sh
# bench/netpath.sh (libfabric's and UCX's TCP paths between two network namespaces): one short
# run of 8-byte messages prints a row with a time for each library and interface, and leaves no
# namespace behind. A SKIP, saying why, where the machine cannot: not root, no network
# namespaces, or no fi_pingpong or ucx_perftest (tests/deps.sh --compare installs them).
. "$TM_SRCDIR/tests/mpi/lib.sh"
skip() {
    echo "SKIP: bench_netpath: $*"
    exit 77
}
[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
command -v fi_pingpong > /dev/null && command -v ucx_perftest > /dev/null ||
    skip "fi_pingpong (libfabric-bin) or ucx_perftest (ucx-utils) is missing"
ip netns add tmnetprobe 2> /dev/null || skip "this machine does not permit network namespaces"
ip netns del tmnetprobe

RUNS=1 SIZES=8 sh "$TM_SRCDIR/bench/netpath.sh" > "$out" 2> "$err" || fail "netpath.sh: $(cat "$err")"
grep -Eq '^\| 8 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9]+ \| [0-9]+ \| [0-9.]+ \|$' "$out" ||
    fail "no row with the three times for 8 bytes: $(cat "$out" "$err")"
ip netns list | grep -q '^tmnet' && fail "namespaces left behind: $(ip netns list)"
echo "bench_netpath: ok"
