/*
 * ThreadMPI rma/: one-sided communication (MPI-3.1 chapter 11): windows, their accesses and
 * their synchronization.
 *
 * A window has two parts:
 *
 *   tm_rma_shared_t   what the members share, made by the first member: for each member its
 *                     memory (base, size, disp_unit; a dynamic window's attached regions), the
 *                     lock of passive-target epochs, the lock that makes accumulates atomic and
 *                     the counters of general active target (PSCW); the members' barrier.
 *   tm_rma_win_t      a member's own: what its MPI_Win designates: its epochs, its error
 *                     handler, attributes, name and info. Only the member's thread touches it.
 *
 * Accesses. The ranks are threads of one process, so the origin does each access itself, at the
 * call, straight between its buffer and the target's memory through the datatype engine (a put
 * is one tm_mpi_type_copy to the target, a get one from it); an accumulate does the same under
 * the target's accumulate lock. Every access is thus complete when its call returns; the target
 * never takes part (it may compute, sleep, or wait in any MPI call) and needs no progress.
 * What is left to synchronization is to order memory and to tell ranks what the others did:
 *
 *   fence            the members' barrier, acquire-release: what any member stored before it,
 *                    every member sees after it
 *   post / start     the target adds one to its entry of each origin's `posts` (release); start
 *                    waits until the entry of each target of its group has grown (acquire)
 *   complete / wait  the origin adds one to each target's `completes`; wait waits until it has
 *                    grown by one per origin of its post's group
 *   lock / unlock    a reader-writer lock word per target, taken by the origin; a waiter counts
 *                    itself in the target's `lock_waiters` and sleeps; unlock wakes the members
 *                    when it sees a waiter
 *
 * PSCW counts per pair of origin and target on the posting side: a target may post for an
 * origin's next epoch while the origin still waits for another target's post of the current one,
 * so a count of all posts would let the origin in too early. A target's completes need one
 * count: MPI matches the groups, so an origin completes to a target only in an epoch that the
 * target's current post opened (its start waited for it), and the target's next post comes
 * after its wait. A waiting rank sleeps as in any MPI wait
 * (tm_p2p_wait_noted: noted for hang diagnosis) and whoever ends its wait pokes its mailbox.
 */
#ifndef TM_RMA_H
#define TM_RMA_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "obj/datatype.h"
#include "obj/obj.h"
#include "obj/op.h"
#include "sched/sched.h"

/* Memory attached to a dynamic window: addresses [lo, hi). */
typedef struct tm_rma_region {
    uintptr_t lo, hi;
} tm_rma_region_t;

/* The lock word's exclusive holder; otherwise the word counts the shared holders. */
#define TM_RMA_LOCK_EXCLUSIVE (1 << 30)

/* One member's part of a window, on a cache line of its own. */
typedef struct tm_rma_target {
    /* Set by the member at creation, read by all after the creation's barrier */
    char *base;
    MPI_Aint size;
    MPI_Aint disp_unit;
    int world_rank;
    /* Passive target */
    _Atomic int lock;         /* TM_RMA_LOCK_EXCLUSIVE, or the number of shared holders */
    _Atomic int lock_waiters; /* members waiting to take `lock` */
    atomic_flag acc_lock;     /* held during one accumulate to this member's memory */
    /* General active target (see the top of the file) */
    _Atomic unsigned *posts;    /* as an origin: by target, the posts that named it */
    _Atomic unsigned completes; /* as a target: completes of the origins that named it */
    _Atomic bool exposed;       /* from its MPI_Win_post to the end of its MPI_Win_wait */
    /* A dynamic window's memory of this member, sorted, disjoint; under regions_lock, which
     * the member takes to attach and detach and the origins to find an address */
    atomic_flag regions_lock;
    int nregions, regions_cap;
    tm_rma_region_t *regions;
} __attribute__((aligned(64))) tm_rma_target_t;

typedef struct tm_rma_shared {
    _Atomic int refs;    /* members that have not freed the window */
    int size;            /* members */
    int flavor;          /* MPI_WIN_FLAVOR_* */
    char *memory;        /* MPI_Win_allocate_shared's block: every member's memory */
    _Atomic bool failed; /* a member ran out of memory creating the window */
    /* The members' barrier: a count of arrivals, and the generation its last arrival ends */
    _Atomic unsigned barrier_arrived __attribute__((aligned(64)));
    _Atomic unsigned barrier_gen __attribute__((aligned(64)));
    tm_rma_target_t targets[];
} tm_rma_shared_t;

/* A member's access rights to one target (tm_rma_win_t.access). */
#define TM_RMA_ACCESS_SHARED    1u /* MPI_Win_lock(MPI_LOCK_SHARED) */
#define TM_RMA_ACCESS_EXCLUSIVE 2u /* MPI_Win_lock(MPI_LOCK_EXCLUSIVE) */
#define TM_RMA_ACCESS_NOCHECK   4u /* locked with MPI_MODE_NOCHECK: the lock word was not taken */
#define TM_RMA_ACCESS_START     8u /* in the group of the open MPI_Win_start */
#define TM_RMA_ACCESS_LOCKED    (TM_RMA_ACCESS_SHARED | TM_RMA_ACCESS_EXCLUSIVE)

typedef struct tm_mpi_attr tm_mpi_attr_t;

/* The info keys of a window (MPI 3.1, 11.2.1), as set at creation or by MPI_Win_set_info. They
 * change nothing of what the window does: every access is done at its call, in order. */
typedef struct tm_rma_info {
    bool no_locks;
    bool same_size;
    bool same_disp_unit;
    bool alloc_shared_noncontig;
    char accumulate_ordering[40]; /* "rar,raw,war,waw" or a subset, or "none" */
    char accumulate_ops[24];      /* "same_op_no_op" or "same_op" */
} tm_rma_info_t;

/* A member's window. */
typedef struct tm_rma_win {
    tm_mpi_rank_t *owner;
    MPI_Win handle;
    int index; /* in owner->wins */
    tm_rma_shared_t *shared;
    tm_mpi_group_t *group; /* the members (a reference), in window rank order */
    int rank, size;        /* of the owner in the window, and the members */
    int flavor;
    /* What the predefined attributes point to (MPI_Win_get_attr) */
    void *attr_base;
    MPI_Aint attr_size;
    int attr_disp_unit, attr_flavor, attr_model;
    /* Error handler, as a communicator's (obj/obj.h) */
    MPI_Errhandler errhandler;
    tm_mpi_errhandler_t *errhandler_user;
    tm_mpi_attr_t *attrs; /* the program's attributes, newest first (mpi/attr.c) */
    char name[MPI_MAX_OBJECT_NAME];
    tm_rma_info_t info;
    /* Epochs */
    bool fence;        /* a fence opened an epoch that no MPI_MODE_NOSUCCEED fence closed */
    bool fence_access; /* an access was made in it since the last fence */
    bool lock_all;     /* MPI_Win_lock_all */
    bool lock_all_nocheck;
    int nlocked;  /* targets locked with MPI_Win_lock */
    bool started; /* MPI_Win_start's access epoch is open: */
    int nstart;   /* its targets, as window ranks */
    int *start_ranks;
    bool posted; /* MPI_Win_post's exposure epoch is open: */
    bool post_nocheck;
    int npost; /* its origins, as window ranks */
    int *post_ranks;
    unsigned *posts_seen;    /* by target: its posts that this member's starts counted */
    _Atomic unsigned *posts; /* by target: its posts that named this member (sh's `posts`) */
    unsigned completes_seen; /* completes counted by its waits so far */
    uint8_t *access;         /* per target: TM_RMA_ACCESS_* */
    unsigned flushes;        /* flushes made (every 64th lets the ranks of the core run) */
} tm_rma_win_t;

/* The window's spin locks (accumulates, regions): held for a copy or a reduction, never across
 * a yield, so a waiter spins; after a while it lets the kernel run another thread, in case the
 * holder's VP was preempted (more VPs than cores). */
static inline void tm_rma_spin_lock(atomic_flag *lock)
{
    for (unsigned spins = 1; atomic_flag_test_and_set_explicit(lock, memory_order_acquire);
         spins++) {
        if (spins % 1024 == 0)
            sched_yield();
        else
            tm_sched_cpu_relax();
    }
}

static inline void tm_rma_spin_unlock(atomic_flag *lock)
{
    atomic_flag_clear_explicit(lock, memory_order_release);
}

/* ------------------------------------------------------------------ windows (win.c) */

/* The shared part of a new window of the members of `group` (in window rank order), flavor
 * MPI_WIN_FLAVOR_*, counting one reference per member; each member's memory is set by
 * tm_rma_win_join. NULL when out of memory. */
tm_rma_shared_t *tm_rma_shared_new(const tm_mpi_group_t *group, int flavor);

/* Drops a member's reference; the last frees the shared part (and MPI_Win_allocate_shared's
 * memory). The members must have passed a barrier after their last access. */
void tm_rma_shared_release(tm_rma_shared_t *sh);

/* A new window of r, member `rank` of `group` (the window takes a reference), not joined to
 * a shared part yet. NULL when out of memory. */
tm_rma_win_t *tm_rma_win_new(tm_mpi_rank_t *r, tm_mpi_group_t *group, int rank);

/* Joins w to shared part sh, with its memory (base, size, disp_unit) for the others, who may
 * read it after the next barrier. */
void tm_rma_win_join(tm_rma_win_t *w, tm_rma_shared_t *sh, void *base, MPI_Aint size,
                     MPI_Aint disp_unit);

/* Whether member t's memory is locked (by MPI_Win_lock or _lock_all without MPI_MODE_NOCHECK),
 * or exposed (between its MPI_Win_post and the end of its MPI_Win_wait), as seen now: MPI 3.1,
 * 11.5.3, makes a window locked and exposed at once erroneous. */
static inline bool tm_rma_locked(const tm_rma_win_t *w, int t)
{
    return atomic_load_explicit(&w->shared->targets[t].lock, memory_order_relaxed) != 0;
}

static inline bool tm_rma_exposed(const tm_rma_win_t *w, int t)
{
    return atomic_load_explicit(&w->shared->targets[t].exposed, memory_order_relaxed);
}

/* Frees w (and MPI_Win_allocate's memory); not its shared part (tm_rma_shared_release). */
void tm_rma_win_free(tm_rma_win_t *w);

/* The members' barrier, on shared part sh for r, its member `rank` (tm_rma_barrier: on w's);
 * `call` names the waiting call for hang diagnosis. Everything a member stored before it, the
 * others see after it. */
void tm_rma_shared_barrier(tm_rma_shared_t *sh, tm_mpi_rank_t *r, int rank, const char *call);
void tm_rma_barrier(tm_rma_win_t *w, const char *call);

/* MPI_Win_allocate_shared's memory: member i asks for sizes[i] bytes (what each member wrote
 * as its size in tm_rma_win_join, after a barrier); the first member allocates one block for
 * all, the others take their piece after the next barrier. Contiguous in rank order, or each
 * piece 128-byte aligned when `noncontig`. Sets the base of every target and
 * returns 0, or -ENOMEM (on every member, after the same barriers). */
int tm_rma_shared_allocate(tm_rma_win_t *w, bool noncontig, const char *call);

/* Dynamic windows: adds [base, base + size) to the caller's memory (-EEXIST when it overlaps
 * memory attached already, -ENOMEM), or removes the region attached at base (-ENOENT). */
int tm_rma_attach(tm_rma_win_t *w, void *base, MPI_Aint size);
int tm_rma_detach(tm_rma_win_t *w, const void *base);

/* Whether [lo, hi) lies in one region attached to t (for tm_rma_target_addr). */
bool tm_rma_regions_hold(tm_rma_target_t *t, uintptr_t lo, uintptr_t hi);

/* ------------------------------------------------------------------ accesses (access.c) */

/* Where count elements of `type` at target_disp fall in target t's memory: sets *addr_p to
 * the address of element 0 and returns 0, or -ERANGE when any byte of them is outside the
 * target's window (a dynamic window: outside one region attached to it). */
int tm_rma_target_addr(tm_rma_win_t *w, int t, MPI_Aint target_disp, size_t count,
                       const tm_mpi_type_t *type, char **addr_p);

/* MPI_Put and MPI_Get once checked: the data of (src, scount, stype) into the same stream of
 * (dst, dcount, dtype), one of them in target t's memory. A large copy is offered in part to
 * the target (tm_p2p_copy): one that waits in MPI meanwhile (a fence, MPI_Win_wait) copies
 * from the other end. */
void tm_rma_copy(tm_rma_win_t *w, int t, void *dst, size_t dcount, const tm_mpi_type_t *dtype,
                 const void *src, size_t scount, const tm_mpi_type_t *stype);

/* MPI_Accumulate and MPI_Get_accumulate once checked, atomic on target t (whose memory at
 * `target` holds tcount elements of ttype): with result != NULL, first copies the target's
 * data into (result, rcount, rtype); then target = origin op target (op MPI_REPLACE: origin;
 * MPI_NO_OP: unchanged). 0 or -ENOMEM (nothing done). */
int tm_rma_accumulate(tm_rma_win_t *w, int t, const void *origin, size_t ocount,
                      const tm_mpi_type_t *otype, void *result, size_t rcount,
                      const tm_mpi_type_t *rtype, void *target, size_t tcount,
                      const tm_mpi_type_t *ttype, const tm_mpi_op_t *op);

/* MPI_Compare_and_swap once checked: atomically, result = target, and target = origin when it
 * held the same `bytes` bytes as compare. */
void tm_rma_compare_and_swap(tm_rma_win_t *w, int t, const void *origin, const void *compare,
                             void *result, void *target, size_t bytes);

/* ------------------------------------------------------------------ synchronization (sync.c) */

/* MPI_Win_fence once checked: the barrier; the epoch stays open unless MPI_MODE_NOSUCCEED. */
void tm_rma_fence(tm_rma_win_t *w, int assert, const char *call);

/* MPI_Win_post: exposes the caller's memory to the members ranks[0..n-1] (window ranks; the
 * window takes the array). */
void tm_rma_post(tm_rma_win_t *w, int *ranks, int n, int assert);

/* MPI_Win_start: opens access to ranks[0..n-1] (the window takes the array) and waits until
 * each has posted (not with MPI_MODE_NOCHECK). */
void tm_rma_start(tm_rma_win_t *w, int *ranks, int n, int assert, const char *call);

/* MPI_Win_complete: ends the access epoch of the last start. */
void tm_rma_complete(tm_rma_win_t *w);

/* MPI_Win_wait (block) and MPI_Win_test (!block): whether every origin of the last post has
 * completed; if so the exposure epoch ends. */
bool tm_rma_wait(tm_rma_win_t *w, bool block, const char *call);

/* MPI_Win_lock: waits until target t's lock is taken (exclusive or shared); with
 * MPI_MODE_NOCHECK takes nothing. MPI_Win_unlock gives it back. */
void tm_rma_lock(tm_rma_win_t *w, int t, bool exclusive, int assert, const char *call);
void tm_rma_unlock(tm_rma_win_t *w, int t);

/* MPI_Win_lock_all and MPI_Win_unlock_all: every member's lock, shared. */
void tm_rma_lock_all(tm_rma_win_t *w, int assert, const char *call);
void tm_rma_unlock_all(tm_rma_win_t *w);

/* Whether w's member may access target t now: an epoch is open that covers it. */
static inline bool tm_rma_may_access(const tm_rma_win_t *w, int t)
{
    return w->fence || w->lock_all || w->access[t] != 0;
}

/* Whether t is covered by a passive-target epoch (the request forms, the flushes). */
static inline bool tm_rma_passive(const tm_rma_win_t *w, int t)
{
    return w->lock_all || (w->access[t] & TM_RMA_ACCESS_LOCKED) != 0;
}

#endif /* TM_RMA_H */
