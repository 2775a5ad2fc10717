/*
 * Alltoall by Bruck's algorithm (Bruck et al., IEEE TPDS 1997), for equal blocks of b bytes.
 * Rank r packs its send blocks into scratch memory rotated so that position i holds its block for
 * (r + i) mod p. At step k = 0 .. H-1 (H = ceil(lg p)) it packs the positions whose index has
 * bit k set, sends them as one message to (r + 2^k) mod p, receives the same positions from
 * (r - 2^k) mod p and unpacks them over its own: a block moves forward by the bits of its
 * position, i ranks in all, to its destination, where position i then holds the block of rank
 * (r - i) mod p. A last round copies it there in the receive buffer.
 * Cost: H · α + (p/2) · H · b · β, plus about H + 2 local copies of the data. Chosen for blocks
 * of at most 256 bytes on 8 ranks or more, where H latencies instead of the pairwise exchange's
 * p - 1 outweigh moving every block lg p / 2 times.
 *
 * In place (MPI_IN_PLACE), the send blocks are the receive buffer's: the first rotation packs
 * them before anything is received, so the same schedule works.
 *
 * Split-tree: the H steps stand for the levels of a tree; the last S run on the rank (steps.h).
 */
#include "config.h"

#include "coll/coll.h"
#include "coll/blocks.h"
#include "coll/steps.h"

/* Appends copies between packed positions, in runs of consecutive positions that have bit k
 * set: into `pack` (to_pack) or back from it. */
static void pack_runs(tm_nbc_sched_t *s, char *rot, char *pack, size_t b, int size, int k,
                      bool to_pack, tm_mpi_type_t *byte)
{
    size_t at = 0;
    for (int first = 1 << k; first < size; first += 2 << k) {
        int last = first + (1 << k) < size ? first + (1 << k) : size;
        size_t bytes = (size_t)(last - first) * b;
        if (to_pack)
            tm_nbc_sched_copy(s, rot + (size_t)first * b, bytes, byte, pack + at, bytes, byte);
        else
            tm_nbc_sched_copy(s, pack + at, bytes, byte, rot + (size_t)first * b, bytes, byte);
        at += bytes;
    }
}

/* Positions below `size` with bit k set. */
static int positions(int size, int k)
{
    int n = 0;
    for (int first = 1 << k; first < size; first += 2 << k)
        n += (first + (1 << k) < size ? first + (1 << k) : size) - first;
    return n;
}

tm_nbc_sched_t *tm_coll_alltoall_bruck(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                       const tm_coll_blocks_t *send, const tm_coll_blocks_t *recv,
                                       int rank_levels)
{
    int size = comm->size, me = comm->rank;
    int height = tm_nbc_tree_height(size);
    tm_mpi_type_t *byte = tm_coll_byte_type();
    if (!send) /* in place */
        send = recv;
    size_t b = send->count * send->type->size;
    int most = 0;
    for (int k = 0; k < height; k++)
        if (positions(size, k) > most)
            most = positions(size, k);
    /* The rotation, then one packed message out and one in. */
    tm_nbc_sched_t *s =
        tm_nbc_sched_create(r, comm, size > 1 ? ((size_t)size + 2 * (size_t)most) * b : 0);
    if (!s)
        return NULL;
    char *rot = tm_nbc_sched_scratch(s);
    char *out = rot + (size_t)size * b, *in = out + (size_t)most * b;
    tm_nbc_sched_where(s, tm_coll_step_where(0, height, rank_levels));
    if (size == 1) {
        if (send != recv)
            tm_nbc_sched_copy(s, send->buf, send->count, send->type, recv->buf, recv->count,
                              recv->type);
        return s;
    }
    /* Send blocks me .. p-1, then 0 .. me-1. */
    tm_nbc_sched_copy(s, tm_coll_blocks_at(send, me), (size_t)(size - me) * send->count, send->type,
                      rot, (size_t)(size - me) * b, byte);
    if (me > 0)
        tm_nbc_sched_copy(s, send->buf, (size_t)me * send->count, send->type,
                          rot + (size_t)(size - me) * b, (size_t)me * b, byte);
    for (int k = 0; k < height; k++) {
        if (k > 0) {
            tm_nbc_sched_barrier(s, tm_coll_step_where(k, height, rank_levels));
            pack_runs(s, rot, in, b, size, k - 1, false, byte);
        }
        pack_runs(s, rot, out, b, size, k, true, byte);
        size_t bytes = (size_t)positions(size, k) * b;
        tm_nbc_sched_send(s, out, bytes, byte, (me + (1 << k)) % size);
        tm_nbc_sched_recv(s, in, bytes, byte, (me - (1 << k) + size) % size);
    }
    tm_nbc_sched_barrier(s, tm_coll_step_where(height, height, rank_levels));
    pack_runs(s, rot, in, b, size, height - 1, false, byte);
    for (int i = 0; i < size; i++)
        tm_nbc_sched_copy(s, rot + (size_t)i * b, b, byte,
                          tm_coll_blocks_at(recv, (me - i + size) % size), recv->count, recv->type);
    return s;
}
