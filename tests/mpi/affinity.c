/* A rank that pins "its thread" (pthread_setaffinity_np on pthread_self, sched_setaffinity on 0,
 * as programs written for processes do) sees the affinity it set, while the kernel thread that
 * the ranks of its core share stays where it was (read with the system call itself, past the
 * rank hooks); a thread the rank makes is pinned as asked. Run by affinity.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int rank, errors;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: ", rank);                                                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* The calling kernel thread's real affinity. */
static void real_affinity(cpu_set_t *set)
{
    CPU_ZERO(set);
    syscall(SYS_sched_getaffinity, 0, sizeof *set, set);
}

static int first_cpu(const cpu_set_t *set)
{
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, set))
            return c;
    return -1;
}

static void *pinned_thread(void *arg)
{
    int cpu = *(int *)arg;
    cpu_set_t want, real;
    CPU_ZERO(&want);
    CPU_SET(cpu, &want);
    CHECK(pthread_setaffinity_np(pthread_self(), sizeof want, &want) == 0,
          "its own thread could not be pinned");
    real_affinity(&real);
    CHECK(CPU_EQUAL(&real, &want), "its own thread is not on CPU %d", cpu);
    return NULL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    cpu_set_t before, after, got, want;
    real_affinity(&before);
    CPU_ZERO(&got);
    CHECK(pthread_getaffinity_np(pthread_self(), sizeof got, &got) == 0 && CPU_EQUAL(&got, &before),
          "before pinning, the rank does not see its core's affinity");
    int other = first_cpu(&before) == 0 ? (int)sysconf(_SC_NPROCESSORS_ONLN) - 1 : 0;
    CPU_ZERO(&want);
    CPU_SET(other, &want);
    if (rank % 2 == 1) {
        CHECK(pthread_setaffinity_np(pthread_self(), sizeof want, &want) == 0,
              "pthread_setaffinity_np on itself failed");
        CHECK(pthread_getaffinity_np(pthread_self(), sizeof got, &got) == 0 &&
                  CPU_EQUAL(&got, &want),
              "pthread_getaffinity_np does not give back what was set");
        CHECK(sched_getaffinity(0, sizeof got, &got) == 0 && CPU_EQUAL(&got, &want),
              "sched_getaffinity does not give back what was set");
        CHECK(sched_getcpu() == other, "sched_getcpu is %d, not %d", sched_getcpu(), other);
        CPU_ZERO(&want);
        CPU_SET(other, &want);
        CHECK(sched_setaffinity(0, sizeof want, &want) == 0, "sched_setaffinity on itself failed");
        cpu_set_t none;
        CPU_ZERO(&none);
        errno = 0;
        CHECK(sched_setaffinity(0, sizeof none, &none) == -1 && errno == EINVAL,
              "an empty affinity was accepted");
        pthread_t t;
        pthread_create(&t, NULL, pinned_thread, &other);
        pthread_join(t, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every rank of the core has run since */
    real_affinity(&after);
    CHECK(CPU_EQUAL(&before, &after), "the kernel thread of the rank's core moved");
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
