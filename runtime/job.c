/*
 * A job: start-up, the ranks, and how the job ends.
 *
 * Start-up runs on the main thread, before any rank: settings, number of ranks, topology and
 * placement (placement.h: one VP per core in use, pinned, with the ranks and progress threads
 * the policies put there), one private program copy per rank, signal handlers. Then the main thread
 * becomes VP 0 of the scheduler until every rank has ended, and the process exits with the job's
 * status.
 */
#include "config.h"

#include "runtime/job.h"

#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/placement.h"
#include "runtime/profile.h"
#include "runtime/program.h"
#include "runtime/rank.h"
#include "runtime/settings.h"
#include "runtime/signals.h"
#include "sched/sched.h"

#define MAX_RANKS (1 << 20)

typedef struct job_rank {
    tm_rt_rank_t pub;  /* first: tm_rt_rank_self() returns &rank->pub */
    _Atomic int ended; /* main() returned or exit() was called */
    tm_rt_program_copy_t copy;
    char **argv;
    int argc;
} job_rank_t;

static struct {
    int nranks;        /* this process's ranks: world ranks first_rank .. first_rank + nranks - 1 */
    int first_rank;    /* the world rank of this process's first rank */
    int world_size;    /* ranks of the whole job, on every host (MPI_COMM_WORLD's size) */
    job_rank_t *ranks; /* this process's, by local index (world rank - first_rank) */
    tm_rt_program_t program;
    FILE *null_stdin;     /* what ranks other than 0 read as standard input */
    struct timespec t0;   /* origin of tm_rt_wtime() */
    _Atomic int status;   /* the first non-zero rank status */
    size_t eager_limit;   /* [p2p] eager_limit */
    size_t handoff_bytes; /* [nbc] handoff_bytes */
    double progress_spin; /* [nbc] progress_spin_us, in seconds */
    int split_levels;     /* [nbc] split_levels, -1: auto */
    bool check_types;     /* [coll] check_types */
    tm_rt_placement_t placement;
    int *vp_mem_node;    /* per VP: TM_SCHED_MEM_* or a NUMA node ([memory] policy) */
    bool numa_local;     /* tm_rt_numa_node answers: several NUMA nodes, memory not interleaved */
    bool pinned;         /* the VPs are pinned to this machine's cores (not a synthetic topology) */
    unsigned timeout;    /* [job] timeout, seconds (0: none) */
    atomic_flag ending;  /* set by the first abort (or the timeout) */
    atomic_flag settled; /* set by the normal end or the timeout, whichever comes first */
    tm_rt_profile_mode_t profile_mode; /* [profile] mode */
    FILE *profile_csv;                 /* mode = csv:FILE, opened before any rank runs */
    pid_t pid;                         /* the job's process (a rank may fork others) */
    bool forked;                       /* this process is one that a rank forked */
    _Atomic bool exiting;              /* the job returns its status: its own exit() follows */
} job;

extern char **environ;

/* ---- what mpi/ asks of the runtime (rank.h) ------------------------------------------------- */

#define PROGRESS_TAG TM_RT_PROGRESS_TAG

/* The index in this process's arrays of world rank `world_rank`, one of its own. */
static inline int local_index(int world_rank)
{
    return world_rank - job.first_rank;
}

tm_rt_rank_t *tm_rt_progress_owner(void)
{
    uintptr_t data = (uintptr_t)tm_sched_self_data();
    return data & PROGRESS_TAG ? (tm_rt_rank_t *)(data & ~PROGRESS_TAG) : NULL;
}

void tm_rt_progress_attach_self(int world_rank)
{
    tm_sched_ult_t *self = tm_sched_self();
    if (self && tm_rt_rank_is_local(world_rank))
        tm_sched_ult_set_data(
            self, (void *)((uintptr_t)&job.ranks[local_index(world_rank)].pub | PROGRESS_TAG));
}

int tm_rt_world_size(void)
{
    return job.world_size;
}

int tm_rt_local_first(void)
{
    return job.first_rank;
}

int tm_rt_local_size(void)
{
    return job.nranks;
}

bool tm_rt_rank_is_local(int world_rank)
{
    return world_rank >= job.first_rank && world_rank - job.first_rank < job.nranks;
}

bool tm_rt_hangs_diagnosed(void)
{
    return job.timeout > 0;
}

size_t tm_rt_eager_limit(void)
{
    return job.eager_limit;
}

size_t tm_rt_handoff_bytes(void)
{
    return job.handoff_bytes;
}

double tm_rt_progress_spin(void)
{
    return job.progress_spin;
}

bool tm_rt_coll_check_types(void)
{
    return job.check_types;
}

int tm_rt_split_levels(void)
{
    return job.split_levels;
}

int tm_rt_idle_cores(void)
{
    return job.placement.idle_cores;
}

void tm_rt_ranks_cpus(unsigned char *mask, size_t bits)
{
    memset(mask, 0, (bits + 7) / 8);
    if (!job.pinned)
        return;
    for (int r = 0; r < job.placement.nranks; r++) {
        int cpu;
        hwloc_bitmap_foreach_begin(cpu, job.placement.vps[job.placement.rank_vp[r]].cpuset)
        {
            if ((size_t)cpu < bits)
                mask[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
        }
        hwloc_bitmap_foreach_end();
    }
}

bool tm_rt_ranks_share_cores(void)
{
    return job.placement.ranks_share_cores;
}

void tm_rt_job_agree(bool ranks_share_cores, int idle_cores)
{
    job.placement.ranks_share_cores = ranks_share_cores;
    job.placement.idle_cores = idle_cores;
}

int tm_rt_rank_vp(int world_rank)
{
    return job.placement.rank_vp[local_index(world_rank)];
}

bool tm_rt_rank_shares_vp(int world_rank)
{
    int me = local_index(world_rank);
    for (int i = 0; i < job.nranks; i++)
        if (i != me && job.placement.rank_vp[i] == job.placement.rank_vp[me])
            return true;
    return false;
}

int tm_rt_progress_vp(int world_rank)
{
    return job.placement.progress_vp[local_index(world_rank)];
}

bool tm_rt_progress_alone(int world_rank)
{
    int vp = job.placement.progress_vp[local_index(world_rank)];
    if (!job.pinned || vp < 0)
        return false;
    for (int r = 0; r < job.placement.nranks; r++)
        if (job.placement.rank_vp[r] == vp)
            return false;
    return true;
}

int tm_rt_memory_node(int world_rank)
{
    int node = job.vp_mem_node[job.placement.rank_vp[local_index(world_rank)]];
    return node == TM_SCHED_MEM_INTERLEAVE ? TM_RT_MEMORY_NODE_INTERLEAVE
           : node >= 0                     ? node
                                           : TM_RT_MEMORY_NODE_ANY;
}

int tm_rt_numa_node(int world_rank)
{
    return job.numa_local ? job.placement.vps[tm_rt_rank_vp(world_rank)].numa : -1;
}

double tm_rt_wtime(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - job.t0.tv_sec) + (double)(t.tv_nsec - job.t0.tv_nsec) * 1e-9;
}

bool tm_rt_forked(void)
{
    return job.forked;
}

static void job_remove_files(void)
{
    if (!job.forked) /* the files are the job's, not a forked child's */
        tm_rt_program_remove_files(&job.program);
}

_Noreturn void tm_rt_job_abort(int rank, int code, const char *why)
{
    /* One abort ends the job; a second rank aborting meanwhile waits for the end. */
    if (atomic_flag_test_and_set(&job.ending))
        for (;;)
            pause();
    fflush(NULL);
    if (why) {
        size_t len = strlen(why);
        if (write(STDERR_FILENO, why, len) < 0 || write(STDERR_FILENO, "\n", 1) < 0)
            (void)rank; /* nothing more can be done about a closed stderr */
    }
    job_remove_files();
    _exit(code & 0xff);
}

/* ---- how a rank ends ------------------------------------------------------------------------- */

static void rank_end(job_rank_t *r, int status, const char *how)
{
    if (atomic_load(&r->pub.mpi_state) == TM_RT_MPI_INITIALIZED) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "rank %d %s with status %d between MPI_Init and MPI_Finalize: ending the job",
                 r->pub.world_rank, how, status);
        tm_rt_job_abort(r->pub.world_rank, status & 0xff ? status : 1, msg);
    }
    atomic_store_explicit(&r->ended, 1, memory_order_release);
    /* A process's exit status is its low 8 bits: so is a rank's. */
    int expected = 0;
    if (status & 0xff)
        atomic_compare_exchange_strong(&job.status, &expected, status & 0xff);
}

/* The ranks that have not ended. */
static int ranks_running(void)
{
    int n = 0;
    for (int i = 0; i < job.nranks; i++)
        n += !atomic_load_explicit(&job.ranks[i].ended, memory_order_acquire);
    return n;
}

_Noreturn void tm_rt_program_exit(int rank, int status, int immediate)
{
    if (job.forked) { /* a process of its own */
        if (immediate)
            _exit(status);
        exit(status);
    }
    tm_rt_rank_t *self = tm_rt_rank_self();
    if (self) {
        rank_end((job_rank_t *)self, status, immediate ? "called _exit()" : "called exit()");
        tm_sched_ult_exit();
    }
    /* A thread of the program that is no rank: the job ends, as a process would. */
    int running = ranks_running();
    if (running == 0 && (status & 0xff) == 0) {
        atomic_store(&job.exiting, true);
        if (immediate)
            _exit(atomic_load(&job.status));
        exit(atomic_load(&job.status));
    }
    char why[256], who[32] = "a thread";
    if (rank >= 0)
        snprintf(who, sizeof who, "rank %d: a thread", rank);
    snprintf(why, sizeof why, "%s called %s(%d)%s: ending the job", who,
             immediate ? "_exit" : "exit", status,
             running ? " while ranks were still running" : "");
    tm_rt_job_abort(rank, (status & 0xff) ? status : 1, why);
}

/* exit() called where no hook saw it (by a library of the program, or by the runtime's own
 * code) while ranks run: the job ends with a message, never silently with 0. */
static void job_atexit(void)
{
    if (job.forked || atomic_load(&job.exiting) || ranks_running() == 0)
        return;
    tm_rt_job_abort(-1, 1,
                    "exit() was called while ranks were still running (by a thread of the program "
                    "or a library it uses): ending the job");
}

#ifdef TM_WITH_ASAN
/* LeakSanitizer asks before its check at exit. A process that a rank forked exits in the middle
 * of the job's life: what the job holds there is no leak of the child's. */
__attribute__((visibility("default"))) int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return job.forked;
}
#endif

/* In a process that a rank forks: it is no rank, and none of the job's. */
static void job_forked_child(void)
{
    job.forked = true;
    tm_sched_current_data = NULL;
}

static void rank_main(void *arg)
{
    job_rank_t *r = arg;
    int status = r->copy.main(r->argc, r->argv, environ);
    rank_end(r, status, "returned from main()");
}

/* ---- hang diagnosis ---------------------------------------------------------------------------
 */

/* The world rank of the rank other than local rank `i` that holds the core of rank i outside MPI,
 * or -1. Ranks of a core take turns only in MPI calls: while such a rank holds it, the others
 * cannot run. */
static int core_holder(int i)
{
    job_rank_t *other = tm_sched_vp_running_data(job.placement.rank_vp[i]);
    if (!other || other == &job.ranks[i] || ((uintptr_t)other & TM_RT_PROGRESS_TAG) ||
        other < job.ranks || other >= job.ranks + job.nranks ||
        atomic_load_explicit(&other->pub.blocked, memory_order_acquire))
        return -1;
    return other->pub.world_rank;
}

static void (*_Atomic network_report)(void);

void tm_rt_job_report_network(void (*report)(void))
{
    atomic_store_explicit(&network_report, report, memory_order_release);
}

#define HOLDER_HOW "outside MPI (in a blocking system call, or a loop without MPI calls)"

/* mpcrun --timeout: a thread that sleeps until the deadline, then says where each rank is and
 * ends the job. Ranks that block in MPI record what they wait for (rank.h). */
static void *timeout_main(void *arg)
{
    unsigned seconds = job.timeout;
    struct timespec deadline = job.t0;
    deadline.tv_sec += seconds;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) != 0)
        ;
    if (atomic_flag_test_and_set(&job.settled) || atomic_flag_test_and_set(&job.ending))
        return NULL; /* the job ended meanwhile, or is being aborted */
    fprintf(stderr,
            "threadmpi: the job ran for more than %u s (mpcrun --timeout): ending it; "
            "where each rank is:\n",
            seconds);
    _Alignas(16) unsigned char note[TM_RT_BLOCKED_NOTE_SIZE];
    void (*describe)(const void *, char *, size_t);
    for (int i = 0; i < job.nranks; i++) {
        job_rank_t *r = &job.ranks[i];
        int rank = r->pub.world_rank;
        if (atomic_load_explicit(&r->ended, memory_order_acquire))
            fprintf(stderr, "rank %d: finished\n", rank);
        else if (atomic_load_explicit(&r->pub.blocked, memory_order_acquire) &&
                 (describe = tm_rt_blocked_note_read(&r->pub, note))) {
            char what[256];
            describe(note, what, sizeof what);
            int holder = core_holder(i);
            if (holder >= 0)
                fprintf(stderr, "rank %d: %s, and its core is held by rank %d " HOLDER_HOW "\n",
                        rank, what, holder);
            else
                fprintf(stderr, "rank %d: %s\n", rank, what);
        } else if (core_holder(i) >= 0)
            fprintf(stderr,
                    "rank %d: ready, but waiting for its core, which rank %d holds " HOLDER_HOW
                    "\n",
                    rank, core_holder(i));
        else
            fprintf(stderr, "rank %d: running, not blocked in MPI\n", rank);
    }
    void (*report)(void) = atomic_load_explicit(&network_report, memory_order_acquire);
    if (report)
        report();
    job_remove_files();
    _exit(124);
}

static int timeout_start(unsigned seconds)
{
    pthread_t t;
    pthread_attr_t attr;
    job.timeout = seconds;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, timeout_main, NULL);
    pthread_attr_destroy(&attr);
    return -rc;
}

/* ---- start-up ----------------------------------------------------------------------------------
 */

static void report(const char *fmt, const char *detail)
{
    fprintf(stderr, "threadmpi: ");
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
}

/* [profile] mode: the counters, and the CSV file opened now, so that a file that cannot be
 * written stops the job before it runs rather than losing its profile at the end. */
static int profile_start(const tm_rt_settings_t *settings, char *err, size_t errlen)
{
    job.profile_mode = settings->profile_mode;
    if (job.profile_mode == TM_RT_PROFILE_MODE_OFF)
        return 0;
    if (job.profile_mode == TM_RT_PROFILE_MODE_CSV &&
        !(job.profile_csv = fopen(settings->profile_file, "w"))) {
        snprintf(err, errlen, "profile.mode csv:%.512s: cannot write the file: %s",
                 settings->profile_file, strerror(errno));
        return -EINVAL;
    }
    if (tm_rt_profile_start(job.first_rank, job.nranks) < 0) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

/* Every rank has ended: the profile goes to stderr (after what the ranks printed on stdout), or
 * to its CSV file. */
static void profile_finish(void)
{
    if (job.profile_mode == TM_RT_PROFILE_MODE_OFF)
        return;
    if (job.profile_mode == TM_RT_PROFILE_MODE_TABLE) {
        fflush(stdout);
        tm_rt_profile_finish(stderr, 0);
        return;
    }
    tm_rt_profile_finish(job.profile_csv, 1);
    if (fclose(job.profile_csv) != 0)
        report("profile.mode csv: cannot write the profile: %s", strerror(errno));
    job.profile_csv = NULL;
}

/* Another MPI's launcher (Open MPI's mpirun, MPICH's mpiexec) that starts a ThreadMPI program as
 * several processes would make each a job of its own, of one rank: a program that seems to run
 * and computes something else. What they put in each process's environment says so; the name of
 * the first variable found that counts more than one process, or NULL. */
static const char *foreign_launch(long *nprocs)
{
    static const char *const counts[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        const char *v = getenv(counts[i]);
        char *end;
        if (!v || !*v)
            continue;
        long n = strtol(v, &end, 10);
        if (!*end && n > 1) {
            *nprocs = n;
            return counts[i];
        }
    }
    return NULL;
}

/* Number of ranks asked by mpcrun (-n), 0 for "one per core", 1 when run alone. */
static int requested_ranks(int *n_p)
{
    const char *s = getenv(TM_RT_ENV_MPCRUN_NP);
    if (!s) {
        *n_p = 1;
        return 0;
    }
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (end == s || *end || errno || n < 0 || n > MAX_RANKS)
        return -EINVAL;
    *n_p = (int)n;
    return 0;
}

/* This host's part of a job on several hosts (mpcrun --hosts, launcher/remote.c): the world rank
 * of its first rank and the job's size, or 0 and 0 for a job of one process. 0, or -EINVAL when
 * they are not numbers (a variable set by hand). */
static int requested_world(long *first_p, long *world_p)
{
    const char *first = getenv(TM_RT_ENV_MPCRUN_FIRST_RANK);
    const char *world = getenv(TM_RT_ENV_MPCRUN_WORLD);
    *first_p = *world_p = 0;
    if (!first && !world)
        return 0;
    char *end1 = NULL, *end2 = NULL;
    errno = 0;
    long f = first ? strtol(first, &end1, 10) : -1;
    long w = world ? strtol(world, &end2, 10) : -1;
    if (!first || !world || end1 == first || *end1 || end2 == world || *end2 || errno || f < 0 ||
        w < 1 || w > MAX_RANKS || f >= w)
        return -EINVAL;
    *first_p = f;
    *world_p = w;
    return 0;
}

/* The programs a rank starts (system(), posix_spawn) are jobs of their own. */
static void forget_mpcrun_request(void)
{
    unsetenv(TM_RT_ENV_MPCRUN_NP);
    unsetenv(TM_RT_ENV_MPCRUN_CONFIG);
    unsetenv(TM_RT_ENV_MPCRUN_SETTINGS);
    unsetenv(TM_RT_ENV_MPCRUN_HOST);
    unsetenv(TM_RT_ENV_MPCRUN_FIRST_RANK);
    unsetenv(TM_RT_ENV_MPCRUN_WORLD);
}

/* A rank's argv in one block, the pointers then the strings, as the kernel lays out a process's:
 * a program may point its argv[i] elsewhere without losing the strings. */
static char **copy_argv(int argc, char **argv)
{
    size_t bytes = ((size_t)argc + 1) * sizeof(char *);
    for (int i = 0; i < argc; i++)
        bytes += strlen(argv[i]) + 1;
    char **v = malloc(bytes);
    if (!v)
        return NULL;
    char *p = (char *)(v + argc + 1);
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(argv[i]) + 1;
        v[i] = memcpy(p, argv[i], len);
        p += len;
    }
    v[argc] = NULL;
    return v;
}

/* Loads every rank's program copy and gives each its argv and standard input. */
static int ranks_load(int argc, char **argv, char *err, size_t errlen)
{
    job.null_stdin = fopen("/dev/null", "r");
    for (int r = 0; r < job.nranks; r++) {
        job_rank_t *rank = &job.ranks[r];
        rank->pub.world_rank = job.first_rank + r;
        rank->argc = argc;
        rank->argv = copy_argv(argc, argv);
        if (!rank->argv) {
            snprintf(err, errlen, "out of memory");
            return -ENOMEM;
        }
        int rc = tm_rt_program_load(&job.program, r, &rank->copy, err, errlen);
        if (rc < 0)
            return rc;
        /* Standard input goes to world rank 0, as with mpirun; the others read an empty
         * file. */
        if (rank->copy.stdin_p)
            *rank->copy.stdin_p = rank->pub.world_rank == 0 ? stdin : job.null_stdin;
    }
    return 0;
}

/* The OS index (libnuma's numbering) of the NUMA node of logical index `numa`, or -1. */
static int numa_os_index(hwloc_topology_t topo, int numa)
{
    hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)numa);
    return node ? (int)node->os_index : -1;
}

/* Where each VP's stacks and its ranks' cells come from ([memory] policy). On a topology that
 * is not this machine's (HWLOC_SYNTHETIC, HWLOC_XMLFILE) nothing is pinned or placed. */
static int memory_plan(hwloc_topology_t topo, const tm_rt_settings_t *settings, bool real)
{
    const tm_rt_placement_t *p = &job.placement;
    job.vp_mem_node = malloc((size_t)p->nvps * sizeof *job.vp_mem_node);
    if (!job.vp_mem_node)
        return -ENOMEM;
    job.numa_local = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) > 1 &&
                     settings->memory_policy != TM_RT_MEMORY_INTERLEAVE;
    for (int v = 0; v < p->nvps; v++) {
        if (!real)
            job.vp_mem_node[v] = TM_SCHED_MEM_DEFAULT;
        else if (settings->memory_policy == TM_RT_MEMORY_INTERLEAVE)
            job.vp_mem_node[v] = TM_SCHED_MEM_INTERLEAVE;
        else
            job.vp_mem_node[v] = numa_os_index(topo, p->vps[v].numa);
    }
    return 0;
}

/* Runs the ranks on the VPs of the placement, each pinned to its core. */
static int ranks_run(hwloc_topology_t topo, const tm_rt_settings_t *settings)
{
    const tm_rt_placement_t *p = &job.placement;
    bool real = hwloc_topology_is_thissystem(topo);
    job.pinned = real;
    hwloc_const_cpuset_t *vp_cpusets = calloc((size_t)p->nvps, sizeof *vp_cpusets);
    int rc = -ENOMEM;
    if (!vp_cpusets || memory_plan(topo, settings, real) < 0)
        goto out_free;
    for (int v = 0; v < p->nvps; v++)
        vp_cpusets[v] = real ? p->vps[v].cpuset : NULL;
    tm_sched_config_t sc = {
        .nvps = p->nvps,
        .stack_size = settings->sched_stack_size,
        .idle_spin_us = settings->sched_idle_spin_us,
        .topology = topo,
        .vp_cpusets = vp_cpusets,
        .vp_mem_nodes = job.vp_mem_node,
    };
    rc = tm_sched_init(&sc);
    if (rc < 0)
        goto out_free;
    for (int r = 0; r < job.nranks; r++) {
        tm_sched_ult_t *ult;
        if ((rc = tm_sched_ult_create(p->rank_vp[r], rank_main, &job.ranks[r], 0, &ult)) < 0)
            goto out_finalize;
        tm_sched_ult_set_data(ult, &job.ranks[r].pub);
        tm_sched_ult_set_profile(
            ult, tm_rt_profile_rank_stream(job.ranks[r].pub.world_rank)); /* NULL: not profiling */
    }
    rc = tm_sched_run();
out_finalize:
    tm_sched_finalize();
out_free:
    free(vp_cpusets);
    return rc;
}

int tm_rt_launcher_main(int argc, char **argv)
{
    char err[1024];
    tm_rt_settings_t settings;
    hwloc_topology_t topo;
    int nranks, rc, status = 1;

    clock_gettime(CLOCK_MONOTONIC, &job.t0);
    job.pid = getpid();
    long nprocs;
    const char *foreign = foreign_launch(&nprocs);
    if (foreign) {
        snprintf(err, sizeof err,
                 "this process is one of %ld that another MPI's launcher started (%s=%ld), and "
                 "each would run a job of its own; ThreadMPI runs a job's ranks as threads of "
                 "one process: start the program with mpcrun -n N",
                 nprocs, foreign, nprocs);
        report("%s", err);
        return 2;
    }
    if (tm_rt_settings_load(&settings, err, sizeof err) < 0) {
        report("%s", err);
        return 2;
    }
    if (requested_ranks(&nranks) < 0) {
        report("%s is not a number of ranks", getenv(TM_RT_ENV_MPCRUN_NP));
        return 2;
    }
    long first_rank, world_size;
    if (requested_world(&first_rank, &world_size) < 0) {
        report("%s",
               "this host's part of the job is not a range of ranks (" TM_RT_ENV_MPCRUN_FIRST_RANK
               " and " TM_RT_ENV_MPCRUN_WORLD " are set by mpcrun --hosts)");
        return 2;
    }
    forget_mpcrun_request();
    job.eager_limit = settings.p2p_eager_limit;
    job.handoff_bytes = settings.nbc_handoff_bytes;
    job.progress_spin = settings.nbc_progress_spin_us * 1e-6;
    job.split_levels = settings.nbc_split_levels;
    job.check_types = settings.coll_check_types != 0;

    if (hwloc_topology_init(&topo) < 0) {
        report("%s", "cannot read the machine's topology (hwloc)");
        return 1;
    }
    if (hwloc_topology_load(topo) < 0) {
        report("%s", "cannot read the machine's topology (hwloc)");
        goto out_topology;
    }
    if (tm_rt_placement_compute(&job.placement, topo, &settings, nranks, err, sizeof err) < 0) {
        report("%s", err);
        status = 2;
        goto out_topology;
    }
    /* Said once, and only to whoever asked for idle cores (the default stays quiet: on a
     * machine with fewer cores than ranks, sharing is the expected case). */
    if (job.placement.idle_fallback &&
        strcmp(tm_rt_settings_origin(&settings, "placement.progress"), "default") != 0)
        report("%s", "no idle core for the progress threads (placement.progress = idle): each "
                     "runs on its rank's core");
    job.nranks = job.placement.nranks;
    job.first_rank = (int)first_rank;
    job.world_size = world_size ? (int)world_size : job.nranks;
    if (job.first_rank + (long)job.nranks > job.world_size) {
        report("%s", "this host's ranks go past the job's last rank (" TM_RT_ENV_MPCRUN_FIRST_RANK
                     " and " TM_RT_ENV_MPCRUN_WORLD " are set by mpcrun --hosts)");
        status = 2;
        goto out_topology;
    }
    job.ranks = calloc((size_t)job.nranks, sizeof *job.ranks);
    if (!job.ranks) {
        report("%s", "out of memory");
        goto out_topology;
    }

    if (tm_rt_program_open(&job.program, job.nranks, err, sizeof err) < 0) {
        report("%s", err);
        status = 2;
        goto out_ranks;
    }
    if (profile_start(&settings, err, sizeof err) < 0) {
        report("%s", err);
        status = 2;
        goto out_files;
    }
    if ((rc = tm_rt_signals_install(job_remove_files)) < 0) {
        report("cannot install signal handlers: %s", strerror(-rc));
        goto out_files;
    }
    if (ranks_load(argc, argv, err, sizeof err) < 0) {
        report("%s", err);
        goto out_files;
    }
    if (settings.job_timeout > 0 && (rc = timeout_start(settings.job_timeout)) < 0) {
        report("cannot start the timeout: %s", strerror(-rc));
        goto out_files;
    }
    pthread_atfork(NULL, NULL, job_forked_child);
    atexit(job_atexit);
    rc = ranks_run(topo, &settings);
    if (rc < 0) {
        report("the scheduler failed: %s", strerror(-rc));
        goto out_files;
    }
    status = atomic_load(&job.status);
    /* The ranks are done: from now on the timeout may not end the job; if it already is
     * ending it, let it finish saying why. An abort afterwards (a destructor calling MPI_Abort)
     * still ends it. */
    if (atomic_flag_test_and_set(&job.settled))
        for (;;)
            pause();
    profile_finish();

    /* The copies stay loaded: their atexit handlers and destructors run in exit(), as they
     * would in a process, and the ranks' stdio buffers, shared with ours, are flushed there. */
out_files:
    job_remove_files();
out_ranks:
    /* job.ranks, and the argv copies in it, live until exit, as a process's argv does: the
     * programs' atexit handlers and destructors may still use them. */
    tm_rt_program_close(&job.program);
out_topology:
    tm_rt_placement_free(&job.placement);
    hwloc_topology_destroy(topo);
    atomic_store(&job.exiting, true);
    return status;
}
