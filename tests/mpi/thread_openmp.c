/* MPI_THREAD_MULTIPLE with OpenMP: the threads of a parallel region call MPI for the rank whose
 * thread started the region (thread_openmp.sh runs it with a core per rank, and with ranks that
 * share cores, where such a call ends the job, saying why). Each thread t of each rank sends its
 * number to the next rank with tag t and checks what the previous rank's thread t sent. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int provided = -1, rank, size, errors = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    errors += provided != MPI_THREAD_MULTIPLE;
    for (int round = 0; round < 20; round++) {
#pragma omp parallel num_threads(3) reduction(+ : errors)
        {
            int t = omp_get_thread_num(), r = -1, out = rank * 100 + t + round, in = -1;
            int to = (rank + 1) % size, from = (rank + size - 1) % size;
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
            errors += r != rank;
            MPI_Sendrecv(&out, 1, MPI_INT, to, t, &in, 1, MPI_INT, from, t, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            errors += in != from * 100 + t + round;
        }
    }
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("thread_openmp: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
