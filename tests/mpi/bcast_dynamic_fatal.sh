#!/bin/sh
# Bad arguments of MPIX_Ibcast_dynamic and MPIX_Deferred_send_* under the default error handler
# end the job with the error class as exit status and one line "CALL (rank R): PROBLEM (CLASS)"
# on stderr; the erroneous call does not return.
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build bcast_dynamic_errors.c)

# fatal CASE RANK STATUS REGEX: rank RANK of 4 makes the call of CASE (bcast_dynamic_errors.c).
fatal() {
    tm_run 4 "$prog" "$1" "$2"
    expect_status "$3" "$1"
    expect_err "$4" "$1"
    grep -q "survived" "$err" && fail "$1: the erroneous call returned"
    return 0
}

fatal duplicate 0 13 \
    '^MPIX_Ibcast_dynamic \(rank 0\): rank 1 is listed twice in dests .*\(MPI_ERR_ARG\)$'
fatal root-listed 3 13 \
    '^MPIX_Ibcast_dynamic \(rank 3\): dests\[1\] is the root itself \(rank 3\) \(MPI_ERR_ARG\)$'
fatal rank-17 2 6 \
    '^MPIX_Ibcast_dynamic \(rank 2\): invalid rank 17 in dests\[1\] .*size 4.*\(MPI_ERR_RANK\)$'
fatal add-self 1 13 \
    '^MPIX_Deferred_send_add \(rank 1\): rank 1 is the sender itself \(MPI_ERR_ARG\)$'
fatal ready-twice 2 16 \
    '^MPIX_Deferred_send_ready \(rank 2\): .*already made ready \(MPI_ERR_OTHER\)$'
expect_no_temp_files "bcast_dynamic_fatal"
echo "bcast_dynamic_fatal: ok"
