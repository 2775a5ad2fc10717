#!/bin/sh
# A rank that pins its own thread sees the affinity it set, without moving the kernel thread of
# its core (affinity.c); the job says so once, and the placement stays as reported.
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build affinity.c)
tm_run 4 --report-bindings "$prog"
expect_status 0 "ranks pinning their own threads"
n=$(grep -c 'set the CPU affinity of its own thread' "$err")
[ "$n" -eq 1 ] || fail "the affinity note came $n times: $(cat "$err")"
before=$(grep '^rank [0-9]*: core' "$out")
[ -n "$before" ] || fail "no bindings reported: $(cat "$out")"
tm_run 4 --report-bindings "$prog"
[ "$(grep '^rank [0-9]*: core' "$out")" = "$before" ] || fail "the placement moved"
tm_run 1 "$prog"
expect_status 0 "one rank"
expect_no_temp_files "affinity"
echo "affinity: ok"
