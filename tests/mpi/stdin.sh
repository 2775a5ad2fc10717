#!/bin/sh
# Standard input reaches rank 0 only, as with mpirun.
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build stdin_read.c)
printf 'first line\nsecond\n' | "$MPCRUN" -n 4 "$prog" > "$work/out" 2> "$work/err"
status=$?
err="$work/err"
expect_status 0 "standard input"
printf 'first line\nsecond\n' | "$prog" > "$work/out" 2> "$work/err" || fail "singleton stdin"
expect_no_temp_files "stdin"
echo "stdin: ok"
