/* What coll_progress.c and coll_progress_comm.c share: a sum of longs whose calls are counted
 * on a counter every rank sees (rank 0's heap word: the ranks are threads of one process), and a
 * computation that calls no MPI. */
#ifndef TM_TEST_COLL_PROGRESS_H
#define TM_TEST_COLL_PROGRESS_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* MPI_Init for a test `name` that runs on 2 ranks: the caller's rank; ends the job on any other
 * number of ranks. */
static inline int init_two_ranks(int *argc, char ***argv, const char *name)
{
    int rank, size;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "%s: runs on 2 ranks\n", name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return rank;
}

/* The calls of the operation by any rank. */
static _Atomic int *op_calls;

static void count_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const long *a = in;
    long *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
    atomic_fetch_add_explicit(op_calls, 1, memory_order_release);
}

/* Makes the counter (rank 0) and the counted operation (every rank; collective). */
static MPI_Op count_sum_create(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && !(op_calls = malloc(sizeof *op_calls)))
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (rank == 0)
        atomic_init(op_calls, 0);
    MPI_Bcast(&op_calls, sizeof op_calls, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Op op;
    MPI_Op_create(count_sum, 1, &op);
    return op;
}

/* Frees them, once no rank counts any more (collective). */
static void count_sum_free(MPI_Op *op)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Op_free(op);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        free((void *)op_calls);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Computes (no MPI call) for ms milliseconds. */
static void compute_for(int ms)
{
    double end = now() + ms * 1e-3;
    while (now() < end)
        ;
}

#endif
