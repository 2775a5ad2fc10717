#!/bin/sh
# MPI-IO side by side: ThreadMPI, Open MPI and MPICH (when installed) run the same source,
# bench/io.c (IOR's patterns: each rank writes its blocks of one shared file, then reads them
# back and checks them; segmented or strided, independent or collective), on a local file system
# (the directory DIR, default $TMPDIR or /tmp), and dd writes and reads a file of the same total
# size with the same block size. Bandwidth in MB/s of all ranks' data (higher is better), the
# median of RUNS runs (default 3); ratios are ThreadMPI's advantage (ThreadMPI / other, > 1:
# ThreadMPI is faster). A job that lasts more than TIMEOUT seconds (default 120) is ended and
# reported. The data mostly stays in the page cache: these figures are the MPI-IO layers' costs
# over the kernel's, not the disk's.
#
#   bench/io.sh [--short] [BUILDDIR] [DIR]     (BUILDDIR: a ThreadMPI build tree, default .)
#
# --short: one run, 4 ranks only (about a minute).
set -eu
short=no
if [ "${1:-}" = --short ]; then
    short=yes
    shift
fi
build=$(cd "${1:-.}" && pwd)
dir=${2:-${TMPDIR:-/tmp}}
src=$(cd "$(dirname "$0")/.." && pwd)
limit=${TIMEOUT:-120}
if [ "$short" = yes ]; then
    runs=${RUNS:-1}
    rank_counts=4
else
    runs=${RUNS:-3}
    rank_counts="2 4"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
benches=io
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
compile_all yes
# shellcheck disable=SC2154 # mpis_io is set by compile_all
[ -n "$mpis_io" ] || { print_notes; exit 1; }

# Block sizes and blocks per rank: large blocks, and small ones, where the strided layout makes
# many small pieces of the file.
shapes="1048576:16 4096:1024"
names="write_segmented_indep read_segmented_indep write_segmented_coll read_segmented_coll
write_strided_indep read_strided_indep write_strided_coll read_strided_coll"

# dd_rate N BLOCK COUNT: "write MB/s read MB/s" of dd moving N * COUNT blocks of BLOCK bytes.
dd_rate() {
    f="$dir/tm_bench_io_dd.$$"
    total=$(($1 * $3))
    w=$(dd if=/dev/zero of="$f" bs="$2" count="$total" 2>&1 | sed -n 's/.* copied, \([0-9.e+-]*\) s.*/\1/p')
    r=$(dd if="$f" of=/dev/null bs="$2" 2>&1 | sed -n 's/.* copied, \([0-9.e+-]*\) s.*/\1/p')
    rm -f "$f"
    awk -v b="$(($2 * total))" -v w="$w" -v r="$r" 'BEGIN {
        if (w > 0 && r > 0) printf "%.1f %.1f\n", b / w / 1e6, b / r / 1e6; else print "- -" }'
}

for n in $rank_counts; do
    i=1
    while [ "$i" -le "$runs" ]; do
        for shape in $shapes; do
            b=${shape%:*} k=${shape#*:}
            measure "io.$n.$b" "$i" "$n" io -b "$b" -n "$k" -r 3 -d "$dir"
            set -- $(dd_rate "$n" "$b" "$k")
            echo "write $b B $1" >> "$work/dd.$n.$b.$i"
            echo "read $b B $2" >> "$work/dd.$n.$b.$i"
        done
        i=$((i + 1))
    done
done

echo "MPI-IO on $(nproc) cores, files in $dir: MB/s of all ranks' data, median of $runs runs."
echo
echo "| access | block | ranks | ThreadMPI | Open MPI | MPICH | dd | vs Open MPI | vs MPICH | vs dd |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for n in $rank_counts; do
    for shape in $shapes; do
        b=${shape%:*}
        for name in $names; do
            line="| $name | $(human "$b") | $n"
            found=no
            for m in tm ompi mpich; do
                v=$(median 4 "$name" "$b" "$work/io.$n.$b.$m".*)
                eval "v_$m=\$v"
                [ "$v" = - ] || found=yes
                line="$line | $v"
            done
            [ "$found" = yes ] || continue
            v_dd=$(median 4 "${name%%_*}" "$b" "$work/dd.$n.$b".*)
            # shellcheck disable=SC2154 # v_* are set by the eval above
            echo "$line | $v_dd | $(ratio "$v_ompi" "$v_tm") | $(ratio "$v_mpich" "$v_tm") |" \
                "$(ratio "$v_dd" "$v_tm") |"
        done
    done
done
print_notes
