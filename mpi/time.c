/*
 * The MPI clock: the runtime's clock, one for the ranks of a host, so MPI_WTIME_IS_GLOBAL holds
 * in a job of one host (not across hosts, whose clocks differ). Both calls work at any time and
 * from any thread (as in Open MPI and MPICH), since they need no rank.
 */
#include "config.h"

#include <time.h>

#include "mpi_impl.h"

double PMPI_Wtime(void)
{
    return tm_rt_wtime();
}
#pragma weak MPI_Wtime = PMPI_Wtime

/* The runtime's clock is CLOCK_MONOTONIC. */
double PMPI_Wtick(void)
{
    struct timespec res = {0, 0};

    /* Cannot fail: Linux always has CLOCK_MONOTONIC, and res is a valid pointer. */
    (void)clock_getres(CLOCK_MONOTONIC, &res);
    return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}
#pragma weak MPI_Wtick = PMPI_Wtick
