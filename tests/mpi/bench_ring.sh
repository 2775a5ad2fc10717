#!/bin/sh
# bench/ring.c, the many-ranks benchmark of bench/run.sh and bench/p2p.sh, builds with
# ThreadMPI's mpicc and runs each of its workloads (token, exchange, halo) on 7 ranks, where the
# program checks every value received and summed (a wrong one makes it exit 1), and prints its
# line; an unknown workload is a usage error. Not the figures.
. "$TM_SRCDIR/tests/mpi/lib.sh"
exe="$work/ring"
"$MPICC" -O2 -o "$exe" "$TM_SRCDIR/bench/ring.c" >&2 || fail "mpicc ring.c"
for w in token exchange halo; do
    tm_run 7 "$exe" 50 "$w"
    expect_status 0 "ring 50 $w"
    name=$w
    [ "$w" != token ] || name=ring
    expect_out "^${name}_7_ranks_50_rounds [0-9.]+ s$" "ring 50 $w"
done
tm_run 2 "$exe" 50 bogus
expect_status 2 "ring 50 bogus"
expect_err '^usage: ring' "ring 50 bogus"
echo "bench_ring: ok"
