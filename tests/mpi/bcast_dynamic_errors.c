/* Argument errors of MPIX_Ibcast_dynamic and MPIX_Deferred_send_* under MPI_ERRORS_RETURN: each
 * case is one erroneous call made by one rank (another for each case), whose error class is
 * checked; the erroneous call must send nothing, not even to the valid destinations listed before
 * the bad one: after a barrier, MPI_Iprobe finds no message on any rank. At the end a valid
 * broadcast to every rank still works.
 * Usage: bcast_dynamic_errors                 every case under MPI_ERRORS_RETURN
 *        bcast_dynamic_errors NAME RANK       case NAME by rank RANK under MPI_ERRORS_ARE_FATAL,
 *                                             which must end the job (bcast_dynamic_fatal.sh);
 *                                             the other ranks wait for a message never sent. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, errors;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "bcast_dynamic_errors: rank %d, line %d: ", rank, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

enum { TAG = 7 };

/* The other ranks, in turn after the caller. */
static int other(int i)
{
    return (rank + i) % size;
}

static int buf[4] = {1, 2, 3, 4};
static MPI_Datatype uncommitted;
/* What an erroneous call that did not fail left to complete. */
static MPI_Request leaked = MPI_REQUEST_NULL;
static MPIX_Deferred_send leaked_handle = MPIX_DEFERRED_SEND_NULL;

static int bcast(const int *dests, int ndests)
{
    return MPIX_Ibcast_dynamic(buf, 4, MPI_INT, dests, ndests, TAG, MPI_COMM_WORLD, &leaked);
}

static int duplicate(void)
{
    int d[3] = {other(1), other(2), other(1)};
    return bcast(d, 3);
}

/* The duplicate last, after MPI_PROC_NULL: the valid ones before it must not be sent to. */
static int duplicate_last(void)
{
    int d[5] = {other(1), MPI_PROC_NULL, other(2), other(3), other(1)};
    return bcast(d, 5);
}

static int root_listed(void)
{
    int d[2] = {other(1), rank};
    return bcast(d, 2);
}

static int root_alone(void)
{
    return bcast(&rank, 1);
}

static int rank_size(void)
{
    int d[2] = {other(1), size};
    return bcast(d, 2);
}

static int rank_negative(void)
{
    int d[2] = {other(1), -5};
    return bcast(d, 2);
}

static int rank_any_source(void)
{
    int d[2] = {other(1), MPI_ANY_SOURCE};
    return bcast(d, 2);
}

static int rank_17(void)
{
    int d[2] = {other(1), 17};
    return bcast(d, 2);
}

static int ndests_negative(void)
{
    int d[2] = {other(1), other(2)};
    return bcast(d, -1);
}

static int dests_null(void)
{
    return bcast(NULL, 2);
}

static int tag_any(void)
{
    int d[1] = {other(1)};
    return MPIX_Ibcast_dynamic(buf, 4, MPI_INT, d, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &leaked);
}

static int tag_above_ub(void)
{
    int d[1] = {other(1)}, *ub, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    return MPIX_Ibcast_dynamic(buf, 4, MPI_INT, d, 1, *ub + 1, MPI_COMM_WORLD, &leaked);
}

static int count_negative(void)
{
    int d[1] = {other(1)};
    return MPIX_Ibcast_dynamic(buf, -1, MPI_INT, d, 1, TAG, MPI_COMM_WORLD, &leaked);
}

static int type_uncommitted(void)
{
    int d[1] = {other(1)};
    return MPIX_Ibcast_dynamic(buf, 1, uncommitted, d, 1, TAG, MPI_COMM_WORLD, &leaked);
}

static int type_null(void)
{
    int d[1] = {other(1)};
    return MPIX_Ibcast_dynamic(buf, 1, MPI_DATATYPE_NULL, d, 1, TAG, MPI_COMM_WORLD, &leaked);
}

static int comm_null(void)
{
    int d[1] = {other(1)};
    return MPIX_Ibcast_dynamic(buf, 4, MPI_INT, d, 1, TAG, MPI_COMM_NULL, &leaked);
}

/* A handle of another kind where the communicator goes. */
static int comm_not_a_comm(void)
{
    int d[1] = {other(1)};
    return MPIX_Ibcast_dynamic(buf, 4, MPI_INT, d, 1, TAG, (MPI_Comm)MPI_INT, &leaked);
}

static int request_null(void)
{
    int d[1] = {other(1)};
    return MPIX_Ibcast_dynamic(buf, 4, MPI_INT, d, 1, TAG, MPI_COMM_WORLD, NULL);
}

static int buffer_null(void)
{
    int d[1] = {other(1)};
    return MPIX_Ibcast_dynamic(NULL, 4, MPI_INT, d, 1, TAG, MPI_COMM_WORLD, &leaked);
}

static int init_tag(void)
{
    return MPIX_Deferred_send_init(buf, 4, MPI_INT, -3, MPI_COMM_WORLD, &leaked_handle);
}

static int init_count(void)
{
    return MPIX_Deferred_send_init(buf, -2, MPI_INT, TAG, MPI_COMM_WORLD, &leaked_handle);
}

static int init_type(void)
{
    return MPIX_Deferred_send_init(buf, 1, uncommitted, TAG, MPI_COMM_WORLD, &leaked_handle);
}

static int init_comm(void)
{
    return MPIX_Deferred_send_init(buf, 4, MPI_INT, TAG, MPI_COMM_NULL, &leaked_handle);
}

static int init_handle_null(void)
{
    return MPIX_Deferred_send_init(buf, 4, MPI_INT, TAG, MPI_COMM_WORLD, NULL);
}

/* A handle with destination other(1) (unless none): the case then makes one bad call on it; it
 * is freed before ready, so a correct implementation sends nothing. */
static MPIX_Deferred_send handle_with(int ndests)
{
    MPIX_Deferred_send h = MPIX_DEFERRED_SEND_NULL;
    int err = MPIX_Deferred_send_init(buf, 4, MPI_INT, TAG, MPI_COMM_WORLD, &h);
    CHECK(err == MPI_SUCCESS, "init returned %d", err);
    if (ndests)
        MPIX_Deferred_send_add(h, other(1));
    leaked_handle = h;
    return h;
}

static int add_self(void)
{
    return MPIX_Deferred_send_add(handle_with(1), rank);
}

static int add_size(void)
{
    return MPIX_Deferred_send_add(handle_with(1), size);
}

static int add_negative(void)
{
    return MPIX_Deferred_send_add(handle_with(1), -4);
}

/* With no destination, the first ready sends nothing either. */
static int ready_twice(void)
{
    MPIX_Deferred_send h = handle_with(0);
    int err = MPIX_Deferred_send_ready(h, &leaked);
    CHECK(err == MPI_SUCCESS, "the first ready returned %d", err);
    MPI_Wait(&leaked, MPI_STATUS_IGNORE);
    return MPIX_Deferred_send_ready(h, &leaked);
}

static int ready_request_null(void)
{
    return MPIX_Deferred_send_ready(handle_with(1), NULL);
}

static int add_null_handle(void)
{
    return MPIX_Deferred_send_add(MPIX_DEFERRED_SEND_NULL, other(1));
}

static int add_bad_handle(void)
{
    return MPIX_Deferred_send_add((MPIX_Deferred_send)12345, other(1));
}

static int ready_bad_handle(void)
{
    return MPIX_Deferred_send_ready((MPIX_Deferred_send)MPI_COMM_WORLD, &leaked);
}

static int free_bad_handle(void)
{
    MPIX_Deferred_send h = (MPIX_Deferred_send)-1;
    return MPIX_Deferred_send_free(&h);
}

static int free_null_handle(void)
{
    MPIX_Deferred_send h = MPIX_DEFERRED_SEND_NULL;
    return MPIX_Deferred_send_free(&h);
}

static int free_null_pointer(void)
{
    return MPIX_Deferred_send_free(NULL);
}

/* The handle's value after it was freed (no handle made since). */
static int add_freed_handle(void)
{
    MPIX_Deferred_send h = handle_with(0), stale = h;
    MPIX_Deferred_send_free(&h);
    leaked_handle = MPIX_DEFERRED_SEND_NULL;
    return MPIX_Deferred_send_add(stale, other(1));
}

/* After ready, adding oneself is still an error, and sends nothing. */
static int add_self_after_ready(void)
{
    MPIX_Deferred_send h = handle_with(0);
    MPIX_Deferred_send_ready(h, &leaked);
    MPI_Wait(&leaked, MPI_STATUS_IGNORE);
    return MPIX_Deferred_send_add(h, rank);
}

/* The handle's communicator freed before the handle: an error, not a use of freed memory. */
static int add_comm_freed(void)
{
    MPI_Comm c;
    MPIX_Deferred_send h = MPIX_DEFERRED_SEND_NULL;
    MPI_Comm_dup(MPI_COMM_SELF, &c);
    int err = MPIX_Deferred_send_init(buf, 4, MPI_INT, TAG, c, &h);
    CHECK(err == MPI_SUCCESS, "init returned %d", err);
    leaked_handle = h;
    MPI_Comm_free(&c);
    return MPIX_Deferred_send_add(h, 0);
}

struct error_case {
    const char *name;
    int (*call)(void);
    int cls;
};

/* A negative ndests is MPI_ERR_ARG: MPI_ERR_COUNT is for counts of data elements. A NULL buffer
 * with a positive count is MPI_ERR_BUFFER, as for MPI_Send. */
static const struct error_case cases[] = {
    {"duplicate", duplicate, MPI_ERR_ARG},
    {"duplicate-last", duplicate_last, MPI_ERR_ARG},
    {"root-listed", root_listed, MPI_ERR_ARG},
    {"root-alone", root_alone, MPI_ERR_ARG},
    {"rank-size", rank_size, MPI_ERR_RANK},
    {"rank-negative", rank_negative, MPI_ERR_RANK},
    {"rank-any-source", rank_any_source, MPI_ERR_RANK},
    {"rank-17", rank_17, MPI_ERR_RANK},
    {"ndests-negative", ndests_negative, MPI_ERR_ARG},
    {"dests-null", dests_null, MPI_ERR_ARG},
    {"tag-any", tag_any, MPI_ERR_TAG},
    {"tag-above-ub", tag_above_ub, MPI_ERR_TAG},
    {"count-negative", count_negative, MPI_ERR_COUNT},
    {"type-uncommitted", type_uncommitted, MPI_ERR_TYPE},
    {"type-null", type_null, MPI_ERR_TYPE},
    {"comm-null", comm_null, MPI_ERR_COMM},
    {"comm-not-a-comm", comm_not_a_comm, MPI_ERR_COMM},
    {"request-null", request_null, MPI_ERR_ARG},
    {"buffer-null", buffer_null, MPI_ERR_BUFFER},
    {"init-tag", init_tag, MPI_ERR_TAG},
    {"init-count", init_count, MPI_ERR_COUNT},
    {"init-type", init_type, MPI_ERR_TYPE},
    {"init-comm", init_comm, MPI_ERR_COMM},
    {"init-handle-null", init_handle_null, MPI_ERR_ARG},
    {"add-self", add_self, MPI_ERR_ARG},
    {"add-size", add_size, MPI_ERR_RANK},
    {"add-negative", add_negative, MPI_ERR_RANK},
    {"ready-twice", ready_twice, MPI_ERR_OTHER},
    {"ready-request-null", ready_request_null, MPI_ERR_ARG},
    {"add-null-handle", add_null_handle, MPI_ERR_ARG},
    {"add-bad-handle", add_bad_handle, MPI_ERR_ARG},
    {"ready-bad-handle", ready_bad_handle, MPI_ERR_ARG},
    {"free-bad-handle", free_bad_handle, MPI_ERR_ARG},
    {"free-null-handle", free_null_handle, MPI_ERR_ARG},
    {"free-null-pointer", free_null_pointer, MPI_ERR_ARG},
    {"add-freed-handle", add_freed_handle, MPI_ERR_ARG},
    {"add-self-after-ready", add_self_after_ready, MPI_ERR_ARG},
    {"add-comm-freed", add_comm_freed, MPI_ERR_COMM},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

/* No rank has a message: the erroneous call sent nothing. What was sent is received, so that
 * one failure does not show again in the next cases. */
static void nothing_sent(const char *name, int caller)
{
    int flag = 1;
    MPI_Status st;
    MPI_Barrier(MPI_COMM_WORLD);
    while (flag) {
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            int junk[16];
            CHECK(0, "%s (called by rank %d): a message from %d with tag %d arrived", name, caller,
                  st.MPI_SOURCE, st.MPI_TAG);
            MPI_Recv(junk, 16, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void run_case(int c)
{
    const struct error_case *e = &cases[c];
    int caller = c % size;
    if (rank == caller) {
        int err = e->call(), cls = -1;
        if (err != MPI_SUCCESS)
            MPI_Error_class(err, &cls);
        CHECK(cls == e->cls, "%s: error class %d, expected %d", e->name, cls, e->cls);
        /* A call that should have failed but started something: let it go. */
        if (leaked != MPI_REQUEST_NULL)
            MPI_Request_free(&leaked);
        if (leaked_handle != MPIX_DEFERRED_SEND_NULL)
            MPIX_Deferred_send_free(&leaked_handle);
    }
    nothing_sent(e->name, caller);
}

/* A valid broadcast from the last rank to all others, checked. */
static void still_works(void)
{
    int root = size - 1, v[4] = {0};
    if (rank == root) {
        int *dests = malloc((size_t)size * sizeof *dests), n = 0;
        MPI_Request req;
        for (int r = size - 2; r >= 0; r--)
            dests[n++] = r;
        int err = MPIX_Ibcast_dynamic(buf, 4, MPI_INT, dests, n, TAG, MPI_COMM_WORLD, &req);
        CHECK(err == MPI_SUCCESS, "the valid broadcast returned %d", err);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        free(dests);
    } else {
        MPI_Status st;
        MPI_Recv(v, 4, MPI_INT, MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE == root && v[0] == 1 && v[3] == 4,
              "the valid broadcast: source %d, %d %d %d %d", st.MPI_SOURCE, v[0], v[1], v[2], v[3]);
    }
    nothing_sent("the valid broadcast", root);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    if (argc == 3) {
        int c = 0, caller = atoi(argv[2]);
        while (c < NCASES && strcmp(cases[c].name, argv[1]) != 0)
            c++;
        if (c == NCASES) {
            fprintf(stderr, "bcast_dynamic_errors: no case %s\n", argv[1]);
            MPI_Abort(MPI_COMM_WORLD, 99);
        }
        if (rank == caller) {
            cases[c].call();
            fprintf(stderr, "bcast_dynamic_errors: rank %d survived %s\n", rank, argv[1]);
            MPI_Abort(MPI_COMM_WORLD, 98);
        }
        MPI_Recv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Finalize();
        return 0;
    }
    if (size < 4) {
        fprintf(stderr, "bcast_dynamic_errors: needs 4 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (int c = 0; c < NCASES; c++)
        run_case(c);
    still_works();
    MPI_Type_free(&uncommitted);
    MPI_Finalize();
    if (errors)
        fprintf(stderr, "bcast_dynamic_errors: rank %d: %d errors\n", rank, errors);
    return errors ? 1 : 0;
}
