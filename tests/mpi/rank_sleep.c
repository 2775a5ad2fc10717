/* A rank's sleeps let the other ranks of its core run (runtime/sleep.c): run with every rank on
 * one core (rank_sleep.sh). Rank 1 sleeps 1.5 s through sleep, usleep, nanosleep and
 * clock_nanosleep, each at least as long as asked; meanwhile ranks 0 and 2, on the same core,
 * exchange 200 messages, which they finish before rank 1 wakes. A thread the program starts
 * sleeps in the kernel, as long as asked; a bad duration is EINVAL.
 * Usage: rank_sleep (3 ranks or more) */
#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int rank, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank_sleep: rank %d, line %d: %s\n", rank, __LINE__, #cond);          \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *thread_sleep(void *arg)
{
    double t = now();
    CHECK(usleep(100 * 1000) == 0);
    *(double *)arg = now() - t;
    return NULL;
}

int main(int argc, char **argv)
{
    double woke = 0, done = 0, t, times[2];
    int size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3) {
        fprintf(stderr, "rank_sleep: needs 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        t = now();
        CHECK(sleep(1) == 0);
        CHECK(now() - t >= 1.0);
        t = now();
        CHECK(usleep(200 * 1000) == 0);
        CHECK(now() - t >= 0.2);
        t = now();
        CHECK(nanosleep(&(struct timespec){0, 150 * 1000 * 1000}, NULL) == 0);
        CHECK(now() - t >= 0.15);
        t = now();
        CHECK(clock_nanosleep(CLOCK_MONOTONIC, 0, &(struct timespec){0, 150 * 1000 * 1000}, NULL) ==
              0);
        CHECK(now() - t >= 0.15);
        woke = MPI_Wtime();
        errno = 0;
        CHECK(nanosleep(&(struct timespec){0, 1000 * 1000 * 1000}, NULL) == -1 && errno == EINVAL);
        pthread_t th;
        double slept = 0;
        pthread_create(&th, NULL, thread_sleep, &slept);
        pthread_join(th, NULL);
        CHECK(slept >= 0.1);
    } else if (rank == 0 || rank == 2) {
        int peer = 2 - rank, v = 0;
        for (int i = 0; i < 200; i++) {
            if (rank == 0) {
                MPI_Send(&i, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(&v, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK(v == i);
            } else {
                MPI_Recv(&v, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&v, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
            }
        }
        done = MPI_Wtime();
    }
    /* rank 0 knows when it finished, rank 1 when it woke */
    double mine[2] = {done, woke};
    MPI_Reduce(mine, times, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(times[0] < times[1]); /* the exchange ended while rank 1 slept */
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rank_sleep: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
