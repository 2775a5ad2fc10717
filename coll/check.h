/*
 * Collective consistency: what every member of a communicator must pass alike to a collective
 * call (MPI 3.1, 5.1, 5.12): the call itself (a blocking and a non-blocking call of one kind do
 * not match each other), the root, the reduction's operation. Each collective's members meet
 * somewhere (the flat block, the schedule's messages); there they compare their signatures, and
 * a mismatch is an error on the members that see it, naming the calls (check.c). The amounts of
 * data are compared where the data meets its buffer (truncation).
 */
#ifndef TM_COLL_CHECK_H
#define TM_COLL_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "obj/obj.h"
#include "obj/op.h"

typedef struct tm_coll_sig {
    const char *call; /* "MPI_Bcast": the kind */
    int root;         /* -1: a collective without a root */
    int op;           /* the operation's kind (tm_mpi_op_kind_t), -1: none */
    /* The three in one word, equal for equal signatures whose names are the same string (the
     * usual case): comparing keys is the fast test, the fields decide when keys differ. */
    uint64_t key;
} tm_coll_sig_t;

static inline tm_coll_sig_t tm_coll_sig(const char *call, int root, const tm_mpi_op_t *op)
{
    int kind = op ? (int)op->kind : -1;
    uint64_t key = ((uint64_t)(uintptr_t)call ^ ((uint64_t)(uint32_t)root << 40) ^
                    ((uint64_t)(uint32_t)kind << 20)) *
                   UINT64_C(0x9e3779b97f4a7c15);
    return (tm_coll_sig_t){call, root, kind, key};
}

/* Whether two members' signatures agree: their calls' names, roots and operations (user-defined
 * operations agree with each other: each rank made its own). Inline: every collective's leader
 * compares; the names are nearly always the same string. */
bool tm_coll_sig_names_equal(const char *a, const char *b);
static inline bool tm_coll_sig_equal(const tm_coll_sig_t *a, const tm_coll_sig_t *b)
{
    return a->key == b->key ||
           (a->root == b->root && a->op == b->op && tm_coll_sig_names_equal(a->call, b->call));
}

/* A mismatch two members' signatures show: rank `a` passed sig_a, rank `b` sig_b. */
typedef struct tm_coll_mismatch {
    int a, b; /* ranks in the communicator; a < 0: none */
    tm_coll_sig_t sig_a, sig_b;
} tm_coll_mismatch_t;

/* Reports mismatch m for call `call` of c's member r, e.g. "collective mismatch on
 * MPI_COMM_WORLD: rank 0 called MPI_Allreduce, rank 1 MPI_Bcast": MPI_ERR_ROOT for roots,
 * MPI_ERR_OP for operations, MPI_ERR_OTHER for calls. Returns the error class. */
int tm_coll_mismatch_raise(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                           const tm_coll_mismatch_t *m);

#endif /* TM_COLL_CHECK_H */
