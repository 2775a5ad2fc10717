#!/bin/sh
# bench/manycore.sh, the progress engine's targets on a many-core node: one run of tiny
# measurements confined to 2 cores (taskset) prints its table, with figures for what 2 cores can
# test (item 2 at 2 ranks, item 5) and an "untested" verdict naming the cores needed for the
# rest; KEEP and FROM print the same table again from the outputs kept. Not the figures: a busy
# machine may make any of them noisy.
. "$TM_SRCDIR/tests/mpi/lib.sh"
confine="taskset -c 0,1"
$confine true 2> /dev/null || confine= # fewer CPUs than that: all of them
RUNS=1 SECONDS_EACH=0.001 KEEP="$work/raw.tar" $confine sh "$TM_SRCDIR/bench/manycore.sh" \
    "$TM_BUILDDIR" > "$out" 2> "$err" < /dev/null
status=$?
expect_status 0 "manycore.sh"
# The same table again from the outputs kept (KEEP, then FROM), without measuring.
FROM="$work/raw.tar" sh "$TM_SRCDIR/bench/manycore.sh" "$TM_BUILDDIR" > "$work/again" 2>&1 ||
    fail "manycore.sh FROM: exit status $?: $(cat "$work/again")"
cmp -s "$out" "$work/again" || fail "manycore.sh FROM: another table: $(diff "$out" "$work/again")"
expect_out '^bench/manycore.sh on .*, 2 cores ' "manycore.sh: the machine's cores"
expect_out '^\| item \| case \| figure \| target \| verdict \|$' "manycore.sh header"
for c in ibcast/bcast iallreduce/allreduce ibarrier/barrier; do
    expect_out "^\| 5 \| $c 8 B, 2 ranks on 1 core, progress = comm \| [0-9]+\.[0-9]+x \(.*\) \| <= 1\.5x \| (met|NOT MET) \|$" \
        "manycore.sh item 5 $c"
    for p in idle same next comm none; do
        expect_out "^\| 2 \| $c( 8 B)?, 2 ranks, progress = $p \| [0-9]+\.[0-9]+x " \
            "manycore.sh item 2 $c $p"
    done
done
for item in 1 3 4; do
    expect_out "^\| $item \| .* \| untested: needs (4|8|16) cores, this machine has 2 \|$" \
        "manycore.sh item $item untested"
done
grep -q '^| [1-5] |.* no figure |$' "$out" && fail "manycore.sh: a figure is missing: $(cat "$out")"
echo "bench_manycore: ok"
