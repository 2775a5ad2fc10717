#!/bin/sh
# MPI_THREAD_MULTIPLE with OpenMP (thread_openmp.c): with a core per rank, the threads of a
# parallel region call MPI for their rank; with ranks that share a core, whose kernel thread the
# OpenMP runtime keeps its pool of threads on, such a call ends the job, saying why, rather than
# be made for the wrong rank. Skipped under the sanitizers, which see through neither the OpenMP
# runtime (not instrumented) nor who called pthread_create (their interceptors call it).
. "$TM_SRCDIR/tests/mpi/lib.sh"
if nm -D "$TM_BUILDDIR/.libs/libthreadmpi.so" | grep -q '__[at]san_'; then
    echo "thread_openmp: skipped (sanitizer build)"
    exit 77
fi
prog=$(tm_build thread_openmp.c -fopenmp)

tm_run_env HWLOC_SYNTHETIC="core:2 pu:1" 2 "$prog"
expect_status 0 "a core per rank"
expect_out "^thread_openmp: ok$" "a core per rank"

tm_run_env HWLOC_SYNTHETIC="core:2 pu:1" 4 "$prog"
expect_status 16 "ranks that share a core"
expect_err "^MPI_Comm_rank \(rank [0-3]\): called by a thread that the OpenMP runtime started for rank [0-3], whose core other ranks share: .*give each rank a core of its own" \
    "ranks that share a core"
expect_no_temp_files "thread_openmp"
echo "thread_openmp: ok"
