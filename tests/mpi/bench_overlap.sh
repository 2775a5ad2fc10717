#!/bin/sh
# bench/overlap.sh, the overlap of 2 MiB non-blocking collectives by placement of the progress
# threads and split-tree levels: with one run of tiny measurements on 2 ranks it prints its table
# with a row for each of the 4 policies, S = 0 and 1, and the 3 collectives (each result is
# checked by bench/overlap.c, a wrong one fails its job and the script). Not the figures: a busy
# machine may make any of them noisy.
. "$TM_SRCDIR/tests/mpi/lib.sh"
RUNS=1 SECONDS_EACH=0.001 NRANKS=2 sh "$TM_SRCDIR/bench/overlap.sh" "$TM_BUILDDIR" \
    > "$out" 2> "$err" < /dev/null
status=$?
expect_status 0 "overlap.sh"
expect_out '^\| N \| progress \| S \| collective \| t_pure \(us\) \| t_cpu \(us\) \| t_ovrl \(us\) \| overlap \(%\) \|$' \
    "overlap.sh header"
for policy in idle same next none; do
    for s in 0 1; do
        for c in ibcast ireduce iallreduce; do
            expect_out "^\| 2 \| $policy \| $s \| $c( \| [0-9]+\.[0-9]+){4} \|$" \
                "overlap.sh row $policy S=$s $c"
        done
    done
done
[ "$(grep -c '^| 2 |' "$out")" -eq 24 ] || fail "overlap.sh: 24 rows expected: $(cat "$out")"
echo "bench_overlap: ok"
