#!/bin/sh
# Errors under the default error handler end the job with the error class as exit status and one
# line "CALL (rank R): PROBLEM (CLASS)" on stderr; MPI_Abort ends it with the code given.
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build mpi_fatal.c)

# fatal MODE WHO STATUS REGEX: rank WHO of 4 does MODE; the job exits STATUS, stderr matches.
fatal() {
    tm_run 4 "$prog" "$1" "$2"
    expect_status "$3" "$1"
    expect_err "$4" "$1"
    grep -q "survived" "$err" && fail "$1: the erroneous call returned"
    return 0
}

fatal bad-comm 2 5 \
    '^MPI_Comm_rank \(rank 2\): invalid communicator 0x4c000408: the handle of a datatype \(MPI_ERR_COMM\)$'
fatal null-comm 0 5 \
    '^MPI_Comm_size \(rank 0\): invalid communicator MPI_COMM_NULL \(MPI_ERR_COMM\)$'
fatal null-arg 3 13 '^MPI_Comm_rank \(rank 3\): rank is NULL \(MPI_ERR_ARG\)$'
fatal bad-code 1 13 '^MPI_Error_string \(rank 1\): invalid error code -1 \(MPI_ERR_ARG\)$'
fatal free-null 2 7 '^MPI_Request_free \(rank 2\): the request is MPI_REQUEST_NULL \(MPI_ERR_REQUEST\)$'
fatal start-null 1 7 \
    '^MPI_Start \(rank 1\): the request is MPI_REQUEST_NULL \(MPI_Start takes persistent requests\) \(MPI_ERR_REQUEST\)$'
fatal before-init 0 16 '^MPI_Comm_rank \(rank [0-3]\): called before MPI_Init \(MPI_ERR_OTHER\)$'
fatal init-twice 1 16 '^MPI_Init \(rank 1\): MPI is already initialized \(MPI_ERR_OTHER\)$'
fatal finalize-twice 2 16 '^MPI_Finalize \(rank 2\): MPI is already finalized \(MPI_ERR_OTHER\)$'
fatal after-finalize 3 16 \
    '^MPI_Comm_size \(rank 3\): called after MPI_Finalize \(MPI_ERR_OTHER\)$'
fatal mpi1-attr 1 20 '^MPI_Attr_put \(rank 1\): invalid attribute key 0x00003039: not an MPI handle \(MPI_ERR_KEYVAL\)$'
fatal thread 1 16 \
    '^MPI_Comm_rank \(rank 1\): called by a thread that rank 1 started, which initialized MPI with MPI_THREAD_SINGLE: only MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE \(MPI_Init_thread\) lets the threads a rank starts call MPI \(MPI_ERR_OTHER\)$'

tm_run 4 "$prog" abort 2 42
expect_status 42 "MPI_Abort"
expect_err '^MPI_Abort: rank 2 of MPI_COMM_WORLD aborted the job with error code 42$' "MPI_Abort"

tm_run 3 "$prog" abort-self 1 7
expect_status 7 "MPI_Abort on MPI_COMM_SELF"
expect_err '^MPI_Abort: rank 0 of MPI_COMM_SELF \(rank 1 of MPI_COMM_WORLD\) aborted the job with error code 7$' \
    "MPI_Abort on MPI_COMM_SELF"

# A user operation may call MPI_Abort (MPI 3.1, 5.9.5), also when the rank's progress thread runs
# it: on a synthetic machine of 4 cores, the progress threads of 2 ranks have cores of their own,
# and with split_levels = 0 run the whole reduction while the ranks sleep.
tm_run_env HWLOC_SYNTHETIC="package:1 core:4 pu:1" 2 --set nbc.split_levels=0 "$prog" abort-in-op 0 9
expect_status 9 "MPI_Abort in a user operation on the progress thread"
expect_err '^MPI_Abort: rank 0 of MPI_COMM_WORLD aborted the job with error code 9 \(from a user operation run by its progress thread\)$' \
    "MPI_Abort in a user operation on the progress thread"

# A program run alone is one rank, with the same messages.
TMPDIR="$work/tmp" "$prog" bad-comm 0 > "$work/out" 2> "$work/err"
status=$?
err="$work/err"
expect_status 5 "singleton bad-comm"
expect_err '^MPI_Comm_rank \(rank 0\): invalid communicator 0x4c000408' "singleton bad-comm"

expect_no_temp_files "mpi_fatal"
echo "mpi_fatal: ok"
