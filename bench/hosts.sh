#!/bin/sh
# Point-to-point between two hosts: bench/p2p.c's ping-pong (one-way time, and the bandwidth it
# makes) between two network namespaces of this machine joined by a bridge, as two "hosts" that
# share a kernel but talk over TCP. ThreadMPI (mpcrun --hosts A,B, one rank per host) beside
# Open MPI over TCP between the same namespaces (mpirun --host A,B, --mca pml ob1 --mca btl
# tcp,self), in one run; the table gives the median of RUNS runs (default 3) and the ratio
# ThreadMPI / Open MPI (below 1: ThreadMPI is faster). Neither MPI pins its ranks (Open MPI's
# --bind-to none; ThreadMPI given a synthetic topology of this machine's cores): each "host"
# would pin its rank to the same first core, which real hosts do not share.
#
#   sudo bench/hosts.sh BUILDDIR     (needs root, ip(8); Open MPI's column when mpicc.openmpi and
#                                     mpirun.openmpi are installed)
#
# The namespaces (tmbenchA, tmbenchB on bridge tmbenchbr, 10.78.0.0/24) are removed at the end.
set -u
RUNS=${RUNS:-3}
SIZES=${SIZES:-"8 4096 65536 1048576 4194304"}
build=$(cd "${1:?usage: bench/hosts.sh BUILDDIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
A=tmbenchA B=tmbenchB BR=tmbenchbr
[ "$(id -u)" -eq 0 ] || { echo "hosts.sh: network namespaces need root" >&2; exit 2; }
command -v ip > /dev/null || { echo "hosts.sh: ip (iproute2) is missing" >&2; exit 2; }
work=

teardown() {
    ip netns del "$A" 2> /dev/null
    ip netns del "$B" 2> /dev/null
    ip link del "$BR" 2> /dev/null
    ip link del tmb1r 2> /dev/null # a killed run's veths (their namespaces gone)
    ip link del tmb2r 2> /dev/null
    rm -rf "$work"
}
trap teardown EXIT
teardown
work=$(mktemp -d) || exit 2
ip link add "$BR" type bridge && ip addr add 10.78.0.1/24 dev "$BR" && ip link set "$BR" up ||
    { echo "hosts.sh: could not make the bridge" >&2; exit 2; }
i=1
for ns in $A $B; do
    ip netns add "$ns" && ip link add "tmb${i}r" type veth peer name "tmb${i}n" &&
        ip link set "tmb${i}n" netns "$ns" && ip link set "tmb${i}r" master "$BR" &&
        ip link set "tmb${i}r" up && ip -n "$ns" addr add "10.78.0.$((i + 1))/24" dev "tmb${i}n" &&
        ip -n "$ns" link set "tmb${i}n" up && ip -n "$ns" link set lo up ||
        { echo "hosts.sh: could not make the namespaces" >&2; exit 2; }
    i=$((i + 1))
done
# The stand-in for ssh, into the namespace named by the host (as tests/mpi/rsh_local.sh).
rsh="sh $src/tests/mpi/rsh_local.sh"
TM_RSH_NETNS=1
export TM_RSH_NETNS

"$build/tests/mpicc-build" -O2 -o "$work/p2p_tm" "$src/bench/p2p.c" ||
    { echo "hosts.sh: mpicc failed" >&2; exit 2; }
ompi=false
if command -v mpicc.openmpi > /dev/null && command -v mpirun.openmpi > /dev/null &&
    mpicc.openmpi -O2 -o "$work/p2p_ompi" "$src/bench/p2p.c" 2> /dev/null; then
    ompi=true
fi

# One run of each: "latency BYTES B US" and "bandwidth BYTES B MBS" lines.
tm_run() {
    # shellcheck disable=SC2086 # the sizes are words
    HWLOC_SYNTHETIC="core:$(nproc) pu:1" timeout 300 "$build/launcher/mpcrun" --hosts "$A,$B" \
        --rsh "$rsh" -n 2 "$work/p2p_tm" $SIZES < /dev/null 2> /dev/null
}
ompi_run() {
    # shellcheck disable=SC2086
    timeout 300 mpirun.openmpi --allow-run-as-root -n 2 --host "$A,$B" --bind-to none \
        --mca plm_rsh_agent "$rsh" --mca pml ob1 --mca btl tcp,self --mca oob_tcp_if_include 10.78.0.0/24 \
        --mca btl_tcp_if_include 10.78.0.0/24 "$work/p2p_ompi" $SIZES < /dev/null 2> /dev/null
}
for r in $(seq "$RUNS"); do
    tm_run > "$work/tm.$r"
    ! $ompi || ompi_run > "$work/ompi.$r"
done

# median FILES_PREFIX KIND BYTES
median() {
    cat "$work/$1".* 2> /dev/null | awk -v k="$2" -v b="$3" '$1 == k && $2 == b { print $4 }' |
        sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}
echo "| bytes | ThreadMPI one-way (us) | Open MPI TCP (us) | ratio | ThreadMPI MB/s | Open MPI MB/s |"
echo "|---|---|---|---|---|---|"
for size in $SIZES; do
    tl=$(median tm latency "$size") ol=$(median ompi latency "$size")
    tb=$(median tm bandwidth "$size") ob=$(median ompi bandwidth "$size")
    awk -v s="$size" -v tl="$tl" -v ol="$ol" -v tb="$tb" -v ob="$ob" 'BEGIN {
        r = (tl + 0 > 0 && ol + 0 > 0) ? sprintf("%.2fx", tl / ol) : "-"
        printf "| %d | %s | %s | %s | %s | %s |\n", s, tl, ol, r, tb, ob }'
done
