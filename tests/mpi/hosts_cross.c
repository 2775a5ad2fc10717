/* Messages and collectives between the ranks of several hosts (mpcrun --hosts): a ring of
 * sendrecvs; from MPI_ANY_SOURCE, with a probe; 4 MiB synchronous sends of a vector type (by
 * rendezvous); a cancelled send; broadcast, allreduce (8 bytes and 2 MiB), alltoall and a
 * non-blocking barrier on MPI_COMM_WORLD; MPI_Comm_split and MPI_Comm_dup with members on
 * several hosts, and MPI_COMM_TYPE_SHARED, whose members are the ranks of one host (one
 * process), while the world's are not. Each rank prints "hosts_cross: rank R ok", or what
 * failed and exits 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, errors;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("hosts_cross: rank %d, line %d: ", rank, __LINE__);                             \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    int got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, next, 1, &got, 1, MPI_INT, prev, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK(got == prev, "ring: %d from %d", got, prev);

    /* From any source: rank 0 hears every other rank, in any order. */
    if (rank == 0) {
        int seen = 0;
        for (int i = 1; i < size; i++) {
            MPI_Status st;
            int count, from;
            MPI_Probe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &count);
            MPI_Recv(&from, 1, MPI_INT, st.MPI_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(count == 1 && from == st.MPI_SOURCE, "any source: %d from %d", from,
                  st.MPI_SOURCE);
            seen |= 1 << from;
        }
        CHECK(seen == (1 << size) - 2, "any source: heard %x", seen);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }

    /* 4 MiB of every other int, by rendezvous, synchronous, to the next rank. */
    int n = 1 << 20;
    int *out = malloc(2 * (size_t)n * sizeof(int)), *in = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < 2 * n; i++)
        out[i] = i % 2 ? -1 : rank * 7 + i;
    MPI_Datatype every_other;
    MPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Request reqs[2];
    MPI_Irecv(in, n, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &reqs[0]);
    MPI_Issend(out, 1, every_other, next, 3, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += in[i] != prev * 7 + 2 * i;
    CHECK(bad == 0, "4 MiB vector from %d: %d ints wrong", prev, bad);
    MPI_Type_free(&every_other);

    /* A send that nobody receives yet, cancelled: unless it left its host first (the cancel
     * then fails, as MPI allows), it never arrives; else it arrives. */
    MPI_Request lost;
    int cancelled = 0, prev_cancelled = 0, flag = 0, x;
    MPI_Isend(&rank, 1, MPI_INT, next, 99, MPI_COMM_WORLD, &lost);
    MPI_Cancel(&lost);
    MPI_Status st;
    MPI_Wait(&lost, &st);
    MPI_Test_cancelled(&st, &cancelled);
    MPI_Sendrecv(&cancelled, 1, MPI_INT, next, 98, &prev_cancelled, 1, MPI_INT, prev, 98,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (prev_cancelled) {
        MPI_Iprobe(prev, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "a cancelled send arrived");
    } else {
        MPI_Recv(&x, 1, MPI_INT, prev, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(x == prev, "the send whose cancel failed: %d", x);
    }

    /* Collectives on the world. */
    for (int i = 0; i < n; i++)
        in[i] = rank == size - 1 ? i : 0;
    MPI_Bcast(in, n, MPI_INT, size - 1, MPI_COMM_WORLD);
    bad = 0;
    for (int i = 0; i < n; i++)
        bad += in[i] != i;
    CHECK(bad == 0, "bcast: %d ints wrong", bad);
    long one = rank + 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == (long)size * (size + 1) / 2, "allreduce: %ld", sum);
    int m = n / 2;
    for (int i = 0; i < m; i++)
        out[i] = rank + i;
    MPI_Allreduce(out, in, m, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    bad = 0;
    for (int i = 0; i < m; i++)
        bad += in[i] != size * (size - 1) / 2 + size * i;
    CHECK(bad == 0, "2 MiB allreduce: %d ints wrong", bad);
    for (int i = 0; i < size; i++)
        out[i] = rank * 100 + i;
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        CHECK(in[i] == i * 100 + rank, "alltoall from %d: %d", i, in[i]);
    MPI_Request barrier;
    MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
    MPI_Wait(&barrier, MPI_STATUS_IGNORE);

    /* Communicators across hosts. */
    MPI_Comm half, dup, host;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
    MPI_Comm_dup(half, &dup);
    int hrank, hsize;
    MPI_Comm_rank(dup, &hrank);
    MPI_Comm_size(dup, &hsize);
    CHECK(hsize == (size + 1 - rank % 2) / 2, "split: size %d", hsize);
    int first = -1;
    MPI_Allreduce(&rank, &first, 1, MPI_INT, MPI_MAX, dup);
    CHECK(hrank == 0 ? first == rank : first > rank, "split by key: rank %d of %d, max %d", hrank,
          hsize, first);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    long pid = (long)getpid(), lowest = 0, highest = 0;
    MPI_Allreduce(&pid, &lowest, 1, MPI_LONG, MPI_MIN, host);
    MPI_Allreduce(&pid, &highest, 1, MPI_LONG, MPI_MAX, host);
    CHECK(lowest == pid && highest == pid, "MPI_COMM_TYPE_SHARED: pids %ld to %ld", lowest,
          highest);
    MPI_Allreduce(&pid, &lowest, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&pid, &highest, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lowest != highest, "one process for every rank");
    MPI_Comm_free(&host);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    free(out);
    free(in);
    MPI_Finalize();
    if (!errors)
        printf("hosts_cross: rank %d ok\n", rank);
    return errors != 0;
}
