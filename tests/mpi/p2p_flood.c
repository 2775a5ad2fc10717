/* A flood of unexpected messages: every other rank sends N messages of B bytes to rank 0 before
 * it posts a receive, then rank 0 receives them all (in order, each sender's values checked).
 * What they hold while unexpected is measured as the growth of the process's resident memory (all
 * ranks are threads of it), and must stay within `per_message` bytes each: a message should cost
 * memory in proportion to its size, not a page. After the receives, and one more message from
 * each sender (which finds its cells back), the memory must be back near where it started.
 * Peak and final growth are printed; under ThreadSanitizer they are not checked.
 * Usage: p2p_flood N B [per_message] (at least 2 ranks). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, errors;

/* Under ThreadSanitizer the resident memory says little: its shadow and its objects for the
 * atomics follow the memory the runtime touches, at several times its size, and go back when
 * it pleases. The bounds are checked without it (AddressSanitizer's eighth fits the margin). */
#ifdef __SANITIZE_THREAD__
#define CHECK_MEMORY 0
#else
#define CHECK_MEMORY 1
#endif

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "p2p_flood: rank %d, line %d: ", rank, __LINE__);                      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* The process's resident memory, in bytes. */
static long rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (!f || fscanf(f, "%ld %ld", &size, &resident) != 2) {
        perror("p2p_flood: /proc/self/statm");
        exit(2);
    }
    fclose(f);
    return resident * 4096L;
}

static void fill(unsigned char *buf, size_t bytes, int sender, long i)
{
    for (size_t k = 0; k < bytes; k++)
        buf[k] = (unsigned char)(sender * 131 + i * 7 + (long)k);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: p2p_flood N B [per_message], at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long n = atol(argv[1]);
    size_t bytes = (size_t)atol(argv[2]);
    long per_message = argc > 3 ? atol(argv[3]) : 512;
    unsigned char *buf = malloc(bytes + 1), *want = malloc(bytes + 1);
    if (!buf || !want)
        MPI_Abort(MPI_COMM_WORLD, 2);

    /* A small burst first, which leaves what the process keeps for itself anyway (the senders'
     * first chunks, the allocators' arenas, a sanitizer's tables), then the burst measured. */
    for (int round = 0; round < 2; round++) {
        long before = 0, peak = 0;
        long n_round = round == 0 ? (n + 99) / 100 : n;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            before = rss_bytes();
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank != 0)
            for (long i = 0; i < n_round; i++) {
                fill(buf, bytes, rank, i);
                MPI_Send(buf, (int)bytes, MPI_BYTE, 0, (int)(i % 1000), MPI_COMM_WORLD);
            }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            peak = rss_bytes() - before;
            long messages = n_round * (size - 1);
            printf("round %d: %ld unexpected messages of %zu B: %ld KiB more (%ld B each)\n", round,
                   messages, bytes, peak / 1024, messages ? peak / messages : 0);
            if (round == 1 && CHECK_MEMORY)
                CHECK(peak <= per_message * messages,
                      "%ld B per unexpected message of %zu B, more than %ld", peak / messages,
                      bytes, per_message);
            for (int s = 1; s < size; s++)
                for (long i = 0; i < n_round; i++) {
                    MPI_Status st;
                    memset(buf, 0xee, bytes + 1);
                    MPI_Recv(buf, (int)bytes + 1, MPI_BYTE, s, (int)(i % 1000), MPI_COMM_WORLD,
                             &st);
                    int count;
                    MPI_Get_count(&st, MPI_BYTE, &count);
                    fill(want, bytes, s, i);
                    if (count != (int)bytes || memcmp(buf, want, bytes) != 0) {
                        CHECK(0, "message %ld from %d: %d bytes, or wrong data", i, s, count);
                        break;
                    }
                }
        }
        /* Every cell is back with its sender now: its next send finds them there. */
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank != 0)
            MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        else
            for (int s = 1; s < size; s++)
                MPI_Recv(buf, (int)bytes, MPI_BYTE, s, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            long after = rss_bytes() - before;
            printf("round %d: after the receives: %ld KiB more\n", round, after / 1024);
            if (round == 1 && CHECK_MEMORY)
                CHECK(after <= peak / 8 + (1L << 20),
                      "%ld KiB still held after the receives (peak %ld KiB)", after / 1024,
                      peak / 1024);
        }
    }
    free(buf);
    free(want);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("p2p_flood: OK\n");
    MPI_Finalize();
    return all != 0;
}
