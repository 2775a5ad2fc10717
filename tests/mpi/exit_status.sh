#!/bin/sh
# Exit status of a job: 0 iff every rank returned 0, else the first non-zero status; exit()
# after MPI_Finalize is a return; exit() or return between MPI_Init and MPI_Finalize and
# MPI_Abort end the job with a message naming the rank. Singleton runs are one-rank jobs.
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build status.c)

tm_run 4 "$prog" return 2 0
expect_status 0 "all ranks return 0"

tm_run 4 "$prog" return 2 7
expect_status 7 "rank 2 returns 7"

tm_run 4 "$prog" exit 3 9
expect_status 9 "rank 3 calls exit(9) after MPI_Finalize"

tm_run 3 "$prog" exit 0 0
expect_status 0 "rank 0 calls exit(0) after MPI_Finalize"

tm_run 4 "$prog" exit-early 1 5
expect_status 5 "rank 1 calls exit(5) before MPI_Finalize"
expect_err "rank 1 called exit\(\) with status 5 between MPI_Init and MPI_Finalize" "exit-early"

tm_run 4 "$prog" exit-early 1 0
[ "$status" -ne 0 ] || fail "exit(0) before MPI_Finalize must end the job non-zero"

tm_run 2 "$prog" return-early 0 0
[ "$status" -ne 0 ] || fail "return without MPI_Finalize must end the job non-zero"
expect_err "rank 0 returned from main\(\)" "return-early"

tm_run 4 "$prog" abort 2 42
expect_status 42 "MPI_Abort(42) by rank 2"
expect_err "rank 2" "MPI_Abort message"

tm_run 3 "$prog" no-mpi 0 4
expect_status 4 "ranks without MPI return 4"

# Singleton: the program run alone is one rank.
TMPDIR="$work/tmp" "$prog" return 0 6 > /dev/null 2>&1
status=$?
[ "$status" -eq 6 ] || fail "singleton returning 6 exited with $status"
TMPDIR="$work/tmp" "$prog" return 1 6 > /dev/null 2>&1 || fail "singleton: rank 1 does not exist"

# TMPDIR on a file system mounted noexec: refused, saying why. Run in a mount namespace of its
# own where one can be made (root, or user namespaces allowed).
mkdir -p "$work/noexec"
if ! unshare -rm sh -c "mount -t tmpfs -o noexec tmpfs '$work/noexec'" 2> "$work/err"; then
    echo "exit statuses: no mount namespace here, TMPDIR on noexec not tried: $(cat "$work/err")"
else
    unshare -rm sh -c "mount -t tmpfs -o noexec tmpfs '$work/noexec' &&
        TMPDIR='$work/noexec' '$MPCRUN' -n 2 '$prog' return 0 0" > "$work/out" 2> "$work/err"
    status=$?
    expect_status 2 "TMPDIR on noexec"
    expect_err "^threadmpi: $work/noexec is on a file system mounted noexec, where the ranks' copies of the program cannot be loaded: set TMPDIR to a directory that allows running programs$" \
        "TMPDIR on noexec"
fi

expect_no_temp_files "exit statuses"
echo "exit statuses: ok"
