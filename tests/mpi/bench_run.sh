#!/bin/sh
# bench/run.sh, the side-by-side benchmark suite, without running any benchmark (too slow for the
# suite): --help prints the usage, a bad option is a usage error, and --plot draws the six PNG
# files of bench/plots.gp from a small CSV of every kind of row (or, without gnuplot, fails and
# says so).
. "$TM_SRCDIR/tests/mpi/lib.sh"
run="$TM_SRCDIR/bench/run.sh"

sh "$run" --help > "$out" 2> "$err" < /dev/null
status=$?
expect_status 0 "run.sh --help"
expect_out '^usage: bench/run.sh \[--short\] \[-o DIR\] \[BUILDDIR\]' "run.sh --help"
expect_out '^usage: bench/run.sh --plot CSV' "run.sh --help"

sh "$run" --bogus > "$out" 2> "$err" < /dev/null
status=$?
expect_status 2 "run.sh --bogus"
expect_err '^usage: bench/run.sh' "run.sh --bogus"

csv="$work/results.csv"
{
    echo "section,name,bytes,ranks,param,mpi,value,unit,better"
    for m in tm ompi; do
        for s in 8 65536; do
            echo "p2p,latency,$s,2,,$m,$s.5,us,lower"
            echo "p2p,bandwidth,$s,2,,$m,$s,MB/s,higher"
        done
        for c in bcast reduce allreduce allgather alltoall barrier gather gatherv scatter scatterv \
            allgatherv alltoallv alltoallw reduce_scatter reduce_scatter_block scan exscan \
            neighbor_allgather neighbor_allgatherv neighbor_alltoall neighbor_alltoallv \
            neighbor_alltoallw; do
            b=8
            [ "$c" = barrier ] && b=0
            for n in 2 16; do
                echo "coll,$c,$b,$n,,$m,$n.5,us,lower"
                echo "coll,i$c,$b,$n,,$m,$n.7,us,lower"
            done
        done
        for c in ibcast ireduce iallreduce; do
            echo "overlap,$c,2097152,2,0,$m,42.5,%,higher"
        done
    done
    for n in 4 7; do
        for s in 0 1 2; do
            echo "split,ibcast,2097152,$n,$s,model,$n.$s,transfers,lower"
            echo "split,ibcast,2097152,$n,$s,tm,$s.$n,transfers,lower"
        done
    done
} > "$csv"
mkdir "$work/plots"
sh "$run" --plot "$csv" -o "$work/plots" > "$out" 2> "$err" < /dev/null
status=$?
if command -v gnuplot > /dev/null; then
    expect_status 0 "run.sh --plot"
    for png in p2p_latency p2p_bandwidth coll_ranks coll_ranks_more overlap split; do
        [ -s "$work/plots/$png.png" ] || fail "run.sh --plot drew no $png.png: $(cat "$out" "$err")"
        # A PNG file starts with \211PNG.
        head -c 4 "$work/plots/$png.png" | grep -q PNG || fail "$png.png is not a PNG file"
    done
    # A figure without rows is not drawn: the six collectives of coll_ranks.png alone (the CSV of
    # a run before bench/coll.c had the others) draw no coll_ranks_more.png.
    grep -E '^(section|coll,i?(bcast|reduce|allreduce|allgather|alltoall|barrier),)' "$csv" \
        > "$work/six.csv"
    mkdir "$work/six"
    sh "$run" --plot "$work/six.csv" -o "$work/six" > "$out" 2> "$err" < /dev/null
    status=$?
    expect_status 0 "run.sh --plot of the six collectives"
    [ -s "$work/six/coll_ranks.png" ] || fail "run.sh --plot drew no coll_ranks.png of the six"
    [ ! -e "$work/six/coll_ranks_more.png" ] || fail "coll_ranks_more.png drawn without its rows"
else
    expect_status 1 "run.sh --plot without gnuplot"
    expect_err 'gnuplot is not installed' "run.sh --plot without gnuplot"
fi
expect_no_temp_files "run.sh"
echo "bench/run.sh: ok"
