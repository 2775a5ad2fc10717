#!/bin/sh
# Dynamic broadcasts against the other ways of sending one rank's data to some of the others:
# bench/bcast_dynamic.c (the root's MPI_Send to each destination in turn, its MPI_Isend to all then
# MPI_Waitall, MPI_Bcast on a communicator of the root and the destinations built beforehand, the
# same communicator built then freed around each MPI_Bcast, MPIX_Ibcast_dynamic) for 2, 4, 8, 16,
# 32 and 64 destinations spread over 65 ranks on this machine's cores, and 8 B, 1 KiB, 64 KiB,
# 1 MiB and 4 MiB. The time of one broadcast runs from the root's start to the last destination's
# receive (see the opening comment of bcast_dynamic.c). Each figure is the median of RUNS runs
# (default 3); ratios are the advantage of the dynamic broadcast over each other method (> 1: the
# dynamic broadcast is faster).
#
#   bench/bcast_dynamic.sh [--short] [--others] [BUILDDIR]
#
# BUILDDIR is a ThreadMPI build tree (default: the current directory). --short: 33 ranks, 2, 8 and
# 32 destinations, 8 B, 64 KiB and 1 MiB, one run of 0.1 s per measurement (a minute or two).
# --others: Open MPI (mpicc.openmpi, mpirun.openmpi) runs the methods it has (all but the dynamic
# broadcast) too, with as many ranks, oversubscribed and not pinned; left out with a note when not
# installed. MPICH is not run: its processes poll without sleeping, and 17 of them on 2 cores take
# 70 to 800 ms per broadcast (MPICH 4.0, ch4:ucx), a thousand times more than the others.
# THREADMPI_* settings in the environment reach ThreadMPI's runs unchanged. A run that lasts more
# than TIMEOUT seconds (default 900) is ended and reported, as is a wrong result. SECONDS_EACH
# (default 0.3) is the time each measurement aims at (option -T of the program).
set -eu
short=no
others=no
while [ $# -gt 0 ]; do
    case $1 in
        --short) short=yes ;;
        --others) others=yes ;;
        *) break ;;
    esac
    shift
done
build=$(cd "${1:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
limit=${TIMEOUT:-900}
if [ "$short" = yes ]; then
    runs=${RUNS:-1}
    each=${SECONDS_EACH:-0.1}
    nranks=33
    args="-n 2 -n 8 -n 32 8 65536 1048576"
else
    runs=${RUNS:-3}
    each=${SECONDS_EACH:-0.3}
    nranks=65
    args=
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: > "$work/notes"
note() {
    echo "$*" >> "$work/notes"
}

label() {
    case $1 in
        tm) echo ThreadMPI ;;
        ompi) echo "Open MPI" ;;
    esac
}

if [ ! -x "$build/tests/mpicc-build" ] || [ ! -x "$build/launcher/mpcrun" ]; then
    echo "$build is not a ThreadMPI build tree (no tests/mpicc-build or launcher/mpcrun)." >&2
    exit 2
fi
# The dynamic broadcast is ThreadMPI's point: without it, there is nothing to compare with.
if ! "$build/tests/mpicc-build" -O2 -o "$work/bd.tm" "$src/bench/bcast_dynamic.c" \
    > "$work/cc.err" 2>&1; then
    echo "bench/bcast_dynamic.c does not build with ThreadMPI:" >&2
    sed -n '1,10p' "$work/cc.err" >&2
    exit 1
fi
mpis=tm
if [ "$others" = yes ]; then
    if ! command -v mpicc.openmpi > /dev/null || ! command -v mpirun.openmpi > /dev/null; then
        note "Open MPI left out: mpicc.openmpi or mpirun.openmpi not found."
    elif mpicc.openmpi -O2 -o "$work/bd.ompi" "$src/bench/bcast_dynamic.c" > "$work/cc.err" 2>&1
    then
        mpis="$mpis ompi"
    else
        note "Open MPI left out: bench/bcast_dynamic.c does not build with mpicc.openmpi:"
        sed -n '1,6s/^/    /p' "$work/cc.err" >> "$work/notes"
    fi
fi

root=
[ "$(id -u)" -eq 0 ] && root=--allow-run-as-root

launch() { # MPI PROGRAM ARGS...
    m=$1
    shift
    case $m in
        tm) timeout $((limit + 30)) "$build/launcher/mpcrun" --timeout "$limit" -n "$nranks" "$@" ;;
        ompi)
            timeout "$limit" mpirun.openmpi $root --oversubscribe --bind-to none -n "$nranks" "$@"
            ;;
    esac
}

i=1
while [ "$i" -le "$runs" ]; do
    for m in $mpis; do
        out="$work/out.$m.$i"
        status=0
        # shellcheck disable=SC2086 # args is a list of words
        launch "$m" "$work/bd.$m" -T "$each" $args > "$out" 2> "$work/err" || status=$?
        if [ "$status" -ne 0 ]; then
            why=
            [ "$status" -eq 124 ] && why=" (timed out after $limit s)"
            note "$(label "$m"), run $i: exit status $status$why"
            grep -v '^ *$' "$work/err" | sed -n '1,4s/^/    /p' >> "$work/notes"
        fi
        grep WRONG "$out" | sed "s/^# /$(label "$m"), run $i: /" >> "$work/notes" || :
    done
    i=$((i + 1))
done

# median METHOD NDESTS BYTES FILES...: the median time of the lines "METHOD NDESTS BYTES B T us".
median() {
    k=$1 n=$2 s=$3
    shift 3
    cat "$@" 2> /dev/null | awk -v k="$k" -v n="$n" -v s="$s" \
        '$1 == k && $2 == n && $3 == s { print $5 }' |
        sort -g | awk '{ a[NR] = $1 } END { print NR ? a[int((NR + 1) / 2)] : "-" }'
}

# ratio TIME_DYNAMIC TIME_OTHER: the dynamic broadcast's advantage, other / dynamic.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (a == "-" || b == "-" || a <= 0) print "-"; else printf "%.2fx\n", b / a }'
}

human() {
    awk -v b="$1" 'BEGIN {
        if (b % 1048576 == 0) print b / 1048576 " MiB";
        else if (b % 1024 == 0) print b / 1024 " KiB"; else print b " B" }'
}

# The (ndests, bytes) pairs measured, in the order they come.
keys() {
    cat "$work"/out.* 2> /dev/null | awk '!/^#/ && NF >= 6 && !seen[$2 " " $3]++ { print $2, $3 }'
}

echo "Broadcasts to a subset of $nranks ranks on $(nproc) cores: time of one broadcast in us, from"
echo "the root's start to the last destination's receive, median of $runs runs. linear: MPI_Send"
echo "to each in turn; isend: MPI_Isend to all, MPI_Waitall; bcast: MPI_Bcast on a communicator"
echo "built beforehand; create: MPI_Comm_create_group, MPI_Bcast, MPI_Comm_free; dynamic:"
echo "MPIX_Ibcast_dynamic. Ratios: the method's time over the dynamic broadcast's."
[ -r /proc/loadavg ] && echo "Load average when the runs ended: $(cut -d ' ' -f 1-3 /proc/loadavg)."
echo
for m in $mpis; do
    echo "$(label "$m"):"
    echo
    methods="linear isend bcast create"
    [ "$m" = tm ] && methods="$methods dynamic"
    line="| dests | size"
    rule="|---|---"
    for k in $methods; do
        line="$line | $k"
        rule="$rule|---"
    done
    if [ "$m" = tm ]; then
        line="$line | linear/dyn | isend/dyn | bcast/dyn | create/dyn"
        rule="$rule|---|---|---|---"
    fi
    echo "$line |"
    echo "$rule|"
    keys | while read -r n s; do
        line="| $n | $(human "$s")"
        for k in $methods; do
            v=$(median "$k" "$n" "$s" "$work/out.$m".*)
            eval "v_$k=\$v"
            line="$line | $v"
        done
        if [ "$m" = tm ]; then
            # shellcheck disable=SC2154 # v_* are set by the eval above
            for k in linear isend bcast create; do
                eval "o=\$v_$k"
                line="$line | $(ratio "$v_dynamic" "$o")"
            done
        fi
        echo "$line |"
    done
    echo
done

# The bound that copying puts on the large sizes: memcpy on one rank, one core.
cat "$work"/out.tm.* 2> /dev/null | awk '$1 == "#" && $2 == "memcpy" { print $3, $5 }' |
    sort -k1,1n -k2,2g | awk '{ v[$1] = v[$1] " " $2; n[$1]++ }
        END { for (b in v) { split(v[b], a, " "); print b, a[int((n[b] + 1) / 2)] } }' |
    sort -n | while read -r b r; do
    echo "memcpy of $(human "$b") on one core (ThreadMPI's root, before the runs): $r MB/s"
done

if [ -s "$work/notes" ]; then
    echo
    echo "Notes:"
    cat "$work/notes"
fi
