#!/bin/sh
# The progress engine on a many-core node (issue 29): whether the progress threads earn their
# cores, measured against the targets, on whatever machine this runs on, with Open MPI (and
# MPICH) side by side where installed. Needs only sh, awk and the C compilers of the MPIs; the
# cores are the ones hwloc gives ThreadMPI (mpcrun --dry-run). Each figure is the median of RUNS
# runs (default 3) of SECONDS_EACH (default 0.2) per measurement; the MPIs take turns within each
# run.
#
#   bench/manycore.sh [BUILDDIR]      (BUILDDIR: a ThreadMPI build tree, default the current dir)
#
# The items, each left out with a line saying so when the machine is too small for it:
#   1  overlap (bench/overlap.c) of ibcast, ireduce and iallreduce of 2 MiB on 2, 4 and 8 ranks,
#      progress = idle, S the model's: median >= 90 %, worst run >= 80 %. N ranks need 2N cores.
#   2  a non-blocking collective started and waited for at once (bench/coll.c: ibcast, iallreduce,
#      ibarrier) against its blocking form, 8 B and 64 KiB, 2 and 16 ranks, under each progress
#      policy: <= 1.2x the blocking form, and no slower than Open MPI's non-blocking form. N ranks
#      need N cores.
#   3  dynamic broadcast (bench/bcast_dynamic.c, 33 ranks) against MPI_Bcast on a ready
#      communicator, 8 and 32 destinations: 8 B within 1.2x, 64 KiB at least 3x faster. Needs 16
#      cores.
#   4  the split-tree on the machine's cores: ibcast of 2 MiB against a fixed computation of C(N)
#      transfers (the paper's), N = 8..15 ranks of 16 cores, each S from 0 to H; the fastest S is
#      the one `mpcrun --split-model 16` picks, or that one is within 5 % of it. Needs 16 cores (on
#      more, the job is confined to the first 16 with taskset).
#   5  2 ranks on one core, their progress threads on another (progress = comm, comm_cores = 1):
#      ibcast, iallreduce and ibarrier of 8 B within 1.5x of the blocking forms. Needs 2 cores.
#
# Prints one table (Markdown, for docs/): item, case, figure, target, verdict (met, NOT MET, or
# what is missing), then notes (left-out MPIs, failed runs). A job that lasts more than TIMEOUT
# seconds (default 300) is ended and reported. With KEEP=FILE, every job's raw output is also
# written to FILE as a tar archive, for a closer look than the table's medians; FROM=FILE prints
# the table of such an archive again, without measuring (on any machine).
set -eu
build=$(cd "${1:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-3}
each=${SECONDS_EACH:-0.2}
limit=${TIMEOUT:-300}
work=$(mktemp -d)
keep=${KEEP:-}
case $keep in
    "" | /*) ;;
    *) keep=$(pwd)/$keep ;;
esac
trap '[ -z "$keep" ] || tar -C "$work" -cf "$keep" .; rm -rf "$work"' EXIT
trap 'exit 143' TERM INT
benches="coll overlap bcast_dynamic"
. "$src/bench/lib.sh"

if [ -n "${FROM:-}" ]; then
    tar -C "$work" -xf "$FROM"
    # shellcheck source=/dev/null # written below, by the run that measured
    . "$work/facts"
else
    compile_all yes
    case " $mpis_coll " in
        *" tm "*) ;;
        *)
            print_notes
            echo "ThreadMPI's benchmarks did not build: nothing to measure." >&2
            exit 1
            ;;
    esac
    cores=$("$build/launcher/mpcrun" --dry-run 2> /dev/null | grep -c '^rank ' || :)
    others=$(echo "$mpis_coll" | sed 's/ *tm */ /')
    # What the table needs besides the outputs, for FROM.
    cat > "$work/facts" << FACTS
cores=$cores
others="$others"
mpis_overlap="$mpis_overlap"
runs=$runs
each=$each
build=$build
host=$(uname -n)
day=$(date -u +%F)
FACTS
    # shellcheck source=/dev/null
    . "$work/facts"
fi
: > "$work/table"
# row ITEM CASE FIGURE TARGET VERDICT
row() {
    printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$work/table"
}

# too_small ITEM CASE TARGET NEEDED: the row of a case this machine cannot test.
too_small() {
    row "$1" "$2" - "$3" "untested: needs $4 cores, this machine has $cores"
}

# verdict FIGURE OP LIMIT: met or NOT MET (- when there is no figure).
verdict() {
    awk -v f="$1" -v op="$2" -v l="$3" 'BEGIN {
        if (f == "-" || f == "") { print "no figure"; exit }
        ok = op == "<=" ? f + 0 <= l + 0 : f + 0 >= l + 0
        print ok ? "met" : "NOT MET" }'
}

# time_of FILES NAME BYTES: the median time per call (us) of NAME at BYTES in bench/coll.c's
# output files.
time_of() {
    f=$1
    shift
    # shellcheck disable=SC2086 # a list of files
    cat $f 2> /dev/null | awk -v k="$1" -v s="$2" '$1 == k && ($2 == s || $2 == 0) { print $4 }' |
        mid
}

# ratio_of A B: A / B with two decimals, or -.
ratio_of() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f\n", a / b }'
}

policies="idle same next comm none"
colls="-c bcast,ibcast,allreduce,iallreduce,barrier,ibarrier"

# The measurements (none with FROM).
if [ -z "${FROM:-}" ]; then
    i=1
    while [ "$i" -le "$runs" ]; do
        echo "run $i of $runs" >&2
        # item 5
        if [ "$cores" -ge 2 ]; then
            (
                tm_flags="--set placement.progress=comm --set placement.comm_cores=1"
                mpis_only=tm
                measure item5 "$i" 2 coll $colls -T "$each" 8
            )
        fi
        # item 2
        for n in 2 16; do
            [ "$cores" -ge "$n" ] || continue
            for p in $policies; do
                (
                    tm_flags="--set placement.progress=$p"
                    mpis_only=tm
                    measure "item2_${n}_$p" "$i" "$n" coll $colls -T "$each" 8 65536
                )
            done
            [ -z "$others" ] || (
                mpis_only=$others
                measure "item2_$n" "$i" "$n" coll $colls -T "$each" 8 65536
            )
        done
        # item 1
        for n in 2 4 8; do
            [ "$cores" -ge $((2 * n)) ] || continue
            measure "item1_$n" "$i" "$n" overlap -T "$each" 2097152
        done
        # item 3
        if [ "$cores" -ge 16 ]; then
            (
                mpis_only=tm
                measure item3 "$i" 33 bcast_dynamic -T "$each" -n 8 -n 32 8 65536
            )
        fi
        i=$((i + 1))
    done

    # item 4: its own runs, the unit (one transfer of 2 MiB) being ibcast's t_pure on 2 ranks.
    split_cores=16
    if [ "$cores" -ge "$split_cores" ]; then
        confine=
        [ "$cores" -eq "$split_cores" ] || confine="taskset -c 0-$((split_cores - 1))"
        (
            timer=$confine
            mpis_only=tm
            measure unit 1 2 overlap -c ibcast -T "$each" 2097152
        )
        unit=$(cat "$work"/unit.tm.1 | awk '$1 == "ibcast" { print $4 }' | mid)
        hc=$(awk -v n="$split_cores" 'BEGIN { h = 0; for (p = 1; p < n; p *= 2) h++; print h }')
        i=1
        while [ "$i" -le "$runs" ] && [ "$unit" != - ]; do
            echo "split-tree run $i of $runs" >&2
            for n in 8 9 10 11 12 13 14 15; do
                h=$(awk -v n="$n" 'BEGIN { h = 0; for (p = 1; p < n; p *= 2) h++; print h }')
                w=$(awk -v u="$unit" -v c="$split_cores" -v n="$n" -v h="$hc" \
                    'BEGIN { printf "%.6f", c / n * h * u / 1e6 }')
                s=0
                while [ "$s" -le "$h" ]; do
                    (
                        timer=$confine
                        tm_flags="--set nbc.split_levels=$s"
                        mpis_only=tm
                        measure "item4_${n}_$s" "$i" "$n" overlap -c ibcast -T "$each" -w "$w" 2097152
                    )
                    s=$((s + 1))
                done
            done
            i=$((i + 1))
        done
        "$build/launcher/mpcrun" --split-model "$split_cores" > "$work/model"
    fi
fi

# ---- the table ----

# item 1: overlap, median and worst of the runs, per collective.
for n in 2 4 8; do
    for c in ibcast ireduce iallreduce; do
        case="$c 2 MiB, $n ranks, progress = idle"
        if [ "$cores" -lt $((2 * n)) ]; then
            too_small 1 "$case" ">= 90 %, worst >= 80 %" $((2 * n))
            continue
        fi
        for m in $mpis_overlap; do
            vals=$(cat "$work/item1_$n.$m".* 2> /dev/null | awk -v k="$c" '$1 == k { print $7 }')
            med=$(echo "$vals" | grep . | mid)
            worst=$(echo "$vals" | grep . | sort -g | head -1)
            fig="median $med %, worst ${worst:--} %"
            if [ "$m" = tm ]; then
                v1=$(verdict "$med" ">=" 90)
                v2=$(verdict "${worst:--}" ">=" 80)
                v=$v1
                [ "$v1" = met ] && v=$v2
                row 1 "$case" "$fig" ">= 90 %, worst >= 80 %" "$v"
            else
                row 1 "$case ($(label "$m"))" "$fig" "" ""
            fi
        done
    done
done

# item 2: non-blocking against blocking, per policy, and against the other MPIs' non-blocking form.
for n in 2 16; do
    for pair in bcast:ibcast allreduce:iallreduce barrier:ibarrier; do
        b=${pair%%:*}
        nb=${pair#*:}
        for bytes in 8 65536; do
            [ "$b" != barrier ] || [ "$bytes" = 8 ] || continue
            sz=" $bytes B"
            [ "$b" != barrier ] || sz=""
            if [ "$cores" -lt "$n" ]; then
                too_small 2 "$nb/$b$sz, $n ranks" "<= 1.2x, <= Open MPI" "$n"
                continue
            fi
            for m in $others; do
                o=$(time_of "$work/item2_$n.$m.*" "$nb" "$bytes")
                row 2 "$nb$sz, $n ranks ($(label "$m"))" "$o us" "" ""
            done
            for p in $policies; do
                tb=$(time_of "$work/item2_${n}_$p.tm.*" "$b" "$bytes")
                tn=$(time_of "$work/item2_${n}_$p.tm.*" "$nb" "$bytes")
                r=$(ratio_of "$tn" "$tb")
                v=$(verdict "$r" "<=" 1.2)
                fig="${r}x ($tn / $tb us)"
                case " $others " in
                    *" ompi "*)
                        o=$(time_of "$work/item2_$n.ompi.*" "$nb" "$bytes")
                        ro=$(ratio_of "$tn" "$o")
                        if [ "$ro" = - ]; then
                            fig="$fig, Open MPI: no figure"
                        else
                            fig="$fig, ${ro}x Open MPI's"
                            [ "$v" != met ] || v=$(verdict "$ro" "<=" 1)
                        fi
                        ;;
                esac
                row 2 "$nb/$b$sz, $n ranks, progress = $p" "$fig" "<= 1.2x, <= Open MPI" "$v"
            done
        done
    done
done

# item 3: dynamic broadcast against MPI_Bcast on a ready communicator.
for d in 8 32; do
    for bytes in 8 65536; do
        if [ "$bytes" = 8 ]; then target="<= 1.2x MPI_Bcast"; else target=">= 3x faster"; fi
        case="dynamic broadcast $bytes B, $d destinations, 33 ranks"
        if [ "$cores" -lt 16 ]; then
            too_small 3 "$case" "$target" 16
            continue
        fi
        f="$work/item3.tm.*"
        # shellcheck disable=SC2086 # a list of files
        td=$(cat $f 2> /dev/null | awk -v d="$d" -v s="$bytes" \
            '$1 == "dynamic" && $2 == d && $3 == s { print $5 }' | mid)
        # shellcheck disable=SC2086 # a list of files
        tb=$(cat $f 2> /dev/null | awk -v d="$d" -v s="$bytes" \
            '$1 == "bcast" && $2 == d && $3 == s { print $5 }' | mid)
        if [ "$bytes" = 8 ]; then
            r=$(ratio_of "$td" "$tb")
            row 3 "$case" "${r}x ($td / $tb us)" "$target" "$(verdict "$r" "<=" 1.2)"
        else
            r=$(ratio_of "$tb" "$td")
            row 3 "$case" "${r}x faster ($td / $tb us)" "$target" "$(verdict "$r" ">=" 3)"
        fi
    done
done

# item 4: the fastest S against the model's.
for n in 8 9 10 11 12 13 14 15; do
    case="split-tree, ibcast 2 MiB, $n ranks of 16 cores"
    target="model's S within 5 % of the fastest"
    if [ "$cores" -lt 16 ]; then
        too_small 4 "$case" "$target" 16
        continue
    fi
    h=$(awk -v n="$n" 'BEGIN { h = 0; for (p = 1; p < n; p *= 2) h++; print h }')
    model=$(awk -v n="N=$n" '$1 == n { sub(/S=/, "", $3); print $3; exit }' "$work/model")
    : > "$work/sweep"
    s=0
    while [ "$s" -le "$h" ]; do
        t=$(cat "$work/item4_${n}_$s".tm.* 2> /dev/null | awk '$1 == "ibcast" { print $6 }' | mid)
        echo "$s $t" >> "$work/sweep"
        s=$((s + 1))
    done
    fig=$(awk '{ printf "%sS=%s %s us", (NR > 1 ? ", " : ""), $1, $2 }' "$work/sweep")
    v=$(awk -v m="$model" '$2 != "-" { if (best == "" || $2 + 0 < best) { best = $2 + 0; bs = $1 }
            if ($1 == m) tm = $2 }
        END { if (best == "" || tm == "") print "no figure"
              else print tm + 0 <= 1.05 * best ? "met" : "NOT MET (fastest S=" bs ")" }' \
        "$work/sweep")
    row 4 "$case, model S=$model" "$fig" "$target" "$v"
done

# item 5: 2 ranks on one core, progress threads on another.
for pair in bcast:ibcast allreduce:iallreduce barrier:ibarrier; do
    b=${pair%%:*}
    nb=${pair#*:}
    case="$nb/$b 8 B, 2 ranks on 1 core, progress = comm"
    if [ "$cores" -lt 2 ]; then
        too_small 5 "$case" "<= 1.5x" 2
        continue
    fi
    tb=$(time_of "$work/item5.tm.*" "$b" 8)
    tn=$(time_of "$work/item5.tm.*" "$nb" 8)
    r=$(ratio_of "$tn" "$tb")
    row 5 "$case" "${r}x ($tn / $tb us)" "<= 1.5x" "$(verdict "$r" "<=" 1.5)"
done

# shellcheck disable=SC2154 # host and day: from the facts
echo "bench/manycore.sh on $host, $cores cores (hwloc, as mpcrun sees them), $day:"
echo "medians of $runs runs of $each s per measurement; ThreadMPI: $build"
echo
echo "| item | case | figure | target | verdict |"
echo "|---|---|---|---|---|"
awk -F '\t' '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$work/table"
print_notes
