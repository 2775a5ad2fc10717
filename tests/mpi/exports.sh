#!/bin/sh
# The library exports only MPI_*, PMPI_*, MPIX_* and the loader's two entry points; every MPI_
# function has its PMPI_ twin.
. "$TM_SRCDIR/tests/mpi/lib.sh"
lib="$TM_BUILDDIR/.libs/libthreadmpi.so"
[ -f "$lib" ] || fail "no $lib"
nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u > "$work/syms"
grep -Ev '^(MPI_|PMPI_|MPIX_|tm_rt_launcher_main$|tm_rt_rank_exit$)' "$work/syms" > "$work/extra"
[ ! -s "$work/extra" ] || fail "exported beyond the API: $(cat "$work/extra")"
grep -q '^MPI_Init$' "$work/syms" || fail "MPI_Init is not exported"
for f in $(grep '^MPI_' "$work/syms"); do
    grep -qx "P$f" "$work/syms" || fail "$f has no P$f"
done
echo "exports: ok"
