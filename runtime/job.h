/*
 * The entry points of the runtime that code outside the library calls: the launcher's main()
 * that mpicc links into every executable, and the hooks of a rank's private program copy
 * (exit, the CPU affinity calls, the sleeps).
 * With MPI_*, PMPI_* and MPIX_*, these are the only symbols libthreadmpi exports.
 */
#ifndef TM_RT_JOB_H
#define TM_RT_JOB_H

#include <pthread.h>
#include <sched.h>
#include <sys/types.h>
#include <time.h>

#define TM_RT_LOADER_API __attribute__((visibility("default")))

/* Runs the job: reads the settings and what mpcrun asked for, makes one private copy of the
 * embedded program per rank, runs each copy's main() on its rank's ULT, and returns the job's
 * exit status (0 iff every rank returned 0, else the first non-zero status). Run alone, without
 * mpcrun, the executable is a one-rank job. Configuration errors print a message and return 2. */
TM_RT_LOADER_API int tm_rt_launcher_main(int argc, char **argv);

/* exit() (immediate 0), _exit() and _Exit() (immediate 1) of rank `rank`'s copy of the program:
 *  - called by the rank: after MPI_Finalize (or without MPI_Init) the rank ends with `status`,
 *    as if main() had returned it; between MPI_Init and MPI_Finalize the whole job is aborted
 *    with a message, as Open MPI does;
 *  - called by another thread of the program (one the rank made): the job ends, with a message
 *    naming the rank unless every rank had finished and the status is 0; its status is `status`,
 *    or 1 when it is 0 and some rank had not finished;
 *  - called in a process that a rank forked: that process's own exit, or _exit. */
TM_RT_LOADER_API _Noreturn void tm_rt_program_exit(int rank, int status, int immediate);

/* The CPU affinity calls of a rank's program (affinity.c): pthread_setaffinity_np and
 * pthread_getaffinity_np (`set` 1 or 0; an errno value back), sched_setaffinity and
 * sched_getaffinity (-1 and errno on error), sched_getcpu. */
TM_RT_LOADER_API int tm_rt_affinity_thread(pthread_t thread, int set, size_t size, cpu_set_t *mask);
TM_RT_LOADER_API int tm_rt_affinity_task(pid_t pid, int set, size_t size, cpu_set_t *mask);
TM_RT_LOADER_API int tm_rt_affinity_cpu(void);

/* The sleeps of a rank's program (sleep.c), with clock_nanosleep's arguments and result: 0, or
 * an errno value (EINTR with the time left in *rem for a relative sleep, EINVAL). On a rank's
 * thread, the other ranks of its core run meanwhile; on a thread the program made, it is
 * clock_nanosleep. */
TM_RT_LOADER_API int tm_rt_sleep(clockid_t clock, int flags, const struct timespec *t,
                                 struct timespec *rem);

/* The name under which each copy of the program tells its rank (the rank hooks define it; the
 * runtime sets it when it loads the copy). */
#define TM_RT_COPY_RANK_SYMBOL "tm_rt_copy_rank"

#endif /* TM_RT_JOB_H */
