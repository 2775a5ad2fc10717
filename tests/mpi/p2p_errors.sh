#!/bin/sh
# Bad arguments of point-to-point calls end the job (MPI_ERRORS_ARE_FATAL) with a message naming
# the call, the rank and the problem, and the error class as exit status; a message longer than
# the receive buffer is MPI_ERR_TRUNCATE.
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build p2p_errors.c)

check() { # CASE STATUS MESSAGE
    tm_run 4 "$prog" "$1"
    expect_status "$2" "$1"
    expect_err "$3" "$1"
}
check rank 6 '^MPI_Send \(rank 1\): invalid rank 17 in MPI_COMM_WORLD of size 4 \(MPI_ERR_RANK\)'
check tag 4 '^MPI_Send \(rank 1\): invalid tag -5 .*\(MPI_ERR_TAG\)'
check count 2 '^MPI_Recv \(rank 1\): negative count -1 \(MPI_ERR_COUNT\)'
check type 3 '^MPI_Send \(rank 1\): invalid datatype .*\(MPI_ERR_TYPE\)'
check comm 5 '^MPI_Send \(rank 1\): invalid communicator .*\(MPI_ERR_COMM\)'
check buffer 1 '^MPI_Send \(rank 1\): buffer is NULL for 3 elements \(MPI_ERR_BUFFER\)'
check request 7 '^MPI_Wait \(rank 1\): invalid request .*\(MPI_ERR_REQUEST\)'
check truncate 15 '^MPI_Recv \(rank 1\): message truncated.*\(MPI_ERR_TRUNCATE\)'
expect_no_temp_files "p2p errors"
echo "p2p errors: ok"
