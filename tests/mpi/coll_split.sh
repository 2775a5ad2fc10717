#!/bin/sh
# The split-tree gives the same results whatever S: the non-blocking collectives against their
# serial references with every S from 0 (the whole tree on the progress threads) to H = 4 (all of
# it on the ranks) at 13 ranks, forced through [nbc] split_levels; and at 1 rank, where a core is
# left to the progress thread, with the model's choice.
. "$TM_SRCDIR/tests/mpi/lib.sh"

for prog in coll_rooted coll_reduce coll_all; do
    exe=$(tm_build "$prog.c") || exit 1
    for s in 0 1 2 3 4; do
        tm_run_env THREADMPI_NBC_SPLIT_LEVELS=$s 13 "$exe" nb
        expect_status 0 "$prog nb at 13 ranks with S=$s"
    done
    tm_run 1 "$exe" nb
    expect_status 0 "$prog nb at 1 rank (progress thread on the idle core)"
done
expect_no_temp_files "coll_split"
