#!/bin/sh
# bench/io.c, the MPI-IO benchmark of bench/io.sh, builds with ThreadMPI's mpicc and runs every
# access at 1 and 3 ranks on small blocks: each prints its line ("NAME BYTES B MB/s"), and no
# "WRONG" line (every rank read back what it wrote, in full). Not the figures.
. "$TM_SRCDIR/tests/mpi/lib.sh"
exe="$work/io"
"$MPICC" -O2 -o "$exe" "$TM_SRCDIR/bench/io.c" >&2 || fail "mpicc io.c"
for n in 1 3; do
    tm_run "$n" "$exe" -b 4096 -n 8 -r 1 -d "$work"
    expect_status 0 "io at $n ranks"
    for layout in segmented strided; do
        for mode in indep coll; do
            expect_out "^write_${layout}_$mode 4096 B [0-9.]+$" "io write $layout $mode at $n ranks"
            expect_out "^read_${layout}_$mode 4096 B [0-9.]+$" "io read $layout $mode at $n ranks"
        done
    done
    if grep -q WRONG "$out"; then
        fail "io at $n ranks: $(grep WRONG "$out")"
    fi
    if ls "$work"/tm_bench_io.* > /dev/null 2>&1; then
        fail "io at $n ranks left its file behind"
    fi
done
tm_run 1 "$exe" -b 0
expect_status 2 "io with -b 0"
expect_err 'must be positive' "io with -b 0"
echo "bench_io: ok"
