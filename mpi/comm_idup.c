/*
 * MPI_Comm_idup, the non-blocking MPI_Comm_dup (MPI 3.1 6.4.2), and MPI_Comm_idup_with_info
 * (MPI-4.0).
 *
 * Of a duplicate, the members need to agree on one thing only, its context id: the group, the
 * topology, the error handler and the attributes are each member's own. Ranks are threads of one
 * process, so they agree through memory, not through a collective: the k-th MPI_Comm_idup on a
 * communicator (its members call it in the same order, as any collective, MPI 3.1 5.12) is the
 * key (the parent's context id, k) of a process-wide table. The first member to come allocates
 * the id and leaves it under the key; each of the others takes it, the last one removes the
 * entry. So no member ever waits for another: the call makes the caller's view of the new
 * communicator at once and returns a request that is already complete, and any number of idups
 * and non-blocking collectives may be outstanding on a communicator, completed in any order.
 * (The other design, an nbc/ schedule broadcasting the id from rank 0 with a completion callback
 * that makes the view, would cost messages and a hook in every completion call for the same
 * result.)
 *
 *   pending ---> {parent 6, k 0, id 12, 2 to come} ---> {parent 6, k 1, id 14, 3 to come}
 *
 * A communicator of one rank needs no agreement, and must not meet the table: every rank's
 * MPI_COMM_SELF has the same context id. The copy callbacks of the attributes run in the call,
 * on the calling rank, as MPI_Comm_dup's do; the program may use newcomm once the request is
 * complete, which it already is. Entries live only while some member has not called yet: an
 * erroneous program whose members do not all call MPI_Comm_idup leaves its entry until the
 * process ends.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "mpi_impl.h"
#include "p2p/p2p.h"

typedef struct tm_mpi_idup_entry {
    int parent_context;
    unsigned seq; /* the parent's idup_seq at the call */
    int context_id;
    int to_come; /* members that have not taken it yet */
    struct tm_mpi_idup_entry *next;
} tm_mpi_idup_entry_t;

/* Held for a lookup and an insert or removal, never across a yield. */
static pthread_mutex_t tm_mpi_idup_lock = PTHREAD_MUTEX_INITIALIZER;
static tm_mpi_idup_entry_t *tm_mpi_idup_pending;

/* The context id of the seq-th idup of the communicator of context `parent`, with `size` (> 1)
 * members: a new one for the first member, the same for the others. Sets *id_p (-1 when the ids
 * ran out); 0 or -ENOMEM. */
static int tm_mpi_idup_agree(int parent, unsigned seq, int size, int *id_p)
{
    tm_mpi_idup_entry_t **link, *e;
    int err = 0;

    pthread_mutex_lock(&tm_mpi_idup_lock);
    for (link = &tm_mpi_idup_pending; (e = *link) != NULL; link = &e->next)
        if (e->parent_context == parent && e->seq == seq)
            break;
    if (e != NULL) {
        *id_p = e->context_id;
        if (--e->to_come == 0) {
            *link = e->next;
            free(e);
        }
    } else if ((e = malloc(sizeof(*e))) != NULL) {
        *e = (tm_mpi_idup_entry_t){parent, seq, tm_mpi_comm_context_alloc(), size - 1,
                                   tm_mpi_idup_pending};
        tm_mpi_idup_pending = e;
        *id_p = e->context_id;
    } else {
        err = -ENOMEM;
    }
    pthread_mutex_unlock(&tm_mpi_idup_lock);
    return err;
}

int tm_mpi_comm_agree_context(tm_mpi_comm_t *c, int *id_p)
{
    int members = c->size + (c->remote ? c->remote->size : 0);
    /* Counted before anything can fail, so that this member's next call keeps the others' key. */
    unsigned seq = c->idup_seq++;

    if (members == 1) {
        *id_p = tm_mpi_comm_context_alloc();
        return 0;
    }
    return tm_mpi_idup_agree(c->context_id, seq, members, id_p);
}

static int tm_mpi_comm_idup(const char *call, MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                            MPI_Request *request)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_p2p_request_t *req;
    int err = tm_mpi_comm_get(r, comm, call, &c);
    int id;

    if (err != MPI_SUCCESS)
        return err;
    /* ThreadMPI takes no hints: the info is checked and ignored. */
    if (info != MPI_INFO_NULL && (err = tm_mpi_info_check(r, info, call)) != MPI_SUCCESS)
        return err;
    if (newcomm == NULL || request == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "%s is NULL",
                                  newcomm ? "request" : "newcomm");
    if ((err = tm_mpi_comm_refuse_hosts(r, c, call)) != MPI_SUCCESS)
        return err;
    req = tm_p2p_request_new_coll_done(r, c, call, MPI_SUCCESS);
    if (req == NULL || tm_mpi_comm_agree_context(c, &id) < 0) {
        if (req)
            tm_p2p_request_release(r, req);
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    err = tm_mpi_comm_dup_finish(r, c, call, id, newcomm);
    if (err != MPI_SUCCESS) {
        tm_p2p_request_release(r, req);
        return err;
    }
    *request = tm_p2p_request_handle(req);
    return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return tm_mpi_comm_idup("MPI_Comm_idup", comm, MPI_INFO_NULL, newcomm, request);
}
#pragma weak MPI_Comm_idup = PMPI_Comm_idup

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    return tm_mpi_comm_idup("MPI_Comm_idup_with_info", comm, info, newcomm, request);
}
#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info
