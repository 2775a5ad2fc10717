#!/bin/sh
# One-sided communication side by side: ThreadMPI, Open MPI and MPICH (when installed) run the
# same source, bench/rma.c (the OSU one-sided patterns: put and get under lock_all + flush, under
# fence and under PSCW, accumulate, fetch_and_op and compare_and_swap under lock_all + flush, and
# a flag's trip through a shared window by plain loads and stores), at 8 B and 4 MiB, on 2 ranks
# pinned (all three) and 16 ranks in 8 pairs on this machine's cores (ThreadMPI and Open MPI:
# MPICH's processes poll without sleeping, and 16 of them on 2 cores measure the scheduler).
# Each operation runs in a job of its own, so that a crash costs one figure; each figure is the
# median of RUNS runs (default 3) of about SECONDS_EACH seconds (default 0.2). Times in us per
# operation (lower is better); ratios are ThreadMPI's advantage (other / ThreadMPI, > 1: ThreadMPI
# is faster). A job that lasts more than TIMEOUT seconds (default 120) is ended and reported.
#
#   bench/rma.sh [--short] [BUILDDIR]       (BUILDDIR: a ThreadMPI build tree, default .)
#
# --short: one run of 0.1 s per figure, 2 ranks only (about 2 minutes).
set -eu
short=no
if [ "${1:-}" = --short ]; then
    short=yes
    shift
fi
build=$(cd "${1:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
limit=${TIMEOUT:-120}
if [ "$short" = yes ]; then
    runs=${RUNS:-1}
    each=${SECONDS_EACH:-0.1}
    rank_counts=2
else
    runs=${RUNS:-3}
    each=${SECONDS_EACH:-0.2}
    rank_counts="2 16"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
benches=rma
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
compile_all yes
# shellcheck disable=SC2154 # mpis_rma is set by compile_all
[ -n "$mpis_rma" ] || { print_notes; exit 1; }

ops="put_lock get_lock put_fence get_fence put_pscw get_pscw acc_lock fop_lock cas_lock
shm_pingpong"
for n in $rank_counts; do
    only=$mpis_rma
    if [ "$n" -gt 2 ]; then
        only=$(echo "$mpis_rma" | sed 's/ *mpich//')
        case " $mpis_rma " in *" mpich "*) note "MPICH left out at $n ranks (see the top)." ;; esac
    fi
    i=1
    while [ "$i" -le "$runs" ]; do
        for op in $ops; do
            mpis_only=$only measure "$op.$n" "$i" "$n" rma -T "$each" -c "$op" 8 4194304
        done
        i=$((i + 1))
    done
done

echo "One-sided communication on $(nproc) cores: us per operation, median of $runs runs"
echo "(2 ranks: one pair, pinned; 16 ranks: 8 pairs at once, not pinned)."
echo
echo "| operation | size | ranks | ThreadMPI | Open MPI | MPICH | vs Open MPI | vs MPICH |"
echo "|---|---|---|---|---|---|---|---|"
for n in $rank_counts; do
    for op in $ops; do
        for s in 8 4194304; do
            line="| $op | $(human "$s") | $n"
            found=no
            for m in tm ompi mpich; do
                v=$(median 4 "$op" "$s" "$work/$op.$n.$m".*)
                eval "v_$m=\$v"
                [ "$v" = - ] || found=yes
                line="$line | $v"
            done
            [ "$found" = yes ] || continue
            # shellcheck disable=SC2154 # v_* are set by the eval above
            echo "$line | $(ratio "$v_tm" "$v_ompi") | $(ratio "$v_tm" "$v_mpich") |"
        done
    done
done
print_notes
