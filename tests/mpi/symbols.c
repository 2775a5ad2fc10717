/* A program whose own functions and variables have the names of C library functions and of
 * ThreadMPI internals: each call must reach the program's own definition (as in a plain
 * executable), and the runtime must keep working with its own. */
#include <mpi.h>
#include <stdio.h>

int init(void)
{
    return 101;
}
int barrier(int x)
{
    return 102 + x;
}
int queue_push(void *q, void *item)
{
    (void)q;
    (void)item;
    return 103;
}
int send(int fd)
{
    return 104 + fd;
}
int connect(void)
{
    return 105;
}
char *index(const char *s, int c)
{
    (void)c;
    return (char *)s + 1;
}
int tm_sched_yield(void)
{
    return 106;
}
int tm_rt_rank_self(void)
{
    return 107;
}
int tm_rt_launcher_main(void)
{
    return 108;
}
double tm_rt_wtime(void)
{
    return -1.0;
}
int job = 109;
int settings = 110;

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    /* GCC knows index() as a builtin and would fold a direct call: call through a pointer. */
    char *(*volatile index_fn)(const char *, int) = index;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (init() != 101 || barrier(1) != 103 || queue_push(NULL, NULL) != 103 || send(1) != 105 ||
        connect() != 105 || index_fn("ab", 'a')[0] != 'b' || tm_sched_yield() != 106 ||
        tm_rt_rank_self() != 107 || tm_rt_launcher_main() != 108 || tm_rt_wtime() != -1.0 ||
        job != 109 || settings != 110) {
        fprintf(stderr, "rank %d: a call reached a definition other than the program's\n", rank);
        errors++;
    }
    /* The runtime's own functions of the same names still serve the MPI calls. */
    if (rank < 0 || rank >= size || MPI_Wtime() < 0.0) {
        fprintf(stderr, "rank %d: the runtime is confused (size %d)\n", rank, size);
        errors++;
    }
    MPI_Finalize();
    return errors ? 1 : 0;
}
