#!/bin/sh
# How much of ibcast, ireduce and iallreduce of 2 MiB hides behind computation (bench/overlap.c,
# the IMB-NBC method), ThreadMPI only, for each placement policy of the progress threads and each
# number S of the tree's levels left to the ranks (the split-tree algorithm): on N ranks (NRANKS,
# default "2 4"), the policies idle, same, next and none, and S from 0 to H = ceil(log2 N). The
# policy comm is left out: it keeps cores for the progress threads and puts the ranks on the
# others, which a machine of fewer than N + 1 cores cannot do without ranks sharing a core, and
# the method's computation then runs rank after rank. Each figure is the median of RUNS runs
# (default 3); SECONDS_EACH (default 0.3) is the time each measurement aims at (-T).
#
#   bench/overlap.sh [BUILDDIR]    (BUILDDIR: a ThreadMPI build tree, default the current dir)
#
# Prints one table: N, policy, S, collective, t_pure, t_cpu and t_ovrl in us, and the overlap in
# % (100: the collective hid entirely behind the computation; 0: one ran after the other).
set -eu
build=$(cd "${1:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-3}
each=${SECONDS_EACH:-0.3}
nranks=${NRANKS:-2 4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$build/tests/mpicc-build" -O2 -o "$work/overlap" "$src/bench/overlap.c"
cores=$(nproc)

# levels N: H, the binomial tree's height on N ranks.
levels() {
    h=0
    while [ $((1 << h)) -lt "$1" ]; do
        h=$((h + 1))
    done
    echo "$h"
}

i=1
while [ "$i" -le "$runs" ]; do
    for n in $nranks; do
        for policy in idle same next none; do
            s=0
            while [ "$s" -le "$(levels "$n")" ]; do
                # "name bytes B t_pure t_cpu t_ovrl overlap raw" lines, tagged with the run's key
                "$build/launcher/mpcrun" -n "$n" --timeout 300 --set "placement.progress=$policy" \
                    --set "nbc.split_levels=$s" "$work/overlap" -T "$each" 2097152 < /dev/null |
                    awk -v key="$n $policy $s" '!/^#/ { print key, $1, $4, $5, $6, $8 }' \
                        >> "$work/rows" || {
                    echo "overlap: N=$n, progress=$policy, S=$s: the job failed" >&2
                    touch "$work/failed"
                }
                s=$((s + 1))
            done
        done
    done
    i=$((i + 1))
done

echo "Overlap of 2 MiB non-blocking collectives with computation, ThreadMPI, by placement of the"
echo "progress threads and split-tree levels S; medians of $runs runs, $cores cores"
echo
echo "| N | progress | S | collective | t_pure (us) | t_cpu (us) | t_ovrl (us) | overlap (%) |"
echo "|---|---|---|---|---|---|---|---|"
# The median of each column per (N, policy, S, collective), in the order the rows first came;
# the overlap is the median of the raw figures, clamped to [0, 100] as bench/overlap.c shows it.
awk '
{
    k = $1 " " $2 " " $3 " " $4
    if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
    n[k]++
    for (c = 5; c <= 8; c++) v[k, c, n[k]] = $c
}
function median(k, c,    m, i, j, t, a) {
    m = n[k]
    for (i = 1; i <= m; i++) a[i] = v[k, c, i]
    for (i = 2; i <= m; i++)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
    for (i = 1; i <= nk; i++) {
        k = order[i]
        split(k, f, " ")
        o = median(k, 8)
        o = o < 0 ? 0 : o > 100 ? 100 : o
        printf "| %s | %s | %s | %s | %.2f | %.2f | %.2f | %.1f |\n", f[1], f[2], f[3], f[4],
            median(k, 5), median(k, 6), median(k, 7), o
    }
}' "$work/rows"
# A failed job (a wrong result, a timeout) has no rows above: say so in the status too.
[ ! -e "$work/failed" ]
