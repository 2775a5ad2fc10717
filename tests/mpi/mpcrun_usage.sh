#!/bin/sh
# mpcrun and mpiexec: argument errors print the usage and exit 2; programs not built by our
# mpicc are refused with a clear message; -n, PATH lookup, --help, --version.
. "$TM_SRCDIR/tests/mpi/lib.sh"
hello=$(tm_build ../../examples/hello.c)

usage_error() { # DESCRIPTION ARGS...
    what=$1
    shift
    "$MPCRUN" "$@" > "$work/out" 2> "$work/err" < /dev/null
    status=$?
    expect_status 2 "$what"
    expect_err "Usage: mpcrun" "$what"
}
usage_error "no arguments"
usage_error "no program" -n 4
usage_error "-n without a value" -n
usage_error "-n 0" -n 0 "$hello"
usage_error "-n abc" -n abc "$hello"
usage_error "-n -3" -n -3 "$hello"
usage_error "unknown option" --frobnicate "$hello"

"$MPCRUN" -n 2 /bin/true > "$work/out" 2> "$work/err"
status=$?
expect_status 2 "a program not built by mpicc"
expect_err "was not built with ThreadMPI's mpicc" "foreign program"
"$MPCRUN" -n 2 "$TM_SRCDIR/tests/mpi/testlist" > "$work/out" 2> "$work/err"
status=$?
expect_status 2 "a file that is not a program"
"$MPCRUN" -n 2 "$work/missing" > "$work/out" 2> "$work/err"
status=$?
expect_status 2 "a missing program"
expect_err "missing" "missing program"

"$MPCRUN" --help > "$work/out" 2>&1 || fail "--help"
expect_out "Usage: mpcrun" "--help"
"$MPCRUN" --version > "$work/out" 2>&1 || fail "--version"
expect_out "ThreadMPI" "--version"

tm_run 3 "$hello"
expect_status 0 "hello"
[ "$(grep -c '^Hello from rank [0-2] of 3 on ' "$out")" -eq 3 ] || fail "3 ranks: $(cat "$out")"

# -np, --np and a program found in $PATH, through the name mpiexec.
ln -s "$MPCRUN" "$work/mpiexec"
PATH="$work:$PATH" "$work/mpiexec" -np 2 hello > "$out" 2> "$err" || fail "mpiexec -np 2 hello"
[ "$(grep -c 'of 2 on' "$out")" -eq 2 ] || fail "mpiexec: $(cat "$out")"
"$work/mpiexec" --np 5 "$hello" > "$out" 2> "$err" || fail "mpiexec --np 5"
[ "$(grep -c 'of 5 on' "$out")" -eq 5 ] || fail "--np 5: $(cat "$out")"
"$work/mpiexec" -n x "$hello" > "$out" 2> "$err"
[ $? -eq 2 ] && grep -q "^mpiexec: " "$err" || fail "mpiexec names itself in errors"

# Without -n: one rank per core.
cores=$(nproc)
"$MPCRUN" "$hello" > "$out" 2> "$err" || fail "mpcrun without -n"
[ "$(grep -c "of $cores on" "$out")" -eq "$cores" ] || fail "no -n on $cores cores: $(cat "$out")"

# The job's own arguments are the program's, options included.
expect_no_temp_files "mpcrun"
echo "mpcrun usage: ok"
