#!/bin/sh
# A collective whose members' calls disagree (or their data's amounts or types), under the default
# error handler: the job ends with the error class as its status and a line naming the calls (coll_mismatch.c makes them; its
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
tm_run 2 "$prog" fatal bcast0 bcast0_more
expect_status 15 "amounts"
expect_err "^MPI_Bcast \(rank [01]\): collective mismatch on MPI_COMM_WORLD: rank 0 called MPI_Bcast with 16 bytes of data, rank 1 with 20 \(MPI_ERR_TRUNCATE\)$" \
    "amounts"
tm_run 2 "$prog" fatal bcast0 bcast0_float
expect_status 3 "types"
expect_err "^MPI_Bcast \(rank [01]\): collective mismatch on MPI_COMM_WORLD: rank 0 called MPI_Bcast with 16 bytes of other types than rank 1's .*check_types = false turns this off\) \(MPI_ERR_TYPE\)$" \
    "types"
# [coll] check_types = false: the same data of other types passes
tm_run_env THREADMPI_COLL_CHECK_TYPES=false 2 "$prog" fatal bcast0 bcast0_float
expect_status 0 "types with check_types = false"
# On one core, where each round's leader alone compares its members' calls, from their slots or
# as the last round's call that they repeat: every pair of the MPI_ERRORS_RETURN cases
tm_run_env HWLOC_SYNTHETIC="core:1 pu:1" 16 "$prog"
expect_status 0 "16 ranks on one core"
expect_no_temp_files "coll_mismatch_fatal"
echo "coll_mismatch_fatal: ok"
