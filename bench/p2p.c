/* Point-to-point between ranks 0 and 1, built by bench/p2p.sh and bench/run.sh with each MPI's
 * mpicc:
 *   latency   half round trip of a ping-pong, 8 bytes
 *   bandwidth one-way, 4 MiB messages, against a single-thread memcpy of the same size
 *   rate      messages per second, windows of 64 non-blocking 8-byte sends
 * Prints one line per measurement: "name value unit".
 *
 *   p2p [BYTES...]
 *
 * With sizes (up to 4 MiB), the same three for each size instead, one line each:
 * "latency BYTES B us", "bandwidth BYTES B MB/s" (the size over the half round trip) and, for the
 * sizes whose window of 64 fits in 4 MiB, "rate BYTES B Mmsg/s"; each measurement lasts about
 * the same time whatever the size. */
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

/* Messages of `bytes` per second from rank 0 to rank 1: windows of 64 non-blocking sends, each
 * window acknowledged. buf holds 64 * bytes. */
static double rate(int rank, char *buf, int bytes, int windows)
{
    MPI_Request reqs[64];
    int ack = 0;
    double t0 = MPI_Wtime();
    for (int w = 0; w < windows; w++) {
        for (int i = 0; i < 64; i++) {
            if (rank == 0)
                MPI_Isend(buf + (size_t)bytes * i, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &reqs[i]);
            else
                MPI_Irecv(buf + (size_t)bytes * i, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &reqs[i]);
        }
        MPI_Waitall(64, reqs, MPI_STATUSES_IGNORE);
        if (rank == 0)
            MPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
    return 64.0 * windows / (MPI_Wtime() - t0);
}

/* The sweep over the sizes given: iteration counts shrink with the size, so that each measurement
 * moves about 256 MiB or makes 20000 round trips, whichever is fewer. */
static void sweep(int rank, char *buf, int argc, char **argv)
{
    for (int a = 1; a < argc; a++) {
        int bytes = atoi(argv[a]);
        long iters = (256L << 20) / (bytes + 1);
        iters = iters > 20000 ? 20000 : iters < 10 ? 10 : iters;
        ping_pong(rank, buf, bytes, (int)(iters / 10) + 1); /* warm-up */
        double lat = ping_pong(rank, buf, bytes, (int)iters);
        double r = 0;
        if (64L * bytes <= 4 << 20)
            r = rate(rank, buf, bytes, (int)(iters / 10) + 10);
        if (rank == 0) {
            printf("latency %d B %.3f us\n", bytes, lat * 1e6);
            printf("bandwidth %d B %.1f MB/s\n", bytes, bytes / lat / 1e6);
            if (r > 0)
                printf("rate %d B %.3f Mmsg/s\n", bytes, r / 1e6);
            fflush(stdout);
        }
    }
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
    for (int a = 1; a < argc; a++) {
        if (atol(argv[a]) < 0 || atol(argv[a]) > big) {
            if (rank == 0)
                fprintf(stderr, "usage: p2p [BYTES...] (each at most %d)\n", big);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (rank < 2 && argc > 1) {
        sweep(rank, buf, argc, argv);
    } else if (rank < 2) {
        ping_pong(rank, buf, 8, 1000); /* warm-up */
        double lat = ping_pong(rank, buf, 8, 20000);
        ping_pong(rank, buf, big, 2);
        double t = ping_pong(rank, buf, big, 20);
        double r = rate(rank, buf, 8, 2000);
        if (rank == 0) {
            double m0 = MPI_Wtime();
            for (int i = 0; i < 20; i++)
                memcpy(other, buf, big);
            double mc = (MPI_Wtime() - m0) / 20;
            printf("latency_8B %.3f us\n", lat * 1e6);
            printf("bandwidth_4MiB %.0f MB/s\n", big / t / 1e6);
            printf("memcpy_4MiB %.0f MB/s\n", big / mc / 1e6);
            printf("rate_8B %.2f Mmsg/s\n", r / 1e6);
        }
    }
    free(buf);
    free(other);
    MPI_Finalize();
    return 0;
}
