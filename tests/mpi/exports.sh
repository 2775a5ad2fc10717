#!/bin/sh
# The library exports only MPI_*, PMPI_*, MPIX_*, PMPIX_*, the entry points of the launcher and
# of the ranks' program copies (runtime/job.h), pthread_create (runtime/threads.c: the threads a
# rank starts), and under AddressSanitizer the answer to its leak checker (__lsan_is_turned_off,
# runtime/job.c);
# every MPI_ and MPIX_ function has its PMPI_ or PMPIX_ twin.
. "$TM_SRCDIR/tests/mpi/lib.sh"
lib="$TM_BUILDDIR/.libs/libthreadmpi.so"
[ -f "$lib" ] || fail "no $lib"
nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u > "$work/syms"
grep -Ev '^(MPI_|PMPI_|MPIX_|PMPIX_|tm_rt_launcher_main$|tm_rt_program_exit$|tm_rt_affinity_(thread|task|cpu)$|tm_rt_sleep$|pthread_create$|__lsan_is_turned_off$)' \
    "$work/syms" > "$work/extra"
[ ! -s "$work/extra" ] || fail "exported beyond the API: $(cat "$work/extra")"
grep -q '^MPI_Init$' "$work/syms" || fail "MPI_Init is not exported"
for f in $(grep -E '^MPIX?_' "$work/syms" | grep -vx MPIX_Comm_dup_fn); do
    grep -qx "P$f" "$work/syms" || fail "$f has no P$f"
done
# Every function mpi.h declares exists: an absent function is honest only if undeclared.
grep -oE '^(int|double|MPI_Aint) +P?MPIX?_[A-Za-z_0-9]+\(' "$TM_SRCDIR/include/mpi.h" |
    sed -E 's/^[a-zA-Z_]+ +//; s/\($//' | sort -u > "$work/declared"
[ -s "$work/declared" ] || fail "no function found in mpi.h"
missing=$(comm -23 "$work/declared" "$work/syms")
[ -z "$missing" ] || fail "declared in mpi.h but not in the library: $missing"
echo "exports: ok"
