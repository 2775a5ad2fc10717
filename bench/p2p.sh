#!/bin/sh
# Point-to-point side by side: ThreadMPI, Open MPI and MPICH (when installed) run the same
# sources (bench/p2p.c: latency, bandwidth, message rate between 2 ranks; bench/ring.c: 500 rounds
# of a token around a ring of 16 ranks on this machine's cores, of the ring exchange plus an
# 8-byte allreduce, and of the halo exchange with both neighbours plus the allreduce). Each figure is the median of RUNS runs
# (default 5); ratios are ThreadMPI's advantage (> 1: ThreadMPI is better).
#
#   bench/p2p.sh [BUILDDIR]     (BUILDDIR: a ThreadMPI build tree, default the current dir)
set -eu
build=$(cd "${1:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

root=
[ "$(id -u)" -eq 0 ] && root=--allow-run-as-root
mpis="tm"
"$build/tests/mpicc-build" -O2 -o "$work/p2p.tm" "$src/bench/p2p.c"
"$build/tests/mpicc-build" -O2 -o "$work/ring.tm" "$src/bench/ring.c"
if command -v mpicc.openmpi > /dev/null; then
    mpicc.openmpi -O2 -o "$work/p2p.ompi" "$src/bench/p2p.c"
    mpicc.openmpi -O2 -o "$work/ring.ompi" "$src/bench/ring.c"
    mpis="$mpis ompi"
fi
if command -v mpicc.mpich > /dev/null; then
    mpicc.mpich -O2 -o "$work/p2p.mpich" "$src/bench/p2p.c" 2> /dev/null
    mpicc.mpich -O2 -o "$work/ring.mpich" "$src/bench/ring.c" 2> /dev/null
    mpis="$mpis mpich"
fi

launch() { # MPI NRANKS PROGRAM ARGS...
    m=$1 n=$2
    shift 2
    case $m in
        tm) "$build/launcher/mpcrun" -n "$n" "$@" ;;
        ompi) mpirun.openmpi $root --oversubscribe -n "$n" "$@" ;;
        mpich) mpiexec.mpich -n "$n" "$@" ;;
    esac
}

# median MPI NAME NRANKS PROGRAM ARGS...: the median of the value printed on the line NAME.
median() {
    m=$1 name=$2 n=$3
    shift 3
    i=0
    : > "$work/values"
    while [ "$i" -lt "$runs" ]; do
        launch "$m" "$n" "$@" 2> /dev/null | awk -v k="$name" '$1 == k { print $2 }' >> "$work/values"
        i=$((i + 1))
    done
    sort -g "$work/values" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

echo "Point-to-point on $(nproc) cores, median of $runs runs each"
echo
echo "| measure | ThreadMPI | Open MPI | MPICH | ThreadMPI vs Open MPI | vs MPICH |"
echo "|---|---|---|---|---|---|"
for measure in "latency_8B us lower" "bandwidth_4MiB MB/s higher" "memcpy_4MiB MB/s higher" \
    "rate_8B Mmsg/s higher" "ring_16_ranks_500_rounds s lower" \
    "exchange_16_ranks_500_rounds s lower" "halo_16_ranks_500_rounds s lower"; do
    set -- $measure
    name=$1 unit=$2 better=$3
    line="| $name ($unit)"
    for m in tm ompi mpich; do
        case " $mpis " in *" $m "*) ;; *) eval "v_$m=-"; line="$line | -"; continue ;; esac
        case $name in
            ring*) v=$(median "$m" "$name" 16 "$work/ring.$m" 500 token) ;;
            exchange* | halo*) v=$(median "$m" "$name" 16 "$work/ring.$m" 500 "${name%%_*}") ;;
            *) v=$(median "$m" "$name" 2 "$work/p2p.$m") ;;
        esac
        eval "v_$m=$v"
        line="$line | $v"
    done
    for m in ompi mpich; do
        eval "other=\$v_$m"
        if [ "$other" = - ] || [ -z "$other" ]; then
            line="$line | -"
        elif [ "$better" = lower ]; then
            line="$line | $(echo "scale=2; $other / $v_tm" | bc)x"
        else
            line="$line | $(echo "scale=2; $v_tm / $other" | bc)x"
        fi
    done
    echo "$line |"
done
