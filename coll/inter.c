/*
 * Collectives on intercommunicators (MPI 3.1, 5.2.2): MPI_Barrier, MPI_Bcast, MPI_Gather(v),
 * MPI_Scatter(v), MPI_Allgather(v), MPI_Alltoall(v,w), MPI_Reduce, MPI_Allreduce and
 * MPI_Reduce_scatter(_block), blocking and not.
 *
 * An intercommunicator's view names the remote group only (the schedule's peers are its ranks,
 * nbc/sched.c), so every message crosses between the groups. The algorithms are linear: the
 * data goes straight to where it is wanted. Where a group must share something among its own
 * members (a reduction of the other group's data, the news that the other group entered the
 * barrier), the other group's rank 0 relays it, the only path between them:
 *
 *   allreduce   A_i --data--> B_0     B_0 reduces A's data, A_0 reduces B's,
 *               A_0 <--red(A)-- B_0   the leaders swap the results,
 *               B_j <--red(A)-- A_0   each leader hands its group's reduction to the other group
 *
 * Rooted calls: the root passes MPI_ROOT, the other members of its group MPI_PROC_NULL (they take
 * no part), the other group the root's rank. Reductions combine in the rank order of the group
 * whose data they combine.
 */
#include "config.h"

#include "coll/blocks.h"
#include "coll/coll.h"

/* Numbers the call on c and writes it into the ledger that both groups share (check.h), which
 * compares the calls and their operations across the groups (each group passes roots of its own,
 * and its own amounts of data); a mismatch breaks the communicator, which ends the calls' schedules
 * with it. Returns from the entry point on a communicator broken before. */
#define INTER_CHECK(op_) INTER_CHECK_IDLE(op_, false)

/* The same, for a member that takes no part in a rooted call (`idle_`: its root is
 * MPI_PROC_NULL), whose operation is not significant. */
#define INTER_CHECK_IDLE(op_, idle_)                                                               \
    do {                                                                                           \
        tm_coll_sig_t sig_ = tm_coll_sig(call, -1, (op_), 0, NULL);                                \
        if (idle_)                                                                                 \
            sig_.op = TM_COLL_OP_ANY;                                                              \
        int err_ = tm_coll_check_begin(r, c, call, &sig_, TM_COLL_MEET_MESSAGES);                  \
        if (err_ != MPI_SUCCESS)                                                                   \
            return err_;                                                                           \
    } while (0)

/* The scratch slot size for count elements of type, a multiple of 64 bytes. */
static size_t slot_bytes(size_t count, const tm_mpi_type_t *type)
{
    return (tm_coll_typed_bytes(count, type) + 63) & ~(size_t)63;
}

static char *slot(tm_nbc_sched_t *s, size_t bytes, int j, size_t count, const tm_mpi_type_t *t)
{
    return tm_coll_typed_base((char *)tm_nbc_sched_scratch(s) + (size_t)j * bytes, count, t);
}

/* A member leaves once the whole remote group has entered: each rank 0, having heard every
 * remote member, tells the remote rank 0, which thereby knows its own group is in and releases
 * every remote member. */
int tm_coll_inter_barrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                          MPI_Request *request)
{
    INTER_CHECK(NULL);
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, c, 0);
    if (s) {
        tm_mpi_type_t *byte = tm_coll_byte_type();
        int remote = c->remote->size;
        tm_nbc_sched_send(s, NULL, 0, byte, 0);
        if (c->rank == 0) {
            for (int i = 0; i < remote; i++)
                tm_nbc_sched_recv(s, NULL, 0, byte, i);
            tm_nbc_sched_barrier(s, TM_NBC_ANY);
            tm_nbc_sched_send(s, NULL, 0, byte, 0); /* the whole remote group is in */
            tm_nbc_sched_recv(s, NULL, 0, byte, 0); /* the whole local group is */
            tm_nbc_sched_barrier(s, TM_NBC_ANY);
            for (int i = 0; i < remote; i++)
                tm_nbc_sched_send(s, NULL, 0, byte, i);
        }
        tm_nbc_sched_recv(s, NULL, 0, byte, 0); /* released */
    }
    return tm_coll_run(r, c, call, s, request);
}

int tm_coll_inter_bcast(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, void *buf,
                        size_t count, tm_mpi_type_t *type, int root, MPI_Request *request)
{
    INTER_CHECK(NULL);
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, c, 0);
    if (s && root == MPI_ROOT)
        for (int i = 0; i < c->remote->size; i++)
            tm_nbc_sched_send(s, buf, count, type, i);
    else if (s && root != MPI_PROC_NULL)
        tm_nbc_sched_recv(s, buf, count, type, root);
    return tm_coll_run(r, c, call, s, request);
}

/* The root receives remote member i's data into block i of `recv`. */
int tm_coll_inter_gather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                         size_t sendcount, tm_mpi_type_t *stype, const tm_coll_blocks_t *recv,
                         int root, MPI_Request *request)
{
    INTER_CHECK(NULL);
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, c, 0);
    if (s && root == MPI_ROOT)
        for (int i = 0; i < c->remote->size; i++)
            tm_nbc_sched_recv(s, tm_coll_blocks_at(recv, i), tm_coll_blocks_count(recv, i),
                              tm_coll_blocks_type(recv, i), i);
    else if (s && root != MPI_PROC_NULL)
        tm_nbc_sched_send(s, sendbuf, sendcount, stype, root);
    return tm_coll_run(r, c, call, s, request);
}

/* The root sends block i of `send` to remote member i. */
int tm_coll_inter_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                          const tm_coll_blocks_t *send, void *recvbuf, size_t recvcount,
                          tm_mpi_type_t *rtype, int root, MPI_Request *request)
{
    INTER_CHECK(NULL);
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, c, 0);
    if (s && root == MPI_ROOT)
        for (int i = 0; i < c->remote->size; i++)
            tm_nbc_sched_send(s, tm_coll_blocks_at(send, i), tm_coll_blocks_count(send, i),
                              tm_coll_blocks_type(send, i), i);
    else if (s && root != MPI_PROC_NULL)
        tm_nbc_sched_recv(s, recvbuf, recvcount, rtype, root);
    return tm_coll_run(r, c, call, s, request);
}

/* Every member sends its data to every remote member, and receives theirs in block i. */
int tm_coll_inter_allgather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                            const void *sendbuf, size_t sendcount, tm_mpi_type_t *stype,
                            const tm_coll_blocks_t *recv, MPI_Request *request)
{
    INTER_CHECK(NULL);
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, c, 0);
    for (int i = 0; s && i < c->remote->size; i++) {
        tm_nbc_sched_recv(s, tm_coll_blocks_at(recv, i), tm_coll_blocks_count(recv, i),
                          tm_coll_blocks_type(recv, i), i);
        tm_nbc_sched_send(s, sendbuf, sendcount, stype, i);
    }
    return tm_coll_run(r, c, call, s, request);
}

/* Block i of `send` to remote member i; block i of `recv` from it. */
int tm_coll_inter_alltoall(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                           const tm_coll_blocks_t *send, const tm_coll_blocks_t *recv,
                           MPI_Request *request)
{
    INTER_CHECK(NULL);
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, c, 0);
    for (int i = 0; s && i < c->remote->size; i++) {
        tm_nbc_sched_recv(s, tm_coll_blocks_at(recv, i), tm_coll_blocks_count(recv, i),
                          tm_coll_blocks_type(recv, i), i);
        tm_nbc_sched_send(s, tm_coll_blocks_at(send, i), tm_coll_blocks_count(send, i),
                          tm_coll_blocks_type(send, i), i);
    }
    return tm_coll_run(r, c, call, s, request);
}

/* Combines the n pieces at slots 0 .. n-2 and at `last` into `last`, in rank order
 * (s_0 op s_1 op ... op s_(n-1)): the engine's operation is inout = in op inout, so from the end
 * backwards, each in a round of its own. */
static void combine(tm_nbc_sched_t *s, size_t bytes, int n, void *last, size_t count,
                    tm_mpi_type_t *type, tm_mpi_op_t *op)
{
    for (int j = n - 2; j >= 0; j--) {
        tm_nbc_sched_barrier(s, TM_NBC_ANY);
        tm_nbc_sched_op(s, slot(s, bytes, j, count, type), last, count, type, op);
    }
}

int tm_coll_inter_reduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                         void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                         int root, MPI_Request *request)
{
    INTER_CHECK_IDLE(op, root == MPI_PROC_NULL);
    int remote = c->remote->size;
    size_t bytes = root == MPI_ROOT ? slot_bytes(count, type) : 0;
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, c, bytes * (size_t)(remote - 1));
    if (s && root == MPI_ROOT) {
        /* The last member's piece lands in recvbuf, the others' in scratch. */
        for (int j = 0; j < remote; j++)
            tm_nbc_sched_recv(s, j == remote - 1 ? recvbuf : slot(s, bytes, j, count, type), count,
                              type, j);
        combine(s, bytes, remote, recvbuf, count, type, op);
    } else if (s && root != MPI_PROC_NULL) {
        tm_nbc_sched_send(s, data, count, type, root);
    }
    return tm_coll_run(r, c, call, s, request);
}

/* A leader's part of reducing across the groups, on slots 0 .. remote of s: the remote members'
 * pieces, combined into slot remote-1 in their rank order; the swap with the remote leader,
 * whose combination of this group's pieces lands in slot remote; and that to every remote
 * member, which waits for it (the leaders are the only path between a group's members). */
static void leader_relay(tm_nbc_sched_t *s, size_t bytes, int remote, size_t count,
                         tm_mpi_type_t *type, tm_mpi_op_t *op)
{
    char *acc = slot(s, bytes, remote - 1, count, type);
    char *ours = slot(s, bytes, remote, count, type);
    for (int j = 0; j < remote; j++)
        tm_nbc_sched_recv(s, slot(s, bytes, j, count, type), count, type, j);
    combine(s, bytes, remote, acc, count, type, op);
    tm_nbc_sched_barrier(s, TM_NBC_ANY);
    tm_nbc_sched_send(s, acc, count, type, 0);
    tm_nbc_sched_recv(s, ours, count, type, 0);
    tm_nbc_sched_barrier(s, TM_NBC_ANY);
    for (int j = 0; j < remote; j++)
        tm_nbc_sched_send(s, ours, count, type, j);
}

int tm_coll_inter_allreduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                            void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                            MPI_Request *request)
{
    INTER_CHECK(op);
    int remote = c->remote->size;
    bool leader = c->rank == 0;
    size_t bytes = leader ? slot_bytes(count, type) : 0;
    /* The leader's slots: 0 .. remote-1 the remote pieces (the result in remote-1), then the
     * reduction of its own group, from the remote leader. */
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, c, bytes * (size_t)(remote + 1));
    if (s) {
        tm_nbc_sched_send(s, data, count, type, 0);
        if (leader)
            leader_relay(s, bytes, remote, count, type, op);
        tm_nbc_sched_recv(s, recvbuf, count, type, 0);
    }
    return tm_coll_run(r, c, call, s, request);
}

/* Reduce-scatter: the reduction of the other group's vectors (`total` elements each), of which
 * this member keeps `mine_count` elements from `mine_off`. Each member sends its vector to the
 * remote rank 0, which combines them; the leaders swap the results and each sends the whole of
 * its group's reduction to every remote member, which copies out its block (the counts of the
 * blocks are known at the receiving end only). */
int tm_coll_inter_reduce_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                 const void *data, void *recvbuf, size_t total, size_t mine_off,
                                 size_t mine_count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                                 MPI_Request *request)
{
    INTER_CHECK(op);
    int remote = c->remote->size;
    bool leader = c->rank == 0;
    size_t bytes = slot_bytes(total, type);
    /* Slots: the leader's remote vectors 0 .. remote-1 (combined into remote-1) and its group's
     * reduction at remote; everyone's whole result at `whole`. */
    int whole = leader ? remote + 1 : 0;
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, c, bytes * (size_t)(whole + 1));
    if (s) {
        char *all = slot(s, bytes, whole, total, type);
        tm_nbc_sched_send(s, data, total, type, 0);
        if (leader)
            leader_relay(s, bytes, remote, total, type, op);
        tm_nbc_sched_recv(s, all, total, type, 0);
        tm_nbc_sched_barrier(s, TM_NBC_ANY);
        if (mine_count > 0)
            tm_nbc_sched_copy(s, all + (MPI_Aint)mine_off * type->extent, mine_count, type, recvbuf,
                              mine_count, type);
    }
    return tm_coll_run(r, c, call, s, request);
}
