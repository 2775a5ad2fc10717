/*
 * ThreadMPI mpi/: the MPI calls the profiler times (runtime/profile.h), each a kind of its own,
 * numbered from TM_RT_PROFILE_FIRST_CALL and named for its report by profile_calls.c. A call
 * opens with TM_MPI_PROFILE_CALL(NAME).
 */
#ifndef TM_MPI_PROFILE_CALLS_H
#define TM_MPI_PROFILE_CALLS_H

#include "runtime/profile.h"

/* X(NAME, "what the table says", the component a call starts in). */
#define TM_MPI_PROFILE_CALLS(X)                                                                    \
    X(SEND, "MPI_Send", POST)                                                                      \
    X(SSEND, "MPI_Ssend", POST)                                                                    \
    X(RSEND, "MPI_Rsend", POST)                                                                    \
    X(BSEND, "MPI_Bsend", POST)                                                                    \
    X(ISEND, "MPI_Isend", POST)                                                                    \
    X(ISSEND, "MPI_Issend", POST)                                                                  \
    X(IRSEND, "MPI_Irsend", POST)                                                                  \
    X(IBSEND, "MPI_Ibsend", POST)                                                                  \
    X(RECV, "MPI_Recv", POST)                                                                      \
    X(IRECV, "MPI_Irecv", POST)                                                                    \
    X(SENDRECV, "MPI_Sendrecv", POST)                                                              \
    X(SENDRECV_REPLACE, "MPI_Sendrecv_replace", POST)                                              \
    X(ISENDRECV, "MPI_Isendrecv", POST)                                                            \
    X(ISENDRECV_REPLACE, "MPI_Isendrecv_replace", POST)                                            \
    X(PROBE, "MPI_Probe", POST)                                                                    \
    X(IPROBE, "MPI_Iprobe", POST)                                                                  \
    X(MPROBE, "MPI_Mprobe", POST)                                                                  \
    X(IMPROBE, "MPI_Improbe", POST)                                                                \
    X(MRECV, "MPI_Mrecv", POST)                                                                    \
    X(IMRECV, "MPI_Imrecv", POST)                                                                  \
    X(START, "MPI_Start", POST)                                                                    \
    X(STARTALL, "MPI_Startall", POST)                                                              \
    X(WAIT, "MPI_Wait", PROGRESS)                                                                  \
    X(WAITALL, "MPI_Waitall", PROGRESS)                                                            \
    X(WAITANY, "MPI_Waitany", PROGRESS)                                                            \
    X(WAITSOME, "MPI_Waitsome", PROGRESS)                                                          \
    X(TEST, "MPI_Test", PROGRESS)                                                                  \
    X(TESTALL, "MPI_Testall", PROGRESS)                                                            \
    X(TESTANY, "MPI_Testany", PROGRESS)                                                            \
    X(TESTSOME, "MPI_Testsome", PROGRESS)                                                          \
    X(REQUEST_GET_STATUS, "MPI_Request_get_status", PROGRESS)                                      \
    X(BARRIER, "MPI_Barrier", POST)                                                                \
    X(IBARRIER, "MPI_Ibarrier", POST)                                                              \
    X(BCAST, "MPI_Bcast", POST)                                                                    \
    X(IBCAST, "MPI_Ibcast", POST)                                                                  \
    X(REDUCE, "MPI_Reduce", POST)                                                                  \
    X(IREDUCE, "MPI_Ireduce", POST)                                                                \
    X(ALLREDUCE, "MPI_Allreduce", POST)                                                            \
    X(IALLREDUCE, "MPI_Iallreduce", POST)                                                          \
    X(GATHER, "MPI_Gather", POST)                                                                  \
    X(IGATHER, "MPI_Igather", POST)                                                                \
    X(GATHERV, "MPI_Gatherv", POST)                                                                \
    X(IGATHERV, "MPI_Igatherv", POST)                                                              \
    X(SCATTER, "MPI_Scatter", POST)                                                                \
    X(ISCATTER, "MPI_Iscatter", POST)                                                              \
    X(SCATTERV, "MPI_Scatterv", POST)                                                              \
    X(ISCATTERV, "MPI_Iscatterv", POST)                                                            \
    X(ALLGATHER, "MPI_Allgather", POST)                                                            \
    X(IALLGATHER, "MPI_Iallgather", POST)                                                          \
    X(ALLGATHERV, "MPI_Allgatherv", POST)                                                          \
    X(IALLGATHERV, "MPI_Iallgatherv", POST)                                                        \
    X(ALLTOALL, "MPI_Alltoall", POST)                                                              \
    X(IALLTOALL, "MPI_Ialltoall", POST)                                                            \
    X(ALLTOALLV, "MPI_Alltoallv", POST)                                                            \
    X(IALLTOALLV, "MPI_Ialltoallv", POST)                                                          \
    X(ALLTOALLW, "MPI_Alltoallw", POST)                                                            \
    X(IALLTOALLW, "MPI_Ialltoallw", POST)                                                          \
    X(REDUCE_SCATTER, "MPI_Reduce_scatter", POST)                                                  \
    X(IREDUCE_SCATTER, "MPI_Ireduce_scatter", POST)                                                \
    X(REDUCE_SCATTER_BLOCK, "MPI_Reduce_scatter_block", POST)                                      \
    X(IREDUCE_SCATTER_BLOCK, "MPI_Ireduce_scatter_block", POST)                                    \
    X(SCAN, "MPI_Scan", POST)                                                                      \
    X(ISCAN, "MPI_Iscan", POST)                                                                    \
    X(EXSCAN, "MPI_Exscan", POST)                                                                  \
    X(IEXSCAN, "MPI_Iexscan", POST)                                                                \
    X(NEIGHBOR_ALLGATHER, "MPI_Neighbor_allgather", POST)                                          \
    X(INEIGHBOR_ALLGATHER, "MPI_Ineighbor_allgather", POST)                                        \
    X(NEIGHBOR_ALLGATHERV, "MPI_Neighbor_allgatherv", POST)                                        \
    X(INEIGHBOR_ALLGATHERV, "MPI_Ineighbor_allgatherv", POST)                                      \
    X(NEIGHBOR_ALLTOALL, "MPI_Neighbor_alltoall", POST)                                            \
    X(INEIGHBOR_ALLTOALL, "MPI_Ineighbor_alltoall", POST)                                          \
    X(NEIGHBOR_ALLTOALLV, "MPI_Neighbor_alltoallv", POST)                                          \
    X(INEIGHBOR_ALLTOALLV, "MPI_Ineighbor_alltoallv", POST)                                        \
    X(NEIGHBOR_ALLTOALLW, "MPI_Neighbor_alltoallw", POST)                                          \
    X(INEIGHBOR_ALLTOALLW, "MPI_Ineighbor_alltoallw", POST)                                        \
    X(IBCAST_DYNAMIC, "MPIX_Ibcast_dynamic", POST)                                                 \
    X(DEFERRED_SEND_ADD, "MPIX_Deferred_send_add", POST)                                           \
    X(DEFERRED_SEND_READY, "MPIX_Deferred_send_ready", POST)                                       \
    X(FINALIZE, "MPI_Finalize", POST)

typedef enum tm_mpi_profile_call {
    TM_MPI_PROFILE_BEFORE_FIRST = TM_RT_PROFILE_FIRST_CALL - 1,
#define TM_MPI_PROFILE_ENUM(name, text, comp) TM_MPI_PROFILE_##name,
    TM_MPI_PROFILE_CALLS(TM_MPI_PROFILE_ENUM)
#undef TM_MPI_PROFILE_ENUM
        TM_MPI_PROFILE_END
} tm_mpi_profile_call_t;

_Static_assert(TM_MPI_PROFILE_END <= TM_RT_PROFILE_PROGRESS_PASS,
               "the profiler has room for every call");

/* The component each call starts in. */
enum {
#define TM_MPI_PROFILE_COMP(name, text, comp) TM_MPI_PROFILE_COMP_##name = TM_RT_PROFILE_##comp,
    TM_MPI_PROFILE_CALLS(TM_MPI_PROFILE_COMP)
#undef TM_MPI_PROFILE_COMP
};

/* The rest of the enclosing block (a function body: every return) is one call NAME. */
#define TM_MPI_PROFILE_CALL(NAME)                                                                  \
    TM_RT_PROFILE_CALL(TM_MPI_PROFILE_##NAME, TM_MPI_PROFILE_COMP_##NAME)

#endif /* TM_MPI_PROFILE_CALLS_H */
