/*
 * Initialization and finalization of MPI by a rank, and its thread level.
 *
 * A rank is one user-level thread, which the runtime finds through that thread. The threads the
 * rank starts remember it (runtime/threads.c): under MPI_THREAD_SERIALIZED or _MULTIPLE, they
 * call MPI for it, taking turns with it (obj/obj.h's TM_MPI_RANK); under SINGLE and FUNNELED,
 * an MPI call from one of them ends the job, saying why.
 */
#include "config.h"

#include <string.h>

#include "coll/check.h"
#include "mpi_impl.h"

static int tm_mpi_init_thread(const char *call, int required, int *provided)
{
    tm_rt_rank_t *rt = tm_mpi_rank_self(call);
    int state = atomic_load_explicit(&rt->mpi_state, memory_order_relaxed);
    int level;
    int err;

    if (state == TM_RT_MPI_INITIALIZED)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_OTHER, "MPI is already initialized");
    if (state == TM_RT_MPI_FINALIZED)
        tm_mpi_error_fatal(rt, call, MPI_ERR_OTHER,
                           "called after MPI_Finalize: MPI cannot be initialized again");
    if (provided == NULL)
        tm_mpi_error_fatal(rt, call, MPI_ERR_ARG, "provided is NULL");
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        tm_mpi_error_fatal(rt, call, MPI_ERR_ARG,
                           "invalid thread level %d (MPI_THREAD_SINGLE..MPI_THREAD_MULTIPLE are "
                           "%d..%d)",
                           required, MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE);
    err = tm_mpi_rank_create(rt);
    if (err < 0)
        tm_mpi_error_fatal(rt, call, MPI_ERR_NO_MEM, "cannot create the rank's MPI state: %s",
                           strerror(-err));
    level = required;
    rt->thread_level = level;
    ((tm_mpi_rank_t *)rt->mpi)->threads = level >= MPI_THREAD_SERIALIZED;
    /* Release: the runtime reads mpi_state from its own threads (to judge how a rank ends) and
     * must then see the thread level and state that go with it. */
    atomic_store_explicit(&rt->mpi_state, TM_RT_MPI_INITIALIZED, memory_order_release);
    *provided = level;
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    int provided;

    return tm_mpi_init_thread("MPI_Init", MPI_THREAD_SINGLE, &provided);
}
#pragma weak MPI_Init = PMPI_Init

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return tm_mpi_init_thread("MPI_Init_thread", required, provided);
}
#pragma weak MPI_Init_thread = PMPI_Init_thread

int PMPI_Finalize(void)
{
    TM_MPI_PROFILE_CALL(FINALIZE);
    static const char call[] = "MPI_Finalize";
    tm_rt_rank_t *rt = tm_mpi_rank_self(call);

    if (rt->mpi == NULL) {
        if (atomic_load_explicit(&rt->mpi_state, memory_order_relaxed) == TM_RT_MPI_FINALIZED)
            tm_mpi_error_fatal(rt, call, MPI_ERR_OTHER, "MPI is already finalized");
        tm_mpi_error_fatal(rt, call, MPI_ERR_OTHER, "called before MPI_Init");
    }
    /* A collective mismatch on MPI_COMM_WORLD not reported yet: now, and then finalized. */
    tm_mpi_rank_t *r = rt->mpi;
    int err = tm_coll_check_final(r, &r->world, call);
    tm_mpi_rank_destroy(rt);
    /* Release: pairs with the runtime's load, as in tm_mpi_init_thread. */
    atomic_store_explicit(&rt->mpi_state, TM_RT_MPI_FINALIZED, memory_order_release);
    return err;
}
#pragma weak MPI_Finalize = PMPI_Finalize

/* MPI_Initialized and MPI_Finalized: the state of the calling rank, or of the rank that started
 * the calling thread (any thread may ask). */
static tm_rt_rank_t *state_owner(const char *call)
{
    tm_rt_rank_t *rt = tm_rt_rank_self();
    if (!rt)
        rt = tm_rt_thread_rank();
    return rt ? rt : tm_mpi_rank_self(call);
}

int PMPI_Initialized(int *flag)
{
    static const char call[] = "MPI_Initialized";
    tm_rt_rank_t *rt = state_owner(call);

    if (flag == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "flag is NULL");
    *flag = atomic_load_explicit(&rt->mpi_state, memory_order_relaxed) != TM_RT_MPI_NOT_INITIALIZED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Initialized = PMPI_Initialized

int PMPI_Finalized(int *flag)
{
    static const char call[] = "MPI_Finalized";
    tm_rt_rank_t *rt = state_owner(call);

    if (flag == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "flag is NULL");
    *flag = atomic_load_explicit(&rt->mpi_state, memory_order_relaxed) == TM_RT_MPI_FINALIZED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Finalized = PMPI_Finalized

int PMPI_Query_thread(int *provided)
{
    static const char call[] = "MPI_Query_thread";
    TM_MPI_RANK(r, call);

    if (provided == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "provided is NULL");
    *provided = r->rt->thread_level;
    return MPI_SUCCESS;
}
#pragma weak MPI_Query_thread = PMPI_Query_thread

int PMPI_Is_thread_main(int *flag)
{
    static const char call[] = "MPI_Is_thread_main";
    tm_mpi_rank_t *r;

    /* The one call another thread of the rank may make: it is how it learns it may not. */
    if (tm_rt_rank_self() == NULL) {
        if (flag == NULL)
            tm_mpi_error_fatal(NULL, call, MPI_ERR_ARG, "flag is NULL");
        *flag = 0;
        return MPI_SUCCESS;
    }
    r = tm_mpi_rank_get(call);
    if (flag == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "flag is NULL");
    *flag = 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
