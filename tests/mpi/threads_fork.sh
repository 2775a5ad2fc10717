#!/bin/sh
# Threads and processes that a rank makes (threads_fork.c): exit() from a thread of the program
# ends the job with a message naming the rank, and with 0 only if every rank had finished; a
# forked child's exit and _exit are its own, it may not call MPI, and it never keeps the job's
# temporary files once the job is gone.
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build threads_fork.c)

tm_run 2 "$prog" thread 0
expect_status 1 "exit(0) from a rank's thread while ranks run"
expect_err "^rank 1: a thread called exit\(0\) while ranks were still running: ending the job$" \
    "exit(0) from a thread"
tm_run 2 "$prog" thread 3
expect_status 3 "exit(3) from a rank's thread"
expect_err "^rank 1: a thread called exit\(3\) while ranks were still running" "exit(3) from a thread"

tm_run 4 "$prog" fork
expect_status 0 "children ending with _exit and exit"
grep -q 'ending the job' "$err" && fail "a child's exit was taken for the job's: $(cat "$err")"
tm_run 2 "$prog" forkmpi
expect_status 0 "a child that calls MPI"
expect_err "called in a process that a rank forked: such a process may not call MPI" \
    "a child that calls MPI"
expect_no_temp_files "threads and children"

# The job killed while a child it forked sleeps: the files go at once all the same.
"$MPCRUN" -n 2 "$prog" forksleep > "$work/out" 2> "$work/err" < /dev/null &
job=$!
i=0
until grep -q ready "$work/out" 2> /dev/null; do
    i=$((i + 1))
    [ "$i" -lt 300 ] || { kill -9 "$job"; fail "forksleep never got ready: $(cat "$work/err")"; }
    sleep 0.1
done
kill -9 "$job"
wait "$job" 2> /dev/null
i=0
until [ -z "$(ls -A "$TMPDIR")" ] || [ "$i" -ge 50 ]; do
    i=$((i + 1))
    sleep 0.1
done
pkill -9 -f -- "$prog forksleep" 2> /dev/null
expect_no_temp_files "the job killed while a forked child sleeps"
echo "threads_fork: ok"
