#!/bin/sh
# Collectives side by side: ThreadMPI, Open MPI and MPICH (each when available) run the same
# sources: bench/coll.c (time per call of bcast, reduce, allreduce, allgather, alltoall, barrier
# at 8 B, 64 KiB and 2 MiB) at 2 ranks, pinned to cores, and at 16 ranks on this machine's cores,
# oversubscribed and not pinned; bench/overlap.c (how much of ibcast, ireduce and iallreduce of
# 2 MiB hides behind computation, without MPI_Test calls and with 16 of them) at 2 ranks, pinned.
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
: > "$work/notes"
note() {
    echo "$*" >> "$work/notes"
}

# compile MPI MPICC...: builds each benchmark B as $work/B.MPI and adds MPI to $mpis_B if it
# builds; each is left out separately (ThreadMPI may have the blocking collectives before the
# non-blocking ones).
mpis_coll=''
mpis_overlap=''
compile() {
    m=$1
    shift
    for b in coll overlap; do
        if "$@" -O2 -o "$work/$b.$m" "$src/bench/$b.c" > "$work/cc.err" 2>&1; then
            eval "mpis_$b=\"\$mpis_$b $m\""
        else
            note "$(label "$m") left out of bench/$b.c, which does not build with $1:"
            if grep -q 'undefined reference to' "$work/cc.err"; then
                undefined=$(sed -n "s/.*undefined reference to .\([A-Za-z_0-9]*\).*/\1/p" \
                    "$work/cc.err" | sort -u | paste -s -d ' ' -)
                note "    undefined: $undefined"
            else
                sed -n '1,6s/^/    /p' "$work/cc.err" >> "$work/notes"
            fi
        fi
    done
}

label() {
    case $1 in
        tm) echo ThreadMPI ;;
        ompi) echo "Open MPI" ;;
        mpich) echo MPICH ;;
    esac
}

if [ "$tm" = no ]; then
    note "ThreadMPI left out: --no-tm."
elif [ ! -x "$build/tests/mpicc-build" ] || [ ! -x "$build/runtime/mpcrun" ]; then
    note "ThreadMPI left out: $build is not a ThreadMPI build tree (no tests/mpicc-build)."
else
    compile tm "$build/tests/mpicc-build"
fi
if ! command -v mpicc.openmpi > /dev/null || ! command -v mpirun.openmpi > /dev/null; then
    note "Open MPI left out: mpicc.openmpi or mpirun.openmpi not found."
else
    compile ompi mpicc.openmpi
fi
if ! command -v mpicc.mpich > /dev/null || ! command -v mpiexec.mpich > /dev/null; then
    note "MPICH left out: mpicc.mpich or mpiexec.mpich not found."
else
    compile mpich mpicc.mpich
fi
if [ -z "$mpis_coll$mpis_overlap" ]; then
    cat "$work/notes"
    echo "No MPI to run."
    exit 1
fi

root=
[ "$(id -u)" -eq 0 ] && root=--allow-run-as-root

# launch MPI NRANKS PROGRAM ARGS...: 2 ranks are pinned to cores, more are left to the kernel.
# ThreadMPI places its ranks itself.
launch() {
    m=$1 n=$2
    shift 2
    case $m in
        tm) timeout $((limit + 30)) "$build/runtime/mpcrun" --timeout "$limit" -n "$n" "$@" ;;
        ompi)
            bind=none
            [ "$n" -le 2 ] && bind=core
            timeout "$limit" mpirun.openmpi $root --oversubscribe --bind-to $bind -n "$n" "$@"
            ;;
        mpich)
            bind=
            [ "$n" -le 2 ] && bind="-bind-to core"
            timeout "$limit" mpiexec.mpich $bind -n "$n" "$@"
            ;;
    esac
}

# measure NAME RUN NRANKS PROGRAM ARGS...: runs PROGRAM with each MPI, output in $work/NAME.MPI.RUN.
measure() {
    name=$1 i=$2 n=$3 prog=$4
    shift 4
    eval "mpis=\$mpis_$prog"
    for m in $mpis; do
        out="$work/$name.$m.$i"
        status=0
        launch "$m" "$n" "$work/$prog.$m" "$@" > "$out" 2> "$work/err" || status=$?
        if [ "$status" -ne 0 ]; then
            why=
            [ "$status" -eq 124 ] && why=" (timed out after $limit s)"
            note "$(label "$m"), $prog $* at $n ranks, run $i: exit status $status$why"
            grep -v '^ *$' "$work/err" | sed -n '1,4s/^/    /p' >> "$work/notes"
        fi
        grep WRONG "$out" | sed "s/^# /$(label "$m"), $n ranks, run $i: /" >> "$work/notes" || :
    done
}

i=1
while [ "$i" -le "$runs" ]; do
    measure coll2 "$i" 2 coll -T "$each"
    measure coll16 "$i" 16 coll -T "$each"
    measure ovl0 "$i" 2 overlap -T "$each"
    measure ovl16 "$i" 2 overlap -T "$each" -t 16
    i=$((i + 1))
done

# median FIELD NAME BYTES FILES...: the median of field FIELD of the lines "NAME BYTES ...".
median() {
    f=$1 k=$2 s=$3
    shift 3
    cat "$@" 2> /dev/null | awk -v f="$f" -v k="$k" -v s="$s" '$1 == k && $2 == s { print $f }' |
        sort -g | awk '{ a[NR] = $1 } END { print NR ? a[int((NR + 1) / 2)] : "-" }'
}

# ratio TIME_REF TIME_OTHER: the reference's advantage, other / ref.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (a == "-" || b == "-" || a <= 0) print "-"; else printf "%.2fx\n", b / a }'
}

human() {
    awk -v b="$1" 'BEGIN {
        if (b == 0) print "-"; else if (b % 1048576 == 0) print b / 1048576 " MiB";
        else if (b % 1024 == 0) print b / 1024 " KiB"; else print b " B" }'
}

# keys NAME: the "collective bytes" pairs that NAME's outputs hold, in the order they come.
keys() {
    cat "$work/$1".* 2> /dev/null | awk '!/^#/ && NF >= 4 && !seen[$1 " " $2]++ { print $1, $2 }'
}

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
    echo "Sizes: bcast, the bytes sent; reduce and allreduce, MPI_SUM on size/8 doubles;"
    echo "allgather, each rank's contribution; alltoall, each block (per pair of ranks)."
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

if [ -s "$work/notes" ]; then
    echo
    echo "Notes:"
    cat "$work/notes"
fi
