/* Argument errors of collectives under MPI_ERRORS_RETURN: an invalid root, a negative count,
 * MPI_DATATYPE_NULL or an uncommitted datatype, MPI_OP_NULL or an operation not defined for the
 * datatype, MPI_COMM_NULL, a NULL request pointer, MPI_IN_PLACE as a receive buffer, a
 * neighbourhood collective without a topology. Every rank passes the same bad argument, so every
 * rank must get the error, with the error class checked, and none may have started
 * communicating: afterwards the communicator must still work (checked by collectives whose
 * results are checked), and a user error handler is called once per error.
 * The class is the one the standard implies where it says none, and the one both Open MPI 4.1
 * and MPICH 4.0 return where they agree; cases where one of them returns another class, misses
 * the error or crashes are marked, and only the error itself, or nothing, is checked with that
 * library.
 * Usage: coll_errors [nb]   nb: the non-blocking variants (MPI_Ibcast, ...). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, errors;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "coll_errors: rank %d, line %d: ", rank, __LINE__);                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static int *sbuf, *rbuf;
static double dbuf[4], drbuf[4];
static float fbuf[4], frbuf[4];
static MPI_Datatype uncommitted;
static MPI_Comm notopo;

/* Each case makes one erroneous call: non-blocking if req is not NULL. */
static int bcast_root_size(MPI_Request *req)
{
    return req ? MPI_Ibcast(sbuf, 1, MPI_INT, size, MPI_COMM_WORLD, req)
               : MPI_Bcast(sbuf, 1, MPI_INT, size, MPI_COMM_WORLD);
}

/* On an intracommunicator, MPI_ROOT and MPI_PROC_NULL are no roots. */
static int bcast_root_mpi_root(MPI_Request *req)
{
    return req ? MPI_Ibcast(sbuf, 1, MPI_INT, MPI_ROOT, MPI_COMM_WORLD, req)
               : MPI_Bcast(sbuf, 1, MPI_INT, MPI_ROOT, MPI_COMM_WORLD);
}

static int reduce_root_negative(MPI_Request *req)
{
    return req ? MPI_Ireduce(sbuf, rbuf, 1, MPI_INT, MPI_SUM, -7, MPI_COMM_WORLD, req)
               : MPI_Reduce(sbuf, rbuf, 1, MPI_INT, MPI_SUM, -7, MPI_COMM_WORLD);
}

static int gather_root_size(MPI_Request *req)
{
    return req ? MPI_Igather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, size, MPI_COMM_WORLD, req)
               : MPI_Gather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, size, MPI_COMM_WORLD);
}

static int scatter_root_proc_null(MPI_Request *req)
{
    return req ? MPI_Iscatter(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_PROC_NULL, MPI_COMM_WORLD,
                              req)
               : MPI_Scatter(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_PROC_NULL, MPI_COMM_WORLD);
}

static int bcast_count(MPI_Request *req)
{
    return req ? MPI_Ibcast(sbuf, -1, MPI_INT, 0, MPI_COMM_WORLD, req)
               : MPI_Bcast(sbuf, -1, MPI_INT, 0, MPI_COMM_WORLD);
}

static int allgather_sendcount(MPI_Request *req)
{
    return req ? MPI_Iallgather(sbuf, -1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD, req)
               : MPI_Allgather(sbuf, -1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD);
}

static int alltoall_recvcount(MPI_Request *req)
{
    return req ? MPI_Ialltoall(sbuf, 1, MPI_INT, rbuf, -1, MPI_INT, MPI_COMM_WORLD, req)
               : MPI_Alltoall(sbuf, 1, MPI_INT, rbuf, -1, MPI_INT, MPI_COMM_WORLD);
}

/* Both counts negative: the root checks the receive count, the others the send count. */
static int gather_counts(MPI_Request *req)
{
    return req ? MPI_Igather(sbuf, -1, MPI_INT, rbuf, -1, MPI_INT, 0, MPI_COMM_WORLD, req)
               : MPI_Gather(sbuf, -1, MPI_INT, rbuf, -1, MPI_INT, 0, MPI_COMM_WORLD);
}

static int allreduce_count(MPI_Request *req)
{
    return req ? MPI_Iallreduce(sbuf, rbuf, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req)
               : MPI_Allreduce(sbuf, rbuf, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

static int bcast_type_null(MPI_Request *req)
{
    return req ? MPI_Ibcast(sbuf, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, req)
               : MPI_Bcast(sbuf, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
}

static int alltoall_type_null(MPI_Request *req)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    return req ? MPI_Ialltoall(sbuf, 1, t, rbuf, 1, t, MPI_COMM_WORLD, req)
               : MPI_Alltoall(sbuf, 1, t, rbuf, 1, t, MPI_COMM_WORLD);
}

static int bcast_uncommitted(MPI_Request *req)
{
    return req ? MPI_Ibcast(sbuf, 1, uncommitted, 0, MPI_COMM_WORLD, req)
               : MPI_Bcast(sbuf, 1, uncommitted, 0, MPI_COMM_WORLD);
}

/* MPI_SUM is not defined for MPI_DATATYPE_NULL either: two errors in one call. */
static int allreduce_type_null(MPI_Request *req)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    return req ? MPI_Iallreduce(sbuf, rbuf, 1, t, MPI_SUM, MPI_COMM_WORLD, req)
               : MPI_Allreduce(sbuf, rbuf, 1, t, MPI_SUM, MPI_COMM_WORLD);
}

static int allreduce_op_null(MPI_Request *req)
{
    return req ? MPI_Iallreduce(sbuf, rbuf, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, req)
               : MPI_Allreduce(sbuf, rbuf, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
}

static int scan_op_null(MPI_Request *req)
{
    return req ? MPI_Iscan(sbuf, rbuf, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, req)
               : MPI_Scan(sbuf, rbuf, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
}

static int reduce_band_float(MPI_Request *req)
{
    return req ? MPI_Ireduce(fbuf, frbuf, 1, MPI_FLOAT, MPI_BAND, 0, MPI_COMM_WORLD, req)
               : MPI_Reduce(fbuf, frbuf, 1, MPI_FLOAT, MPI_BAND, 0, MPI_COMM_WORLD);
}

static int allreduce_land_double(MPI_Request *req)
{
    return req ? MPI_Iallreduce(dbuf, drbuf, 1, MPI_DOUBLE, MPI_LAND, MPI_COMM_WORLD, req)
               : MPI_Allreduce(dbuf, drbuf, 1, MPI_DOUBLE, MPI_LAND, MPI_COMM_WORLD);
}

/* MPI_MAXLOC needs a pair type. */
static int allreduce_maxloc_int(MPI_Request *req)
{
    return req ? MPI_Iallreduce(sbuf, rbuf, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD, req)
               : MPI_Allreduce(sbuf, rbuf, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD);
}

static int barrier_comm_null(MPI_Request *req)
{
    return req ? MPI_Ibarrier(MPI_COMM_NULL, req) : MPI_Barrier(MPI_COMM_NULL);
}

static int bcast_comm_null(MPI_Request *req)
{
    return req ? MPI_Ibcast(sbuf, 1, MPI_INT, 0, MPI_COMM_NULL, req)
               : MPI_Bcast(sbuf, 1, MPI_INT, 0, MPI_COMM_NULL);
}

static int allreduce_comm_null(MPI_Request *req)
{
    return req ? MPI_Iallreduce(sbuf, rbuf, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, req)
               : MPI_Allreduce(sbuf, rbuf, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL);
}

/* Only non-blocking: where the request handle would be stored is NULL. */
static int ibcast_request_null(MPI_Request *req)
{
    (void)req;
    return MPI_Ibcast(sbuf, 1, MPI_INT, 0, MPI_COMM_WORLD, NULL);
}

static int ibarrier_request_null(MPI_Request *req)
{
    (void)req;
    return MPI_Ibarrier(MPI_COMM_WORLD, NULL);
}

static int iallreduce_request_null(MPI_Request *req)
{
    (void)req;
    return MPI_Iallreduce(sbuf, rbuf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL);
}

/* MPI_IN_PLACE is for the send buffer of these calls. */
static int allgather_recv_in_place(MPI_Request *req)
{
    return req ? MPI_Iallgather(sbuf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD, req)
               : MPI_Allgather(sbuf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD);
}

static int alltoall_recv_in_place(MPI_Request *req)
{
    return req ? MPI_Ialltoall(sbuf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD, req)
               : MPI_Alltoall(sbuf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD);
}

static int allreduce_recv_in_place(MPI_Request *req)
{
    return req ? MPI_Iallreduce(sbuf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req)
               : MPI_Allreduce(sbuf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

/* A duplicate of MPI_COMM_WORLD has no topology. */
static int neighbor_allgather_no_topology(MPI_Request *req)
{
    return req ? MPI_Ineighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, notopo, req)
               : MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, notopo);
}

static int neighbor_alltoall_no_topology(MPI_Request *req)
{
    return req ? MPI_Ineighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, notopo, req)
               : MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, notopo);
}

/* The libraries these cases were checked against, as bits of the masks below. */
enum { OPEN_MPI_4 = 1, MPICH_4_0 = 2 };
static unsigned library;

enum { BLOCKING = 1, NONBLOCKING = 2, BOTH = 3 };

struct error_case {
    const char *name;
    int (*call)(MPI_Request *req);
    int modes;        /* BLOCKING, NONBLOCKING or BOTH */
    int cls, alt_cls; /* the class expected, or alt_cls where two are right (else -1) */
    /* Libraries that return another class (only the error is checked), and that miss the error
     * or crash (not run), in blocking and in non-blocking mode. */
    unsigned other_class[2], missed[2];
};

/* Where the libraries disagree (each marked below), the class the standard implies:
 * - MPI_IN_PLACE as a receive buffer is an invalid buffer, MPI_ERR_BUFFER (MPICH; Open MPI says
 *   MPI_ERR_ARG for allgather and alltoall);
 * - a neighbourhood collective on a communicator without a topology is MPI_ERR_TOPOLOGY (MPICH,
 *   and Open MPI for alltoall; Open MPI's allgather says MPI_ERR_INTERN, and MPI_ERR_ARG when
 *   non-blocking);
 * - a negative count is MPI_ERR_COUNT (Open MPI; MPICH does not check it in MPI_Allreduce,
 *   which crashes, nor in MPI_Iallreduce, which returns MPI_ERR_OTHER, or MPI_SUCCESS on one
 *   rank);
 * - a NULL request pointer is no invalid request handle but an invalid argument: MPI_ERR_ARG
 *   (MPICH; Open MPI does not check and crashes);
 * - MPI_LAND on MPI_DOUBLE is MPI_ERR_OP (Open MPI; MPICH does not check: a failed assertion,
 *   or MPI_SUCCESS when non-blocking).
 * A reduction on MPI_DATATYPE_NULL has two errors, the datatype and the operation not defined
 * for it: MPI_ERR_TYPE or MPI_ERR_OP (both libraries say MPI_ERR_OP). */
static const struct error_case cases[] = {
    {"bcast to root size", bcast_root_size, BOTH, MPI_ERR_ROOT, -1, {0, 0}, {0, 0}},
    {"bcast to root MPI_ROOT", bcast_root_mpi_root, BOTH, MPI_ERR_ROOT, -1, {0, 0}, {0, 0}},
    {"reduce to root -7", reduce_root_negative, BOTH, MPI_ERR_ROOT, -1, {0, 0}, {0, 0}},
    {"gather to root size", gather_root_size, BOTH, MPI_ERR_ROOT, -1, {0, 0}, {0, 0}},
    {"scatter from MPI_PROC_NULL", scatter_root_proc_null, BOTH, MPI_ERR_ROOT, -1, {0, 0}, {0, 0}},
    {"bcast of -1", bcast_count, BOTH, MPI_ERR_COUNT, -1, {0, 0}, {0, 0}},
    {"allgather sending -1", allgather_sendcount, BOTH, MPI_ERR_COUNT, -1, {0, 0}, {0, 0}},
    {"alltoall receiving -1", alltoall_recvcount, BOTH, MPI_ERR_COUNT, -1, {0, 0}, {0, 0}},
    {"gather of -1", gather_counts, BOTH, MPI_ERR_COUNT, -1, {0, 0}, {0, 0}},
    {"allreduce of -1", allreduce_count, BOTH, MPI_ERR_COUNT, -1, {0, 0}, {MPICH_4_0, MPICH_4_0}},
    {"bcast of MPI_DATATYPE_NULL", bcast_type_null, BOTH, MPI_ERR_TYPE, -1, {0, 0}, {0, 0}},
    {"alltoall of MPI_DATATYPE_NULL", alltoall_type_null, BOTH, MPI_ERR_TYPE, -1, {0, 0}, {0, 0}},
    {"bcast of an uncommitted type", bcast_uncommitted, BOTH, MPI_ERR_TYPE, -1, {0, 0}, {0, 0}},
    {"allreduce of MPI_DATATYPE_NULL",
     allreduce_type_null,
     BOTH,
     MPI_ERR_TYPE,
     MPI_ERR_OP,
     {0, 0},
     {0, 0}},
    {"allreduce with MPI_OP_NULL", allreduce_op_null, BOTH, MPI_ERR_OP, -1, {0, 0}, {0, 0}},
    {"scan with MPI_OP_NULL", scan_op_null, BOTH, MPI_ERR_OP, -1, {0, 0}, {0, 0}},
    {"reduce MPI_BAND of MPI_FLOAT", reduce_band_float, BOTH, MPI_ERR_OP, -1, {0, 0}, {0, 0}},
    {"allreduce MPI_LAND of MPI_DOUBLE",
     allreduce_land_double,
     BOTH,
     MPI_ERR_OP,
     -1,
     {0, 0},
     {MPICH_4_0, MPICH_4_0}},
    {"allreduce MPI_MAXLOC of MPI_INT", allreduce_maxloc_int, BOTH, MPI_ERR_OP, -1, {0, 0}, {0, 0}},
    {"barrier on MPI_COMM_NULL", barrier_comm_null, BOTH, MPI_ERR_COMM, -1, {0, 0}, {0, 0}},
    {"bcast on MPI_COMM_NULL", bcast_comm_null, BOTH, MPI_ERR_COMM, -1, {0, 0}, {0, 0}},
    {"allreduce on MPI_COMM_NULL", allreduce_comm_null, BOTH, MPI_ERR_COMM, -1, {0, 0}, {0, 0}},
    {"ibcast to a NULL request",
     ibcast_request_null,
     NONBLOCKING,
     MPI_ERR_ARG,
     -1,
     {0, 0},
     {0, OPEN_MPI_4}},
    {"ibarrier to a NULL request",
     ibarrier_request_null,
     NONBLOCKING,
     MPI_ERR_ARG,
     -1,
     {0, 0},
     {0, OPEN_MPI_4}},
    {"iallreduce to a NULL request",
     iallreduce_request_null,
     NONBLOCKING,
     MPI_ERR_ARG,
     -1,
     {0, 0},
     {0, OPEN_MPI_4}},
    {"allgather into MPI_IN_PLACE",
     allgather_recv_in_place,
     BOTH,
     MPI_ERR_BUFFER,
     -1,
     {OPEN_MPI_4, OPEN_MPI_4},
     {0, 0}},
    {"alltoall into MPI_IN_PLACE",
     alltoall_recv_in_place,
     BOTH,
     MPI_ERR_BUFFER,
     -1,
     {OPEN_MPI_4, OPEN_MPI_4},
     {0, 0}},
    {"allreduce into MPI_IN_PLACE",
     allreduce_recv_in_place,
     BOTH,
     MPI_ERR_BUFFER,
     -1,
     {0, 0},
     {0, 0}},
    {"neighbor_allgather without topology",
     neighbor_allgather_no_topology,
     BOTH,
     MPI_ERR_TOPOLOGY,
     -1,
     {OPEN_MPI_4, OPEN_MPI_4},
     {0, 0}},
    {"neighbor_alltoall without topology",
     neighbor_alltoall_no_topology,
     BOTH,
     MPI_ERR_TOPOLOGY,
     -1,
     {0, 0},
     {0, 0}},
};

/* Two buffers: one message names two classes. */
static const char *class_name(int cls)
{
    static char s[2][MPI_MAX_ERROR_STRING];
    static int which;
    int len;
    if (cls < 0)
        return "none";
    which ^= 1;
    MPI_Error_string(cls, s[which], &len);
    return s[which];
}

static void run_case(const struct error_case *c, int nb)
{
    int m = nb ? 1 : 0;
    if (!(c->modes & (nb ? NONBLOCKING : BLOCKING)) || (c->missed[m] & library))
        return;
    MPI_Request req = MPI_REQUEST_NULL;
    int err = c->call(nb ? &req : NULL), cls = -1;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    if (c->other_class[m] & library)
        CHECK(err != MPI_SUCCESS, "%s%s: no error", nb ? "non-blocking " : "", c->name);
    else
        CHECK(cls == c->cls || (c->alt_cls >= 0 && cls == c->alt_cls),
              "%s%s: error class %d (%s), expected %d (%s)%s", nb ? "non-blocking " : "", c->name,
              cls, err == MPI_SUCCESS ? "MPI_SUCCESS" : class_name(cls), c->cls, class_name(c->cls),
              c->alt_cls >= 0 ? " or the other" : "");
}

static int handled;
static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handled++;
}

/* The communicators still work: an allreduce, a bcast from the last rank, an alltoall. */
static void still_works(MPI_Comm comm, int nb)
{
    int me, np, sum = -1, v = -1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    int *out = malloc((size_t)np * sizeof *out), *in = malloc((size_t)np * sizeof *in);
    for (int j = 0; j < np; j++) {
        out[j] = me * 1000 + j;
        in[j] = -1;
    }
    if (me == np - 1)
        v = 4242;
    if (nb) {
        MPI_Request reqs[3];
        MPI_Iallreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm, &reqs[0]);
        MPI_Ibcast(&v, 1, MPI_INT, np - 1, comm, &reqs[1]);
        MPI_Ialltoall(out, 1, MPI_INT, in, 1, MPI_INT, comm, &reqs[2]);
        CHECK(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall failed");
    } else {
        CHECK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS, "allreduce");
        CHECK(MPI_Bcast(&v, 1, MPI_INT, np - 1, comm) == MPI_SUCCESS, "bcast");
        CHECK(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, comm) == MPI_SUCCESS, "alltoall");
    }
    CHECK(sum == np * (np - 1) / 2, "allreduce after the errors: %d", sum);
    CHECK(v == 4242, "bcast after the errors: %d", v);
    for (int j = 0; j < np; j++)
        CHECK(in[j] == j * 1000 + me, "alltoall after the errors: [%d] is %d", j, in[j]);
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    MPI_Errhandler eh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nb = argc > 1 && strcmp(argv[1], "nb") == 0;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    if (strncmp(lib, "Open MPI v4.", 12) == 0)
        library = OPEN_MPI_4;
    else if (strncmp(lib, "MPICH Version:\t4.0.", 19) == 0)
        library = MPICH_4_0;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &notopo);
    sbuf = calloc((size_t)size + 1, sizeof *sbuf);
    rbuf = calloc((size_t)size + 1, sizeof *rbuf);
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);

    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        run_case(&cases[k], nb);
    still_works(MPI_COMM_WORLD, nb);
    still_works(notopo, nb);

    /* A user's error handler is called once per error, and its error code returned. */
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(notopo, eh);
    MPI_Request req;
    int err = nb ? MPI_Ibcast(sbuf, 1, MPI_INT, -7, notopo, &req)
                 : MPI_Bcast(sbuf, 1, MPI_INT, -7, notopo);
    int cls = -1;
    MPI_Error_class(err, &cls);
    CHECK(handled == 1 && cls == MPI_ERR_ROOT, "error handler called %d times, class %d", handled,
          cls);
    MPI_Errhandler_free(&eh);
    still_works(notopo, nb);

    MPI_Type_free(&uncommitted);
    MPI_Comm_free(&notopo);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    if (errors)
        fprintf(stderr, "coll_errors: rank %d: %d errors\n", rank, errors);
    return errors ? 1 : 0;
}
