/*
 * ThreadMPI runtime: what the MPI layer may know of the job and of the calling rank.
 *
 * A rank is one private copy of the user's program, run by one ULT. The runtime creates the
 * ranks at start-up; mpi/ reads their identity here and records the MPI state of each rank,
 * which the runtime needs to judge how a rank ends (exit() before MPI_Finalize aborts the job).
 */
#ifndef TM_RT_RANK_H
#define TM_RT_RANK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sched/sched.h"

typedef enum tm_rt_mpi_state {
    TM_RT_MPI_NOT_INITIALIZED = 0,
    TM_RT_MPI_INITIALIZED,
    TM_RT_MPI_FINALIZED
} tm_rt_mpi_state_t;

/* Bytes of a blocked rank's note (below). */
#define TM_RT_BLOCKED_NOTE_SIZE 256

typedef struct tm_rt_rank {
    int world_rank;
    _Atomic int mpi_state; /* tm_rt_mpi_state_t; written by mpi/, read by the runtime */
    int thread_level;      /* the level MPI_Init_thread provided */
    void *mpi;             /* per-rank state owned by mpi/ (NULL until it sets it) */
    /* Per-rank state owned by mpi/ that lasts the rank's life, before MPI_Init and after
     * MPI_Finalize too (its info objects: mpi/info.c); NULL until it sets it. */
    void *mpi_lasting;
    /* What the rank waits for while it blocks in MPI, for hang diagnosis (mpcrun --timeout):
     * mpi/ records it with tm_rt_blocked_note_write, then sets `blocked` (release), and clears
     * `blocked` when the wait ends. The note holds values of mpi/'s own layout, not text: ranks
     * sharing a core block at nearly every message, and a formatted print there would cost more
     * than the message. The diagnosis turns it into words with `blocked_describe`, e.g.
     * "MPI_Recv(source=5, tag=7, comm=MPI_COMM_WORLD)". The diagnosis runs on a thread of its
     * own while the rank may be writing a new note: a sequence count makes the note a seqlock
     * (odd while written), and its words are atomics, so the reader sees one whole note. */
    _Atomic int blocked;
    void (*_Atomic blocked_describe)(const void *note, char *buf, size_t len);
    _Atomic unsigned blocked_seq;
    _Atomic uint64_t blocked_note[TM_RT_BLOCKED_NOTE_SIZE / 8];
} tm_rt_rank_t;

/* Records the calling rank's note (`len` bytes at most TM_RT_BLOCKED_NOTE_SIZE) and the function
 * that puts it into words. The rank's own ULT only: one writer. */
static inline void tm_rt_blocked_note_write(tm_rt_rank_t *rt, const void *note, size_t len,
                                            void (*describe)(const void *, char *, size_t))
{
    unsigned seq = atomic_load_explicit(&rt->blocked_seq, memory_order_relaxed);
    atomic_store_explicit(&rt->blocked_seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release); /* the odd count before any word of the note */
    for (size_t i = 0; i < (len + 7) / 8; i++) {
        uint64_t word = 0;
        memcpy(&word, (const char *)note + 8 * i, len - 8 * i < 8 ? len - 8 * i : 8);
        atomic_store_explicit(&rt->blocked_note[i], word, memory_order_relaxed);
    }
    atomic_store_explicit(&rt->blocked_describe, describe, memory_order_relaxed);
    atomic_store_explicit(&rt->blocked_seq, seq + 2, memory_order_release);
}

/* Copies rank rt's note into buf (TM_RT_BLOCKED_NOTE_SIZE bytes) as it stood at one moment and
 * returns the function that puts it into words; NULL when none was recorded, or when the rank
 * kept rewriting it. Any thread. */
static inline void (*tm_rt_blocked_note_read(tm_rt_rank_t *rt, void *buf))(const void *, char *,
                                                                           size_t)
{
    for (int attempt = 0; attempt < 1000; attempt++) {
        unsigned seq = atomic_load_explicit(&rt->blocked_seq, memory_order_acquire);
        if (seq & 1)
            continue;
        for (size_t i = 0; i < TM_RT_BLOCKED_NOTE_SIZE / 8; i++) {
            uint64_t word = atomic_load_explicit(&rt->blocked_note[i], memory_order_relaxed);
            memcpy((char *)buf + 8 * i, &word, 8);
        }
        void (*describe)(const void *, char *, size_t) =
            atomic_load_explicit(&rt->blocked_describe, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire); /* the words before the second look */
        if (atomic_load_explicit(&rt->blocked_seq, memory_order_relaxed) == seq)
            return describe;
    }
    return NULL;
}

/* A ULT's data: for a rank's main ULT, its rank (&job.ranks[r].pub in job.c); for a rank's
 * progress thread, that address with this low bit set, which tm_rt_rank_self does not take for
 * a rank. */
#define TM_RT_PROGRESS_TAG ((uintptr_t)1)

/* The rank whose ULT is calling, or NULL when the caller is not a rank's main ULT. Inline: every
 * MPI call asks. */
static inline tm_rt_rank_t *tm_rt_rank_self(void)
{
    uintptr_t data = (uintptr_t)tm_sched_self_data();
    return data & TM_RT_PROGRESS_TAG ? NULL : (tm_rt_rank_t *)data;
}

/* The rank that started the calling thread, directly or through threads it started (a
 * pthread_create interposed for the process, runtime/threads.c); NULL for the ranks' own ULTs
 * and for threads that no rank started. */
tm_rt_rank_t *tm_rt_thread_rank(void);

/* Whether that rank is uncertain: the calling thread was started by an OpenMP runtime for a rank
 * whose kernel thread other ranks share. Such a runtime keeps its pool of threads per kernel
 * thread, so that a parallel region of one rank may run on threads another rank's region
 * started. */
bool tm_rt_thread_rank_uncertain(void);

/* A rank's progress thread runs its collectives, and with them the user operations of its
 * reductions, which MPI lets call MPI_Abort (MPI 3.1, section 5.9.5). It is no rank for MPI
 * calls, but tm_rt_progress_owner tells which rank's it is: the rank the calling progress thread
 * serves, else NULL. The progress thread itself calls tm_rt_progress_attach_self first. */
tm_rt_rank_t *tm_rt_progress_owner(void);
void tm_rt_progress_attach_self(int world_rank);

/* Whether this process is one that a rank forked (it may not call MPI). */
bool tm_rt_forked(void);

/* Number of ranks of the job (the size of MPI_COMM_WORLD), on every host. */
int tm_rt_world_size(void);

/* The ranks of this process: world ranks tm_rt_local_first() to tm_rt_local_first() +
 * tm_rt_local_size() - 1, one range (a job on several hosts numbers its ranks host by host).
 * Every rank of this process reaches the others through memory; what follows about a rank's
 * VP, core, memory and progress thread takes a rank of this process only. */
int tm_rt_local_first(void);
int tm_rt_local_size(void);
bool tm_rt_rank_is_local(int world_rank);

/* Whether the job diagnoses hangs (mpcrun --timeout, [job] timeout): only then is a blocked
 * rank's note ever read, so mpi/ makes notes only then. Fixed before the ranks start. */
bool tm_rt_hangs_diagnosed(void);

/* The largest message, in bytes, that travels inside a mailbox cell ([p2p] eager_limit). */
size_t tm_rt_eager_limit(void);

/* The bytes from which a non-blocking collective goes to a progress thread alone on its core as
 * it starts ([nbc] handoff_bytes, nbc/engine.c). */
size_t tm_rt_handoff_bytes(void);

/* Seconds a progress thread alone on its core polls after its last work before it sleeps ([nbc]
 * progress_spin_us, nbc/engine.c). */
double tm_rt_progress_spin(void);

/* Whether the collectives compare their data's types ([coll] check_types). */
bool tm_rt_coll_check_types(void);

/* [nbc] split_levels: the binomial-tree levels of collectives that run on the ranks rather than
 * their progress threads, or -1 for the model's choice. */
int tm_rt_split_levels(void);

/* Cores of the job that host progress threads and no rank (the split-tree model's P); 0 when
 * the progress threads share the ranks' cores, or there are none. */
int tm_rt_idle_cores(void);

/* Whether some core runs two ranks or more (more ranks than cores): then the work of all the
 * ranks, more than any one path through a collective, sets its time. The same for every rank. */
bool tm_rt_ranks_share_cores(void);

/* A job on several hosts: the two answers above as the whole job must give them, since the
 * members of a collective choose its algorithm from them (some core of some host runs two ranks;
 * the fewest idle cores of a host). Set once by the wire-up (p2p/net_transport.c), before any
 * rank's first collective. */
void tm_rt_job_agree(bool ranks_share_cores, int idle_cores);

/* The machine's processors (the kernel's numbers) that this process's ranks are pinned to: bit i
 * of mask (bits long) for processor i. None when the job is not pinned (a topology that is not
 * this machine's). For the job's processes to see whether they share cores (p2p/net_transport.c):
 * hosts that are namespaces or containers of one machine. */
void tm_rt_ranks_cpus(unsigned char *mask, size_t bits);

/* A job on several hosts: what the network transport adds to mpcrun --timeout's report of where
 * each rank is, on stderr after the ranks' lines (p2p/net_transport.c). Set once by the
 * wire-up; called from the timeout's thread while the job runs. */
void tm_rt_job_report_network(void (*report)(void));

/* The VP where world rank `world_rank` runs (ranks never change VPs). */
int tm_rt_rank_vp(int world_rank);

/* Whether other ranks run on the VP of rank `world_rank` (they share its kernel thread). */
bool tm_rt_rank_shares_vp(int world_rank);

/* The VP where the progress thread of world rank `world_rank` runs ([placement] progress), or -1
 * when ranks have no progress thread (progress = none: collectives progress in MPI calls). */
int tm_rt_progress_vp(int world_rank);

/* Whether the progress thread of world rank `world_rank` has a core of its own: its VP is pinned to
 * one of this machine's cores (not a core of a synthetic topology, which many VPs may share) and
 * runs no rank. */
bool tm_rt_progress_alone(int world_rank);

/* Where the memory of world rank `world_rank` (its mailbox cells) should come from ([memory]
 * policy): a NUMA node as libnuma numbers them, or one of these. */
#define TM_RT_MEMORY_NODE_ANY        (-1) /* no preference: where first touched */
#define TM_RT_MEMORY_NODE_INTERLEAVE (-2) /* every node, page by page */
int tm_rt_memory_node(int world_rank);

/* The NUMA node (hwloc's logical index) of the core of world rank `world_rank`, for decisions of
 * locality (which copy of some data a rank should read), or -1 when they make no sense: memory is
 * interleaved ([memory] policy), or the topology has a single NUMA node. Also for a topology that
 * is not this machine's (HWLOC_SYNTHETIC, HWLOC_XMLFILE), whose jobs are not pinned: there it
 * lets such decisions be tested. */
int tm_rt_numa_node(int world_rank);

/* Seconds on a clock shared by every rank, from an arbitrary origin fixed at job start. */
double tm_rt_wtime(void);

/* Ends the whole job at once with exit status `code` (taken modulo 256 by the OS). `rank` is the
 * world rank that asked for it, or -1; `why` (may be NULL) is printed on stderr first, on a line
 * of its own. Temporary files are removed. Safe to call from any ULT or thread. */
_Noreturn void tm_rt_job_abort(int rank, int code, const char *why);

#endif /* TM_RT_RANK_H */
