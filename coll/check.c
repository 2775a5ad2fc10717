/*
 * Collective consistency (check.h): comparing and describing members' signatures.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "coll/check.h"

bool tm_coll_sig_names_equal(const char *a, const char *b)
{
    return strcmp(a, b) == 0;
}

/* The operation of a signature, in words. */
static const char *op_name(int kind)
{
    tm_mpi_op_t *op = NULL;
    if (kind == TM_MPI_OP_USER)
        return "a user-defined operation";
    for (MPI_Op h = MPI_MAX; h <= MPI_NO_OP; h++) /* the predefined handles, by kind */
        if (tm_mpi_op_lookup(h, &op) == 0 && (int)op->kind == kind)
            return op->name;
    return "an operation";
}

int tm_coll_mismatch_raise(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                           const tm_coll_mismatch_t *m)
{
    const tm_coll_sig_t *a = &m->sig_a, *b = &m->sig_b;
    /* In rank order: the message reads the same on every member. */
    int ra = m->a, rb = m->b;
    if (rb < ra) {
        const tm_coll_sig_t *t = a;
        a = b;
        b = t;
        ra = m->b;
        rb = m->a;
    }
    if (a->call != b->call && strcmp(a->call, b->call) != 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_OTHER,
                                  "collective mismatch on %s: rank %d called %s, rank %d %s",
                                  c->name, ra, a->call, rb, b->call);
    if (a->root != b->root)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ROOT,
                                  "collective mismatch on %s: rank %d called %s with root %d, "
                                  "rank %d with root %d",
                                  c->name, ra, a->call, a->root, rb, b->root);
    return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_OP,
                              "collective mismatch on %s: rank %d called %s with %s, rank %d "
                              "with %s",
                              c->name, ra, a->call, op_name(a->op), rb, op_name(b->op));
}
