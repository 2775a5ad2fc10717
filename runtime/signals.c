/*
 * Signals (see signals.h). The handlers run on the VP's alternate signal stack (sched/ gives
 * every VP one), so a rank that overflowed its stack can still be reported. They only use
 * async-signal-safe calls; backtrace() is called once at installation so that its first use
 * in a handler does not load libgcc (which would allocate).
 */
#include "config.h"

#include "runtime/signals.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef HAVE_EXECINFO_H
#include <execinfo.h>
#endif

#include "runtime/rank.h"
#include "sched/sched.h"

#define BACKTRACE_DEPTH 64

static void (*signals_cleanup)(void);
static atomic_flag signals_reporting = ATOMIC_FLAG_INIT;
/* The kernel thread that reports: a signal it gets while reporting (a fault in the report) ends
 * the job at once instead of waiting for itself. */
static _Atomic pid_t signals_reporter;

static const struct {
    int sig;
    const char *name;
} fatal_signals[] = {
    {SIGSEGV, "Segmentation fault"}, {SIGBUS, "Bus error"}, {SIGFPE, "Floating point exception"},
    {SIGILL, "Illegal instruction"}, {SIGABRT, "Aborted"},
};

static const int ending_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

/* ---- async-signal-safe message building --------------------------------------------------- */

typedef struct msg {
    char buf[512];
    size_t len;
} msg_t;

static void msg_str(msg_t *m, const char *s)
{
    while (*s && m->len < sizeof m->buf - 1)
        m->buf[m->len++] = *s++;
}

static void msg_num(msg_t *m, uintptr_t v, unsigned base)
{
    char digits[32];
    int n = 0;
    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    if (base == 16)
        msg_str(m, "0x");
    while (n > 0 && m->len < sizeof m->buf - 1)
        m->buf[m->len++] = digits[--n];
}

static void msg_write(msg_t *m)
{
    const char *p = m->buf;
    size_t left = m->len;
    while (left > 0) {
        ssize_t w = write(STDERR_FILENO, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        left -= (size_t)w;
    }
}

static void msg_who(msg_t *m)
{
    tm_rt_rank_t *rank = tm_rt_rank_self();
    if (rank) {
        msg_str(m, "rank ");
        msg_num(m, (uintptr_t)rank->world_rank, 10);
    } else {
        msg_str(m, "threadmpi runtime");
    }
    msg_str(m, ": ");
}

/* ---- handlers -------------------------------------------------------------------------------- */

static _Noreturn void end_job(int sig)
{
    if (signals_cleanup)
        signals_cleanup();
    _exit(128 + sig);
}

/* Whether the caller may report the signal: the first to come does; any other thread waits for
 * it to end the job; the reporter itself, hit again, ends the job. */
static void report_or_wait(int sig)
{
    pid_t me = (pid_t)syscall(SYS_gettid);
    if (!atomic_flag_test_and_set(&signals_reporting)) {
        atomic_store(&signals_reporter, me);
        return;
    }
    if (atomic_load(&signals_reporter) == me)
        end_job(sig);
    for (;;)
        pause();
}

static void on_fatal(int sig, siginfo_t *si, void *ucontext)
{
    /* Two ranks may fault at once: the first reports and ends the job, the others wait. */
    report_or_wait(sig);
    msg_t m = {.len = 0};
    msg_who(&m);
    tm_sched_ult_t *overflowed = NULL;
    if (sig == SIGSEGV || sig == SIGBUS)
        overflowed = tm_sched_fault_overflowed_ult(si->si_addr);
    if (overflowed) {
        msg_str(&m, "stack overflow: the rank used up its stack of ");
        msg_num(&m, tm_sched_ult_stack_size(overflowed) >> 10, 10);
        msg_str(&m,
                " KiB (raise it with [sched] stack_size, e.g. THREADMPI_SCHED_STACK_SIZE=64M)\n");
        msg_write(&m);
        end_job(sig);
    }
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        if (fatal_signals[i].sig == sig)
            msg_str(&m, fatal_signals[i].name);
    if (sig != SIGABRT) {
        msg_str(&m, " at address ");
        msg_num(&m, (uintptr_t)si->si_addr, 16);
    }
    msg_str(&m, "\n");
    msg_write(&m);
#ifdef HAVE_EXECINFO_H
    void *frames[BACKTRACE_DEPTH];
    int n = backtrace(frames, BACKTRACE_DEPTH);
    backtrace_symbols_fd(frames, n, STDERR_FILENO);
#endif
    end_job(sig);
}

static void on_ending(int sig)
{
    report_or_wait(sig);
    if (sig != SIGPIPE) {
        msg_t m = {.len = 0};
        msg_str(&m, "threadmpi: job ended by signal ");
        msg_str(&m, sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP");
        msg_str(&m, "\n");
        msg_write(&m);
    }
    end_job(sig);
}

int tm_rt_signals_install(void (*cleanup)(void))
{
    signals_cleanup = cleanup;
#ifdef HAVE_EXECINFO_H
    void *frame;
    backtrace(&frame, 1);
#endif
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    /* Blocked while a handler reports: a report written into a closed pipe gets EPIPE and goes
     * on to end the job, rather than a SIGPIPE that would wait for the report. */
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof ending_signals / sizeof ending_signals[0]; i++)
        sigaddset(&sa.sa_mask, ending_signals[i]);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        if (sigaction(fatal_signals[i].sig, &sa, NULL) < 0)
            return -errno;
    sa.sa_handler = on_ending;
    sa.sa_flags = SA_ONSTACK;
    for (size_t i = 0; i < sizeof ending_signals / sizeof ending_signals[0]; i++)
        if (sigaction(ending_signals[i], &sa, NULL) < 0)
            return -errno;
    return 0;
}
