/* The large-count forms (MPI-4.0) of the collectives with one count: MPI_Bcast_c, MPI_Reduce_c,
 * MPI_Allreduce_c, MPI_Scan_c, MPI_Exscan_c, each blocking, non-blocking and persistent, at a
 * small and a large size; the even ranks call the _c form and the odd ones the int form, which
 * must match each other. The results are checked. Then the errors: a negative count, and a count
 * whose bytes overflow (MPI_ERR_COUNT). */
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
