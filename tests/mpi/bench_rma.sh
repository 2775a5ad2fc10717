#!/bin/sh
# bench/rma.c, the one-sided benchmark of bench/rma.sh, builds with ThreadMPI's mpicc and runs
# every operation at 2 and 5 ranks (two pairs and a rank left out), short: each prints its line
# ("NAME BYTES B US MB/s"), and no "WRONG" line (the data of the puts and gets arrived). Not the
# figures.
. "$TM_SRCDIR/tests/mpi/lib.sh"
exe="$work/rma"
"$MPICC" -O2 -o "$exe" "$TM_SRCDIR/bench/rma.c" >&2 || fail "mpicc rma.c"
for n in 2 5; do
    tm_run "$n" "$exe" -T 0.002 8 4096
    expect_status 0 "rma at $n ranks"
    for op in put_lock get_lock put_fence get_fence put_pscw get_pscw; do
        expect_out "^$op 8 B [0-9.]+ [0-9.]+$" "rma $op 8 B at $n ranks"
        expect_out "^$op 4096 B [0-9.]+ [0-9.]+$" "rma $op 4096 B at $n ranks"
    done
    for op in acc_lock fop_lock cas_lock shm_pingpong; do
        expect_out "^$op 8 B [0-9.]+ -$" "rma $op at $n ranks"
    done
    if grep -q WRONG "$out"; then
        fail "rma at $n ranks: $(grep WRONG "$out")"
    fi
done
tm_run 1 "$exe"
expect_status 1 "rma at 1 rank"
expect_err 'needs at least 2 ranks' "rma at 1 rank"
echo "bench_rma: ok"
