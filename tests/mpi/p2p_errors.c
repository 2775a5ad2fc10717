/* p2p_errors CASE: makes one erroneous point-to-point call on rank 1 (the others wait in a
 * receive that never comes, so that only the error can end the job). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, buf[4] = {0}, big[8] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *c = argc > 1 ? argv[1] : "";
    if (rank == 1) {
        MPI_Request req;
        if (strcmp(c, "rank") == 0)
            MPI_Send(buf, 1, MPI_INT, 17, 0, MPI_COMM_WORLD);
        else if (strcmp(c, "tag") == 0)
            MPI_Send(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
        else if (strcmp(c, "count") == 0)
            MPI_Recv(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (strcmp(c, "type") == 0)
            MPI_Send(buf, 1, MPI_COMM_WORLD, 0, 0, MPI_COMM_WORLD);
        else if (strcmp(c, "comm") == 0)
            MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_INT);
        else if (strcmp(c, "buffer") == 0)
            MPI_Send(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD);
        else if (strcmp(c, "request") == 0) {
            req = (MPI_Request)12345;
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else if (strcmp(c, "truncate") == 0) {
            MPI_Recv(buf, 4, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (rank == 0 && strcmp(c, "truncate") == 0) {
        MPI_Send(big, 8, MPI_INT, 1, 77, MPI_COMM_WORLD);
    }
    MPI_Recv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
