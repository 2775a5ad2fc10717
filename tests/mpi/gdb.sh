#!/bin/sh
# gdb attached to a running job sees each rank's private copy of the program, with its symbols
# and sources, and the rank's stack up to main(). Skipped where gdb or ptrace is unavailable.
. "$TM_SRCDIR/tests/mpi/lib.sh"
command -v gdb > /dev/null || exit 77
sleeper=$(tm_build sleeper.c -O0)
rm -f "$out"
"$MPCRUN" -n 2 "$sleeper" > "$out" 2> "$err" &
pid=$!
i=0
until grep -q ready "$out" 2> /dev/null; do
    i=$((i + 1))
    [ "$i" -lt 100 ] || fail "the job did not start"
    sleep 0.1
done
timeout 120 gdb -batch -nx -p "$pid" -ex 'info sharedlibrary' -ex 'thread apply all bt' \
    > "$work/gdb" 2>&1
kill -TERM "$pid"
wait "$pid"
if grep -q "ptrace: Operation not permitted" "$work/gdb"; then
    echo "gdb: ptrace is not permitted here"
    exit 77
fi
grep -Eq 'Yes .*/sleeper\.rank0\.so' "$work/gdb" || fail "rank 0's copy is not listed: $(cat "$work/gdb")"
grep -Eq 'Yes .*/sleeper\.rank1\.so' "$work/gdb" || fail "rank 1's copy is not listed"
[ "$(grep -Ec 'in main \(.*sleeper\.c:[0-9]+' "$work/gdb")" -eq 2 ] ||
    fail "both ranks' main() should be on the stacks: $(grep '^#' "$work/gdb")"
expect_no_temp_files "gdb"
echo "gdb: ok"
