/*
 * ThreadMPI mpi/: what the files of the MPI API share, beyond the objects (obj/obj.h).
 *
 * The API edge: each MPI call checks its arguments, resolves its handles to objects and reports
 * what is wrong (tm_mpi_error_raise), then hands over to the layer that does the work (p2p/,
 * coll/, obj/). Functions here follow obj/'s status convention.
 */
#ifndef TM_MPI_IMPL_H
#define TM_MPI_IMPL_H

#include "obj/obj.h"
#include "profile_calls.h"

/* Creates the MPI state of rank `rt` and attaches it to rt->mpi. 0 or -ENOMEM. */
int tm_mpi_rank_create(tm_rt_rank_t *rt);

/* Frees the MPI state of `rt` and sets rt->mpi back to NULL. */
void tm_mpi_rank_destroy(tm_rt_rank_t *rt);

/* Tags of the traffic that creates communicators (comm_create.c), on the collective context of
 * the parent (its context_id + 1). Negative, below MPI_ANY_TAG, so that they never meet the
 * non-negative tags that MPI_Comm_create_group passes through from the program. */
#define TM_MPI_TAG_COMM_DUP       (-2)
#define TM_MPI_TAG_COMM_SPLIT_IN  (-3)
#define TM_MPI_TAG_COMM_SPLIT_OUT (-4)
#define TM_MPI_TAG_INTERCOMM      (-5) /* intercomm.c */
#define TM_MPI_TAG_WIN_CREATE     (-6) /* win.c */
#define TM_MPI_TAG_COMM_SPLIT_LIST (-7)

/* A new even context id from the process-wide counter (id + 1 is the collective context), or -1
 * when they are exhausted (comm_create.c). */
int tm_mpi_comm_context_alloc(void);

/* The view of `parent` that carries creation traffic (on its collective context, errors fatal:
 * the program has no handler for internal ones). */
void tm_mpi_comm_coll_view(tm_mpi_comm_t *view, const tm_mpi_comm_t *parent);

/* Sends `bytes` of buf to `dest` of view and waits until the buffer is free; receives exactly
 * `bytes` from `source`. 0 or -ENOMEM. */
int tm_mpi_comm_send(tm_mpi_rank_t *r, tm_mpi_comm_t *view, const char *call, const void *buf,
                     size_t bytes, int dest, int tag);
int tm_mpi_comm_recv(tm_mpi_rank_t *r, tm_mpi_comm_t *view, const char *call, void *buf,
                     size_t bytes, int source, int tag);

/* A new view for r of the communicator (context_id, group), where r is `rank`, inheriting
 * parent's error handler; it takes over the caller's reference to group. On success publishes
 * it in r's table, sets *comm_p and returns 0; -ENOMEM (group released). */
int tm_mpi_comm_view_new(tm_mpi_rank_t *r, const tm_mpi_comm_t *parent, int context_id,
                         tm_mpi_group_t *group, int rank, tm_mpi_comm_t **comm_p);

/* The context id of the next communicator made from c by all its members (both groups of an
 * intercommunicator) without messages: MPI_Comm_idup, and MPI_Comm_dup and MPI_Intercomm_merge
 * of an intercommunicator (comm_idup.c). The members call in the same order. Sets *id_p (-1 when
 * the ids ran out); 0 or -ENOMEM. */
int tm_mpi_comm_agree_context(tm_mpi_comm_t *c, int *id_p);

/* Calls that work through the members' memory and not yet through the network refuse a
 * communicator with members on other hosts (an intercommunicator's two groups count):
 * MPI_ERR_UNSUPPORTED_OPERATION through c's handler, else MPI_SUCCESS (comm_create.c). */
int tm_mpi_comm_refuse_hosts(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call);

/* MPI_Comm_create on intercommunicator c (intercomm.c): the intercommunicator between g, a
 * subgroup of c's local group that all its members pass, and the remote group's; MPI_COMM_NULL
 * outside g or when a side is empty. */
int tm_mpi_intercomm_create_sub(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                tm_mpi_group_t *g, MPI_Comm *newcomm);

/* MPI_Comm_split on intercommunicator c (intercomm.c): for each color both sides have, the
 * intercommunicator between its members on each side, ordered by key then rank; MPI_COMM_NULL
 * for the others. */
int tm_mpi_intercomm_split(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, int color,
                           int key, MPI_Comm *newcomm);

/* The local part of duplicating c (MPI_Comm_dup, MPI_Comm_idup), once the members agree on
 * `context_id` (-1: the ids ran out): r's view with c's group, topology and error handler and the
 * attributes c's copy callbacks copy. MPI_SUCCESS with *newcomm set; otherwise reports the error
 * for `call` through c's handler and returns the error class. */
int tm_mpi_comm_dup_finish(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, int context_id,
                           MPI_Comm *newcomm);

/* Frees the communicators r's program left (at MPI_Finalize, after MPI_COMM_SELF's attributes
 * are deleted), deleting their attributes whatever the callbacks return. */
void tm_mpi_comm_rank_fini(tm_mpi_rank_t *r);

/* Checks info handle `handle` (MPI_INFO_ENV included) for `call`: MPI_SUCCESS, or reports
 * MPI_ERR_INFO through MPI_COMM_WORLD's handler and returns what it returns. */
int tm_mpi_info_check(tm_mpi_rank_t *r, MPI_Info handle, const char *call);

/* Gives group g (a reference, or NULL when its creation failed) a handle in *newgroup
 * (group.c); reports MPI_ERR_NO_MEM for `call`. */
int tm_mpi_group_return(tm_mpi_rank_t *r, const char *call, tm_mpi_group_t *g,
                        MPI_Group *newgroup);

#endif /* TM_MPI_IMPL_H */
