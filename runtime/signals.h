/*
 * Signals of the job: a fatal signal in a rank (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) is
 * reported as "rank R: <signal>" with a backtrace, or as a stack overflow of rank R; SIGINT,
 * SIGTERM, SIGHUP and SIGPIPE end the job. Either way the job ends with status 128 + signal
 * number after `cleanup` ran.
 */
#ifndef TM_RT_SIGNALS_H
#define TM_RT_SIGNALS_H

/* `cleanup` must be async-signal-safe. Returns 0 or a negative errno. */
int tm_rt_signals_install(void (*cleanup)(void));

#endif /* TM_RT_SIGNALS_H */
