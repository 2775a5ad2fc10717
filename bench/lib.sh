# Sourced by the side-by-side benchmark scripts (bench/run.sh, bench/coll.sh): which MPIs are
# there, building the same sources with each one's mpicc, launching jobs alike, and the medians,
# ratios and sizes of the tables. The sourcing script sets, before it calls these functions:
#   build   a ThreadMPI build tree          src    the source tree
#   work    a private scratch directory     limit  seconds a job may run before it is ended
# Notes for the reader of a table (what was left out and why, failed runs, wrong results) go to
# $work/notes, printed at the end by print_notes.
# shellcheck shell=sh disable=SC2154 # build, src, work, limit and benches: see above

: > "$work/notes"
note() {
    echo "$*" >> "$work/notes"
}

print_notes() {
    if [ -s "$work/notes" ]; then
        echo
        echo "Notes:"
        cat "$work/notes"
    fi
}

label() {
    case $1 in
        tm) echo ThreadMPI ;;
        ompi) echo "Open MPI" ;;
        mpich) echo MPICH ;;
        *) echo "$1" ;;
    esac
}

# compile MPI MPICC...: builds each benchmark B of $benches (bench/B.c) as $work/B.MPI and adds MPI
# to $mpis_B if it builds; each is left out separately, with a note saying why (ThreadMPI may have
# the blocking collectives before the non-blocking ones).
compile() {
    m=$1
    shift
    for b in $benches; do
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

# compile_all TM: builds $benches with every MPI there is (ThreadMPI only if TM is yes), leaving
# out with a note each one that is missing.
compile_all() {
    for b in $benches; do
        eval "mpis_$b="
    done
    if [ "$1" = no ]; then
        note "ThreadMPI left out: --no-tm."
    elif [ ! -x "$build/tests/mpicc-build" ] || [ ! -x "$build/launcher/mpcrun" ]; then
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
}

root=
[ "$(id -u)" -eq 0 ] && root=--allow-run-as-root

# launch MPI NRANKS PROGRAM ARGS...: 2 ranks are pinned to cores, more are left to the kernel.
# ThreadMPI places its ranks itself; $tm_flags (words) go to its mpcrun. $timer (words), when set,
# is a command that runs the whole job (e.g. /usr/bin/time).
# shellcheck disable=SC2086 # timer, tm_flags and bind are lists of words
launch() {
    m=$1 n=$2
    shift 2
    case $m in
        tm)
            ${timer:-} timeout $((limit + 30)) "$build/launcher/mpcrun" --timeout "$limit" \
                ${tm_flags:-} -n "$n" "$@"
            ;;
        ompi)
            bind=none
            [ "$n" -le 2 ] && bind=core
            ${timer:-} timeout "$limit" mpirun.openmpi $root --oversubscribe --bind-to $bind \
                -n "$n" "$@"
            ;;
        mpich)
            bind=
            [ "$n" -le 2 ] && bind="-bind-to core"
            ${timer:-} timeout "$limit" mpiexec.mpich $bind -n "$n" "$@"
            ;;
    esac
}

# measure NAME RUN NRANKS PROGRAM ARGS...: runs $work/PROGRAM.MPI with each MPI of $mpis_PROGRAM
# in turn (or with $mpis_only, when set), the output in $work/NAME.MPI.RUN; a failure or a wrong
# result becomes a note. A job that timed out is not run again in the later runs: what it printed
# before the end counts, and the figures it never reached are missing.
measure() {
    name=$1 i=$2 n=$3 prog=$4
    shift 4
    eval "mpis=\${mpis_only:-\$mpis_$prog}"
    for m in $mpis; do
        out="$work/$name.$m.$i"
        [ ! -e "$work/$name.$m.timedout" ] || continue
        status=0
        launch "$m" "$n" "$work/$prog.$m" "$@" > "$out" 2> "$work/err" || status=$?
        if [ "$status" -ne 0 ]; then
            why=
            if [ "$status" -eq 124 ]; then
                why=" (timed out after $limit s; not run again)"
                : > "$work/$name.$m.timedout"
            fi
            note "$(label "$m"), $prog $* at $n ranks, run $i: exit status $status$why"
            grep -v '^ *$' "$work/err" | sed -n '1,4s/^/    /p' >> "$work/notes"
        fi
        grep WRONG "$out" | sed "s/^# /$(label "$m"), $n ranks, run $i: /" >> "$work/notes" || :
    done
}

# mid: the median of the numbers on standard input, one a line, or - when there is none.
mid() {
    sort -g | awk '{ a[NR] = $1 } END { print NR ? a[int((NR + 1) / 2)] : "-" }'
}

# median FIELD NAME BYTES FILES...: the median of field FIELD of the lines "NAME BYTES ...", or -.
median() {
    f=$1 k=$2 s=$3
    shift 3
    cat "$@" 2> /dev/null | awk -v f="$f" -v k="$k" -v s="$s" '$1 == k && $2 == s { print $f }' |
        mid
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

# keys NAME: the "name bytes" pairs of the lines "name bytes B ..." that NAME's outputs
# ($work/NAME.MPI.RUN) hold, in the order they come (not the messages of a job that failed).
keys() {
    cat "$work/$1".*.* 2> /dev/null |
        awk '$2 ~ /^[0-9]+$/ && $3 == "B" && !seen[$1 " " $2]++ { print $1, $2 }'
}
