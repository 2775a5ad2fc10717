#!/bin/sh
# Wall time of whole jobs (start, MPI_Init, MPI_Finalize, exit) and the memory they use, for
# ThreadMPI and, when installed, Open MPI and MPICH, from the same source (bench/startup.c).
# Prints a table; times are the median of RUNS runs (default 7). Ratios are against ThreadMPI
# at the same rank count, so that the noise of a shared machine cancels out as far as it can.
#
#   bench/startup.sh [BUILDDIR]     (BUILDDIR: a ThreadMPI build tree, default the current dir)
set -eu
build=$(cd "${1:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$build/tests/mpicc-build" -O2 -o "$work/tm" "$src/bench/startup.c"
have_ompi=no have_mpich=no
command -v mpicc.openmpi > /dev/null && mpicc.openmpi -O2 -o "$work/ompi" "$src/bench/startup.c" && have_ompi=yes
command -v mpicc.mpich > /dev/null && mpicc.mpich -O2 -o "$work/mpich" "$src/bench/startup.c" && have_mpich=yes

# measure CMD...: prints "SECONDS KIB": the median wall time of $runs runs and the largest RSS.
measure() {
    : > "$work/times"
    rss=0
    i=0
    while [ "$i" -lt "$runs" ]; do
        /usr/bin/time -f "%e %M" -o "$work/t" "$@" > /dev/null 2> "$work/err" ||
            { echo "failed: $* ($(cat "$work/err"))" >&2; exit 1; }
        read -r t m < "$work/t"
        echo "$t" >> "$work/times"
        [ "$m" -gt "$rss" ] && rss=$m
        i=$((i + 1))
    done
    sort -n "$work/times" | awk -v rss="$rss" '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)], rss }'
}

row() { # NAME RANKS "SECONDS KIB" REFERENCE_SECONDS
    set -- "$1" "$2" "${3% *}" "${3#* }" "$4"
    printf '| %-10s | %5d | %8.3f | %8.1f | %7s |\n' "$1" "$2" "$3" "$(echo "$4 / 1024" | bc -l)" \
        "$(echo "scale=1; $3 / $5" | bc -l)x"
}

root_flags=
[ "$(id -u)" -eq 0 ] && root_flags=--allow-run-as-root
echo "Whole-job wall time (median of $runs runs) and peak memory of all ranks, $(nproc) cores"
echo
echo "| MPI        | ranks |   wall s | RSS MiB  | time vs ThreadMPI |"
echo "|------------|-------|----------|----------|---------|"
for n in 16 256; do
    m=$(measure "$build/launcher/mpcrun" -n "$n" "$work/tm")
    ref=${m% *}
    row ThreadMPI "$n" "$m" "$ref"
    [ "$n" -le 16 ] || continue
    if [ "$have_ompi" = yes ]; then
        m=$(measure mpirun.openmpi $root_flags --oversubscribe -n "$n" "$work/ompi")
        row "Open MPI" "$n" "$m" "$ref"
    fi
    if [ "$have_mpich" = yes ]; then
        m=$(measure mpiexec.mpich -n "$n" "$work/mpich")
        row MPICH "$n" "$m" "$ref"
    fi
done

# Memory that a rank adds: the peak RSS of a 1000-rank job less a 1-rank job's, per rank. It
# includes the rank's copy of the program and the stack it touched.
one=$(measure "$build/launcher/mpcrun" -n 1 "$work/tm")
many=$(measure "$build/launcher/mpcrun" -n 1000 "$work/tm")
echo
printf 'ThreadMPI memory per rank: %.1f KiB (peak RSS %.1f MiB with 1000 ranks, %.1f MiB with 1)\n' \
    "$(echo "(${many#* } - ${one#* }) / 999" | bc -l)" "$(echo "${many#* } / 1024" | bc -l)" \
    "$(echo "${one#* } / 1024" | bc -l)"
echo
echo "Open MPI and MPICH run one process per rank: their RSS column is mpirun's or the largest"
echo "rank's, not the job's total. ThreadMPI's is the whole job (one process)."
