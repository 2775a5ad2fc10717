/*
 * The entry points of the runtime that code outside the library calls: the launcher's main()
 * that mpicc links into every executable, and the exit() of a rank's private program copy.
 * With MPI_*, PMPI_* and MPIX_*, these are the only symbols libthreadmpi exports.
 */
#ifndef TM_RT_JOB_H
#define TM_RT_JOB_H

#define TM_RT_LOADER_API __attribute__((visibility("default")))

/* Runs the job: reads the settings and what mpcrun asked for, makes one private copy of the
 * embedded program per rank, runs each copy's main() on its rank's ULT, and returns the job's
 * exit status (0 iff every rank returned 0, else the first non-zero status). Run alone, without
 * mpcrun, the executable is a one-rank job. Configuration errors print a message and return 2. */
TM_RT_LOADER_API int tm_rt_launcher_main(int argc, char **argv);

/* exit(), _exit() and _Exit() of a rank's program. After MPI_Finalize (or without MPI_Init) the
 * rank ends with `status`, as if main() had returned it; between MPI_Init and MPI_Finalize the
 * whole job is aborted with a message, as Open MPI does. Outside a rank: the C library's exit. */
TM_RT_LOADER_API _Noreturn void tm_rt_rank_exit(int status);

#endif /* TM_RT_JOB_H */
