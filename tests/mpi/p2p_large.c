/* Large rendezvous messages between two ranks, whose copy the receiver shares with a sender that
 * waits (p2p/copy.c, "Shared copies": chunks of 64 KiB from 512 KiB on, when the two ranks run on
 * different cores). Every byte of every message is checked, and the bytes past a receive:
 *   - sizes on and off the chunks (512 KiB, 512 KiB + 1, 1 MiB + 13, 4 MiB), each way, by a
 *     blocking MPI_Send (the sender waits, so it helps) into MPI_Recv;
 *   - type to type: a contiguous send into a strided receive (a vector of 3-byte blocks, so that
 *     chunk edges fall inside elements) and back, and a vector of doubles into another shape;
 *   - truncation: 1 MiB into a 600 KiB buffer, MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN, the
 *     600 KiB received and nothing past them written;
 *   - a sender that does not wait: MPI_Isend, then 20 ms without MPI calls, then MPI_Wait (the
 *     receiver copies alone);
 *   - 200 back-to-back round trips of 512 KiB, each one's data different (a helper's late chunk
 *     would show);
 *   - MPI_Bcast of 2 MiB from each root.
 * Usage: p2p_large (2 ranks). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, errors;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "p2p_large: rank %d, line %d: ", rank, __LINE__);                      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* Byte i of message `seed`. */
static unsigned char pattern(size_t i, unsigned seed)
{
    uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u;
    return (unsigned char)(x >> 13 ^ x >> 24);
}

static void fill(unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = pattern(i, seed);
}

/* An index where buf differs from message `seed`, or n. From the end: right after a receive,
 * the last chunks are the likeliest to be still in flight if the receive returned too early. */
static size_t find_wrong(const unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = n; i-- > 0;)
        if (buf[i] != pattern(i, seed))
            return i;
    return n;
}

/* From `from` to the other rank, n bytes, blocking on both sides; the receiver checks them and
 * the guard bytes after them. */
static void one_way(int from, size_t n, unsigned seed)
{
    unsigned char *buf = malloc(n + 64);
    if (rank == from) {
        fill(buf, n, seed);
        MPI_Send(buf, (int)n, MPI_BYTE, 1 - from, 1, MPI_COMM_WORLD);
        CHECK(find_wrong(buf, n, seed) == n, "send buffer of %zu bytes changed", n);
    } else {
        memset(buf, 0xEE, n + 64);
        MPI_Status st;
        MPI_Recv(buf, (int)n, MPI_BYTE, from, 1, MPI_COMM_WORLD, &st);
        int count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK((size_t)count == n, "%zu bytes from %d: count %d", n, from, count);
        size_t bad = find_wrong(buf, n, seed);
        CHECK(bad == n, "%zu bytes from %d: byte %zu wrong", n, from, bad);
        for (int g = 0; g < 64; g++)
            CHECK(buf[n + g] == 0xEE, "%zu bytes from %d: guard byte %d written", n, from, g);
    }
    free(buf);
}

/* Rank 0 sends n contiguous bytes into rank 1's vector of 3-byte blocks, stride 5; rank 1 sends
 * them back from that layout into rank 0's contiguous buffer. */
static void strided(size_t blocks)
{
    size_t n = 3 * blocks;
    MPI_Datatype vec;
    MPI_Type_vector((int)blocks, 3, 5, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    unsigned char *flat = malloc(n), *spread = malloc(5 * blocks);
    if (rank == 0) {
        fill(flat, n, 7);
        MPI_Send(flat, (int)n, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        memset(flat, 0, n);
        MPI_Recv(flat, (int)n, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        size_t bad = find_wrong(flat, n, 7);
        CHECK(bad == n, "strided round trip of %zu bytes: byte %zu wrong", n, bad);
    } else {
        memset(spread, 0xEE, 5 * blocks);
        MPI_Recv(spread, 1, vec, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (size_t b = 0; b < blocks; b++)
            for (size_t j = 0; j < 5; j++) {
                unsigned char want = j < 3 ? pattern(3 * b + j, 7) : 0xEE;
                if (spread[5 * b + j] != want) {
                    CHECK(0, "strided receive of %zu bytes: block %zu byte %zu is %d, not %d", n, b,
                          j, spread[5 * b + j], want);
                    b = blocks;
                    break;
                }
            }
        MPI_Send(spread, 1, vec, 0, 3, MPI_COMM_WORLD);
    }
    free(flat);
    free(spread);
    MPI_Type_free(&vec);
}

/* Rank 1 sends a vector of rows x 2 doubles (stride 3) into rank 0's vector of rows / 2 x 4
 * doubles (stride 5): the same 2 rows doubles, laid out differently. */
static void reshaped(int rows)
{
    MPI_Datatype from, to;
    MPI_Type_vector(rows, 2, 3, MPI_DOUBLE, &from);
    MPI_Type_vector(rows / 2, 4, 5, MPI_DOUBLE, &to);
    MPI_Type_commit(&from);
    MPI_Type_commit(&to);
    double *a = malloc(sizeof(double) * 3 * (size_t)rows),
           *b = malloc(sizeof(double) * 5 * (size_t)(rows / 2));
    if (rank == 1) {
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < 3; j++)
                a[3 * i + j] = j < 2 ? 2 * i + j : -1;
        MPI_Send(a, 1, from, 0, 4, MPI_COMM_WORLD);
    } else {
        for (int i = 0; i < 5 * (rows / 2); i++)
            b[i] = -2;
        MPI_Recv(b, 1, to, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < rows / 2; i++)
            for (int j = 0; j < 5; j++) {
                double want = j < 4 ? 4 * i + j : -2;
                if (b[5 * i + j] != want) {
                    CHECK(0, "reshaped %d rows: row %d column %d is %g, not %g", rows, i, j,
                          b[5 * i + j], want);
                    i = rows;
                    break;
                }
            }
    }
    free(a);
    free(b);
    MPI_Type_free(&from);
    MPI_Type_free(&to);
}

static void truncated(void)
{
    size_t n = 1 << 20, room = 600 * 1024;
    unsigned char *buf = malloc(n);
    if (rank == 0) {
        fill(buf, n, 11);
        MPI_Send(buf, (int)n, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
    } else {
        memset(buf, 0xEE, n);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Status st;
        int err = MPI_Recv(buf, (int)room, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        int cls = MPI_SUCCESS;
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "1 MiB into 600 KiB: error class %d", cls);
        size_t bad = find_wrong(buf, room, 11);
        CHECK(bad == room, "1 MiB into 600 KiB: byte %zu wrong", bad);
        for (size_t i = room; i < n; i++)
            if (buf[i] != 0xEE) {
                CHECK(0, "1 MiB into 600 KiB: byte %zu past the buffer written", i);
                break;
            }
    }
    free(buf);
}

static void sender_busy(void)
{
    size_t n = 2 << 20;
    unsigned char *buf = malloc(n);
    if (rank == 0) {
        fill(buf, n, 13);
        MPI_Request req;
        MPI_Isend(buf, (int)n, MPI_BYTE, 1, 6, MPI_COMM_WORLD, &req);
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do /* no MPI call: the receiver must copy on its own */
            clock_gettime(CLOCK_MONOTONIC, &t);
        while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 20000000L);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        memset(buf, 0, n);
        MPI_Recv(buf, (int)n, MPI_BYTE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        size_t bad = find_wrong(buf, n, 13);
        CHECK(bad == n, "from a busy sender: byte %zu wrong", bad);
    }
    free(buf);
}

static void round_trips(int times)
{
    size_t n = 512 * 1024;
    unsigned char *buf = malloc(n);
    for (int t = 0; t < times; t++) {
        unsigned seed = 100 + (unsigned)t;
        if (rank == 0) {
            fill(buf, n, seed);
            MPI_Send(buf, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)n, MPI_BYTE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            size_t bad = find_wrong(buf, n, seed + 1000);
            CHECK(bad == n, "round trip %d: byte %zu of the reply wrong", t, bad);
        } else {
            MPI_Recv(buf, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            size_t bad = find_wrong(buf, n, seed);
            CHECK(bad == n, "round trip %d: byte %zu wrong", t, bad);
            fill(buf, n, seed + 1000);
            MPI_Send(buf, (int)n, MPI_BYTE, 0, 8, MPI_COMM_WORLD);
        }
        if (errors)
            break;
    }
    free(buf);
}

static void bcasts(void)
{
    size_t n = 2 << 20;
    unsigned char *buf = malloc(n);
    for (int root = 0; root < 2; root++) {
        if (rank == root)
            fill(buf, n, 20 + (unsigned)root);
        else
            memset(buf, 0, n);
        MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
        size_t bad = find_wrong(buf, n, 20 + (unsigned)root);
        CHECK(bad == n, "bcast of 2 MiB from %d: byte %zu wrong", root, bad);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "p2p_large: needs 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    static const size_t sizes[] = {512 * 1024, 512 * 1024 + 1, (1 << 20) + 13, 4 << 20};
    for (int from = 0; from < 2; from++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            one_way(from, sizes[k], (unsigned)(k + 1));
    strided(200003);
    reshaped(40000);
    truncated();
    sender_busy();
    round_trips(200);
    bcasts();
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_large: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
