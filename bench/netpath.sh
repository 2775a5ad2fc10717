#!/bin/sh
# The network libraries a multi-node ThreadMPI could carry its messages on (issue 26), measured
# on this machine between two network namespaces joined by a veth pair, as two "nodes" that
# share a kernel but talk over TCP: libfabric's tcp provider (fi_pingpong, RDM endpoints: the
# tcp;ofi_rxm stack) and UCX's tcp transport (ucx_perftest, through UCP's tag matching and
# through its active messages, the interface a transport under ThreadMPI's own matching would
# use). Each ping-pongs one message at a time; the table gives the one-way time of a message
# (the median of RUNS runs, default 3) and the bandwidth it makes.
#
#   sudo bench/netpath.sh        (needs root, ip(8), fi_pingpong from libfabric-bin and
#                                 ucx_perftest from ucx-utils)
#
# The namespaces (tmnetA, tmnetB, addresses 10.77.0.1 and .2) are removed at the end.
set -u
RUNS=${RUNS:-3}
SIZES=${SIZES:-"8 4096 65536 1048576 4194304"}
A=tmnetA B=tmnetB ADDR_A=10.77.0.1 ADDR_B=10.77.0.2

need() { command -v "$1" > /dev/null || { echo "netpath.sh: $1 is missing ($2)" >&2; exit 2; }; }
need ip iproute2
need fi_pingpong libfabric-bin
need ucx_perftest ucx-utils
[ "$(id -u)" -eq 0 ] || { echo "netpath.sh: network namespaces need root" >&2; exit 2; }

teardown() { ip netns del "$A" 2> /dev/null; ip netns del "$B" 2> /dev/null; }
trap teardown EXIT
teardown
ip netns add "$A" && ip netns add "$B" &&
    ip link add tmvethA type veth peer name tmvethB &&
    ip link set tmvethA netns "$A" && ip link set tmvethB netns "$B" &&
    ip -n "$A" addr add "$ADDR_A/24" dev tmvethA && ip -n "$B" addr add "$ADDR_B/24" dev tmvethB &&
    ip -n "$A" link set tmvethA up && ip -n "$B" link set tmvethB up &&
    ip -n "$A" link set lo up && ip -n "$B" link set lo up ||
    { echo "netpath.sh: could not make the namespaces" >&2; exit 2; }

iters() { # fewer round trips for large messages
    if [ "$1" -le 65536 ]; then echo 20000; elif [ "$1" -le 1048576 ]; then echo 2000; else echo 500; fi
}

# One run of fi_pingpong: the one-way time in us.
fabric() {
    n=$(iters "$1")
    ip netns exec "$A" timeout 120 fi_pingpong -p tcp -e rdm -I "$n" -S "$1" > /dev/null 2>&1 &
    server=$!
    sleep 0.5
    ip netns exec "$B" timeout 120 fi_pingpong -p tcp -e rdm -I "$n" -S "$1" "$ADDR_A" 2> /dev/null |
        awk '$1 != "bytes" && $7 ~ /^[0-9.]+$/ { print $7 }'
    wait "$server"
}

# One run of ucx_perftest's test $2: the one-way time in us (its overall average).
ucx() {
    n=$(iters "$1")
    UCX_TLS=tcp,self UCX_NET_DEVICES=tmvethA ip netns exec "$A" timeout 120 \
        ucx_perftest -p 13337 > /dev/null 2>&1 &
    server=$!
    sleep 0.5
    UCX_TLS=tcp,self UCX_NET_DEVICES=tmvethB ip netns exec "$B" timeout 120 \
        ucx_perftest "$ADDR_A" -p 13337 -t "$2" -s "$1" -n "$n" 2> /dev/null |
        awk '/^Final:/ { print $5 }'
    wait "$server"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }

echo "| bytes | libfabric (us) | UCX tag (us) | UCX AM (us) | libfabric MB/s | UCX AM MB/s | UCX AM / libfabric |"
echo "|---|---|---|---|---|---|---|"
for size in $SIZES; do
    f=$(for i in $(seq "$RUNS"); do fabric "$size"; done | median)
    t=$(for i in $(seq "$RUNS"); do ucx "$size" tag_lat; done | median)
    a=$(for i in $(seq "$RUNS"); do ucx "$size" ucp_am_lat; done | median)
    awk -v s="$size" -v f="$f" -v t="$t" -v a="$a" 'BEGIN {
        fb = (f + 0 > 0) ? sprintf("%.0f", s / f) : "-"
        ab = (a + 0 > 0) ? sprintf("%.0f", s / a) : "-"
        r = (f + 0 > 0 && a + 0 > 0) ? sprintf("%.2f", a / f) : "-"
        printf "| %d | %s | %s | %s | %s | %s | %s |\n", s, f, t, a, fb, ab, r }'
done
