/* The large-count forms of MPI-4.0 (MPI_Count counts): every point-to-point call's _c form moves
 * its data around a ring of ranks (eager and rendezvous sizes, a derived type on the receiving
 * side; buffered, persistent and matched-probe forms too), MPI_Get_count_c and MPI_Get_elements_c
 * read the statuses, MPI_Type_size_c, _get_extent_c and _get_true_extent_c describe a type, and
 * MPI_Pack_c, MPI_Unpack_c, MPI_Pack_size_c and their external32 forms pack one.
 * Counts beyond an int: a status of 3e9 bytes (MPI_Status_set_elements_c) gives MPI_Get_count_c 3e9
 * where MPI_Get_count says MPI_UNDEFINED; a message of 3e9 empty elements goes through; a count
 * whose bytes overflow and a negative count are MPI_ERR_COUNT. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int rank, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "p2p_large_count: rank %d, line %d: %s\n", rank, __LINE__, #cond);     \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

enum { BIG = 5000 }; /* ints: 20000 bytes, past the eager limit */
static int out[BIG], in[BIG];

static void fill(int n, int seed)
{
    for (int i = 0; i < n; i++)
        out[i] = seed * 100000 + i;
    memset(in, 0xff, sizeof in);
}

/* Whether in holds the n ints that fill(n, seed) gave out (on every rank alike). */
static int arrived(int n, int seed)
{
    for (int i = 0; i < n; i++)
        if (in[i] != seed * 100000 + i)
            return 0;
    return 1;
}

static int error_class(int code)
{
    int class;
    MPI_Error_class(code, &class);
    return class;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Count counts[2] = {3, BIG};
    MPI_Status st;
    MPI_Request reqs[2];

    for (int k = 0; k < 2; k++) {
        MPI_Count n = counts[k];
        int seed = 10 * k;
        /* Send_c, Recv_c */
        fill((int)n, seed + 1);
        MPI_Irecv_c(in, n, MPI_INT, from, 1, MPI_COMM_WORLD, &reqs[0]);
        CHECK(MPI_Send_c(out, n, MPI_INT, to, 1, MPI_COMM_WORLD) == MPI_SUCCESS);
        MPI_Wait(&reqs[0], &st);
        CHECK(arrived((int)n, seed + 1));
        MPI_Count c = -1, e = -1;
        CHECK(MPI_Get_count_c(&st, MPI_INT, &c) == MPI_SUCCESS && c == n);
        CHECK(MPI_Get_elements_c(&st, MPI_INT, &e) == MPI_SUCCESS && e == n);
        /* Isend_c, Recv_c; Ssend_c to a posted receive */
        fill((int)n, seed + 2);
        MPI_Isend_c(out, n, MPI_INT, to, 2, MPI_COMM_WORLD, &reqs[1]);
        CHECK(MPI_Recv_c(in, n, MPI_INT, from, 2, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
        CHECK(arrived((int)n, seed + 2));
        fill((int)n, seed + 3);
        MPI_Irecv_c(in, n, MPI_INT, from, 2, MPI_COMM_WORLD, &reqs[0]);
        CHECK(MPI_Ssend_c(out, n, MPI_INT, to, 2, MPI_COMM_WORLD) == MPI_SUCCESS);
        MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        CHECK(arrived((int)n, seed + 3));
        /* Rsend_c to a receive posted before a barrier; Isend_c, Issend_c, Irsend_c */
        fill((int)n, seed + 3);
        MPI_Irecv_c(in, n, MPI_INT, from, 3, MPI_COMM_WORLD, &reqs[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(MPI_Rsend_c(out, n, MPI_INT, to, 3, MPI_COMM_WORLD) == MPI_SUCCESS);
        MPI_Wait(&reqs[0], &st);
        CHECK(arrived((int)n, seed + 3));
        for (int kind = 0; kind < 3; kind++) {
            fill((int)n, seed + 4 + kind);
            MPI_Irecv_c(in, n, MPI_INT, from, 4, MPI_COMM_WORLD, &reqs[0]);
            MPI_Barrier(MPI_COMM_WORLD);
            int err = kind == 0   ? MPI_Isend_c(out, n, MPI_INT, to, 4, MPI_COMM_WORLD, &reqs[1])
                      : kind == 1 ? MPI_Issend_c(out, n, MPI_INT, to, 4, MPI_COMM_WORLD, &reqs[1])
                                  : MPI_Irsend_c(out, n, MPI_INT, to, 4, MPI_COMM_WORLD, &reqs[1]);
            CHECK(err == MPI_SUCCESS);
            MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
            CHECK(arrived((int)n, seed + 4 + kind));
        }
        /* Sendrecv_c, Sendrecv_replace_c, Isendrecv_c, Isendrecv_replace_c */
        fill((int)n, seed + 7);
        CHECK(MPI_Sendrecv_c(out, n, MPI_INT, to, 5, in, n, MPI_INT, from, 5, MPI_COMM_WORLD,
                             &st) == MPI_SUCCESS);
        CHECK(arrived((int)n, seed + 7));
        fill((int)n, seed + 8);
        memcpy(in, out, (size_t)n * sizeof(int));
        CHECK(MPI_Sendrecv_replace_c(in, n, MPI_INT, to, 6, from, 6, MPI_COMM_WORLD, &st) ==
              MPI_SUCCESS);
        CHECK(arrived((int)n, seed + 8));
        fill((int)n, seed + 9);
        CHECK(MPI_Isendrecv_c(out, n, MPI_INT, to, 7, in, n, MPI_INT, from, 7, MPI_COMM_WORLD,
                              &reqs[0]) == MPI_SUCCESS);
        MPI_Wait(&reqs[0], &st);
        CHECK(arrived((int)n, seed + 9));
        CHECK(MPI_Get_count_c(&st, MPI_INT, &c) == MPI_SUCCESS && c == n);
        fill((int)n, seed + 10);
        memcpy(in, out, (size_t)n * sizeof(int));
        CHECK(MPI_Isendrecv_replace_c(in, n, MPI_INT, to, 8, from, 8, MPI_COMM_WORLD, &reqs[0]) ==
              MPI_SUCCESS);
        MPI_Wait(&reqs[0], &st);
        CHECK(arrived((int)n, seed + 10));
    }

    /* Buffered: Buffer_attach_c, Bsend_c, Ibsend_c, Buffer_detach_c. */
    static char bbuf[2 * (BIG * sizeof(int) + MPI_BSEND_OVERHEAD)];
    CHECK(MPI_Buffer_attach_c(bbuf, (MPI_Count)sizeof bbuf) == MPI_SUCCESS);
    fill(BIG, 30);
    MPI_Irecv_c(in, BIG, MPI_INT, from, 12, MPI_COMM_WORLD, &reqs[0]);
    CHECK(MPI_Bsend_c(out, BIG, MPI_INT, to, 12, MPI_COMM_WORLD) == MPI_SUCCESS);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    CHECK(arrived(BIG, 30));
    fill(3, 31);
    MPI_Irecv_c(in, 3, MPI_INT, from, 13, MPI_COMM_WORLD, &reqs[0]);
    CHECK(MPI_Ibsend_c(out, 3, MPI_INT, to, 13, MPI_COMM_WORLD, &reqs[1]) == MPI_SUCCESS);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    CHECK(arrived(3, 31));
    void *detached = NULL;
    MPI_Count detached_size = 0;
    CHECK(MPI_Buffer_detach_c(&detached, &detached_size) == MPI_SUCCESS);
    CHECK(detached == bbuf && detached_size == (MPI_Count)sizeof bbuf);

    /* Persistent: each _init_c mode started twice. */
    for (int mode = 0; mode < 3; mode++) {
        MPI_Request send, recv;
        MPI_Recv_init_c(in, BIG, MPI_INT, from, 14, MPI_COMM_WORLD, &recv);
        int err = mode == 0   ? MPI_Send_init_c(out, BIG, MPI_INT, to, 14, MPI_COMM_WORLD, &send)
                  : mode == 1 ? MPI_Ssend_init_c(out, BIG, MPI_INT, to, 14, MPI_COMM_WORLD, &send)
                              : MPI_Rsend_init_c(out, BIG, MPI_INT, to, 14, MPI_COMM_WORLD, &send);
        CHECK(err == MPI_SUCCESS);
        for (int round = 0; round < 2; round++) {
            fill(BIG, 40 + 2 * mode + round);
            MPI_Start(&recv);
            MPI_Barrier(MPI_COMM_WORLD); /* the receive is posted before the ready send */
            MPI_Start(&send);
            MPI_Wait(&send, MPI_STATUS_IGNORE);
            MPI_Wait(&recv, &st);
            CHECK(arrived(BIG, 40 + 2 * mode + round));
        }
        MPI_Request_free(&send);
        MPI_Request_free(&recv);
    }
    MPI_Buffer_attach_c(bbuf, (MPI_Count)sizeof bbuf);
    MPI_Request bsend;
    CHECK(MPI_Bsend_init_c(out, 3, MPI_INT, to, 15, MPI_COMM_WORLD, &bsend) == MPI_SUCCESS);
    fill(3, 47);
    MPI_Start(&bsend);
    CHECK(MPI_Recv_c(in, 3, MPI_INT, from, 15, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    MPI_Wait(&bsend, MPI_STATUS_IGNORE);
    CHECK(arrived(3, 47));
    MPI_Request_free(&bsend);
    MPI_Buffer_detach_c(&detached, &detached_size);

    /* Matched probes: Mrecv_c and Imrecv_c. */
    for (int k = 0; k < 2; k++) {
        fill(BIG, 48 + k);
        MPI_Isend_c(out, BIG, MPI_INT, to, 16, MPI_COMM_WORLD, &reqs[1]);
        MPI_Message msg;
        MPI_Mprobe(from, 16, MPI_COMM_WORLD, &msg, &st);
        if (k == 0) {
            CHECK(MPI_Mrecv_c(in, BIG, MPI_INT, &msg, &st) == MPI_SUCCESS);
        } else {
            CHECK(MPI_Imrecv_c(in, BIG, MPI_INT, &msg, &reqs[0]) == MPI_SUCCESS);
            MPI_Wait(&reqs[0], &st);
        }
        CHECK(msg == MPI_MESSAGE_NULL);
        MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
        CHECK(arrived(BIG, 48 + k));
    }

    /* A derived type, queried and received into: pairs of ints one int apart. */
    MPI_Datatype pairs;
    MPI_Type_vector(2, 1, 2, MPI_INT, &pairs);
    MPI_Type_commit(&pairs);
    MPI_Count size_c, lb, extent, tlb, textent;
    CHECK(MPI_Type_size_c(pairs, &size_c) == MPI_SUCCESS && size_c == 2 * sizeof(int));
    CHECK(MPI_Type_get_extent_c(pairs, &lb, &extent) == MPI_SUCCESS && lb == 0 &&
          extent == 3 * sizeof(int));
    CHECK(MPI_Type_get_true_extent_c(pairs, &tlb, &textent) == MPI_SUCCESS && tlb == 0 &&
          textent == 3 * sizeof(int));
    fill(8, 50);
    MPI_Irecv_c(in, 2, pairs, from, 9, MPI_COMM_WORLD, &reqs[0]);
    MPI_Send_c(out, 4, MPI_INT, to, 9, MPI_COMM_WORLD);
    MPI_Wait(&reqs[0], &st);
    CHECK(in[0] == 50 * 100000 && in[2] == 50 * 100000 + 1 && in[3] == 50 * 100000 + 2 &&
          in[5] == 50 * 100000 + 3);
    MPI_Count c = -1, e = -1;
    CHECK(MPI_Get_count_c(&st, pairs, &c) == MPI_SUCCESS && c == 2);
    CHECK(MPI_Get_elements_c(&st, pairs, &e) == MPI_SUCCESS && e == 4);
    MPI_Type_free(&pairs);

    /* Packing: MPI_Pack_size_c, MPI_Pack_c, MPI_Unpack_c, and the external32 forms. */
    MPI_Datatype every_other;
    MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int grid[8] = {10, -1, 11, -1, 12, -1, 13, -1}, back[8] = {0};
    char packed[64];
    MPI_Count psize = -1, pos = 0;
    CHECK(MPI_Pack_size_c(2, every_other, MPI_COMM_WORLD, &psize) == MPI_SUCCESS &&
          psize == 8 * (MPI_Count)sizeof(int));
    CHECK(MPI_Pack_c(grid, 1, every_other, packed, (MPI_Count)sizeof packed, &pos,
                     MPI_COMM_WORLD) == MPI_SUCCESS &&
          pos == 4 * (MPI_Count)sizeof(int));
    MPI_Count upos = 0;
    CHECK(MPI_Unpack_c(packed, pos, &upos, back, 1, every_other, MPI_COMM_WORLD) == MPI_SUCCESS &&
          upos == pos);
    CHECK(back[0] == 10 && back[2] == 11 && back[4] == 12 && back[6] == 13 && back[1] == 0);
    CHECK(error_class(MPI_Pack_c(grid, 1, every_other, packed, 3, &(MPI_Count){0},
                                 MPI_COMM_WORLD)) == MPI_ERR_TRUNCATE);
    MPI_Type_free(&every_other);
    int one = 1, again = 0;
    MPI_Count epos = 0, esize = -1, eupos = 0;
    CHECK(MPI_Pack_external_size_c("external32", 1, MPI_INT, &esize) == MPI_SUCCESS && esize == 4);
    CHECK(MPI_Pack_external_c("external32", &one, 1, MPI_INT, packed, 4, &epos) == MPI_SUCCESS &&
          epos == 4);
    CHECK(packed[0] == 0 && packed[3] == 1); /* big-endian */
    CHECK(MPI_Unpack_external_c("external32", packed, 4, &eupos, &again, 1, MPI_INT) ==
              MPI_SUCCESS &&
          again == 1 && eupos == 4);
    int small_size = 0;
    CHECK(error_class(MPI_Pack_size(1000000000, MPI_DOUBLE, MPI_COMM_WORLD, &small_size)) ==
          MPI_ERR_COUNT);
    CHECK(MPI_Pack_size_c(1000000000, MPI_DOUBLE, MPI_COMM_WORLD, &psize) == MPI_SUCCESS &&
          psize == INT64_C(8000000000));
    CHECK(error_class(MPI_Pack_size_c(INT64_MAX / 2, MPI_DOUBLE, MPI_COMM_WORLD, &psize)) ==
          MPI_ERR_COUNT);

    /* Beyond an int. */
    MPI_Status big;
    CHECK(MPI_Status_set_elements_c(&big, MPI_BYTE, INT64_C(3000000000)) == MPI_SUCCESS);
    int small = 0;
    CHECK(MPI_Get_count(&big, MPI_BYTE, &small) == MPI_SUCCESS && small == MPI_UNDEFINED);
    CHECK(MPI_Get_count_c(&big, MPI_BYTE, &c) == MPI_SUCCESS && c == INT64_C(3000000000));
    CHECK(MPI_Get_count_c(&big, MPI_SHORT, &c) == MPI_SUCCESS && c == INT64_C(1500000000));
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    MPI_Irecv_c(in, INT64_C(3000000000), empty, from, 10, MPI_COMM_WORLD, &reqs[0]);
    CHECK(MPI_Send_c(out, INT64_C(3000000000), empty, to, 10, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Wait(&reqs[0], &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count_c(&st, MPI_BYTE, &c) == MPI_SUCCESS && c == 0);
    MPI_Type_free(&empty);
    CHECK(error_class(MPI_Send_c(out, INT64_MAX / 2, MPI_INT, to, 11, MPI_COMM_WORLD)) ==
          MPI_ERR_COUNT);
    CHECK(error_class(MPI_Recv_c(in, -1, MPI_INT, from, 11, MPI_COMM_WORLD, &st)) == MPI_ERR_COUNT);
    CHECK(error_class(MPI_Get_count_c(&st, MPI_INT, NULL)) == MPI_ERR_ARG);

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("p2p_large_count: ok\n");
    MPI_Finalize();
    return all ? 1 : 0;
}
