/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0) around a ring and to the rank itself:
 * eager and rendezvous sizes, a derived type, the status of the receive (source, tag, count),
 * MPI_PROC_NULL on either side, progress while the rank only tests, two in flight at once with
 * the same tags, completion through MPI_Waitany among plain requests, MPI_ERR_TRUNCATE under
 * MPI_ERRORS_RETURN, MPI_Request_free while pending, MPI_Cancel refused. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "p2p_isendrecv: rank %d, line %d: %s\n", rank, __LINE__, #cond);       \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* The value of element i of what rank `from` sends with tag `tag`. */
static double value(int from, int tag, int i)
{
    return from * 1e6 + tag * 1e4 + i;
}

static void fill(double *buf, int n, int from, int tag)
{
    for (int i = 0; i < n; i++)
        buf[i] = value(from, tag, i);
}

static int same(const double *buf, int n, int from, int tag)
{
    for (int i = 0; i < n; i++)
        if (buf[i] != value(from, tag, i))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    const int big = 100000; /* 800 KB: a rendezvous */
    double *out = malloc(big * sizeof *out), *in = malloc(big * sizeof *in);
    double *out2 = malloc(big * sizeof *out2), *in2 = malloc(big * sizeof *in2);
    MPI_Request req, reqs[3];
    MPI_Status st;
    int count;

    /* a ring, small then large, waited for */
    int sizes[2] = {4, big};
    for (int k = 0; k < 2; k++) {
        int n = sizes[k];
        fill(out, n, rank, 10 + k);
        CHECK(MPI_Isendrecv(out, n, MPI_DOUBLE, next, 10 + k, in, n, MPI_DOUBLE, prev, 10 + k,
                            MPI_COMM_WORLD, &req) == MPI_SUCCESS);
        CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && req == MPI_REQUEST_NULL);
        CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 10 + k);
        CHECK(MPI_Get_count(&st, MPI_DOUBLE, &count) == MPI_SUCCESS && count == n);
        CHECK(same(in, n, prev, 10 + k));
    }

    /* to itself, large, completed by testing only */
    fill(out, big, rank, 20);
    CHECK(MPI_Isendrecv(out, big, MPI_DOUBLE, rank, 20, in, big, MPI_DOUBLE, rank, MPI_ANY_TAG,
                        MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    int flag = 0;
    while (!flag)
        CHECK(MPI_Test(&req, &flag, &st) == MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 20 && same(in, big, rank, 20));

    /* two at once in both directions with the same tag, and a plain receive beside them:
     * messages between two ranks with one tag match in order */
    fill(out, big, rank, 30);
    fill(out2, 8, rank, 31);
    double extra = -1, extra_out = rank + 0.5;
    CHECK(MPI_Isendrecv(out, big, MPI_DOUBLE, next, 30, in, big, MPI_DOUBLE, prev, 30,
                        MPI_COMM_WORLD, &reqs[0]) == MPI_SUCCESS);
    CHECK(MPI_Isendrecv(out2, 8, MPI_DOUBLE, next, 30, in2, 8, MPI_DOUBLE, prev, 30, MPI_COMM_WORLD,
                        &reqs[1]) == MPI_SUCCESS);
    CHECK(MPI_Irecv(&extra, 1, MPI_DOUBLE, prev, 32, MPI_COMM_WORLD, &reqs[2]) == MPI_SUCCESS);
    MPI_Send(&extra_out, 1, MPI_DOUBLE, next, 32, MPI_COMM_WORLD);
    for (int done = 0; done < 3; done++) {
        int index = -1;
        CHECK(MPI_Waitany(3, reqs, &index, &st) == MPI_SUCCESS && index >= 0);
        CHECK(st.MPI_SOURCE == prev);
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        CHECK(count == (index == 0 ? big : index == 1 ? 8 : 1));
    }
    CHECK(same(in, big, prev, 30) && same(in2, 8, prev, 31) && extra == prev + 0.5);

    /* _replace with a derived type: every second double of a buffer, large */
    MPI_Datatype every2;
    MPI_Type_vector(big / 2, 1, 2, MPI_DOUBLE, &every2);
    MPI_Type_commit(&every2);
    for (int i = 0; i < big; i++)
        in[i] = i % 2 ? -1.0 : value(rank, 40, i);
    CHECK(MPI_Isendrecv_replace(in, 1, every2, next, 40, prev, 40, MPI_COMM_WORLD, &req) ==
          MPI_SUCCESS);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
    for (int i = 0; i < big && !errors; i++)
        CHECK(in[i] == (i % 2 ? -1.0 : value(prev, 40, i)));
    CHECK(MPI_Get_count(&st, every2, &count) == MPI_SUCCESS && count == 1);
    MPI_Type_free(&every2);

    /* _replace, small, with MPI_PROC_NULL as the source: the data still goes out (to a receive
     * posted first: a send may wait for its receive) */
    double one = value(rank, 50, 0), got50 = -1;
    MPI_Request r50;
    CHECK(MPI_Irecv(&got50, 1, MPI_DOUBLE, prev, 50, MPI_COMM_WORLD, &r50) == MPI_SUCCESS);
    CHECK(MPI_Isendrecv_replace(&one, 1, MPI_DOUBLE, next, 50, MPI_PROC_NULL, 50, MPI_COMM_WORLD,
                                &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && st.MPI_SOURCE == MPI_PROC_NULL);
    CHECK(one == value(rank, 50, 0));
    CHECK(MPI_Wait(&r50, &st) == MPI_SUCCESS && got50 == value(prev, 50, 0));
    /* MPI_PROC_NULL as the destination */
    fill(out, 4, rank, 51);
    CHECK(MPI_Isendrecv(in, 4, MPI_DOUBLE, MPI_PROC_NULL, 51, in2, 4, MPI_DOUBLE, MPI_PROC_NULL, 51,
                        MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && st.MPI_SOURCE == MPI_PROC_NULL);

    /* a receive too short: the error of the receive, the send still done */
    fill(out, 8, rank, 60);
    CHECK(MPI_Isendrecv(out, 8, MPI_DOUBLE, next, 60, in, 4, MPI_DOUBLE, prev, 60, MPI_COMM_WORLD,
                        &req) == MPI_SUCCESS);
    int err = MPI_Wait(&req, &st), class = -1;
    MPI_Error_class(err, &class);
    CHECK(class == MPI_ERR_TRUNCATE);

    /* cancelled: refused, and the request still completes */
    fill(out, 4, rank, 70);
    CHECK(MPI_Isendrecv(out, 4, MPI_DOUBLE, next, 70, in, 4, MPI_DOUBLE, prev, 70, MPI_COMM_WORLD,
                        &req) == MPI_SUCCESS);
    CHECK(MPI_Cancel(&req) == MPI_ERR_REQUEST);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && same(in, 4, prev, 70));

    /* freed while pending (the receive waits for a message sent after the barrier): the
     * receive still lands */
    fill(out, big, rank, 80);
    CHECK(MPI_Isendrecv(out, 4, MPI_DOUBLE, MPI_PROC_NULL, 80, in, big, MPI_DOUBLE, prev, 80,
                        MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS && req == MPI_REQUEST_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(out, big, MPI_DOUBLE, next, 80, MPI_COMM_WORLD);
    /* the receive above matched first; a message behind it with the same tag proves it done */
    MPI_Request r80;
    MPI_Irecv(in2, 1, MPI_DOUBLE, prev, 80, MPI_COMM_WORLD, &r80);
    MPI_Send(out, 1, MPI_DOUBLE, next, 80, MPI_COMM_WORLD);
    CHECK(MPI_Wait(&r80, &st) == MPI_SUCCESS);
    CHECK(same(in, big, prev, 80));

    free(out);
    free(in);
    free(out2);
    free(in2);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_isendrecv: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
