/*
 * The calling rank's MPI state, for the MPI calls: who calls, and whether MPI is usable (the state
 * itself is made and freed by mpi/rank.c).
 */
#include "config.h"

#include <sched.h>

#include "obj/obj.h"
#include "sched/sched.h"

_Noreturn static void not_a_rank(const char *call)
{
    if (tm_rt_forked())
        tm_mpi_error_fatal(NULL, call, MPI_ERR_OTHER,
                           "called in a process that a rank forked: such a process may not call "
                           "MPI");
    tm_mpi_error_fatal(NULL, call, MPI_ERR_OTHER,
                       "called by a thread that is not an MPI rank and that no rank started "
                       "(a rank's own thread may call MPI, and under MPI_THREAD_MULTIPLE the "
                       "threads it started)");
}

tm_rt_rank_t *tm_mpi_rank_self(const char *call)
{
    tm_rt_rank_t *rt = tm_rt_rank_self();

    if (rt == NULL)
        not_a_rank(call);
    return rt;
}

static const char *level_name(int level)
{
    static const char *const names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                        "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
    return level >= MPI_THREAD_SINGLE && level <= MPI_THREAD_MULTIPLE ? names[level] : "?";
}

tm_mpi_rank_t *tm_mpi_rank_get_slow(tm_rt_rank_t *rt, const char *call)
{
    if (rt == NULL) {
        tm_rt_rank_t *owner = tm_rt_thread_rank();
        if (owner == NULL)
            not_a_rank(call);
        if (tm_rt_thread_rank_uncertain())
            tm_mpi_error_fatal(owner, call, MPI_ERR_OTHER,
                               "called by a thread that the OpenMP runtime started for rank %d, "
                               "whose core other ranks share: that runtime may hand its threads "
                               "from one rank's parallel region to another's, so the call could "
                               "be made for the wrong rank; give each rank a core of its own "
                               "(mpcrun -n N with N at most the cores) for such threads to call "
                               "MPI",
                               owner->world_rank);
        /* The thread was started after its rank's MPI_Init and ends before its MPI_Finalize,
         * unless the program is wrong: the rank's state is read as it stands. */
        tm_mpi_rank_t *r = owner->mpi;
        if (r != NULL && r->threads)
            return r;
        if (r != NULL)
            tm_mpi_error_fatal(owner, call, MPI_ERR_OTHER,
                               "called by a thread that rank %d started, which initialized MPI "
                               "with %s: only MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE "
                               "(MPI_Init_thread) lets the threads a rank starts call MPI",
                               owner->world_rank, level_name(owner->thread_level));
        tm_mpi_error_fatal(owner, call, MPI_ERR_OTHER,
                           "called by a thread that rank %d started, while MPI is not "
                           "initialized on that rank",
                           owner->world_rank);
    }
    /* Only this rank writes its state: relaxed is enough to read it back. */
    if (atomic_load_explicit(&rt->mpi_state, memory_order_relaxed) == TM_RT_MPI_FINALIZED)
        tm_mpi_error_fatal(rt, call, MPI_ERR_OTHER, "called after MPI_Finalize");
    tm_mpi_error_fatal(rt, call, MPI_ERR_OTHER, "called before MPI_Init");
}

/* ---- turns ---- */

/* A thread's own value as the owner of a turn: the address of something of its own. */
static __thread char turn_self_id;

uintptr_t tm_mpi_turn_self(const tm_mpi_rank_t *r)
{
    return tm_rt_rank_self() == r->rt ? TM_MPI_TURN_RANK : (uintptr_t)&turn_self_id;
}

/* Waits for r's turn: the rank's ULT lets the ranks of its core run, a thread yields its CPU. */
static void turn_acquire(tm_mpi_rank_t *r, uintptr_t me)
{
    for (unsigned spins = 0;; spins++) {
        uintptr_t free_turn = 0;
        /* acquire: what the last owner did in its turn */
        if (atomic_load_explicit(&r->turn_owner, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(&r->turn_owner, &free_turn, me,
                                                  memory_order_acquire, memory_order_relaxed))
            return;
        if (me == TM_MPI_TURN_RANK) {
            if (!tm_sched_yield())
                tm_sched_cpu_relax();
        } else if (spins >= 64) {
            sched_yield();
        } else {
            tm_sched_cpu_relax();
        }
    }
}

void tm_mpi_turn_take(tm_mpi_rank_t *r)
{
    uintptr_t me = tm_mpi_turn_self(r);
    if (atomic_load_explicit(&r->turn_owner, memory_order_relaxed) == me) {
        r->turn_depth++;
        return;
    }
    turn_acquire(r, me);
    r->turn_depth = 1;
}

/* The turn is free again: a thread that held it wakes the rank's ULT if it sleeps in a wait,
 * which then looks again at what it waits for. The ULT publishes turn_sleeper before it gives
 * its turn up (tm_p2p_wait_sleeping), so a thread that took the turn after that sees it. */
static void turn_release(tm_mpi_rank_t *r, uintptr_t me)
{
    /* release: what we did in our turn, for the next owner's acquire */
    atomic_store_explicit(&r->turn_owner, 0, memory_order_release);
    if (me == TM_MPI_TURN_RANK)
        return;
    atomic_thread_fence(memory_order_seq_cst);
    tm_sched_ult_t *sleeper = atomic_load_explicit(&r->turn_sleeper, memory_order_acquire);
    if (sleeper)
        tm_sched_unpark(sleeper);
}

void tm_mpi_turn_give(tm_mpi_rank_t *r)
{
    if (--r->turn_depth == 0)
        turn_release(r, tm_mpi_turn_self(r));
}

/* A wait outside any MPI call's turn (MPI_Finalize's, which takes none) has none to give. */
unsigned tm_mpi_turn_give_all(tm_mpi_rank_t *r)
{
    uintptr_t me = tm_mpi_turn_self(r);
    if (atomic_load_explicit(&r->turn_owner, memory_order_relaxed) != me)
        return 0;
    unsigned depth = r->turn_depth;
    r->turn_depth = 0;
    turn_release(r, me);
    return depth;
}

void tm_mpi_turn_take_back(tm_mpi_rank_t *r, unsigned depth)
{
    if (depth == 0)
        return;
    turn_acquire(r, tm_mpi_turn_self(r));
    r->turn_depth = depth;
}
