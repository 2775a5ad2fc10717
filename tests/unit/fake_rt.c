/* A fake of runtime/rank.h: see fake_rt.h. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/fake_rt.h"

tm_rt_rank_t fake_rt_rank;
int fake_rt_world_size;
int fake_rt_local_first, fake_rt_local_size;
double fake_rt_now;

static int fake_rt_stderr_fd = -1; /* the real stderr, while the test's goes to a file */
static FILE *fake_rt_capture;
static const char *fake_rt_expected;
static int fake_rt_expected_rank;

/* runtime/rank.h's tm_rt_rank_self reads the data of the running ULT, which the scheduler keeps
 * in tm_sched_current_data: the test thread plays that ULT. */
void fake_rt_set_caller(int is_rank)
{
    tm_sched_current_data = is_rank ? &fake_rt_rank : NULL;
}

/* No progress threads here (tm_rt_progress_vp). */
tm_rt_rank_t *tm_rt_progress_owner(void)
{
    return NULL;
}

void tm_rt_progress_attach_self(int world_rank)
{
    (void)world_rank;
}

int tm_rt_world_size(void)
{
    return fake_rt_world_size;
}

int tm_rt_local_first(void)
{
    return fake_rt_local_first;
}

int tm_rt_local_size(void)
{
    return fake_rt_local_size;
}

bool tm_rt_rank_is_local(int world_rank)
{
    return world_rank >= fake_rt_local_first &&
           world_rank - fake_rt_local_first < fake_rt_local_size;
}

size_t tm_rt_eager_limit(void)
{
    return 4096;
}

size_t tm_rt_handoff_bytes(void)
{
    return 256 * 1024;
}

double tm_rt_progress_spin(void)
{
    return 1e-3;
}

/* Never called: the fake runtime's jobs are one process. */
void tm_rt_job_agree(bool ranks_share_cores, int idle_cores)
{
    (void)ranks_share_cores;
    (void)idle_cores;
}

void tm_rt_ranks_cpus(unsigned char *mask, size_t bits)
{
    memset(mask, 0, (bits + 7) / 8);
}

void tm_rt_job_report_network(void (*report)(void))
{
    (void)report;
}

bool tm_rt_ranks_share_cores(void)
{
    return false;
}

bool tm_rt_coll_check_types(void)
{
    return true;
}

tm_rt_rank_t *tm_rt_thread_rank(void)
{
    return NULL; /* the unit tests' threads are no rank's */
}

bool tm_rt_thread_rank_uncertain(void)
{
    return false;
}

bool tm_rt_forked(void)
{
    return false;
}

bool tm_rt_hangs_diagnosed(void)
{
    return true; /* the notes are made, as under mpcrun --timeout */
}

/* The unit tests run one rank without a scheduler: no idle core, and no progress thread (the
 * rank runs its collectives in its own calls, as under [placement] progress = none). */
int tm_rt_split_levels(void)
{
    return -1;
}

int tm_rt_idle_cores(void)
{
    return 0;
}

/* One core: every rank's VP is 0. */
int tm_rt_rank_vp(int world_rank)
{
    (void)world_rank;
    return 0;
}

int tm_rt_progress_vp(int world_rank)
{
    (void)world_rank;
    return -1;
}

bool tm_rt_progress_alone(int world_rank)
{
    (void)world_rank;
    return false;
}

int tm_rt_memory_node(int world_rank)
{
    (void)world_rank;
    return TM_RT_MEMORY_NODE_ANY;
}

int tm_rt_numa_node(int world_rank)
{
    (void)world_rank;
    return -1;
}

double tm_rt_wtime(void)
{
    return fake_rt_now;
}

void fake_rt_setup(int world_rank, int size)
{
    memset(&fake_rt_rank, 0, sizeof(fake_rt_rank));
    fake_rt_rank.world_rank = world_rank;
    atomic_store(&fake_rt_rank.mpi_state, TM_RT_MPI_NOT_INITIALIZED);
    fake_rt_rank.thread_level = -1;
    fake_rt_set_caller(1);
    fake_rt_world_size = size;
    fake_rt_local_first = 0;
    fake_rt_local_size = size;
    fake_rt_now = 0.0;
}

void fake_rt_capture_stderr(void)
{
    fflush(stderr);
    fake_rt_capture = tmpfile();
    if (fake_rt_capture == NULL) {
        perror("fake_rt: tmpfile");
        exit(FAKE_RT_EXIT_UNEXPECTED_ABORT);
    }
    fake_rt_stderr_fd = dup(STDERR_FILENO);
    dup2(fileno(fake_rt_capture), STDERR_FILENO);
}

const char *fake_rt_captured_stderr(void)
{
    static char text[8192];
    size_t n;

    fflush(stderr);
    rewind(fake_rt_capture);
    n = fread(text, 1, sizeof(text) - 1, fake_rt_capture);
    text[n] = '\0';
    return text;
}

void fake_rt_expect_abort(int rank, const char *expected)
{
    fake_rt_capture_stderr();
    fake_rt_expected = expected;
    fake_rt_expected_rank = rank;
}

/* Writes on the real stderr, so that Check's output shows why the test failed. */
__attribute__((format(printf, 1, 2))) static void fake_rt_complain(const char *fmt, ...)
{
    FILE *out = fdopen(fake_rt_stderr_fd >= 0 ? fake_rt_stderr_fd : STDERR_FILENO, "w");
    va_list ap;

    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fflush(out);
}

_Noreturn void tm_rt_job_abort(int rank, int code, const char *why)
{
    const char *got;

    if (why != NULL)
        fprintf(stderr, "%s\n", why);
    if (fake_rt_expected == NULL) {
        fake_rt_complain("fake_rt: unexpected tm_rt_job_abort(%d, %d)\n", rank, code);
        _exit(FAKE_RT_EXIT_UNEXPECTED_ABORT);
    }
    got = fake_rt_captured_stderr();
    if (strcmp(got, fake_rt_expected) != 0) {
        fake_rt_complain("fake_rt: stderr was\n%s\ninstead of\n%s\n", got, fake_rt_expected);
        _exit(FAKE_RT_EXIT_WRONG_STDERR);
    }
    if (rank != fake_rt_expected_rank) {
        fake_rt_complain("fake_rt: tm_rt_job_abort named rank %d instead of %d\n", rank,
                         fake_rt_expected_rank);
        _exit(FAKE_RT_EXIT_WRONG_RANK);
    }
    _exit(code & 0xff);
}
