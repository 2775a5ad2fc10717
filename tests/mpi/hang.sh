#!/bin/sh
# mpcrun --timeout ends a job that runs too long, saying for each rank the MPI call it is blocked
# in, with its arguments, and exits non-zero (124, as timeout(1) does).
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build hang.c)
tm_run 8 --timeout 2 "$prog"
expect_status 124 "a deadlock ended by --timeout"
expect_err "ran for more than 2 s" "timeout message"
expect_err "^rank 0: MPI_Recv\(source=1, tag=7, comm=MPI_COMM_WORLD\)$" "rank 0"
expect_err "^rank 1: MPI_Wait\(MPI_Irecv\(source=0, tag=8, comm=MPI_COMM_WORLD\)\)$" "rank 1"
expect_err "^rank 2: MPI_Send\(dest=0, tag=9, comm=MPI_COMM_WORLD\)$" "rank 2"
expect_err "^rank 3: MPI_Probe\(source=MPI_ANY_SOURCE, tag=10, comm=MPI_COMM_WORLD\)$" "rank 3"
expect_err "^rank 4: MPI_Waitall\(3 requests, 2 pending, the first: MPI_Irecv\(source=0, tag=11, comm=MPI_Comm 0x[0-9a-f]{8}\)\)$" \
    "rank 4"
expect_err "^rank 5: MPI_Barrier\(comm=MPI_Comm 0x[0-9a-f]{8}\)$" "rank 5"
expect_err "^rank 6: MPI_Wait\(MPI_Isendrecv\(source=0, tag=13, comm=MPI_COMM_WORLD\)\)$" "rank 6"
expect_err "^rank 7: finished$" "rank 7"

# Ranks of one core, one of them in a blocking system call: the others wait for their core.
tm_run_env HWLOC_SYNTHETIC="core:1 pu:1" 3 --timeout 2 "$prog" syscall
expect_status 124 "a rank holding its core in a system call"
expect_err "^rank 0: running, not blocked in MPI$" "the rank in the system call"
# (a rank still in the barrier, woken or not, says so first)
for r in 1 2; do
    expect_err "^rank $r: (ready, but waiting for its core, which rank 0 holds|MPI_Barrier\(comm=MPI_COMM_WORLD\), and its core is held by rank 0) outside MPI \(in a blocking system call, or a loop without MPI calls\)$" \
        "rank $r, waiting for its core"
done
expect_no_temp_files "hang"

tm_run 2 --timeout 0 "$prog"
expect_status 2 "--timeout 0"
tm_run_env THREADMPI_JOB_TIMEOUT=x 2 "$prog"
expect_status 2 "a bad [job] timeout"
echo "hang: ok"
