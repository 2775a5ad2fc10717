/* Many ranks of a small program: each adds its rank in an allreduce; rank 0 checks the sum and
 * counts the process's memory mappings while every rank is alive (between two barriers), which
 * many_ranks.sh bounds per rank. Run by many_ranks.sh. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long mine = rank, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    int status = 0;
    if (rank == 0) {
        long maps = 0;
        FILE *f = fopen("/proc/self/maps", "r");
        for (int c; f && (c = getc(f)) != EOF;)
            maps += c == '\n';
        if (f)
            fclose(f);
        long long want = (long long)size * (size - 1) / 2;
        if (sum != want) {
            fprintf(stderr, "the sum of the ranks is %lld, not %lld\n", sum, want);
            status = 1;
        }
        printf("ranks %d sum %lld mappings %ld\n", size, sum, maps);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
