/*
 * The synchronization calls of windows: MPI_Win_fence; MPI_Win_post, _start, _complete, _wait,
 * _test; MPI_Win_lock, _unlock, _lock_all, _unlock_all, the flushes and MPI_Win_sync. Here:
 * that each comes in a valid order (an epoch of one kind is not opened inside another that
 * covers the same target; what is closed was open), else MPI_ERR_RMA_SYNC; and that no window
 * is locked and exposed at once (MPI 3.1, 11.5.3), else MPI_ERR_RMA_CONFLICT, as far as the
 * lock words and exposure flags show it (a lock with MPI_MODE_NOCHECK takes no word). What they
 * do is rma/sync.c's.
 */
#include "config.h"

#include <stdlib.h>

#include "obj/group.h"
#include "p2p/p2p.h"
#include "sched/sched.h"
#include "win.h"

#define FENCE_ASSERTS (MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)
#define POST_ASSERTS  (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT)

static int check_assert(tm_rma_win_t *w, const char *call, int assert, int allowed)
{
    if ((assert & ~allowed) == 0)
        return MPI_SUCCESS;
    return tm_mpi_win_error(w, call, MPI_ERR_ASSERT, "invalid assert 0x%x for this call",
                            (unsigned)assert);
}

/* The open passive-target epoch, in words, or NULL. */
static const char *passive_open(const tm_rma_win_t *w)
{
    return w->lock_all ? "MPI_Win_lock_all" : w->nlocked > 0 ? "MPI_Win_lock" : NULL;
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_fence";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if ((err = check_assert(w, call, assert, FENCE_ASSERTS)) != MPI_SUCCESS)
        return err;
    const char *open = passive_open(w);
    if (open == NULL)
        open = w->started ? "MPI_Win_start" : w->posted ? "MPI_Win_post" : NULL;
    if (open != NULL)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC, "an epoch of %s is open on the window",
                                open);
    if ((assert &MPI_MODE_NOPRECEDE) && w->fence_access)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "MPI_MODE_NOPRECEDE, but this member accessed the window since "
                                "the last fence");
    tm_rma_fence(w, assert, call);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_fence = PMPI_Win_fence

/* ------------------------------------------------------------------ PSCW */

/* The window ranks of the members of group handle `group`, for post and start: *ranks_p (a
 * new array; NULL for an empty group) and *n_p. The caller's own rank may be in it. */
static int group_ranks(tm_mpi_rank_t *r, tm_rma_win_t *w, const char *call, MPI_Group group,
                       int **ranks_p, int *n_p)
{
    tm_mpi_group_t *g;
    int err = tm_mpi_group_get(r, group, call, &g);
    int *ranks = NULL;

    if (err != MPI_SUCCESS)
        return err;
    if (g->size > 0 && (ranks = malloc((size_t)g->size * sizeof(int))) == NULL)
        return tm_mpi_win_error(w, call, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < g->size; i++) {
        int world = tm_mpi_group_world_rank(g, i);

        ranks[i] = tm_mpi_group_rank_of(w->group, world);
        if (ranks[i] < 0) {
            free(ranks);
            return tm_mpi_win_error(w, call, MPI_ERR_GROUP,
                                    "member %d of the group (rank %d of MPI_COMM_WORLD) is not "
                                    "a member of the window",
                                    i, world);
        }
    }
    *ranks_p = ranks;
    *n_p = g->size;
    return MPI_SUCCESS;
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_post";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int *ranks, n;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if ((err = check_assert(w, call, assert, POST_ASSERTS)) != MPI_SUCCESS)
        return err;
    if (w->posted)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "the exposure epoch of the last MPI_Win_post is still open");
    if (tm_rma_locked(w, w->rank))
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_CONFLICT,
                                "the caller's window memory is locked (MPI_Win_lock or "
                                "MPI_Win_lock_all): it may not be exposed and locked at once");
    if ((err = group_ranks(r, w, call, group, &ranks, &n)) != MPI_SUCCESS)
        return err;
    w->fence = false;
    tm_rma_post(w, ranks, n, assert);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_post = PMPI_Win_post

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_start";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int *ranks, n;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if ((err = check_assert(w, call, assert, MPI_MODE_NOCHECK)) != MPI_SUCCESS)
        return err;
    const char *open = passive_open(w);
    if (open == NULL && w->started)
        open = "MPI_Win_start";
    if (open != NULL)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "an access epoch of %s is open on the window", open);
    if ((err = group_ranks(r, w, call, group, &ranks, &n)) != MPI_SUCCESS)
        return err;
    w->fence = false;
    tm_rma_start(w, ranks, n, assert, call);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_start = PMPI_Win_start

int PMPI_Win_complete(MPI_Win win)
{
    static const char call[] = "MPI_Win_complete";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (!w->started)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "no access epoch of MPI_Win_start is open");
    tm_rma_complete(w);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_complete = PMPI_Win_complete

static bool not_yet(void *arg)
{
    (void)arg;
    return false;
}

static int win_wait(const char *call, MPI_Win win, int *flag)
{
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (!w->posted)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "no exposure epoch of MPI_Win_post is open");
    if (flag == NULL) {
        tm_rma_wait(w, true, call);
        return MPI_SUCCESS;
    }
    *flag = tm_rma_wait(w, false, call);
    if (!*flag) /* a program that tests in a loop lets the origins of its core run */
        tm_p2p_poll(r, not_yet, NULL);
    return MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win win)
{
    return win_wait("MPI_Win_wait", win, NULL);
}
#pragma weak MPI_Win_wait = PMPI_Win_wait

int PMPI_Win_test(MPI_Win win, int *flag)
{
    static const char call[] = "MPI_Win_test";

    if (flag == NULL) {
        TM_MPI_RANK(r, call);
        tm_rma_win_t *w;
        int err = tm_mpi_win_get(r, win, call, &w);

        return err != MPI_SUCCESS ? err : tm_mpi_win_error(w, call, MPI_ERR_ARG, "flag is NULL");
    }
    return win_wait(call, win, flag);
}
#pragma weak MPI_Win_test = PMPI_Win_test

/* ------------------------------------------------------------------ passive target */

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_lock";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
        return tm_mpi_win_error(w, call, MPI_ERR_LOCKTYPE,
                                "invalid lock_type %d: MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED",
                                lock_type);
    if ((err = tm_mpi_win_check_rank(w, call, rank, true)) != MPI_SUCCESS)
        return err;
    if ((err = check_assert(w, call, assert, MPI_MODE_NOCHECK)) != MPI_SUCCESS)
        return err;
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (w->lock_all || w->started || (w->access[rank] & TM_RMA_ACCESS_LOCKED))
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "an access epoch of %s is open on the window",
                                w->lock_all  ? "MPI_Win_lock_all"
                                : w->started ? "MPI_Win_start"
                                             : "MPI_Win_lock on the same rank");
    if (w->info.no_locks)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "the window was created with info no_locks = true");
    if (tm_rma_exposed(w, rank))
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_CONFLICT,
                                "rank %d of the window is in an exposure epoch (MPI_Win_post, "
                                "not yet waited for): it may not be locked and exposed at once",
                                rank);
    w->fence = false;
    tm_rma_lock(w, rank, lock_type == MPI_LOCK_EXCLUSIVE, assert, call);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_lock = PMPI_Win_lock

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    static const char call[] = "MPI_Win_unlock";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_win_check_rank(w, call, rank, true)) != MPI_SUCCESS)
        return err;
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (!(w->access[rank] & TM_RMA_ACCESS_LOCKED))
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "rank %d of the window is not locked by MPI_Win_lock", rank);
    tm_rma_unlock(w, rank);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_unlock = PMPI_Win_unlock

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_lock_all";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if ((err = check_assert(w, call, assert, MPI_MODE_NOCHECK)) != MPI_SUCCESS)
        return err;
    const char *open = passive_open(w);
    if (open == NULL && w->started)
        open = "MPI_Win_start";
    if (open != NULL)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "an access epoch of %s is open on the window", open);
    if (w->info.no_locks)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "the window was created with info no_locks = true");
    for (int t = 0; t < w->size; t++)
        if (tm_rma_exposed(w, t))
            return tm_mpi_win_error(w, call, MPI_ERR_RMA_CONFLICT,
                                    "rank %d of the window is in an exposure epoch "
                                    "(MPI_Win_post, not yet waited for): it may not be locked "
                                    "and exposed at once",
                                    t);
    w->fence = false;
    tm_rma_lock_all(w, assert, call);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all

int PMPI_Win_unlock_all(MPI_Win win)
{
    static const char call[] = "MPI_Win_unlock_all";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (!w->lock_all)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC, "MPI_Win_lock_all was not called");
    tm_rma_unlock_all(w);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all

/* The flushes: every access is complete at its call; what is left is to check the epoch and
 * to order memory. `all`: every target, else `rank`. */
static int win_flush(const char *call, bool all, int rank, MPI_Win win)
{
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (!all && (err = tm_mpi_win_check_rank(w, call, rank, true)) != MPI_SUCCESS)
        return err;
    if (!all && rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (all ? passive_open(w) == NULL : !tm_rma_passive(w, rank))
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "no passive-target epoch (MPI_Win_lock or MPI_Win_lock_all) is "
                                "open on %s",
                                all ? "the window" : "that rank");
    /* The accesses are done: what is left is to keep the compiler from moving the caller's
     * later stores before them (the synchronization that tells the target orders the rest). */
    atomic_thread_fence(memory_order_release);
    /* A program that polls the target's memory in a loop of gets and flushes lets the rank that
     * will write it run, should it share this rank's core; not at each flush, which would
     * multiply the cost of a put and its flush by ten. */
    if (++w->flushes % 64 == 0)
        tm_p2p_poll(r, not_yet, NULL);
    return MPI_SUCCESS;
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
    return win_flush("MPI_Win_flush", false, rank, win);
}
#pragma weak MPI_Win_flush = PMPI_Win_flush

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return win_flush("MPI_Win_flush_local", false, rank, win);
}
#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local

int PMPI_Win_flush_all(MPI_Win win)
{
    return win_flush("MPI_Win_flush_all", true, 0, win);
}
#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all

int PMPI_Win_flush_local_all(MPI_Win win)
{
    return win_flush("MPI_Win_flush_local_all", true, 0, win);
}
#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all

int PMPI_Win_sync(MPI_Win win)
{
    static const char call[] = "MPI_Win_sync";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    atomic_thread_fence(memory_order_seq_cst);
    /* The program polls its window's memory with it (passive-target notification): the rank
     * that will write there may share this rank's core, and then runs now. Nothing else is
     * asked of this call: a poll that no other rank of the core waits for costs a fence. */
    if (tm_sched_others_ready())
        tm_p2p_poll(r, not_yet, NULL);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_sync = PMPI_Win_sync
