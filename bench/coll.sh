#!/bin/sh
# Collectives side by side: ThreadMPI, Open MPI and MPICH (each when available) run the same
# sources: bench/coll.c (time per call of every MPI 3.1 collective on an intracommunicator and
# of its non-blocking form, 44 in all, at 8 B, 64 KiB and 2 MiB) at 2 ranks, pinned to cores, and
# at 16 ranks on this machine's cores, oversubscribed and not pinned; bench/overlap.c (how much of
# ibcast, ireduce and iallreduce of 2 MiB hides behind computation, without MPI_Test calls and
# with 16 of them) at 2 ranks, pinned. bench/run.sh runs all of this and more in one go.
# Each figure is the median of RUNS runs (default 3); the MPIs take turns within each run, so
# that a change in the machine's load touches them alike. Ratios are the advantage of the first
# MPI of the table (ThreadMPI when it is there) over each other one: > 1 means it is faster.
#
#   bench/coll.sh [--no-tm] [BUILDDIR]
#
# BUILDDIR is a ThreadMPI build tree (default: the current directory); ThreadMPI is left out,
# with a note, under --no-tm, when BUILDDIR has no tests/mpicc-build, or when the benchmarks do
# not build with it. Open MPI (mpicc.openmpi, mpirun.openmpi) and MPICH (mpicc.mpich,
# mpiexec.mpich) are left out, with a note, when not installed. THREADMPI_* settings in the
# environment reach ThreadMPI's runs unchanged; this script sets none. A run that lasts more than
# TIMEOUT seconds (default 600) is ended and reported. A wrong result is reported as a note.
# SECONDS_EACH (default 0.3) is the time each measurement aims at (option -T of the programs).
set -eu
tm=yes
if [ "${1:-}" = --no-tm ]; then
    tm=no
    shift
fi
build=$(cd "${1:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-3}
limit=${TIMEOUT:-600}
each=${SECONDS_EACH:-0.3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
benches="coll overlap"
. "$src/bench/lib.sh"

compile_all "$tm"
if [ -z "$mpis_coll$mpis_overlap" ]; then
    cat "$work/notes"
    echo "No MPI to run."
    exit 1
fi

i=1
while [ "$i" -le "$runs" ]; do
    measure coll2 "$i" 2 coll -T "$each"
    measure coll16 "$i" 16 coll -T "$each"
    measure ovl0 "$i" 2 overlap -T "$each"
    measure ovl16 "$i" 2 overlap -T "$each" -t 16
    i=$((i + 1))
done

# reference MPIS: sets $ref to the first of MPIS and $others to the rest.
reference() {
    set -- $1
    ref=$1
    shift
    others="$*"
}

coll_table() { # NAME NRANKS TITLE
    mpis=$mpis_coll
    reference "$mpis"
    echo "Collectives, $2 ranks, $3: time per call in us (largest over the ranks), median of" \
        "$runs runs"
    echo
    line="| collective | size"
    rule="|---|---"
    for m in $mpis; do
        line="$line | $(label "$m")"
        rule="$rule|---"
    done
    for m in $others; do
        line="$line | $(label "$ref") vs $(label "$m")"
        rule="$rule|---"
    done
    echo "$line |"
    echo "$rule|"
    keys "$1" | while read -r k s; do
        line="| $k | $(human "$s")"
        for m in $mpis; do
            v=$(median 4 "$k" "$s" "$work/$1.$m".*)
            eval "v_$m=\$v"
            line="$line | $v"
        done
        eval "r=\$v_$ref"
        for m in $others; do
            eval "o=\$v_$m"
            line="$line | $(ratio "$r" "$o")"
        done
        echo "$line |"
    done
    echo
}

names=
for m in tm ompi mpich; do
    case " $mpis_coll $mpis_overlap " in
        *" $m "*) names="$names${names:+, }$(label "$m")" ;;
    esac
done
echo "Collectives on $(nproc) cores: $names"
echo
if [ -n "$mpis_coll" ]; then
    coll_table coll2 2 "pinned to cores"
    coll_table coll16 16 "oversubscribed, not pinned"
    echo "Sizes: bcast, the bytes sent; reduce, allreduce, scan and exscan, MPI_SUM on size/8"
    echo "doubles; reduce_scatter(_block), size/8 doubles of result per rank; allgather(v),"
    echo "gather(v) and scatter(v), each rank's block; alltoall(v,w), each block (per pair of"
    echo "ranks); neighbor_*, each block to or from one of the 2 neighbours on a periodic ring."
    echo
fi

overlap_table() {
    mpis=$mpis_overlap
    reference "$mpis"
    echo "Overlap of non-blocking collectives with computation, 2 ranks pinned to cores, median" \
        "of $runs runs"
    echo "(times per call in us, largest over the ranks; overlap % = 100 (t_pure + t_cpu -"
    echo "t_ovrl) / min(t_pure, t_cpu), shown within [0, 100], raw beside it; advantage: t_ovrl of"
    echo "the others over t_ovrl of $(label "$ref"))"
    echo
    echo "| collective | size | MPI_Test calls | MPI | t_pure | t_cpu | t_ovrl | overlap %" \
        "| raw % | $(label "$ref")'s advantage |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    for name in ovl0 ovl16; do
        tests=none
        [ "$name" = ovl16 ] && tests=16
        keys "$name" | while read -r k s; do
            r=$(median 6 "$k" "$s" "$work/$name.$ref".*)
            for m in $mpis; do
                f="$work/$name.$m"
                o=$(median 6 "$k" "$s" "$f".*)
                adv=-
                [ "$m" = "$ref" ] || adv=$(ratio "$r" "$o")
                echo "| $k | $(human "$s") | $tests | $(label "$m")" \
                    "| $(median 4 "$k" "$s" "$f".*) | $(median 5 "$k" "$s" "$f".*) | $o" \
                    "| $(median 7 "$k" "$s" "$f".*) | $(median 8 "$k" "$s" "$f".*) | $adv |"
            done
        done
    done
}

[ -z "$mpis_overlap" ] || overlap_table
print_notes
