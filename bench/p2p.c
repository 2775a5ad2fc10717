/* Point-to-point between ranks 0 and 1, built by bench/p2p.sh with each MPI's mpicc:
 *   latency   half round trip of a ping-pong, 8 bytes
 *   bandwidth one-way, 4 MiB messages, against a single-thread memcpy of the same size
 *   rate      messages per second, windows of 64 non-blocking 8-byte sends
 * Prints one line per measurement: "name value unit". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double ping_pong(int rank, void *buf, int bytes, int iters)
{
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) / iters / 2;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "p2p: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int big = 4 << 20;
    char *buf = malloc(big), *other = malloc(big);
    memset(buf, 1, big);
    memset(other, 2, big);
    if (rank < 2) {
        ping_pong(rank, buf, 8, 1000); /* warm-up */
        double lat = ping_pong(rank, buf, 8, 20000);
        ping_pong(rank, buf, big, 2);
        double t = ping_pong(rank, buf, big, 20);
        /* rate: rank 0 sends windows of 64, rank 1 receives them, then acknowledges */
        MPI_Request reqs[64];
        int windows = 2000, ack = 0;
        double t0 = MPI_Wtime();
        for (int w = 0; w < windows; w++) {
            for (int i = 0; i < 64; i++) {
                if (rank == 0)
                    MPI_Isend(buf + 8 * i, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &reqs[i]);
                else
                    MPI_Irecv(buf + 8 * i, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &reqs[i]);
            }
            MPI_Waitall(64, reqs, MPI_STATUSES_IGNORE);
            if (rank == 0)
                MPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        }
        double rate = 64.0 * windows / (MPI_Wtime() - t0);
        if (rank == 0) {
            double m0 = MPI_Wtime();
            for (int i = 0; i < 20; i++)
                memcpy(other, buf, big);
            double mc = (MPI_Wtime() - m0) / 20;
            printf("latency_8B %.3f us\n", lat * 1e6);
            printf("bandwidth_4MiB %.0f MB/s\n", big / t / 1e6);
            printf("memcpy_4MiB %.0f MB/s\n", big / mc / 1e6);
            printf("rate_8B %.2f Mmsg/s\n", rate / 1e6);
        }
    }
    free(buf);
    free(other);
    MPI_Finalize();
    return 0;
}
