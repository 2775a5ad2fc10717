#!/bin/sh
# [p2p] eager_limit: with every message by rendezvous (0) or most of them eager (64K), the
# point-to-point tests give the same results; bad values are refused before any rank starts.
. "$TM_SRCDIR/tests/mpi/lib.sh"
basic=$(tm_build p2p_basic.c)
persistent=$(tm_build p2p_persistent.c)
cancel=$(tm_build p2p_cancel.c)
isendrecv=$(tm_build p2p_isendrecv.c)
large_count=$(tm_build p2p_large_count.c)
inter=$(tm_build intercomm.c)
disconnect=$(tm_build comm_disconnect.c)
for limit in 0 1 64K; do
    tm_run_env THREADMPI_P2P_EAGER_LIMIT=$limit 7 "$basic"
    expect_status 0 "p2p_basic with eager_limit = $limit"
    tm_run_env THREADMPI_P2P_EAGER_LIMIT=$limit 3 "$persistent"
    expect_status 0 "p2p_persistent with eager_limit = $limit"
    tm_run_env THREADMPI_P2P_EAGER_LIMIT=$limit 3 "$cancel"
    expect_status 0 "p2p_cancel with eager_limit = $limit"
    tm_run_env THREADMPI_P2P_EAGER_LIMIT=$limit 3 "$isendrecv"
    expect_status 0 "p2p_isendrecv with eager_limit = $limit"
    tm_run_env THREADMPI_P2P_EAGER_LIMIT=$limit 3 "$large_count"
    expect_status 0 "p2p_large_count with eager_limit = $limit"
    # (the intercommunicators' own messages, between the leaders and to the remote group)
    tm_run_env THREADMPI_P2P_EAGER_LIMIT=$limit 5 "$inter"
    expect_status 0 "intercomm with eager_limit = $limit"
    tm_run_env THREADMPI_P2P_EAGER_LIMIT=$limit 2 "$disconnect"
    expect_status 0 "comm_disconnect with eager_limit = $limit"
done
tm_run_env THREADMPI_P2P_EAGER_LIMIT=2M 2 "$basic"
expect_status 2 "eager_limit above 1M"
expect_err 'p2p.eager_limit: "2M" is not a size from 0 to 1M' "eager_limit message"
expect_no_temp_files "eager"
echo "eager limit: ok"
