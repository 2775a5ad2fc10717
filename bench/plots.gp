# The plots of bench/run.sh, drawn from its CSV file alone (columns section, name, bytes, ranks,
# param, mpi, value, unit, better), one PNG per figure in outdir:
#   p2p_latency.png    latency against the message size, one line per MPI
#   p2p_bandwidth.png  bandwidth against the message size
#   coll_ranks.png     each collective's time at 8 B against the number of ranks, one panel per
#                      collective, the blocking form solid and the non-blocking one dashed: bcast,
#                      reduce, allreduce, allgather, alltoall, barrier
#   coll_ranks_more.png  the same for the others: gather(v), scatter(v), allgatherv,
#                      alltoall(v,w), reduce_scatter(_block), scan, exscan, neighbor_*
#   overlap.png        the overlap of ibcast, ireduce and iallreduce of 2 MiB, one bar per MPI
#   split.png          the split-tree model's T(S) against the measured one, one colour per N
# A figure whose rows are not in the CSV is not drawn.
#
#   gnuplot -e "csv='results.csv'; outdir='.'" bench/plots.gp

set datafile separator ','
set terminal pngcairo size 900,600 noenhanced font ',10'
set grid
set key top left

# The rows whose first five columns match the extended regular expression re, for MPI m.
rows(re, m) = sprintf("< grep -E '^%s,%s,' '%s'", re, m, csv)
count(re) = int(system(sprintf("grep -cE '^%s' '%s' || true", re, csv)))
# The MPIs of the CSV, in their order of appearance (the model is no MPI).
mpis = system(sprintf("tail -n +2 '%s' | cut -d, -f6 | grep -v '^model$' | awk '!s[$0]++' | " . \
                      "paste -s -d ' ' -", csv))
label(m) = m eq 'tm' ? 'ThreadMPI' : m eq 'ompi' ? 'Open MPI' : m eq 'mpich' ? 'MPICH' : m
colour(m) = m eq 'tm' ? 1 : m eq 'ompi' ? 2 : m eq 'mpich' ? 3 : 4

set logscale x 2
set format x '%.0b%BB'
set xlabel 'message size (bytes)'
if (count('p2p,latency') > 0) {
    set output outdir . '/p2p_latency.png'
    set title 'Point-to-point latency, 2 ranks (half a round trip)'
    set logscale y 10
    set ylabel 'latency (us)'
    plot for [m in mpis] rows('p2p,latency,[0-9]+,2,', m) using 3:7 with linespoints \
        linecolor colour(m) pointtype 7 title label(m)
}
if (count('p2p,bandwidth') > 0) {
    set output outdir . '/p2p_bandwidth.png'
    set title 'Point-to-point bandwidth, 2 ranks (size over half a round trip)'
    set logscale y 10
    set ylabel 'bandwidth (MB/s)'
    plot for [m in mpis] rows('p2p,bandwidth,[0-9]+,2,', m) using 3:7 with linespoints \
        linecolor colour(m) pointtype 7 title label(m)
}

# The collectives of each figure: coll_ranks.png the six of the first tables, 2 rows of 3;
# coll_ranks_more.png the others, 4 rows of 4 (each non-blocking form is "i" and the name).
coll_six = 'bcast reduce allreduce allgather alltoall barrier'
coll_more = 'gather gatherv scatter scatterv allgatherv alltoallv alltoallw reduce_scatter ' . \
    'reduce_scatter_block scan exscan neighbor_allgather neighbor_allgatherv neighbor_alltoall ' . \
    'neighbor_alltoallv neighbor_alltoallw'
do for [f = 1:2] {
    list = f == 1 ? coll_six : coll_more
    found = 0
    do for [c in list] {
        found = found + count('coll,i?' . c . ',')
    }
    if (found > 0) {
        if (f == 1) {
            set output outdir . '/coll_ranks.png'
            set terminal pngcairo size 1200,750 noenhanced font ',9'
            set multiplot layout 2,3 title 'Collectives at 8 B (barriers: no data): time per ' . \
                'call against the ranks; dashed: the non-blocking form'
        } else {
            set output outdir . '/coll_ranks_more.png'
            set terminal pngcairo size 1400,1100 noenhanced font ',9'
            set multiplot layout 4,4 title 'More collectives at 8 B: time per call against the ' . \
                'ranks; dashed: the non-blocking form; neighbor_*: 2 neighbours on a ring'
        }
        set format x '%g'
        set xlabel 'ranks'
        set ylabel 'us per call'
        set logscale y 10
        do for [c in list] {
            set title '' . c
            b = c eq 'barrier' ? '0' : '8'
            if (count('coll,i?' . c . ',' . b . ',') == 0) {
                set multiplot next
            } else {
                plot for [m in mpis] rows('coll,' . c . ',' . b . ',[0-9]+,', m) using 4:7 \
                        with linespoints linecolor colour(m) pointtype 7 title label(m), \
                     for [m in mpis] rows('coll,i' . c . ',' . b . ',[0-9]+,', m) using 4:7 \
                        with linespoints linecolor colour(m) dashtype 2 pointtype 6 notitle
            }
        }
        unset multiplot
        set terminal pngcairo size 900,600 noenhanced font ',10'
    }
}

if (count('overlap,i[a-z]+,2097152,2,0') > 0) {
    set output outdir . '/overlap.png'
    set title 'Overlap of 2 MiB non-blocking collectives with computation, 2 ranks, ' . \
        'no MPI_Test (IMB-NBC method)'
    unset logscale
    set format x '%g'
    set xlabel ''
    set ylabel 'overlap (%)'
    set yrange [0:105]
    set xrange [-0.5:2.8]
    set style fill solid 0.7
    set boxwidth 0.25
    mid = (words(mpis) - 1) * 0.27 / 2
    set xtics ('ibcast' mid, 'ireduce' 1 + mid, 'iallreduce' 2 + mid)
    set key top right
    plot for [k = 1:words(mpis)] rows('overlap,i[a-z]+,2097152,2,0', word(mpis, k)) \
        using ($0 + (k - 1) * 0.27):7 with boxes linecolor colour(word(mpis, k)) \
        title label(word(mpis, k))
    set autoscale
    set xtics autofreq
    set key top left
}

if (count('split,') > 0) {
    set output outdir . '/split.png'
    set title 'Split tree: ibcast of 2 MiB overlapped with computation; ' . \
        'dashed: mpcrun --split-model, solid: measured'
    unset logscale
    set format x '%g'
    set xlabel 'S, levels of the tree run by the ranks'
    set ylabel 'time (transfers of the buffer)'
    set xtics 1
    set key outside right
    ns = system(sprintf("grep '^split,' '%s' | cut -d, -f4 | sort -n -u | paste -s -d ' ' -", csv))
    plot for [k = 1:words(ns)] rows('split,ibcast,2097152,' . word(ns, k) . ',[0-9]+', 'model') \
            using 5:7 with linespoints linecolor k dashtype 2 pointtype 6 \
            title 'N=' . word(ns, k) . ' model', \
         for [k = 1:words(ns)] rows('split,ibcast,2097152,' . word(ns, k) . ',[0-9]+', 'tm') \
            using 5:7 with linespoints linecolor k pointtype 7 \
            title 'N=' . word(ns, k) . ' measured'
}
