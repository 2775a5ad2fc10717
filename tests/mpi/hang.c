/* A deadlock for mpcrun --timeout to diagnose: rank 0 receives what rank 1 never sends, rank 1
 * waits for a non-blocking receive from rank 0, rank 2 sends a large message nobody receives,
 * rank 3 probes, rank 4 waits for all of three requests on a communicator of the program, two of
 * which never complete, rank 5 waits in a barrier that rank 4 never joins, rank 6 waits for an
 * MPI_Isendrecv whose receive never matches, the other ranks finish. With the argument
 * "syscall": rank 0 blocks in a system call (poll) after a barrier, holding the core it shares
 * with the others (hang.sh runs them on one core), which poll with MPI_Test for a message that
 * never comes. */
#include <mpi.h>
#include <poll.h>
#include <string.h>

static char big[1 << 16];

int main(int argc, char **argv)
{
    int rank, v;
    MPI_Request req, reqs[3];
    MPI_Comm halo, pair;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "syscall") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) /* poll(2), not sleep(3), which lets the core's other ranks run */
            poll(NULL, 0, 60000);
        int flag = 0;
        MPI_Irecv(&v, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, &req);
        while (!flag)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &halo);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 4 || rank == 5 ? 0 : MPI_UNDEFINED, 0, &pair);
    if (rank == 0) {
        MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Irecv(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (rank == 2) {
        MPI_Send(big, sizeof big, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
    } else if (rank == 3) {
        MPI_Probe(MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 4) {
        int w[2];
        reqs[0] = MPI_REQUEST_NULL;
        MPI_Irecv(&w[0], 1, MPI_INT, 0, 11, halo, &reqs[1]);
        MPI_Irecv(&w[1], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, halo, &reqs[2]);
        MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    } else if (rank == 5) {
        MPI_Barrier(pair);
    } else if (rank == 6) {
        MPI_Isendrecv(&rank, 1, MPI_INT, 0, 13, &v, 1, MPI_INT, 0, 13, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
