#!/bin/sh
# A collective whose members' calls disagree, under the default error handler: the job ends with
# the error class as its status and a line naming the calls (coll_mismatch.c makes them; its
# MPI_ERRORS_RETURN cases run from the testlist).
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build coll_mismatch.c)

tm_run 3 "$prog" fatal allreduce_sum bcast0
expect_status 16 "MPI_Allreduce against MPI_Bcast"
expect_err "^MPI_(Allreduce|Bcast) \(rank [0-2]\): collective mismatch on MPI_COMM_WORLD: rank [01] called MPI_Allreduce, rank 2 MPI_Bcast \(MPI_ERR_OTHER\)$" \
    "MPI_Allreduce against MPI_Bcast"
tm_run 2 "$prog" fatal bcast0 bcast1
expect_status 8 "roots"
expect_err "^MPI_Bcast \(rank [01]\): collective mismatch on MPI_COMM_WORLD: rank 0 called MPI_Bcast with root 0, rank 1 with root 1 \(MPI_ERR_ROOT\)$" \
    "roots"
tm_run 4 "$prog" fatal allreduce_sum allreduce_max
expect_status 10 "operations"
expect_err "^MPI_Allreduce \(rank [0-3]\): collective mismatch on MPI_COMM_WORLD: rank [0-2] called MPI_Allreduce with MPI_SUM, rank 3 with MPI_MAX \(MPI_ERR_OP\)$" \
    "operations"
expect_no_temp_files "coll_mismatch_fatal"
echo "coll_mismatch_fatal: ok"
