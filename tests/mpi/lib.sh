# Sourced by the script tests tests/mpi/*.sh: build programs with the build-tree mpicc, run them
# with mpcrun, check statuses and messages. Each script gets a private work directory, which is
# also $TMPDIR for the jobs: it must hold no temporary file of theirs when they end.
set -u
: "${TM_BUILDDIR:?run through make check}" "${TM_SRCDIR:?run through make check}"
MPICC="$TM_BUILDDIR/tests/mpicc-build"
MPCRUN="$TM_BUILDDIR/launcher/mpcrun"
work=$(mktemp -d) || exit 99
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
TMPDIR="$work/tmp"
export TMPDIR
out="$work/out"
err="$work/err"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# tm_build SOURCE [MPICC ARGS...]: builds tests/mpi/SOURCE into $work/NAME; prints the path.
tm_build() {
    src=$1
    shift
    exe="$work/$(basename "$src" .c)"
    "$MPICC" -g -O1 -o "$exe" "$TM_SRCDIR/tests/mpi/$src" "$@" >&2 || fail "mpicc $src"
    echo "$exe"
}

# Every job of the tests ends within this many seconds: a hang fails with mpcrun's diagnosis of
# where each rank is blocked instead of stalling the suite (a later --timeout on the line wins).
TM_JOB_TIMEOUT=300

# tm_run NRANKS PROGRAM [ARGS...]: runs the job; sets $status, and $out and $err (file names).
tm_run() {
    out="$work/out"
    err="$work/err"
    n=$1
    shift
    "$MPCRUN" -n "$n" --timeout "$TM_JOB_TIMEOUT" "$@" > "$out" 2> "$err" < /dev/null
    status=$?
}

# tm_run_env NAME=VALUE NRANKS PROGRAM [ARGS...]: tm_run with one more environment variable.
tm_run_env() {
    out="$work/out"
    err="$work/err"
    assignment=$1
    n=$2
    shift 2
    env "$assignment" "$MPCRUN" -n "$n" --timeout "$TM_JOB_TIMEOUT" "$@" > "$out" 2> "$err" \
        < /dev/null
    status=$?
}

expect_status() {
    [ "$status" -eq "$1" ] || fail "$2: exit status $status, expected $1; stderr: $(cat "$err")"
}

expect_err() {
    grep -Eq -- "$1" "$err" || fail "$2: stderr lacks /$1/: $(cat "$err")"
}

expect_out() {
    grep -Eq -- "$1" "$out" || fail "$2: stdout lacks /$1/: $(cat "$out")"
}

expect_no_temp_files() {
    left=$(ls -A "$TMPDIR")
    [ -z "$left" ] || fail "$1: temporary files left behind: $left"
}

# tm_until TENTHS COMMAND...: runs COMMAND every tenth of a second until it succeeds, at most
# TENTHS times; succeeds if it did.
tm_until() {
    tries=$1
    shift
    until "$@"; do
        tries=$((tries - 1))
        [ "$tries" -gt 0 ] || return 1
        sleep 0.1
    done
}

# tm_gone PID: whether process PID has ended.
tm_gone() {
    ! kill -0 "$1" 2> /dev/null
}
