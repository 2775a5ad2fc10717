#!/bin/sh
# A fatal signal in a rank is reported as "rank R: <signal>" (a stack overflow as such) and ends
# the job non-zero, even when the report cannot be written; SIGINT and SIGTERM end a running job
# promptly with 130 and 143; whatever the end, even SIGKILL, no temporary file stays.
. "$TM_SRCDIR/tests/mpi/lib.sh"
crash=$(tm_build crash.c)
recurse=$(tm_build recurse.c)
sleeper=$(tm_build sleeper.c)

tm_run 4 "$crash" segv 2
expect_status 139 "SIGSEGV in rank 2"
expect_err "^rank 2: Segmentation fault" "SIGSEGV report"
expect_no_temp_files "after SIGSEGV"

tm_run 3 "$crash" fpe 1
expect_status 136 "SIGFPE in rank 1"
expect_err "^rank 1: Floating point exception" "SIGFPE report"

tm_run 2 "$crash" abort 0
expect_status 134 "abort() in rank 0"
expect_err "^rank 0: Aborted" "SIGABRT report"

tm_run 2 "$crash" ill 1
expect_status 132 "trap in rank 1"
expect_err "^rank 1: Illegal instruction" "SIGILL report"
expect_err "crash\.rank1\.so|main" "backtrace"

# The report written into a pipe nobody reads any more (SIGPIPE while reporting) still ends the
# job, with the fault's status.
("$MPCRUN" -n 2 --timeout 60 "$crash" segv 1 2>&1 < /dev/null; echo $? > "$work/status") | true
status=$(cat "$work/status")
expect_status 139 "SIGSEGV reported into a closed pipe"

tm_run 3 "$recurse" inf
[ "$status" -ne 0 ] || fail "a stack overflow must end the job non-zero"
expect_err "^rank [0-2]: stack overflow" "stack overflow report"
expect_no_temp_files "after a stack overflow"
tm_run 3 "$recurse" inf-big
[ "$status" -ne 0 ] || fail "a stack overflow with large frames must end the job non-zero"
expect_err "^rank [0-2]: stack overflow" "stack overflow with 64 KiB frames"

# The stack size is a setting: 24 MiB of recursion overflows 8 MiB stacks, fits in 64 MiB.
tm_run 2 "$recurse" 24
expect_err "stack overflow" "24 MiB with the default stack"
tm_run_env THREADMPI_SCHED_STACK_SIZE=64M 2 "$recurse" 24
expect_status 0 "24 MiB of stack with stack_size = 64M"

# Ending a running job from outside.
end_job() { # SIGNAL EXPECTED_STATUS
    # The job truncates its output file only once started: remove the last job's "ready" first.
    rm -f "$work/out"
    "$MPCRUN" -n 2 "$sleeper" > "$work/out" 2> "$work/err" &
    pid=$!
    i=0
    until grep -q ready "$work/out" 2> /dev/null; do
        i=$((i + 1))
        [ "$i" -lt 100 ] || fail "the sleeper job did not start"
        sleep 0.1
    done
    ls "$TMPDIR" | grep -q threadmpi- || fail "no temporary directory while the job runs"
    kill -s "$1" "$pid"
    wait "$pid"
    status=$?
    [ "$status" -eq "$2" ] || fail "SIG$1: exit status $status, expected $2"
}
end_job INT 130
expect_no_temp_files "after SIGINT"
end_job TERM 143
expect_no_temp_files "after SIGTERM"
end_job KILL 137
i=0
while [ -n "$(ls -A "$TMPDIR")" ] && [ "$i" -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
done
expect_no_temp_files "after SIGKILL"
echo "signals: ok"
