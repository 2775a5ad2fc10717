/* Persistent collectives (MPI-4.0): every MPI_*_init, each started and completed three times
 * with new data in the buffers before each start (the request reads the buffers at each start,
 * not at init); MPI_IN_PLACE; the neighbourhood forms on a periodic ring; MPI_Startall of several
 * kinds at once, completed by MPI_Waitall and by MPI_Test; an info object; errors: a bad root
 * at init (MPI_ERR_ROOT), MPI_Start of an active request, MPI_Request_free and MPI_Cancel of an
 * active one (MPI_ERR_REQUEST), then a clean free. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "coll_persistent: rank %d, line %d: %s\n", rank, __LINE__, #cond);     \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

#define RUNS 3

/* What rank r contributes at run `run`, element i. */
static int val(int r, int run, int i)
{
    return 1000 * run + 10 * r + i;
}

/* Starts req and waits for it. */
static void run_once(MPI_Request *req)
{
    CHECK(MPI_Start(req) == MPI_SUCCESS);
    CHECK(MPI_Wait(req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(*req != MPI_REQUEST_NULL); /* persistent: the handle stays */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int n = size, root = size - 1;
    int *sbuf = malloc(4 * n * sizeof(int)), *rbuf = malloc(4 * n * sizeof(int));
    int *counts = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int));
    MPI_Datatype *types = malloc(n * sizeof(MPI_Datatype));
    for (int i = 0; i < n; i++) {
        counts[i] = 2;
        displs[i] = 2 * i;
        types[i] = MPI_INT;
    }
    int *wdispls = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        wdispls[i] = 2 * i * (int)sizeof(int);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Request req;

    /* Bcast */
    int b[4];
    CHECK(MPI_Bcast_init(b, 4, MPI_INT, root, MPI_COMM_WORLD, info, &req) == MPI_SUCCESS);
    for (int run = 0; run < RUNS; run++) {
        for (int i = 0; i < 4; i++)
            b[i] = rank == root ? val(root, run, i) : -1;
        run_once(&req);
        for (int i = 0; i < 4; i++)
            CHECK(b[i] == val(root, run, i));
    }
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS && req == MPI_REQUEST_NULL);

    /* Allreduce, then in place */
    int x[2], sum[2];
    CHECK(MPI_Allreduce_init(x, sum, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req) ==
          MPI_SUCCESS);
    MPI_Request inplace;
    CHECK(MPI_Allreduce_init(MPI_IN_PLACE, x, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &inplace) == MPI_SUCCESS);
    for (int run = 0; run < RUNS; run++) {
        int want0 = 0, want1 = 0;
        for (int r = 0; r < n; r++) {
            want0 += val(r, run, 0);
            want1 += val(r, run, 1);
        }
        x[0] = val(rank, run, 0);
        x[1] = val(rank, run, 1);
        run_once(&req);
        CHECK(sum[0] == want0 && sum[1] == want1);
        run_once(&inplace);
        CHECK(x[0] == val(n - 1, run, 0) && x[1] == val(n - 1, run, 1));
    }
    MPI_Request_free(&req);
    MPI_Request_free(&inplace);

    /* Reduce, Scan, Exscan, Reduce_scatter_block, Reduce_scatter started together */
    int red = 0, scan = 0, exscan = -1, rsb[2] = {0, 0}, rs[2] = {0, 0};
    MPI_Request reqs[5];
    CHECK(MPI_Reduce_init(x, &red, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &reqs[0]) == MPI_SUCCESS);
    CHECK(MPI_Scan_init(x, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]) ==
          MPI_SUCCESS);
    CHECK(MPI_Exscan_init(x, &exscan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &reqs[2]) == MPI_SUCCESS);
    CHECK(MPI_Reduce_scatter_block_init(sbuf, rsb, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                        MPI_INFO_NULL, &reqs[3]) == MPI_SUCCESS);
    CHECK(MPI_Reduce_scatter_init(sbuf, rs, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                  &reqs[4]) == MPI_SUCCESS);
    for (int run = 0; run < RUNS; run++) {
        x[0] = val(rank, run, 0);
        for (int i = 0; i < 2 * n; i++)
            sbuf[i] = val(rank, run, i);
        CHECK(MPI_Startall(5, reqs) == MPI_SUCCESS);
        if (run == 1) {
            int flag = 0;
            while (!flag)
                CHECK(MPI_Testall(5, reqs, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        } else {
            CHECK(MPI_Waitall(5, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        }
        int total = 0, prefix = 0;
        for (int r = 0; r < n; r++) {
            total += val(r, run, 0);
            if (r <= rank)
                prefix += val(r, run, 0);
        }
        if (rank == 0)
            CHECK(red == total);
        CHECK(scan == prefix);
        if (rank > 0)
            CHECK(exscan == prefix - val(rank, run, 0));
        for (int k = 0; k < 2; k++) {
            int want = 0;
            for (int r = 0; r < n; r++)
                want += val(r, run, 2 * rank + k);
            CHECK(rsb[k] == want && rs[k] == want);
        }
    }
    for (int i = 0; i < 5; i++)
        MPI_Request_free(&reqs[i]);

    /* Gather(v), Scatter(v), Allgather(v), Alltoall(v,w): two ints per rank */
    enum {
        GATHER,
        GATHERV,
        SCATTER,
        SCATTERV,
        ALLGATHER,
        ALLGATHERV,
        ALLTOALL,
        ALLTOALLV,
        ALLTOALLW,
        NKINDS
    };
    MPI_Request k[NKINDS];
    int *g = malloc(NKINDS * 2 * n * sizeof(int)), two[2];
#define OUT(kind) (g + (kind)*2 * n)
    CHECK(MPI_Gather_init(two, 2, MPI_INT, OUT(GATHER), 2, MPI_INT, root, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &k[GATHER]) == MPI_SUCCESS);
    CHECK(MPI_Gatherv_init(two, 2, MPI_INT, OUT(GATHERV), counts, displs, MPI_INT, root,
                           MPI_COMM_WORLD, MPI_INFO_NULL, &k[GATHERV]) == MPI_SUCCESS);
    CHECK(MPI_Scatter_init(sbuf, 2, MPI_INT, OUT(SCATTER), 2, MPI_INT, root, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &k[SCATTER]) == MPI_SUCCESS);
    CHECK(MPI_Scatterv_init(sbuf, counts, displs, MPI_INT, OUT(SCATTERV), 2, MPI_INT, root,
                            MPI_COMM_WORLD, MPI_INFO_NULL, &k[SCATTERV]) == MPI_SUCCESS);
    CHECK(MPI_Allgather_init(two, 2, MPI_INT, OUT(ALLGATHER), 2, MPI_INT, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &k[ALLGATHER]) == MPI_SUCCESS);
    CHECK(MPI_Allgatherv_init(two, 2, MPI_INT, OUT(ALLGATHERV), counts, displs, MPI_INT,
                              MPI_COMM_WORLD, MPI_INFO_NULL, &k[ALLGATHERV]) == MPI_SUCCESS);
    CHECK(MPI_Alltoall_init(sbuf, 2, MPI_INT, OUT(ALLTOALL), 2, MPI_INT, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &k[ALLTOALL]) == MPI_SUCCESS);
    CHECK(MPI_Alltoallv_init(sbuf, counts, displs, MPI_INT, OUT(ALLTOALLV), counts, displs, MPI_INT,
                             MPI_COMM_WORLD, MPI_INFO_NULL, &k[ALLTOALLV]) == MPI_SUCCESS);
    CHECK(MPI_Alltoallw_init(sbuf, counts, wdispls, types, OUT(ALLTOALLW), counts, wdispls, types,
                             MPI_COMM_WORLD, MPI_INFO_NULL, &k[ALLTOALLW]) == MPI_SUCCESS);
    for (int run = 0; run < RUNS; run++) {
        two[0] = val(rank, run, 0);
        two[1] = val(rank, run, 1);
        for (int i = 0; i < 2 * n; i++)
            sbuf[i] = val(rank, run, i);
        for (int i = 0; i < NKINDS * 2 * n; i++)
            g[i] = -1;
        CHECK(MPI_Startall(NKINDS, k) == MPI_SUCCESS);
        CHECK(MPI_Waitall(NKINDS, k, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        for (int r = 0; r < n; r++)
            for (int e = 0; e < 2; e++) {
                int from_r = val(r, run, e); /* rank r's own pair */
                if (rank == root)
                    CHECK(OUT(GATHER)[2 * r + e] == from_r && OUT(GATHERV)[2 * r + e] == from_r);
                CHECK(OUT(ALLGATHER)[2 * r + e] == from_r && OUT(ALLGATHERV)[2 * r + e] == from_r);
                int to_me = val(r, run, 2 * rank + e); /* rank r's block for me */
                CHECK(OUT(ALLTOALL)[2 * r + e] == to_me && OUT(ALLTOALLV)[2 * r + e] == to_me &&
                      OUT(ALLTOALLW)[2 * r + e] == to_me);
            }
        for (int e = 0; e < 2; e++)
            CHECK(OUT(SCATTER)[e] == val(root, run, 2 * rank + e) &&
                  OUT(SCATTERV)[e] == val(root, run, 2 * rank + e));
    }
    for (int i = 0; i < NKINDS; i++)
        MPI_Request_free(&k[i]);

    /* neighbourhood collectives on a periodic ring: left and right */
    MPI_Comm ring;
    int dims[1] = {n}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    int left, right;
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    int nb_in[2], nb_out[2], ag[2], agv[2], a2a[2], a2av[2], a2aw[2], one = 0;
    int c1[2] = {1, 1}, d1[2] = {0, 1};
    MPI_Aint w1[2] = {0, sizeof(int)};
    MPI_Datatype t1[2] = {MPI_INT, MPI_INT};
    MPI_Request nb[5];
    CHECK(MPI_Neighbor_allgather_init(&one, 1, MPI_INT, ag, 1, MPI_INT, ring, MPI_INFO_NULL,
                                      &nb[0]) == MPI_SUCCESS);
    CHECK(MPI_Neighbor_allgatherv_init(&one, 1, MPI_INT, agv, c1, d1, MPI_INT, ring, MPI_INFO_NULL,
                                       &nb[1]) == MPI_SUCCESS);
    CHECK(MPI_Neighbor_alltoall_init(nb_out, 1, MPI_INT, a2a, 1, MPI_INT, ring, MPI_INFO_NULL,
                                     &nb[2]) == MPI_SUCCESS);
    CHECK(MPI_Neighbor_alltoallv_init(nb_out, c1, d1, MPI_INT, a2av, c1, d1, MPI_INT, ring,
                                      MPI_INFO_NULL, &nb[3]) == MPI_SUCCESS);
    CHECK(MPI_Neighbor_alltoallw_init(nb_out, c1, w1, t1, a2aw, c1, w1, t1, ring, MPI_INFO_NULL,
                                      &nb[4]) == MPI_SUCCESS);
    for (int run = 0; run < RUNS; run++) {
        one = val(rank, run, 0);
        nb_out[0] = val(rank, run, 1); /* to the left */
        nb_out[1] = val(rank, run, 2); /* to the right */
        CHECK(MPI_Startall(5, nb) == MPI_SUCCESS);
        CHECK(MPI_Waitall(5, nb, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        nb_in[0] = val(left, run, 2); /* what the left neighbour sent right */
        nb_in[1] = val(right, run, 1);
        CHECK(ag[0] == val(left, run, 0) && ag[1] == val(right, run, 0));
        CHECK(agv[0] == ag[0] && agv[1] == ag[1]);
        CHECK(a2a[0] == nb_in[0] && a2a[1] == nb_in[1]);
        CHECK(a2av[0] == nb_in[0] && a2av[1] == nb_in[1]);
        CHECK(a2aw[0] == nb_in[0] && a2aw[1] == nb_in[1]);
    }
    for (int i = 0; i < 5; i++)
        MPI_Request_free(&nb[i]);
    MPI_Comm_free(&ring);

    /* Barrier, and the errors */
    CHECK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req) == MPI_SUCCESS);
    for (int run = 0; run < RUNS; run++)
        run_once(&req);
    CHECK(MPI_Start(&req) == MPI_SUCCESS);
    CHECK(MPI_Start(&req) == MPI_ERR_REQUEST);
    CHECK(MPI_Request_free(&req) == MPI_ERR_REQUEST);
    CHECK(MPI_Cancel(&req) == MPI_ERR_REQUEST);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS);
    MPI_Request bad = MPI_REQUEST_NULL;
    CHECK(MPI_Bcast_init(b, 4, MPI_INT, size, MPI_COMM_WORLD, MPI_INFO_NULL, &bad) ==
              MPI_ERR_ROOT &&
          bad == MPI_REQUEST_NULL);
    CHECK(MPI_Allreduce_init(x, sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, NULL) ==
          MPI_ERR_ARG);

    MPI_Info_free(&info);
    free(g);
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
    free(wdispls);
    free(types);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_persistent: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
