/* Threads and processes that a rank makes (threads_fork.sh runs each mode):
 *   thread STATUS  rank 1's own pthread calls exit(STATUS) while rank 0 waits for a message that
 *                  never comes: the job must end, naming rank 1;
 *   fork           every rank forks children that end with _exit(rank), exit(7) and by returning
 *                  from a function after fork(): each child's status is its own, and the job
 *                  ends normally with 0;
 *   forkmpi        a forked child calls MPI: it dies with a message, and the job goes on;
 *   forksleep      rank 0 forks a child that sleeps 30 s, says "ready" and sleeps itself: the
 *                  script kills the job, whose temporary files must go at once. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int status_arg;

static void *thread_exit(void *arg)
{
    exit(status_arg);
}

/* Forks a child that runs `child` and returns its exit status, or -1. */
static int child_status(void (*child)(int), int arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        child(arg);
    int wstatus;
    if (waitpid(pid, &wstatus, 0) != pid || !WIFEXITED(wstatus))
        return -1;
    return WEXITSTATUS(wstatus);
}

static void child_quick_exit(int rank)
{
    _exit(rank);
}

static void child_exit(int arg)
{
    exit(arg);
}

static void child_mpi(int arg)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* may not: the child dies here */
    _exit(0);
}

int main(int argc, char **argv)
{
    int rank, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "thread") == 0) {
        status_arg = argc > 2 ? atoi(argv[2]) : 0;
        if (rank == 1) {
            pthread_t t;
            pthread_create(&t, NULL, thread_exit, NULL);
            pthread_join(t, NULL);
        } else {
            int x;
            MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        fprintf(stderr, "rank %d: still running after exit()\n", rank);
        return 9;
    }
    if (strcmp(mode, "fork") == 0) {
        int s = child_status(child_quick_exit, rank);
        if (s != rank) {
            fprintf(stderr, "rank %d: a child's _exit(%d) gave status %d\n", rank, rank, s);
            errors++;
        }
        s = child_status(child_exit, 7);
        if (s != 7) {
            fprintf(stderr, "rank %d: a child's exit(7) gave status %d\n", rank, s);
            errors++;
        }
    } else if (strcmp(mode, "forkmpi") == 0 && rank == 0) {
        int s = child_status(child_mpi, 0);
        if (s == 0 || s == -1) {
            fprintf(stderr, "rank 0: a child calling MPI ended with status %d\n", s);
            errors++;
        }
    } else if (strcmp(mode, "forksleep") == 0 && rank == 0) {
        fflush(NULL);
        if (fork() == 0) {
            sleep(30);
            _exit(0);
        }
        printf("ready\n");
        fflush(stdout);
        sleep(60);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return errors ? 1 : 0;
}
