/*
 * The calling rank's MPI state, for the MPI calls: who calls, and whether MPI is usable (the state
 * itself is made and freed by mpi/rank.c).
 */
#include "config.h"

#include "obj/obj.h"

_Noreturn static void not_a_rank(const char *call)
{
    if (tm_rt_forked())
        tm_mpi_error_fatal(NULL, call, MPI_ERR_OTHER,
                           "called in a process that a rank forked: such a process may not call "
                           "MPI");
    tm_mpi_error_fatal(NULL, call, MPI_ERR_OTHER,
                       "called by a thread that is not an MPI rank (only a rank's own thread "
                       "may call MPI: ThreadMPI provides at most MPI_THREAD_FUNNELED)");
}

tm_rt_rank_t *tm_mpi_rank_self(const char *call)
{
    tm_rt_rank_t *rt = tm_rt_rank_self();

    if (rt == NULL)
        not_a_rank(call);
    return rt;
}

void tm_mpi_rank_get_failed(tm_rt_rank_t *rt, const char *call)
{
    if (rt == NULL)
        not_a_rank(call);
    /* Only this rank writes its state: relaxed is enough to read it back. */
    if (atomic_load_explicit(&rt->mpi_state, memory_order_relaxed) == TM_RT_MPI_FINALIZED)
        tm_mpi_error_fatal(rt, call, MPI_ERR_OTHER, "called after MPI_Finalize");
    tm_mpi_error_fatal(rt, call, MPI_ERR_OTHER, "called before MPI_Init");
}
