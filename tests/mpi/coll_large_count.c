/* The large-count forms (MPI-4.0) of the collectives whose counts are scalars: MPI_Bcast_c,
 * MPI_Reduce_c, MPI_Allreduce_c, MPI_Scan_c, MPI_Exscan_c, MPI_Gather_c, MPI_Scatter_c,
 * MPI_Allgather_c, MPI_Alltoall_c, MPI_Reduce_scatter_block_c, MPI_Neighbor_allgather_c and
 * MPI_Neighbor_alltoall_c (on a periodic ring), each blocking, non-blocking and
 * persistent, at a small and a large size; the even ranks call the _c form and the odd ones the
 * int form, which must match each other; and an operation of MPI_Op_create_c, in
 * MPI_Reduce_local_c and MPI_Allreduce_c. The results are checked. Then the errors: a negative
 * count, and a count whose bytes overflow (MPI_ERR_COUNT). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

static int rank, size, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "coll_large_count: rank %d, line %d: %s\n", rank, __LINE__, #cond);    \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

enum { BIG = 8192 }; /* longs: 64 KiB */
static long in[BIG], out[BIG];

enum mode { BLOCKING, NONBLOCKING, PERSISTENT };

/* MPI_Op_create_c's function: sums longs, and counts its elements (each call's len). */
static MPI_Count large_op_elements;
static void sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *type)
{
    (void)type;
    const long *a = in;
    long *b = inout;
    for (MPI_Count i = 0; i < *len; i++)
        b[i] += a[i];
    large_op_elements += *len;
}

/* Completes the request of a non-blocking or persistent call (started here), frees the latter. */
static void finish(enum mode m, MPI_Request *req)
{
    if (m == PERSISTENT) {
        MPI_Start(req);
        MPI_Wait(req, MPI_STATUS_IGNORE);
        MPI_Request_free(req);
    } else if (m == NONBLOCKING) {
        MPI_Wait(req, MPI_STATUS_IGNORE);
    }
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
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm = MPI_COMM_WORLD;
    int large = rank % 2 == 0; /* this rank calls the _c forms */
    static const int counts[] = {3, BIG};
    for (int k = 0; k < 2; k++)
        for (enum mode m = BLOCKING; m <= PERSISTENT; m++) {
            int n = counts[k];
            MPI_Count cn = n;
            MPI_Request req = MPI_REQUEST_NULL;
            int root = (int)(m + k) % size;

            /* bcast */
            for (int i = 0; i < n; i++)
                out[i] = rank == root ? 7 * i + k : -1;
            if (m == BLOCKING)
                CHECK((large ? MPI_Bcast_c(out, cn, MPI_LONG, root, comm)
                             : MPI_Bcast(out, n, MPI_LONG, root, comm)) == MPI_SUCCESS);
            else if (m == NONBLOCKING)
                CHECK((large ? MPI_Ibcast_c(out, cn, MPI_LONG, root, comm, &req)
                             : MPI_Ibcast(out, n, MPI_LONG, root, comm, &req)) == MPI_SUCCESS);
            else
                CHECK((large ? MPI_Bcast_init_c(out, cn, MPI_LONG, root, comm, MPI_INFO_NULL, &req)
                             : MPI_Bcast_init(out, n, MPI_LONG, root, comm, MPI_INFO_NULL, &req)) ==
                      MPI_SUCCESS);
            finish(m, &req);
            for (int i = 0; i < n; i++)
                if (out[i] != 7 * i + k) {
                    CHECK(out[i] == 7 * i + k);
                    break;
                }

            /* reduce, allreduce, scan, exscan: sums of rank + i */
            for (int op = 0; op < 4; op++) {
                for (int i = 0; i < n; i++) {
                    in[i] = rank + i;
                    out[i] = -1;
                }
                int err = MPI_SUCCESS;
                if (op == 0 && m == BLOCKING)
                    err = large ? MPI_Reduce_c(in, out, cn, MPI_LONG, MPI_SUM, root, comm)
                                : MPI_Reduce(in, out, n, MPI_LONG, MPI_SUM, root, comm);
                else if (op == 0 && m == NONBLOCKING)
                    err = large ? MPI_Ireduce_c(in, out, cn, MPI_LONG, MPI_SUM, root, comm, &req)
                                : MPI_Ireduce(in, out, n, MPI_LONG, MPI_SUM, root, comm, &req);
                else if (op == 0)
                    err = large ? MPI_Reduce_init_c(in, out, cn, MPI_LONG, MPI_SUM, root, comm,
                                                    MPI_INFO_NULL, &req)
                                : MPI_Reduce_init(in, out, n, MPI_LONG, MPI_SUM, root, comm,
                                                  MPI_INFO_NULL, &req);
                else if (op == 1 && m == BLOCKING)
                    err = large ? MPI_Allreduce_c(in, out, cn, MPI_LONG, MPI_SUM, comm)
                                : MPI_Allreduce(in, out, n, MPI_LONG, MPI_SUM, comm);
                else if (op == 1 && m == NONBLOCKING)
                    err = large ? MPI_Iallreduce_c(in, out, cn, MPI_LONG, MPI_SUM, comm, &req)
                                : MPI_Iallreduce(in, out, n, MPI_LONG, MPI_SUM, comm, &req);
                else if (op == 1)
                    err = large ? MPI_Allreduce_init_c(in, out, cn, MPI_LONG, MPI_SUM, comm,
                                                       MPI_INFO_NULL, &req)
                                : MPI_Allreduce_init(in, out, n, MPI_LONG, MPI_SUM, comm,
                                                     MPI_INFO_NULL, &req);
                else if (op == 2 && m == BLOCKING)
                    err = large ? MPI_Scan_c(in, out, cn, MPI_LONG, MPI_SUM, comm)
                                : MPI_Scan(in, out, n, MPI_LONG, MPI_SUM, comm);
                else if (op == 2 && m == NONBLOCKING)
                    err = large ? MPI_Iscan_c(in, out, cn, MPI_LONG, MPI_SUM, comm, &req)
                                : MPI_Iscan(in, out, n, MPI_LONG, MPI_SUM, comm, &req);
                else if (op == 2)
                    err = large ? MPI_Scan_init_c(in, out, cn, MPI_LONG, MPI_SUM, comm,
                                                  MPI_INFO_NULL, &req)
                                : MPI_Scan_init(in, out, n, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL,
                                                &req);
                else if (m == BLOCKING)
                    err = large ? MPI_Exscan_c(in, out, cn, MPI_LONG, MPI_SUM, comm)
                                : MPI_Exscan(in, out, n, MPI_LONG, MPI_SUM, comm);
                else if (m == NONBLOCKING)
                    err = large ? MPI_Iexscan_c(in, out, cn, MPI_LONG, MPI_SUM, comm, &req)
                                : MPI_Iexscan(in, out, n, MPI_LONG, MPI_SUM, comm, &req);
                else
                    err = large ? MPI_Exscan_init_c(in, out, cn, MPI_LONG, MPI_SUM, comm,
                                                    MPI_INFO_NULL, &req)
                                : MPI_Exscan_init(in, out, n, MPI_LONG, MPI_SUM, comm,
                                                  MPI_INFO_NULL, &req);
                CHECK(err == MPI_SUCCESS);
                finish(m, &req);
                /* ranks 0..last contributed rank + i each */
                int last = op == 0 || op == 1 ? size - 1 : op == 2 ? rank : rank - 1;
                int significant = op == 0 ? rank == root : op == 3 ? rank > 0 : 1;
                for (int i = 0; significant && i < n; i++) {
                    long want = (long)last * (last + 1) / 2 + (long)(last + 1) * i;
                    if (out[i] != want) {
                        fprintf(stderr,
                                "coll_large_count: rank %d, op %d, mode %d, %d longs: element %d "
                                "is %ld, not %ld\n",
                                rank, op, (int)m, n, i, out[i], want);
                        errors++;
                        break;
                    }
                }
            }
        }

    /* The block collectives: `n` longs per block, each block (from rank j to rank k) holding
     * 1000 * j + k + i at element i. */
    enum { BLOCK = 1000 };
    static long sendb[64 * BLOCK], recvb[64 * BLOCK];
    static const int blocks[] = {3, BLOCK};
    for (int k = 0; k < 2 && size <= 64; k++)
        for (enum mode m = BLOCKING; m <= PERSISTENT; m++)
            for (int coll = 0; coll < 5; coll++) {
                int n = blocks[k], root = (coll + (int)m) % size;
                MPI_Count cn = n;
                MPI_Request req = MPI_REQUEST_NULL;
                for (int j = 0; j < size; j++)
                    for (int i = 0; i < n; i++) {
                        /* gather, allgather: the same block for every destination */
                        int to = coll == 0 || coll == 2 ? 0 : j;
                        sendb[j * n + i] = 1000L * rank + to + i;
                        recvb[j * n + i] = -1;
                    }
                if (coll == 4) /* reduce_scatter_block: block j of every rank is summed */
                    for (int j = 0; j < size; j++)
                        for (int i = 0; i < n; i++)
                            sendb[j * n + i] = rank + j + i;
                const char *name[] = {"gather", "scatter", "allgather", "alltoall",
                                      "reduce_scatter_block"};
                int err;
#define FORM(c_form, i_form, ...) (large ? c_form(__VA_ARGS__) : i_form(__VA_ARGS__))
#define COUNT                     (large ? cn : n)
                switch (coll * 3 + (int)m) {
                case 0:
                    err = FORM(MPI_Gather_c, MPI_Gather, sendb, COUNT, MPI_LONG, recvb, COUNT,
                               MPI_LONG, root, comm);
                    break;
                case 1:
                    err = FORM(MPI_Igather_c, MPI_Igather, sendb, COUNT, MPI_LONG, recvb, COUNT,
                               MPI_LONG, root, comm, &req);
                    break;
                case 2:
                    err = FORM(MPI_Gather_init_c, MPI_Gather_init, sendb, COUNT, MPI_LONG, recvb,
                               COUNT, MPI_LONG, root, comm, MPI_INFO_NULL, &req);
                    break;
                case 3:
                    err = FORM(MPI_Scatter_c, MPI_Scatter, sendb, COUNT, MPI_LONG, recvb, COUNT,
                               MPI_LONG, root, comm);
                    break;
                case 4:
                    err = FORM(MPI_Iscatter_c, MPI_Iscatter, sendb, COUNT, MPI_LONG, recvb, COUNT,
                               MPI_LONG, root, comm, &req);
                    break;
                case 5:
                    err = FORM(MPI_Scatter_init_c, MPI_Scatter_init, sendb, COUNT, MPI_LONG, recvb,
                               COUNT, MPI_LONG, root, comm, MPI_INFO_NULL, &req);
                    break;
                case 6:
                    err = FORM(MPI_Allgather_c, MPI_Allgather, sendb, COUNT, MPI_LONG, recvb, COUNT,
                               MPI_LONG, comm);
                    break;
                case 7:
                    err = FORM(MPI_Iallgather_c, MPI_Iallgather, sendb, COUNT, MPI_LONG, recvb,
                               COUNT, MPI_LONG, comm, &req);
                    break;
                case 8:
                    err = FORM(MPI_Allgather_init_c, MPI_Allgather_init, sendb, COUNT, MPI_LONG,
                               recvb, COUNT, MPI_LONG, comm, MPI_INFO_NULL, &req);
                    break;
                case 9:
                    err = FORM(MPI_Alltoall_c, MPI_Alltoall, sendb, COUNT, MPI_LONG, recvb, COUNT,
                               MPI_LONG, comm);
                    break;
                case 10:
                    err = FORM(MPI_Ialltoall_c, MPI_Ialltoall, sendb, COUNT, MPI_LONG, recvb, COUNT,
                               MPI_LONG, comm, &req);
                    break;
                case 11:
                    err = FORM(MPI_Alltoall_init_c, MPI_Alltoall_init, sendb, COUNT, MPI_LONG,
                               recvb, COUNT, MPI_LONG, comm, MPI_INFO_NULL, &req);
                    break;
                case 12:
                    err = FORM(MPI_Reduce_scatter_block_c, MPI_Reduce_scatter_block, sendb, recvb,
                               COUNT, MPI_LONG, MPI_SUM, comm);
                    break;
                case 13:
                    err = FORM(MPI_Ireduce_scatter_block_c, MPI_Ireduce_scatter_block, sendb, recvb,
                               COUNT, MPI_LONG, MPI_SUM, comm, &req);
                    break;
                default:
                    err = FORM(MPI_Reduce_scatter_block_init_c, MPI_Reduce_scatter_block_init,
                               sendb, recvb, COUNT, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &req);
                    break;
                }
#undef FORM
#undef COUNT
                CHECK(err == MPI_SUCCESS);
                finish(m, &req);
                /* What arrived: from rank j, block j of recvb (one block for scatter and
                 * reduce_scatter_block; the root's only for gather). */
                int from_all = coll != 1 && coll != 4;
                int nothing = coll == 0 && rank != root; /* gather: at the root only */
                for (int j = 0; !nothing && j < (from_all ? size : 1); j++)
                    for (int i = 0; i < n; i++) {
                        long want = coll == 1 ? 1000L * root + rank + i
                                    : coll == 4
                                        ? (long)size * (rank + i) + (long)size * (size - 1) / 2
                                    : coll == 3 ? 1000L * j + rank + i
                                                : 1000L * j + i;
                        if (recvb[j * n + i] != want) {
                            fprintf(stderr,
                                    "coll_large_count: rank %d, %s, mode %d, %d longs: block %d, "
                                    "element %d is %ld, not %ld\n",
                                    rank, name[coll], (int)m, n, j, i, recvb[j * n + i], want);
                            errors++;
                            i = n;
                            j = size;
                        }
                    }
            }

    /* The neighborhood collectives on a periodic ring: from the left neighbour, then the right. */
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(comm, 1, dims, periods, 0, &ring);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (enum mode m = BLOCKING; m <= PERSISTENT; m++)
        for (int alltoall = 0; alltoall < 2; alltoall++) {
            int n = BLOCK;
            MPI_Count cn = n;
            MPI_Request req = MPI_REQUEST_NULL;
            for (int i = 0; i < 2 * n; i++) {
                /* alltoall: block 0 goes left, block 1 right */
                sendb[i] = 1000L * rank + (alltoall ? i / n : 0) * 100 + i % n;
                recvb[i] = -1;
            }
            int err;
            if (alltoall)
                err =
                    m == BLOCKING ? (large ? MPI_Neighbor_alltoall_c(sendb, cn, MPI_LONG, recvb, cn,
                                                                     MPI_LONG, ring)
                                           : MPI_Neighbor_alltoall(sendb, n, MPI_LONG, recvb, n,
                                                                   MPI_LONG, ring))
                    : m == NONBLOCKING
                        ? (large ? MPI_Ineighbor_alltoall_c(sendb, cn, MPI_LONG, recvb, cn,
                                                            MPI_LONG, ring, &req)
                                 : MPI_Ineighbor_alltoall(sendb, n, MPI_LONG, recvb, n, MPI_LONG,
                                                          ring, &req))
                        : (large ? MPI_Neighbor_alltoall_init_c(sendb, cn, MPI_LONG, recvb, cn,
                                                                MPI_LONG, ring, MPI_INFO_NULL, &req)
                                 : MPI_Neighbor_alltoall_init(sendb, n, MPI_LONG, recvb, n,
                                                              MPI_LONG, ring, MPI_INFO_NULL, &req));
            else
                err =
                    m == BLOCKING ? (large ? MPI_Neighbor_allgather_c(sendb, cn, MPI_LONG, recvb,
                                                                      cn, MPI_LONG, ring)
                                           : MPI_Neighbor_allgather(sendb, n, MPI_LONG, recvb, n,
                                                                    MPI_LONG, ring))
                    : m == NONBLOCKING
                        ? (large ? MPI_Ineighbor_allgather_c(sendb, cn, MPI_LONG, recvb, cn,
                                                             MPI_LONG, ring, &req)
                                 : MPI_Ineighbor_allgather(sendb, n, MPI_LONG, recvb, n, MPI_LONG,
                                                           ring, &req))
                        : (large
                               ? MPI_Neighbor_allgather_init_c(sendb, cn, MPI_LONG, recvb, cn,
                                                               MPI_LONG, ring, MPI_INFO_NULL, &req)
                               : MPI_Neighbor_allgather_init(sendb, n, MPI_LONG, recvb, n, MPI_LONG,
                                                             ring, MPI_INFO_NULL, &req));
            CHECK(err == MPI_SUCCESS);
            finish(m, &req);
            /* block 0 from the left neighbour (its block 1 when alltoall), block 1 from the right
             * (its block 0) */
            for (int i = 0; i < n; i++) {
                long from_left = 1000L * left + (alltoall ? 100 : 0) + i;
                long from_right = 1000L * right + i;
                if (recvb[i] != from_left || recvb[n + i] != from_right) {
                    fprintf(stderr,
                            "coll_large_count: rank %d, neighbor %s, mode %d: element %d is %ld "
                            "and %ld, not %ld and %ld\n",
                            rank, alltoall ? "alltoall" : "allgather", (int)m, i, recvb[i],
                            recvb[n + i], from_left, from_right);
                    errors++;
                    break;
                }
            }
        }
    MPI_Comm_free(&ring);

    /* MPI_Op_create_c and MPI_Reduce_local_c, then that operation in MPI_Allreduce_c. */
    MPI_Op sum;
    CHECK(MPI_Op_create_c(sum_c, 1, &sum) == MPI_SUCCESS);
    for (int i = 0; i < BIG; i++) {
        in[i] = i;
        out[i] = 2 * i;
    }
    CHECK(MPI_Reduce_local_c(in, out, (MPI_Count)BIG, MPI_LONG, sum) == MPI_SUCCESS);
    CHECK(out[BIG - 1] == 3L * (BIG - 1) && large_op_elements == BIG);
    for (int i = 0; i < BIG; i++)
        in[i] = rank + i;
    CHECK(MPI_Allreduce_c(in, out, (MPI_Count)BIG, MPI_LONG, sum, comm) == MPI_SUCCESS);
    for (int i = 0; i < BIG; i++)
        if (out[i] != (long)size * (size - 1) / 2 + (long)size * i) {
            CHECK(out[i] == (long)size * (size - 1) / 2 + (long)size * i);
            break;
        }
    MPI_Op_free(&sum);

    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    CHECK(error_class(MPI_Bcast_c(out, -1, MPI_LONG, 0, comm)) == MPI_ERR_COUNT);
    CHECK(error_class(MPI_Allreduce_c(in, out, INT64_MAX / 4, MPI_LONG, MPI_SUM, comm)) ==
          MPI_ERR_COUNT);

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0 && all == 0)
        printf("coll_large_count: ok\n");
    MPI_Finalize();
    return all ? 1 : 0;
}
