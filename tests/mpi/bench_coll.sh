#!/bin/sh
# bench/coll.c, the collectives' benchmark of bench/run.sh, builds with ThreadMPI's mpicc and runs
# every collective it has, blocking and non-blocking, on 3 ranks at 8 B and 64 KiB with a tiny
# measurement time: each result is checked by the program (a wrong one makes it exit 1), and
# each collective must print its line. Not the figures: a busy machine may make any of them noisy.
. "$TM_SRCDIR/tests/mpi/lib.sh"
exe="$work/coll"
"$MPICC" -O2 -o "$exe" "$TM_SRCDIR/bench/coll.c" >&2 || fail "mpicc coll.c"
tm_run 3 "$exe" -T 0.001 8 65536
expect_status 0 "coll"
grep -q WRONG "$out" "$err" && fail "coll: a wrong result: $(grep WRONG "$out" "$err")"
for c in bcast gather gatherv scatter scatterv allgather allgatherv alltoall alltoallv alltoallw \
    reduce allreduce reduce_scatter reduce_scatter_block scan exscan neighbor_allgather \
    neighbor_allgatherv neighbor_alltoall neighbor_alltoallv neighbor_alltoallw; do
    for name in "$c" "i$c"; do
        for bytes in 8 65536; do
            expect_out "^$name $bytes B [0-9.]+ us [0-9]+ it$" "coll $name $bytes B"
        done
    done
done
expect_out '^barrier 0 B [0-9.]+ us [0-9]+ it$' "coll barrier"
expect_out '^ibarrier 0 B [0-9.]+ us [0-9]+ it$' "coll ibarrier"
echo "bench_coll: ok"
