/*
 * The collectives' entry points: mpi/'s calls hand over here with their arguments checked and
 * resolved, and each picks the algorithm that runs the collective, from what every member
 * knows alike (the communicator, the counts, the types), so that all of them pick the same one:
 *
 *   flat.c      small blocking collectives on up to TM_COLL_FLAT_RANKS members, through a block
 *               of memory the members share
 *   shared.c    large blocking reductions with a commutative operation: each rank combines one
 *               chunk straight from the others' buffers
 *   schedules   everything else, and every non-blocking collective: one schedule algorithm per
 *               file, run by the engine (nbc/) on the rank and its progress thread
 *
 * A blocking collective on schedules is its non-blocking schedule with every round on the rank,
 * waited for at once: one engine, one set of algorithms.
 */
#include "config.h"

#include <pthread.h>

#include "coll/blocks.h"
#include "coll/coll.h"
#include "p2p/p2p.h"

/* Bytes below which the blocking allreduce uses recursive doubling. Measured (2 cores): on 4, 8
 * and 16 ranks Rabenseifner's algorithm is 30-45% slower at 4 KiB, even at 8 KiB, and ahead from
 * 16 KiB (by 30-50% at 64 KiB); on 2 and 3 ranks (p' = 2) its two half exchanges never beat
 * recursive doubling's one (up to 256 KiB). */
#define ALLREDUCE_SMALL (16 * 1024)

/* Bytes received by each rank below which the lg p algorithms of allgather beat the ring,
 * measured on 4, 8 and 16 ranks (2 cores): recursive doubling up to 32-64 KiB, when the ring's
 * extra latencies stop mattering beside the copies; Bruck's algorithm, whose rotation costs two
 * more copies of everything, only up to 4-8 KiB. */
#define ALLGATHER_DOUBLING_BYTES (64 * 1024)
#define ALLGATHER_BRUCK_BYTES    (8 * 1024)

/* Bruck's alltoall for blocks of at most this many bytes on at least ALLTOALL_BRUCK_RANKS
 * ranks. Measured (2 cores): on 8 and 16 ranks it takes 2/3 of the pairwise exchange's time up
 * to 256-byte blocks and loses from 1-4 KiB; on 4 ranks the pairwise exchange's 3 steps always
 * win over Bruck's packing. */
#define ALLTOALL_BRUCK_BYTES 256
#define ALLTOALL_BRUCK_RANKS 8

int tm_coll_levels(const tm_mpi_comm_t *comm, bool nonblocking, bool doubling)
{
    return nonblocking ? tm_nbc_split_levels(comm->size, doubling) : TM_NBC_ALL_LEVELS;
}

static bool request_done(void *arg)
{
    return tm_p2p_request_is_complete(arg);
}

int tm_coll_run(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, tm_nbc_sched_t *s,
                MPI_Request *request)
{
    if (!s)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_NO_MEM, "out of memory");
    tm_p2p_request_t *req = tm_p2p_request_new(r, TM_P2P_REQ_COLL);
    if (!req) {
        tm_nbc_sched_free(s);
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_NO_MEM, "out of memory");
    }
    req->comm = comm;
    req->call = call;
    tm_coll_check_abort_on(comm, s);
    if (tm_nbc_sched_start(r, s, req) < 0) {
        tm_p2p_request_release(r, req);
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_NO_MEM, "out of memory");
    }
    if (request) {
        *request = tm_p2p_request_handle(req);
        return MPI_SUCCESS;
    }
    if (!tm_p2p_request_is_complete(req)) /* noted as "call(comm=name)" */
        tm_p2p_wait_noted(r, request_done, req, tm_p2p_request_blocked_note, req);
    int err = req->status.MPI_ERROR;
    tm_p2p_request_release(r, req);
    if (err != MPI_SUCCESS && tm_coll_check_is_broken(comm))
        return tm_coll_check_broken_raise(r, comm, call);
    if (err != MPI_SUCCESS)
        return tm_mpi_error_raise(r->rt, comm, call, err,
                                  "the ranks passed different amounts of data (a message "
                                  "longer or shorter than its receive)");
    return MPI_SUCCESS;
}

int tm_coll_done(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, int err,
                 MPI_Request *request)
{
    /* The number the collective's schedule would have taken (the members number theirs alike,
     * whether or not they made one). */
    comm->coll_seq++;
    tm_p2p_request_t *req = tm_p2p_request_new_coll_done(r, comm, call, err);
    if (!req)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_NO_MEM, "out of memory");
    *request = tm_p2p_request_handle(req);
    return MPI_SUCCESS;
}

static void init_once(void)
{
    tm_coll_check_types = tm_rt_coll_check_types();
    tm_coll_bcast_dynamic_init();
}

void tm_coll_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_once);
}

/* ---- the entry points ---- */

/* Numbers the call on c and checks c (check.h): declares `sig`, the call's signature (its root,
 * operation and each member's piece of the data, count x type, given), which the flat
 * algorithms take; the call flat (its members meeting in the flat block's rounds) or not.
 * Returns from the entry point on an error (a communicator broken before). */
#define CHECK_BEGIN(root, op, count, type, flat)                                                   \
    CHECK_BEGIN_AT(root, op, count, type, (flat) ? TM_COLL_MEET_ROUND : TM_COLL_MEET_MESSAGES)
#define CHECK_BEGIN_AT(root, op, count, type, meet)                                                \
    tm_coll_sig_t sig = tm_coll_sig(call, (root), (op), (count), (type));                          \
    do {                                                                                           \
        int err_ = tm_coll_check_begin(r, c, call, &sig, (meet));                                  \
        if (err_ != MPI_SUCCESS)                                                                   \
            return err_;                                                                           \
    } while (0)

int tm_coll_barrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, MPI_Request *request)
{
    bool nonblocking = request != NULL;
    bool flat = tm_coll_use_flat(c, 0);
    CHECK_BEGIN(-1, NULL, 0, NULL, flat && !nonblocking);
    if (flat) {
        if (nonblocking)
            return tm_coll_flat_ibarrier(r, c, call, request);
        return tm_coll_flat_barrier(r, c, call, &sig);
    }
    int levels = tm_coll_levels(c, nonblocking, false);
    return tm_coll_run(r, c, call, tm_coll_barrier_dissemination(r, c, levels), request);
}

int tm_coll_bcast(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, void *buf, size_t count,
                  tm_mpi_type_t *type, int root, MPI_Request *request)
{
    bool nonblocking = request != NULL;
    bool flat = tm_coll_use_flat(c, count * type->size);
    CHECK_BEGIN(root, NULL, count, type, flat && !nonblocking);
    if (flat && nonblocking)
        return tm_coll_flat_nb(r, c, call, &sig, buf, buf, count, type, NULL, root, request);
    if (flat)
        return tm_coll_flat_bcast(r, c, call, &sig, buf, count, type, root);
    int levels = tm_coll_levels(c, nonblocking, false);
    return tm_coll_run(r, c, call, tm_coll_bcast_binomial(r, c, buf, count, type, root, levels),
                       request);
}

int tm_coll_reduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                   void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op, int root,
                   MPI_Request *request)
{
    bool nonblocking = request != NULL;
    bool flat = tm_coll_use_flat_reduce(c, count, type);
    CHECK_BEGIN(root, op, count, type, flat && !nonblocking);
    if (flat && nonblocking)
        return tm_coll_flat_nb(r, c, call, &sig, data, recvbuf, count, type, op, root, request);
    if (flat)
        return tm_coll_flat_reduce(r, c, call, &sig, data, recvbuf, count, type, op, root);
    if (!nonblocking && tm_coll_use_shared(c, count, type, op))
        return tm_coll_reduce_shared(r, c, call, data, recvbuf, count, type, op, root);
    int levels = tm_coll_levels(c, nonblocking, false);
    return tm_coll_run(r, c, call,
                       tm_coll_reduce_binomial(r, c, data, c->rank == root ? recvbuf : NULL, count,
                                               type, op, root, levels),
                       request);
}

int tm_coll_allreduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                      void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                      MPI_Request *request)
{
    tm_nbc_sched_t *s;
    bool flat = tm_coll_use_flat_reduce(c, count, type);
    CHECK_BEGIN(-1, op, count, type, flat && !request);
    if (request && flat) {
        return tm_coll_flat_nb(r, c, call, &sig, data, recvbuf, count, type, op, -1, request);
    } else if (request &&
               (count * type->size >= TM_COLL_SHARED_BYTES || tm_rt_ranks_share_cores())) {
        s = tm_coll_allreduce_split(r, c, data, recvbuf, count, type, op,
                                    tm_coll_levels(c, true, false));
    } else if (flat) {
        return tm_coll_flat_reduce(r, c, call, &sig, data, recvbuf, count, type, op, -1);
    } else if (!request && tm_coll_use_shared(c, count, type, op)) {
        return tm_coll_allreduce_shared(r, c, call, data, recvbuf, count, type, op);
    } else {
        int levels = tm_coll_levels(c, request != NULL, false);
        int pof2 = 1;
        while (2 * pof2 <= c->size)
            pof2 *= 2;
        if (count * type->size < ALLREDUCE_SMALL || !tm_mpi_op_is_commutative(op) || pof2 < 4 ||
            count < (size_t)pof2)
            s = tm_coll_allreduce_recdoubling(r, c, data, recvbuf, count, type, op, levels);
        else
            s = tm_coll_allreduce_rabenseifner(r, c, data, recvbuf, count, type, op, levels);
    }
    return tm_coll_run(r, c, call, s, request);
}

int tm_coll_scan(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                 void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op, bool exclusive,
                 MPI_Request *request)
{
    bool nonblocking = request != NULL;
    bool flat = !nonblocking && tm_coll_use_flat_reduce(c, count, type);
    CHECK_BEGIN_AT(-1, op, count, type, flat ? TM_COLL_MEET_CHAIN : TM_COLL_MEET_MESSAGES);
    if (flat)
        return tm_coll_flat_scan(r, c, call, &sig, data, recvbuf, count, type, op, exclusive);
    int levels = tm_coll_levels(c, nonblocking, false);
    return tm_coll_run(
        r, c, call,
        tm_coll_scan_recdoubling(r, c, data, recvbuf, count, type, op, exclusive, levels), request);
}

int tm_coll_reduce_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                           void *recvbuf, tm_coll_vec_t counts, size_t block, tm_mpi_type_t *type,
                           tm_mpi_op_t *op, MPI_Request *request)
{
    bool nonblocking = request != NULL;
    size_t total = counts.at ? 0 : block * (size_t)c->size, first = 0;
    for (int j = 0; counts.at && j < c->size; j++) {
        if (j < c->rank)
            first += (size_t)tm_coll_vec_get(counts, j);
        total += (size_t)tm_coll_vec_get(counts, j);
    }
    if (!counts.at)
        first = block * (size_t)c->rank;
    bool flat = !nonblocking && tm_coll_use_flat_reduce(c, total, type);
    CHECK_BEGIN(-1, op, total, type, flat);
    if (flat) {
        size_t mine = counts.at ? (size_t)tm_coll_vec_get(counts, c->rank) : block;
        return tm_coll_flat_reduce_scatter(r, c, call, &sig, data, recvbuf, total, first, mine,
                                           type, op);
    }
    int levels = tm_coll_levels(c, nonblocking, false);
    return tm_coll_run(
        r, c, call,
        tm_coll_reduce_scatter_pairwise(r, c, data, recvbuf, counts, block, type, op, levels),
        request);
}

int tm_coll_gather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                   size_t sendcount, tm_mpi_type_t *stype, void *recvbuf, size_t recvcount,
                   tm_mpi_type_t *rtype, int root, MPI_Request *request)
{
    bool nonblocking = request != NULL, at_root = c->rank == root;
    bool flat = !nonblocking && tm_coll_use_flat(c, sendcount * stype->size);
    CHECK_BEGIN(root, NULL, at_root ? recvcount : sendcount, at_root ? rtype : stype, flat);
    if (flat)
        return tm_coll_flat_gather(r, c, call, &sig, sendbuf, sendcount, stype, recvbuf, recvcount,
                                   rtype, root);
    int levels = tm_coll_levels(c, nonblocking, true);
    return tm_coll_run(r, c, call,
                       tm_coll_gather_binomial(r, c, sendbuf, sendcount, stype,
                                               at_root ? recvbuf : NULL, at_root ? recvcount : 0,
                                               rtype, root, levels),
                       request);
}

int tm_coll_gatherv(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                    size_t sendcount, tm_mpi_type_t *stype, void *recvbuf, tm_coll_vec_t recvcounts,
                    tm_coll_vec_t displs, tm_mpi_type_t *rtype, int root, MPI_Request *request)
{
    bool at_root = c->rank == root;
    CHECK_BEGIN(root, NULL, 0, NULL, false);
    int levels = tm_coll_levels(c, request != NULL, true);
    return tm_coll_run(
        r, c, call,
        tm_coll_gatherv_linear(r, c, sendbuf, sendcount, stype, at_root ? recvbuf : NULL,
                               at_root ? recvcounts : TM_COLL_VEC_NONE,
                               at_root ? displs : TM_COLL_VEC_NONE, rtype, root, levels),
        request);
}

int tm_coll_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                    size_t sendcount, tm_mpi_type_t *stype, void *recvbuf, size_t recvcount,
                    tm_mpi_type_t *rtype, int root, MPI_Request *request)
{
    bool nonblocking = request != NULL, at_root = c->rank == root;
    bool flat = !nonblocking && tm_coll_use_flat(c, (size_t)c->size * recvcount * rtype->size);
    CHECK_BEGIN(root, NULL, at_root ? sendcount : recvcount, at_root ? stype : rtype, flat);
    if (flat)
        return tm_coll_flat_scatter(r, c, call, &sig, sendbuf, sendcount, stype, recvbuf, recvcount,
                                    rtype, root);
    int levels = tm_coll_levels(c, nonblocking, true);
    return tm_coll_run(r, c, call,
                       tm_coll_scatter_binomial(r, c, at_root ? sendbuf : NULL,
                                                at_root ? sendcount : 0, stype, recvbuf, recvcount,
                                                rtype, root, levels),
                       request);
}

int tm_coll_scatterv(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                     tm_coll_vec_t sendcounts, tm_coll_vec_t displs, tm_mpi_type_t *stype,
                     void *recvbuf, size_t recvcount, tm_mpi_type_t *rtype, int root,
                     MPI_Request *request)
{
    bool at_root = c->rank == root;
    CHECK_BEGIN(root, NULL, 0, NULL, false);
    int levels = tm_coll_levels(c, request != NULL, true);
    return tm_coll_run(r, c, call,
                       tm_coll_scatterv_linear(r, c, at_root ? sendbuf : NULL,
                                               at_root ? sendcounts : TM_COLL_VEC_NONE,
                                               at_root ? displs : TM_COLL_VEC_NONE, stype, recvbuf,
                                               recvcount, rtype, root, levels),
                       request);
}

int tm_coll_allgather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                      size_t sendcount, tm_mpi_type_t *stype, const tm_coll_blocks_t *recv,
                      MPI_Request *request)
{
    bool nonblocking = request != NULL, regular = recv->counts.at == NULL;
    size_t total = 0, largest = 0; /* every member sees the same counts: they all choose alike */
    for (int j = 0; j < c->size; j++) {
        size_t bytes = tm_coll_blocks_bytes(recv, j);
        total += bytes;
        if (bytes > largest)
            largest = bytes;
    }
    bool flat = !nonblocking && tm_coll_use_flat(c, largest);
    CHECK_BEGIN(-1, NULL, recv->count, regular ? recv->type : NULL, flat);
    if (flat)
        return tm_coll_flat_allgather(r, c, call, &sig, sendbuf, sendcount, stype, recv);
    int levels = tm_coll_levels(c, nonblocking, false);
    tm_nbc_sched_t *s;
    if (regular && (c->size & (c->size - 1)) == 0 && total < ALLGATHER_DOUBLING_BYTES)
        s = tm_coll_allgather_recdoubling(r, c, sendbuf, sendcount, stype, recv, levels);
    else if (total < ALLGATHER_BRUCK_BYTES)
        s = tm_coll_allgather_bruck(r, c, sendbuf, sendcount, stype, recv, levels);
    else
        s = tm_coll_allgather_ring(r, c, sendbuf, sendcount, stype, recv, levels);
    return tm_coll_run(r, c, call, s, request);
}

int tm_coll_alltoall(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                     const tm_coll_blocks_t *send, const tm_coll_blocks_t *recv,
                     MPI_Request *request)
{
    bool nonblocking = request != NULL;
    bool regular = recv->counts.at == NULL; /* MPI_Alltoall's equal blocks, one after the other */
    bool flat = regular && !nonblocking &&
                tm_coll_use_flat(c, (size_t)c->size * recv->count * recv->type->size);
    CHECK_BEGIN(-1, NULL, recv->count, regular ? recv->type : NULL, flat);
    if (flat)
        return tm_coll_flat_alltoall(r, c, call, &sig, send ? send->buf : NULL,
                                     send ? send->count : 0, send ? send->type : NULL, recv->buf,
                                     recv->count, recv->type);
    int levels = tm_coll_levels(c, nonblocking, false);
    tm_nbc_sched_t *s;
    if (regular && recv->count * recv->type->size <= ALLTOALL_BRUCK_BYTES &&
        c->size >= ALLTOALL_BRUCK_RANKS)
        s = tm_coll_alltoall_bruck(r, c, send, recv, levels);
    else
        s = tm_coll_alltoall_pairwise(r, c, send, recv, levels);
    return tm_coll_run(r, c, call, s, request);
}

int tm_coll_neighbor(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                     const tm_coll_xfer_t *recvs, int nrecvs, const tm_coll_xfer_t *sends,
                     int nsends, MPI_Request *request)
{
    CHECK_BEGIN(-1, NULL, 0, NULL, false);
    int levels = tm_coll_levels(c, request != NULL, false);
    return tm_coll_run(
        r, c, call, tm_coll_neighbor_linear(r, c, recvs, nrecvs, sends, nsends, levels), request);
}
