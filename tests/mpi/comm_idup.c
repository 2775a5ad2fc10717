/* MPI_Comm_idup on every rank: a duplicate used once its request completes (same group, a context
 * of its own for point-to-point and collectives); a call that returns before the other members
 * call it; a duplicate of a duplicate, with attributes copied by their callbacks, the error
 * handler and the topology; several idups outstanding on two communicators with an ibarrier,
 * completed in reverse order; duplicates of MPI_COMM_SELF; many in a loop; argument errors;
 * MPI_Comm_idup_with_info.
 * Usage: comm_idup */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int errors;
static int rank, size;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "comm_idup: rank %d: line %d: %s\n", rank, __LINE__, #cond);           \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static int copies, deletes;

static int copy_fn(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra;
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)val;
    (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

/* comm has the members of MPI_COMM_WORLD in the same order, and is not MPI_COMM_WORLD. */
static void check_world_dup(MPI_Comm comm)
{
    int r = -1, n = -1, result = -1;

    CHECK(MPI_Comm_rank(comm, &r) == MPI_SUCCESS && r == rank);
    CHECK(MPI_Comm_size(comm, &n) == MPI_SUCCESS && n == size);
    CHECK(MPI_Comm_compare(comm, MPI_COMM_WORLD, &result) == MPI_SUCCESS);
    CHECK(result == MPI_CONGRUENT);
}

/* A ring on each of the n communicators (all with the world's ranks), with the same tag: each
 * carries its own value, received in reverse order, so a shared context would mix them. Then an
 * allreduce on each, to use their collective contexts. */
static void rings(const MPI_Comm *comms, int n)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request reqs[16];
    int got[16], sum[16];

    for (int i = n - 1; i >= 0; i--)
        CHECK(MPI_Irecv(&got[i], 1, MPI_INT, left, 3, comms[i], &reqs[i]) == MPI_SUCCESS);
    for (int i = 0; i < n; i++) {
        int v = 1000 * i + rank;
        CHECK(MPI_Send(&v, 1, MPI_INT, right, 3, comms[i]) == MPI_SUCCESS);
    }
    CHECK(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        CHECK(got[i] == 1000 * i + left);
    for (int i = 0; i < n; i++) {
        int v = i + rank;
        CHECK(MPI_Allreduce(&v, &sum[i], 1, MPI_INT, MPI_SUM, comms[i]) == MPI_SUCCESS);
        CHECK(sum[i] == size * i + size * (size - 1) / 2);
    }
}

/* idup of MPI_COMM_WORLD, then use; the rank 0 - last rank exchange shows that the call does not
 * wait for the other members: rank 0's synchronous send completes only once the last rank
 * received it, which the last rank does before it calls MPI_Comm_idup. */
static void basic(void)
{
    MPI_Comm dup = MPI_COMM_NULL, world = MPI_COMM_WORLD;
    MPI_Request req = MPI_REQUEST_NULL;
    int token = 42, got = 0;

    if (rank == 0 && size > 1) {
        CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req) == MPI_SUCCESS);
        CHECK(req != MPI_REQUEST_NULL);
        CHECK(MPI_Ssend(&token, 1, MPI_INT, size - 1, 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else if (rank == size - 1 && size > 1) {
        CHECK(MPI_Recv(&got, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(got == 42);
        CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req) == MPI_SUCCESS);
    } else {
        CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req) == MPI_SUCCESS);
    }
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(req == MPI_REQUEST_NULL);
    CHECK(dup != MPI_COMM_NULL && dup != MPI_COMM_WORLD);
    check_world_dup(dup);
    MPI_Comm both[2] = {world, dup};
    rings(both, 2);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
}

/* idup of a dup'd communicator with attributes (one copied by its callback, one not copied), an
 * error handler and a Cartesian topology, completed with MPI_Test. */
static void attributes(void)
{
    MPI_Comm parent, cart, dup = MPI_COMM_NULL, cdup = MPI_COMM_NULL;
    MPI_Request req;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int kcopy, knocopy, flag = 0, status = -1;
    int dims[1] = {size}, periods[1] = {1};
    static char base[4];
    void *val = NULL;

    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &parent) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_keyval(copy_fn, delete_fn, &kcopy, NULL) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &knocopy, NULL) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(parent, kcopy, base) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(parent, knocopy, base) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    copies = deletes = 0;
    CHECK(MPI_Comm_idup(parent, &dup, &req) == MPI_SUCCESS);
    do
        CHECK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    while (!flag && errors == 0);
    CHECK(req == MPI_REQUEST_NULL);
    check_world_dup(dup);
    CHECK(copies == 1);
    CHECK(MPI_Comm_get_attr(dup, kcopy, &val, &flag) == MPI_SUCCESS && flag && val == base + 1);
    CHECK(MPI_Comm_get_attr(dup, knocopy, &val, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Comm_get_errhandler(dup, &eh) == MPI_SUCCESS && eh == MPI_ERRORS_RETURN);
    CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS);
    /* MPI_ERRORS_RETURN came along: an error on dup returns. */
    CHECK(MPI_Send(&flag, 1, MPI_INT, size, 0, dup) == MPI_ERR_RANK);
    MPI_Comm pair[2] = {parent, dup};
    rings(pair, 2);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
    CHECK(deletes == 1); /* the copied attribute's */

    CHECK(MPI_Cart_create(parent, 1, dims, periods, 0, &cart) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup(cart, &cdup, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Topo_test(cdup, &status) == MPI_SUCCESS && status == MPI_CART);
    int src = -1, dst = -1;
    CHECK(MPI_Cart_shift(cdup, 0, 1, &src, &dst) == MPI_SUCCESS);
    CHECK(src == (rank + size - 1) % size && dst == (rank + 1) % size);
    CHECK(MPI_Comm_free(&cdup) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&cart) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&parent) == MPI_SUCCESS);
    CHECK(deletes == 3); /* and parent's two */
    CHECK(MPI_Comm_free_keyval(&kcopy) == MPI_SUCCESS);
    CHECK(MPI_Comm_free_keyval(&knocopy) == MPI_SUCCESS);
}

/* Idups of MPI_COMM_WORLD and of a duplicate, interleaved with an ibarrier on each, all
 * outstanding together and completed in reverse order (the last one first). */
static void outstanding(void)
{
    MPI_Comm other, d[4] = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL};
    MPI_Request reqs[6];

    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &other) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &reqs[0]) == MPI_SUCCESS);
    CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup(other, &d[1], &reqs[2]) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &d[2], &reqs[3]) == MPI_SUCCESS);
    CHECK(MPI_Ibarrier(other, &reqs[4]) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup(other, &d[3], &reqs[5]) == MPI_SUCCESS);
    for (int i = 5; i >= 0; i--) {
        CHECK(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(reqs[i] == MPI_REQUEST_NULL);
    }
    for (int i = 0; i < 4; i++)
        check_world_dup(d[i]);
    MPI_Comm all[6] = {MPI_COMM_WORLD, other, d[0], d[1], d[2], d[3]};
    rings(all, 6);
    for (int i = 0; i < 4; i++)
        CHECK(MPI_Comm_free(&d[i]) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&other) == MPI_SUCCESS);
}

/* Each rank's MPI_COMM_SELF duplicated, twice: messages to itself stay in their communicator. */
static void self(void)
{
    MPI_Comm s[2];
    MPI_Request reqs[2];
    int a = 1, b = 2, got[2] = {0, 0}, n = 0;

    for (int i = 0; i < 2; i++)
        CHECK(MPI_Comm_idup(MPI_COMM_SELF, &s[i], &reqs[i]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Comm_size(s[0], &n) == MPI_SUCCESS && n == 1);
    CHECK(MPI_Send(&a, 1, MPI_INT, 0, 0, s[0]) == MPI_SUCCESS);
    CHECK(MPI_Send(&b, 1, MPI_INT, 0, 0, s[1]) == MPI_SUCCESS);
    CHECK(MPI_Recv(&got[1], 1, MPI_INT, 0, 0, s[1], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Recv(&got[0], 1, MPI_INT, 0, 0, s[0], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(got[0] == 1 && got[1] == 2);
    for (int i = 0; i < 2; i++)
        CHECK(MPI_Comm_free(&s[i]) == MPI_SUCCESS);
}

/* Many idups in a row, completed with MPI_Waitany, then a ring on the last and all freed. */
static void many(void)
{
    enum { N = 40 };
    MPI_Comm d[N];
    MPI_Request reqs[N];

    for (int i = 0; i < N; i++)
        CHECK(MPI_Comm_idup(i % 2 ? MPI_COMM_WORLD : MPI_COMM_SELF, &d[i], &reqs[i]) ==
              MPI_SUCCESS);
    for (int done = 0; done < N; done++) {
        int index = -1;
        CHECK(MPI_Waitany(N, reqs, &index, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(index >= 0 && index < N);
    }
    rings(&d[N - 1], 1);
    for (int i = 0; i < N; i++)
        CHECK(MPI_Comm_free(&d[i]) == MPI_SUCCESS);
}

/* Argument errors (MPI_COMM_WORLD returns them); none may count as an idup of the communicator,
 * which the idup after them checks. */
static void bad_arguments(void)
{
    MPI_Comm nc = MPI_COMM_NULL, freed;
    MPI_Request req = MPI_REQUEST_NULL;

    CHECK(MPI_Comm_idup(MPI_COMM_NULL, &nc, &req) == MPI_ERR_COMM);
    CHECK(MPI_Comm_idup((MPI_Comm)MPI_INT, &nc, &req) == MPI_ERR_COMM);
    CHECK(MPI_Comm_idup((MPI_Comm)12345, &nc, &req) == MPI_ERR_COMM);
    CHECK(MPI_Comm_idup(MPI_COMM_WORLD, NULL, &req) == MPI_ERR_ARG);
    CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &nc, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_dup(MPI_COMM_SELF, &freed) == MPI_SUCCESS);
    MPI_Comm stale = freed;
    CHECK(MPI_Comm_free(&freed) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup(stale, &nc, &req) == MPI_ERR_COMM);
    CHECK(nc == MPI_COMM_NULL && req == MPI_REQUEST_NULL);

    /* The request of a non-blocking collective cannot be freed, only completed. */
    CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &nc, &req) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&req) == MPI_ERR_REQUEST);
    CHECK(req != MPI_REQUEST_NULL);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    check_world_dup(nc);
    rings(&nc, 1);
    CHECK(MPI_Comm_free(&nc) == MPI_SUCCESS);

    /* MPI_Comm_idup_with_info: an info (checked, ignored) or none; a freed info is an error */
    MPI_Info info, stale_info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_source", "true");
    CHECK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &nc, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    check_world_dup(nc);
    rings(&nc, 1);
    CHECK(MPI_Comm_free(&nc) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &nc, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    check_world_dup(nc);
    CHECK(MPI_Comm_free(&nc) == MPI_SUCCESS);
    stale_info = info;
    MPI_Info_free(&info);
    CHECK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, stale_info, &nc, &req) == MPI_ERR_INFO);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    basic();
    attributes();
    outstanding();
    self();
    many();
    bad_arguments();
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (errors)
        fprintf(stderr, "comm_idup: rank %d: %d errors\n", rank, errors);
    else if (rank == 0 && total == 0)
        printf("comm_idup: %d ranks ok\n", size);
    MPI_Finalize();
    return errors != 0;
}
