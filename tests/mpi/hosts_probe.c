/* What a job started by mpcrun --hosts sees where it runs. Each rank prints one line:
 *   rank R of N pid P netns I cwd DIR arg [ARG] env [$TM_PROBE]
 * then the job exits with the status given as its second argument ("late" as the first: the
 * second half of the ranks print half a second after the others ended). With "sleep PIDFILE" as
 * its arguments instead, rank 0 writes the process's pid to PIDFILE and the job sleeps (the
 * tests end it with a signal to mpcrun). */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc == 3 && strcmp(argv[1], "sleep") == 0) {
        if (rank == 0) {
            FILE *f = fopen(argv[2], "w");
            if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0)
                MPI_Abort(MPI_COMM_WORLD, 3);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        sleep(600);
        MPI_Finalize();
        return 0;
    }
    struct stat ns;
    char cwd[4096];
    const char *env = getenv("TM_PROBE");
    if (stat("/proc/self/ns/net", &ns) != 0 || !getcwd(cwd, sizeof cwd))
        MPI_Abort(MPI_COMM_WORLD, 3);
    /* "late": the second half of the ranks print half a second after the job's end, while the
     * first half have ended with the status already. */
    bool late = argc > 1 && strcmp(argv[1], "late") == 0 && rank >= size / 2;
    if (late)
        MPI_Finalize();
    if (late)
        usleep(500000);
    printf("rank %d of %d pid %d netns %lu cwd %s arg [%s] env [%s]\n", rank, size, (int)getpid(),
           (unsigned long)ns.st_ino, cwd, argc > 1 ? argv[1] : "", env ? env : "");
    if (!late)
        MPI_Finalize();
    return argc > 2 ? atoi(argv[2]) : 0;
}
