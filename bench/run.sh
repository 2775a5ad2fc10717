#!/bin/sh
# The benchmark suite in one go: ThreadMPI side by side with Open MPI and MPICH (each left out, with
# a note, when it is not installed or a program does not build with it), every program built from
# the same source with each MPI's mpicc:
#   p2p      latency, bandwidth and message rate against the message size, 2 ranks pinned
#            (bench/p2p.c)
#   coll     every MPI 3.1 collective on an intracommunicator and its non-blocking form
#            (bench/coll.c), 2 ranks pinned and 16 ranks on this machine's cores, not pinned (4
#            and 8 ranks too in the full mode): bcast, reduce, allreduce, allgather, alltoall,
#            barrier at 8 B, 64 KiB and 2 MiB (job collN); the 32 others, gather(v), scatter(v),
#            allgatherv, alltoall(v,w), reduce_scatter(_block), scan, exscan and the
#            neighbourhood collectives on a ring, in a job of their own (collmN) at the same
#            sizes, but in the short mode at 8 B and 64 KiB at 2 ranks and at 8 B only at 16
#            (MPICH's 16 processes on 2 cores take about a second a measurement)
#   overlap  ibcast, ireduce and iallreduce of 2 MiB behind computation, the IMB-NBC method, 2
#            ranks pinned (bench/overlap.c; with 16 MPI_Test calls too in the full mode)
#   oversub  16 and 64 ranks on this machine's cores, per round of bench/ring.c: a token around a
#            ring, the ring exchange plus an 8-byte allreduce, and the halo exchange with both
#            neighbours plus the allreduce; and an 8-byte allreduce alone (bench/coll.c)
#   startup  a whole 16-rank job's wall time and peak memory (bench/startup.c), and the memory a
#            ThreadMPI rank adds (a job of many ranks against a job of one)
#   split    ThreadMPI only: ibcast of 2 MiB overlapped with a fixed total computation, for N ranks
#            of a machine of C cores (a synthetic topology) and each split S = 0..H of the tree,
#            beside the predictions of `mpcrun --split-model C`
# The MPIs take turns within each run, so that a change in the machine's load touches them alike;
# each figure is the median of RUNS runs. Prints one markdown table with ThreadMPI's advantage over
# each other MPI (> 1: ThreadMPI is better) and the split-tree table, writes every figure to
# DIR/results.csv and, with gnuplot, draws DIR/p2p_latency.png, p2p_bandwidth.png,
# coll_ranks.png (the six collectives of the first jobs), coll_ranks_more.png (the others),
# overlap.png and split.png (bench/plots.gp).
#
#   bench/run.sh [--short] [-o DIR] [BUILDDIR]
#   bench/run.sh --plot CSV [-o DIR]       the plots of a results.csv only; runs nothing
#
# BUILDDIR: a ThreadMPI build tree (default: the current directory). DIR: default
# BUILDDIR/bench/results. --short: fewer sizes, rank counts and runs, shorter measurements (under
# 5 minutes on 2 cores, about 4 estimated); the full mode takes about an hour (estimated: the
# 32 other collectives roughly double the collectives' part). RUNS, SECONDS_EACH (the time each
# measurement of coll and overlap aims at) and TIMEOUT (seconds before a job is ended and
# reported) override the mode's defaults. THREADMPI_* settings in the environment reach
# ThreadMPI's runs unchanged.
set -eu
usage() {
    sed -n '/^#   bench\/run.sh/p' "$0" | sed 's/^#   /usage: /' >&"$1"
    exit "$2"
}
short=no
plot_only=
dir=
while [ $# -gt 0 ]; do
    case $1 in
        --short) short=yes ;;
        --plot)
            [ $# -ge 2 ] || usage 2 2
            plot_only=$2
            shift
            ;;
        -o)
            [ $# -ge 2 ] || usage 2 2
            dir=$2
            shift
            ;;
        -h | --help) usage 1 0 ;;
        -*) usage 2 2 ;;
        *) break ;;
    esac
    shift
done
[ $# -le 1 ] || usage 2 2
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "$plot_only" ]; then
    build=.
else
    build=$(cd "${1:-.}" && pwd)
fi
dir=${dir:-$build/bench/results}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

if [ "$short" = yes ]; then
    runs=${RUNS:-1}
    each=${SECONDS_EACH:-0.05}
    limit=${TIMEOUT:-60}
    p2p_sizes="8 1024 65536 1048576 4194304"
    coll_ranks="2 16"
    # The sizes of the 32 other collectives at 2 ranks and at more (bench/coll.c's -c lists below).
    more_sizes_2="8 65536"
    more_sizes_many=8
    ovl_tests=0
    rounds=10
    mem_ranks=256
    split_ranks="4 7"
else
    runs=${RUNS:-3}
    each=${SECONDS_EACH:-0.3}
    limit=${TIMEOUT:-300}
    p2p_sizes="8 64 512 4096 32768 262144 1048576 4194304"
    coll_ranks="2 4 8 16"
    more_sizes_2="8 65536 2097152"
    more_sizes_many=$more_sizes_2
    ovl_tests="0 16"
    rounds=100
    mem_ranks=1000
    split_ranks="2 3 4 5 6 7"
fi
split_cores=8
# bench/coll.c's names: the six of coll_ranks.png and the first table rows, and the others.
coll_six=bcast,reduce,allreduce,allgather,alltoall,barrier
coll_more=gather,gatherv,scatter,scatterv,allgatherv,alltoallv,alltoallw,reduce_scatter
coll_more=$coll_more,reduce_scatter_block,scan,exscan,neighbor_allgather,neighbor_allgatherv
coll_more=$coll_more,neighbor_alltoall,neighbor_alltoallv,neighbor_alltoallw
# with_i LIST: the comma-separated names and their non-blocking forms.
with_i() {
    echo "$1,$(echo "$1" | sed 's/[a-z_][a-z_]*/i&/g')"
}
coll_six=$(with_i "$coll_six")
coll_more=$(with_i "$coll_more")
benches="p2p coll overlap ring startup"
. "$src/bench/lib.sh"

# plot CSV: draws the PNG files from CSV into $dir, or says why not.
plot() {
    if ! command -v gnuplot > /dev/null; then
        note "No plots: gnuplot is not installed (tests/deps.sh --compare installs gnuplot-nox)."
    elif gnuplot -e "csv='$1'; outdir='$dir'" "$src/bench/plots.gp" > "$work/gp.err" 2>&1; then
        echo "Plots: $(cd "$dir" && ls -- *.png | paste -s -d ' ' -) in $dir"
    else
        note "gnuplot failed on bench/plots.gp:"
        sed -n '1,6s/^/    /p' "$work/gp.err" >> "$work/notes"
    fi
}

if [ -n "$plot_only" ]; then
    [ -r "$plot_only" ] || { echo "run.sh: cannot read $plot_only" >&2; exit 2; }
    plot "$(cd "$(dirname "$plot_only")" && pwd)/$(basename "$plot_only")"
    if [ -s "$work/notes" ]; then
        cat "$work/notes" >&2
        exit 1
    fi
    exit 0
fi

compile_all yes
if [ -z "$mpis_p2p$mpis_coll$mpis_overlap$mpis_ring$mpis_startup" ]; then
    cat "$work/notes"
    echo "No MPI to run."
    exit 1
fi
case " $mpis_overlap " in *" tm "*) split=yes ;; *) split=no ;; esac

# job_time MPI NRANKS RUN: a whole job of bench/startup.c, timed; appends "wall NRANKS s" and
# "rss NRANKS KiB" to $work/startup.MPI.RUN.
job_time() {
    timer="/usr/bin/time -f %e:%M -o $work/time"
    if launch "$1" "$2" "$work/startup.$1" > /dev/null 2> "$work/err"; then
        IFS=: read -r t k < "$work/time"
        printf 'wall %s %s\nrss %s %s\n' "$2" "$t" "$2" "$k" >> "$work/startup.$1.$3"
    else
        note "$(label "$1"), startup at $2 ranks, run $3: failed"
        grep -v '^ *$' "$work/err" | sed -n '1,4s/^/    /p' >> "$work/notes"
    fi
    timer=
}

# height N: ceil(log2 N), the height of the binomial tree over N ranks.
height() {
    awk -v n="$1" 'BEGIN { h = 0; for (p = 1; p < n; p *= 2) h++; print h }'
}

# split_run RUN: ibcast of 2 MiB against a computation of C(N) transfers per rank for each N and
# S, on a synthetic machine of $split_cores cores; the unit (one transfer of the buffer) is
# ThreadMPI's t_pure of ibcast at 2 ranks, measured in the same run.
split_run() {
    unit=$(median 4 ibcast 2097152 "$work/ovl0.tm.$1")
    if [ "$unit" = - ]; then
        note "split run $1: no t_pure of ibcast at 2 ranks to take as the unit"
        return
    fi
    hc=$(height "$split_cores")
    for n in $split_ranks; do
        h=$(height "$n")
        w=$(awk -v u="$unit" -v c="$split_cores" -v n="$n" -v h="$hc" \
            'BEGIN { printf "%.6f", c / n * h * u / 1e6 }')
        s=0
        while [ "$s" -le "$h" ]; do
            (
                HWLOC_SYNTHETIC="core:$split_cores pu:1"
                export HWLOC_SYNTHETIC
                tm_flags="--set nbc.split_levels=$s"
                # shellcheck disable=SC2034 # read by measure
                mpis_only=tm
                measure "split_${n}_$s" "$1" "$n" overlap -c ibcast -T "$each" -w "$w" 2097152
            )
            s=$((s + 1))
        done
    done
}

echo "Running RUNS=$runs run(s) of everything; one run of each MPI in turn per benchmark." >&2
i=1
while [ "$i" -le "$runs" ]; do
    echo "run $i of $runs: p2p, coll, overlap, oversub, startup, split" >&2
    # shellcheck disable=SC2086 # p2p_sizes is a list of words
    measure p2p "$i" 2 p2p $p2p_sizes
    for n in $coll_ranks; do
        measure "coll$n" "$i" "$n" coll -T "$each" -c "$coll_six"
        sizes=$more_sizes_many
        [ "$n" -gt 2 ] || sizes=$more_sizes_2
        # shellcheck disable=SC2086 # sizes is a list of words
        measure "collm$n" "$i" "$n" coll -T "$each" -c "$coll_more" $sizes
    done
    for t in $ovl_tests; do
        measure "ovl$t" "$i" 2 overlap -T "$each" -t "$t"
    done
    for n in 16 64; do
        for w in token exchange halo; do
            measure "$w$n" "$i" "$n" ring "$rounds" "$w"
        done
        measure "ared$n" "$i" "$n" coll -T "$each" -c allreduce 8
    done
    for m in $mpis_startup; do
        job_time "$m" 16 "$i"
    done
    case " $mpis_startup " in
        *" tm "*)
            job_time tm 1 "$i"
            job_time tm "$mem_ranks" "$i"
            ;;
    esac
    [ "$split" = no ] || split_run "$i"
    i=$((i + 1))
done
[ "$split" = yes ] || note "No split-tree sweep: ThreadMPI's bench/overlap.c did not build."

# The CSV: one line per figure, the median of the runs.
csv="$dir/results.csv"
row() { # SECTION NAME BYTES RANKS PARAM MPI VALUE UNIT BETTER
    [ "$7" = - ] || echo "$1,$2,$3,$4,$5,$6,$7,$8,$9" >> "$csv"
}
echo "section,name,bytes,ranks,param,mpi,value,unit,better" > "$csv"
for m in $mpis_p2p; do
    keys p2p | while read -r k s; do
        case $k in
            latency) u="us lower" ;;
            bandwidth) u="MB/s higher" ;;
            *) u="Mmsg/s higher" ;;
        esac
        # shellcheck disable=SC2086 # u is the unit and which way is better
        row p2p "$k" "$s" 2 "" "$m" "$(median 4 "$k" "$s" "$work/p2p.$m".*)" $u
    done
done
for n in $coll_ranks; do
    for m in $mpis_coll; do
        for job in "coll$n" "collm$n"; do
            keys "$job" | while read -r k s; do
                row coll "$k" "$s" "$n" "" "$m" "$(median 4 "$k" "$s" "$work/$job.$m".*)" us lower
            done
        done
    done
done
for t in $ovl_tests; do
    for m in $mpis_overlap; do
        keys "ovl$t" | while read -r k s; do
            f="$work/ovl$t.$m"
            row overlap "$k" "$s" 2 "$t" "$m" "$(median 7 "$k" "$s" "$f".*)" % higher
            row overlap "${k}_t_ovrl" "$s" 2 "$t" "$m" "$(median 6 "$k" "$s" "$f".*)" us lower
            row overlap "${k}_t_pure" "$s" 2 "$t" "$m" "$(median 4 "$k" "$s" "$f".*)" us lower
        done
    done
done
for n in 16 64; do
    for m in $mpis_ring; do
        for w in token exchange halo; do
            v=$(cat "$work/$w$n.$m".* 2> /dev/null | awk '$1 ~ /_ranks_/ { print $2 }' | mid)
            [ "$v" = - ] ||
                v=$(awk -v v="$v" -v r="$rounds" 'BEGIN { printf "%.3f", v / r * 1e6 }')
            name=${w}_round
            [ "$w" != token ] || name=ring_round # its name in earlier results
            row oversub "$name" 8 "$n" "" "$m" "$v" us lower
        done
    done
    for m in $mpis_coll; do
        row oversub allreduce 8 "$n" "" "$m" "$(median 4 allreduce 8 "$work/ared$n.$m".*)" us lower
    done
done
for m in $mpis_startup; do
    row startup job_wall 0 16 "" "$m" "$(median 3 wall 16 "$work/startup.$m".*)" s lower
    rss=$(median 3 rss 16 "$work/startup.$m".*)
    [ "$rss" = - ] || rss=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
    row startup job_rss 0 16 "" "$m" "$rss" MiB lower
done
case " $mpis_startup " in
    *" tm "*)
        one=$(median 3 rss 1 "$work/startup.tm".*)
        many=$(median 3 rss "$mem_ranks" "$work/startup.tm".*)
        if [ "$one" != - ] && [ "$many" != - ]; then
            row startup rank_memory 0 "$mem_ranks" "" tm \
                "$(awk -v a="$one" -v b="$many" -v n="$mem_ranks" \
                    'BEGIN { printf "%.1f", (b - a) / (n - 1) }')" KiB lower
        fi
        ;;
esac
if [ "$split" = yes ]; then
    "$build/launcher/mpcrun" --split-model "$split_cores" > "$work/model"
    hc=$(height "$split_cores")
    for n in $split_ranks; do
        h=$(height "$n")
        s=0
        while [ "$s" -le "$h" ]; do
            # The model's T(S) for N ranks, bcast's block (the first).
            t=$(awk -v n="N=$n" -v s="$s" '/^# scatter/ { exit } $1 == n {
                for (f = 4; f <= NF; f++) if (index($f, "T(S=" s ")=") == 1) {
                    sub(/.*=/, "", $f); print $f } }' "$work/model")
            row split ibcast 2097152 "$n" "$s" model "$t" transfers lower
            # Measured in the same unit: t_ovrl / t_cpu times the computation C(N), in transfers;
            # the ranks' sharing the cores slows both alike.
            v=$(cat "$work/split_${n}_$s".tm.* 2> /dev/null |
                awk -v c="$split_cores" -v n="$n" -v h="$hc" \
                    '$1 == "ibcast" && $5 > 0 { printf "%.2f\n", $6 / $5 * c / n * h }' | mid)
            row split ibcast 2097152 "$n" "$s" tm "$v" transfers lower
            s=$((s + 1))
        done
    done
fi

# The tables, from the CSV alone.
{
    mpis=
    for m in tm ompi mpich; do
        case " $mpis_p2p $mpis_coll $mpis_overlap $mpis_ring $mpis_startup " in
            *" $m "*) mpis="$mpis $m" ;;
        esac
    done
    echo "ThreadMPI's benchmarks on $(nproc) cores ($(uname -m)), median of $runs run(s) each;"
    echo "vs X: ThreadMPI's advantage over X (> 1: ThreadMPI is better). bench/run.sh$(
        [ "$short" = yes ] && echo " --short")."
    echo
    awk -F, -v mpis="$mpis" '
        function human(b) {
            if (b % 1048576 == 0) return b / 1048576 " MiB"
            if (b % 1024 == 0) return b / 1024 " KiB"
            return b " B"
        }
        function title(k, f) {
            split(k, f, ",")
            t = f[1] " " f[2]
            if (f[1] == "startup" && f[2] == "rank_memory") return t " (" f[4] "-rank job less 1)"
            if (f[3] > 0) t = t " " human(f[3])
            else if (f[1] == "coll" || f[1] == "oversub") t = t " -"
            t = t ", " f[4] " ranks"
            if (f[1] == "overlap") t = t ", " (f[5] ? f[5] " MPI_Test" : "no MPI_Test")
            return t
        }
        BEGIN { n = split(mpis, m, " ") }
        NR == 1 || $1 == "split" { next }
        {
            k = $1 "," $2 "," $3 "," $4 "," $5
            if (!(k in unit)) { order[++rows] = k; unit[k] = $8; better[k] = $9 }
            v[k, $6] = $7
        }
        END {
            head = "| figure | unit"; rule = "|---|---"
            for (i = 1; i <= n; i++) { head = head " | " m[i]; rule = rule "|---" }
            for (i = 2; i <= n; i++) { head = head " | vs " m[i]; rule = rule "|---" }
            gsub(/ tm/, " ThreadMPI", head); gsub(/ ompi/, " Open MPI", head)
            gsub(/ mpich/, " MPICH", head)
            print head " |"; print rule "|"
            for (r = 1; r <= rows; r++) {
                k = order[r]; line = "| " title(k) " | " unit[k]
                for (i = 1; i <= n; i++) line = line " | " ((k, m[i]) in v ? v[k, m[i]] : "-")
                for (i = 2; i <= n; i++) {
                    a = (k, m[1]) in v ? v[k, m[1]] : ""; b = (k, m[i]) in v ? v[k, m[i]] : ""
                    if (a == "" || b == "" || a <= 0 || b <= 0) line = line " | -"
                    else line = line " | " sprintf("%.2fx", better[k] == "lower" ? b / a : a / b)
                }
                print line " |"
            }
        }' "$csv"
    if grep -q '^split,' "$csv"; then
        echo
        echo "Split-tree sweep: ibcast of 2 MiB overlapped with a computation of C(N) transfers per"
        echo "rank on a synthetic machine of $split_cores cores ($(nproc) real ones), in transfers"
        echo "of the buffer (ThreadMPI's ibcast at 2 ranks); measured: t_ovrl / t_cpu x C(N). *:"
        echo "the model's choice of S."
        echo
        # The model's choice of S for each N: bcast's block of mpcrun --split-model (the first).
        awk -F, '
            NR == FNR { if (/^# scatter/) done = 1
                        if (!done && $0 ~ /^N=/) {
                            split($0, w, " "); chosen[substr(w[1], 3)] = substr(w[3], 3) }
                        next }
            FNR == 1 || $1 != "split" { next }
            { k = $4 "," $5; if (!(k in seen)) { seen[k] = 1; order[++n] = k } v[k, $6] = $7 }
            END {
                print "| N | S | model | measured |"; print "|---|---|---|---|"
                for (i = 1; i <= n; i++) {
                    split(order[i], f, ",")
                    print "| " f[1] " | " f[2] (chosen[f[1]] == f[2] ? "*" : "") " | " \
                        v[order[i], "model"] " | " \
                        ((order[i], "tm") in v ? v[order[i], "tm"] : "-") " |"
                }
            }' "$work/model" "$csv"
    fi
    echo
    echo "CSV: $csv"
    plot "$csv"
    echo "Sizes: bcast, the bytes sent; reduce, allreduce, scan and exscan, MPI_SUM on size/8"
    echo "doubles; reduce_scatter(_block), size/8 doubles of result per rank; allgather(v),"
    echo "gather(v) and scatter(v), each rank's block; alltoall(v,w), each block; neighbor_*, each"
    echo "block to or from one of the 2 neighbours on a ring. Open MPI's and MPICH's job_rss is"
    echo "mpirun's or the largest process's, ThreadMPI's the whole job's."
    print_notes
} | tee "$dir/results.md"
