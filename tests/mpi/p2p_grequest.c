/* Generalized requests: completed by another rank and by a thread of the program (the waiting
 * rank sleeps meanwhile), the query function filling the status of every completion call and of
 * MPI_Request_get_status, the free function called once and after the query, the cancel
 * function told whether the request was complete, errors of the callbacks, the status setters,
 * argument errors. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int rank, size, errors;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d, line %d: ", rank, __LINE__);                                 \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* What a generalized request's callbacks saw, and what its query function reports. */
typedef struct state {
    int queries, frees, cancels;
    int cancel_complete; /* the `complete` argument of the last cancel */
    int events[8];       /* 'q', 'f', 'c' in call order */
    int nevents;
    int source, tag, elements; /* the status to report */
    int query_error, free_error;
    int cancelled; /* set by a cancel: the query reports it */
} state_t;

static void event(state_t *s, int e)
{
    if (s->nevents < 8)
        s->events[s->nevents++] = e;
}

static int query_fn(void *extra, MPI_Status *status)
{
    state_t *s = extra;
    s->queries++;
    event(s, 'q');
    status->MPI_SOURCE = s->source;
    status->MPI_TAG = s->tag;
    MPI_Status_set_elements(status, MPI_INT, s->elements);
    MPI_Status_set_cancelled(status, s->cancelled);
    return s->query_error;
}

static int free_fn(void *extra)
{
    state_t *s = extra;
    s->frees++;
    event(s, 'f');
    return s->free_error;
}

static int cancel_fn(void *extra, int complete)
{
    state_t *s = extra;
    s->cancels++;
    event(s, 'c');
    s->cancel_complete = complete;
    s->cancelled = !complete;
    return MPI_SUCCESS;
}

static void state_init(state_t *s, int source, int tag, int elements)
{
    *s = (state_t){.source = source, .tag = tag, .elements = elements};
}

static MPI_Request start(state_t *s)
{
    MPI_Request req;
    CHECK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, s, &req) == MPI_SUCCESS,
          "MPI_Grequest_start failed");
    return req;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Even ranks start a request and wait; the next rank completes it, having received its handle
 * (the request's state lives in the starter's memory: ranks share the address space). */
static void complete_by_rank(void)
{
    int partner = rank % 2 ? rank - 1 : rank + 1;
    if (partner >= size)
        return;
    if (rank % 2 == 0) {
        state_t s;
        state_init(&s, 42, 7, 5);
        MPI_Request req = start(&s);
        MPI_Send(&req, 1, MPI_INT, partner, 1, MPI_COMM_WORLD);
        MPI_Status st;
        CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS, "MPI_Wait failed");
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(req == MPI_REQUEST_NULL, "the handle is not null after the wait");
        CHECK(st.MPI_SOURCE == 42 && st.MPI_TAG == 7 && count == 5,
              "status (%d, %d, %d) is not the query function's", st.MPI_SOURCE, st.MPI_TAG, count);
        CHECK(s.queries == 1 && s.frees == 1 && s.nevents == 2 && s.events[0] == 'q' &&
                  s.events[1] == 'f',
              "callbacks: %d queries, %d frees, not query then free", s.queries, s.frees);
    } else {
        MPI_Request h;
        MPI_Recv(&h, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        usleep(20000); /* the starter is asleep in MPI_Wait by now */
        CHECK(MPI_Grequest_complete(h) == MPI_SUCCESS, "MPI_Grequest_complete failed");
    }
}

typedef struct completer {
    MPI_Request req;
    int delay_us;
    int result;
} completer_t;

static void *complete_later(void *arg)
{
    completer_t *c = arg;
    usleep((useconds_t)c->delay_us);
    c->result = MPI_Grequest_complete(c->req);
    return NULL;
}

/* A thread of the program completes the requests; the rank sleeps in the wait meanwhile. */
static void complete_by_thread(void)
{
    state_t s;
    state_init(&s, rank, 3, 2);
    completer_t c = {start(&s), 200000, -1};
    pthread_t thread;
    pthread_create(&thread, NULL, complete_later, &c);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double cpu0 = cpu_now();
    MPI_Request req = c.req;
    MPI_Status st;
    MPI_Wait(&req, &st);
    double cpu = cpu_now() - cpu0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    pthread_join(thread, NULL);
    CHECK(c.result == MPI_SUCCESS, "MPI_Grequest_complete from a thread: %d", c.result);
    CHECK(wall >= 0.15, "the wait returned after %.3f s, before the completion", wall);
    /* The core of this rank is shared with others, all asleep: a spinning wait would use it
     * all. */
    CHECK(cpu < wall / 2, "the wait used %.3f s of CPU in %.3f s", cpu, wall);
    CHECK(st.MPI_SOURCE == rank && s.queries == 1 && s.frees == 1, "thread completion callbacks");

    /* Waitall over a receive and two generalized requests, one completed by the thread. */
    state_t s1, s2;
    state_init(&s1, 1, 1, 1);
    state_init(&s2, 2, 2, 2);
    MPI_Request reqs[3];
    int v = rank, w = -1;
    reqs[0] = start(&s1);
    reqs[1] = start(&s2);
    MPI_Irecv(&w, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &reqs[2]);
    completer_t c2 = {reqs[1], 20000, -1};
    pthread_create(&thread, NULL, complete_later, &c2);
    MPI_Grequest_complete(reqs[0]);
    MPI_Send(&v, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD);
    MPI_Status sts[3];
    CHECK(MPI_Waitall(3, reqs, sts) == MPI_SUCCESS, "MPI_Waitall failed");
    pthread_join(thread, NULL);
    CHECK(sts[0].MPI_TAG == 1 && sts[1].MPI_TAG == 2 && sts[2].MPI_TAG == 5 &&
              w == (rank + size - 1) % size,
          "Waitall statuses %d %d %d", sts[0].MPI_TAG, sts[1].MPI_TAG, sts[2].MPI_TAG);
    CHECK(s1.frees == 1 && s2.frees == 1 && s1.queries == 1 && s2.queries == 1,
          "Waitall callbacks");
}

/* Test, Request_get_status and the -any and -some forms. */
static void completion_calls(void)
{
    state_t s;
    state_init(&s, 9, 9, 9);
    MPI_Request req = start(&s);
    int flag = 1;
    MPI_Status st;
    MPI_Test(&req, &flag, &st);
    CHECK(!flag && s.queries == 0 && req != MPI_REQUEST_NULL, "Test of a pending request");
    MPI_Request_get_status(req, &flag, &st);
    CHECK(!flag && s.queries == 0, "Request_get_status of a pending request");
    MPI_Grequest_complete(req);
    MPI_Request_get_status(req, &flag, &st);
    CHECK(flag && s.queries == 1 && s.frees == 0 && st.MPI_TAG == 9 && req != MPI_REQUEST_NULL,
          "Request_get_status of a complete request: flag %d, %d queries", flag, s.queries);
    MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
    CHECK(flag && s.queries == 2, "Request_get_status ignoring the status still queries");
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    CHECK(flag && s.queries == 3 && s.frees == 1 && req == MPI_REQUEST_NULL, "Test");

    state_t a, b;
    state_init(&a, 1, 10, 0);
    state_init(&b, 2, 20, 0);
    MPI_Request reqs[2] = {start(&a), start(&b)};
    int index = -1, outcount = -1, indices[2];
    MPI_Testany(2, reqs, &index, &flag, &st);
    CHECK(!flag && index == MPI_UNDEFINED, "Testany with none complete");
    MPI_Grequest_complete(reqs[1]);
    MPI_Waitany(2, reqs, &index, &st);
    CHECK(index == 1 && st.MPI_TAG == 20 && reqs[1] == MPI_REQUEST_NULL && b.frees == 1 &&
              a.queries == 0,
          "Waitany: index %d tag %d", index, st.MPI_TAG);
    MPI_Testsome(2, reqs, &outcount, indices, &st);
    CHECK(outcount == 0, "Testsome with none complete: %d", outcount);
    MPI_Grequest_complete(reqs[0]);
    MPI_Waitsome(2, reqs, &outcount, indices, &st);
    CHECK(outcount == 1 && indices[0] == 0 && st.MPI_TAG == 10 && a.frees == 1, "Waitsome");
}

/* MPI_Cancel calls the cancel function with `complete`; MPI_Request_free calls the free
 * function at once when complete, else at MPI_Grequest_complete (here from a thread). */
static void cancel_and_free(void)
{
    state_t s;
    state_init(&s, 0, 0, 0);
    MPI_Request req = start(&s);
    MPI_Cancel(&req);
    CHECK(s.cancels == 1 && s.cancel_complete == 0, "cancel of a pending request");
    MPI_Grequest_complete(req);
    MPI_Status st;
    MPI_Wait(&req, &st);
    int flag = 0;
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "the query function's cancelled flag is lost");

    state_init(&s, 0, 0, 0);
    req = start(&s);
    MPI_Grequest_complete(req);
    MPI_Cancel(&req);
    CHECK(s.cancels == 1 && s.cancel_complete == 1, "cancel of a complete request");
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(!flag, "a completed request cancelled");

    /* Freed when complete: free function at once, no query. */
    state_init(&s, 0, 0, 0);
    req = start(&s);
    MPI_Grequest_complete(req);
    MPI_Request_free(&req);
    CHECK(req == MPI_REQUEST_NULL && s.frees == 1 && s.queries == 0, "free after completion");

    /* Freed before: the free function runs in MPI_Grequest_complete. */
    state_init(&s, 0, 0, 0);
    req = start(&s);
    MPI_Request copy = req;
    MPI_Request_free(&req);
    CHECK(s.frees == 0, "free function called before the completion");
    MPI_Grequest_complete(copy);
    CHECK(s.frees == 1 && s.queries == 0, "free function not called by the completion");

    /* Freed before, completed by a thread: MPI_Finalize waits for nothing more. */
    static state_t late;
    state_init(&late, 0, 0, 0);
    completer_t c = {start(&late), 10000, -1};
    req = c.req;
    MPI_Request_free(&req);
    pthread_t thread;
    pthread_create(&thread, NULL, complete_later, &c);
    pthread_join(thread, NULL);
    CHECK(c.result == MPI_SUCCESS && late.frees == 1 && late.queries == 0,
          "free function of a freed request completed by a thread");
}

static int error_class(int err)
{
    int cls;
    MPI_Error_class(err, &cls);
    return cls;
}

/* The callbacks' errors are the calls'; MPI_ERR_IN_STATUS from Waitall and Waitsome. */
static void callback_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    state_t s;
    state_init(&s, 0, 0, 0);
    s.query_error = MPI_ERR_OTHER;
    MPI_Request req = start(&s);
    MPI_Grequest_complete(req);
    int flag;
    CHECK(error_class(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE)) == MPI_ERR_OTHER,
          "Request_get_status does not return the query's error");
    CHECK(error_class(MPI_Wait(&req, MPI_STATUS_IGNORE)) == MPI_ERR_OTHER,
          "Wait does not return the query's error");
    CHECK(req == MPI_REQUEST_NULL && s.frees == 1, "a failed query still frees");

    state_init(&s, 0, 0, 0);
    s.free_error = MPI_ERR_INTERN;
    req = start(&s);
    MPI_Grequest_complete(req);
    CHECK(error_class(MPI_Wait(&req, MPI_STATUS_IGNORE)) == MPI_ERR_INTERN,
          "Wait does not return the free function's error");

    state_t ok, bad;
    state_init(&ok, 0, 1, 0);
    state_init(&bad, 0, 2, 0);
    bad.query_error = MPI_ERR_OTHER;
    MPI_Request reqs[2] = {start(&ok), start(&bad)};
    MPI_Grequest_complete(reqs[0]);
    MPI_Grequest_complete(reqs[1]);
    MPI_Status sts[2];
    CHECK(error_class(MPI_Waitall(2, reqs, sts)) == MPI_ERR_IN_STATUS,
          "Waitall: not MPI_ERR_IN_STATUS");
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && error_class(sts[1].MPI_ERROR) == MPI_ERR_OTHER,
          "Waitall statuses' errors %d %d", sts[0].MPI_ERROR, sts[1].MPI_ERROR);
    state_init(&bad, 0, 2, 0);
    bad.query_error = MPI_ERR_OTHER;
    reqs[0] = start(&bad);
    MPI_Grequest_complete(reqs[0]);
    int outcount, index;
    CHECK(error_class(MPI_Waitsome(1, reqs, &outcount, &index, sts)) == MPI_ERR_IN_STATUS &&
              error_class(sts[0].MPI_ERROR) == MPI_ERR_OTHER,
          "Waitsome: not MPI_ERR_IN_STATUS");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* MPI_Status_set_elements(_x) as MPI_Get_elements and MPI_Get_count read them back. */
static void status_setters(void)
{
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_commit(&three);
    MPI_Status st;
    int count, elements;
    MPI_Status_set_elements(&st, three, 7);
    MPI_Get_elements(&st, three, &elements);
    MPI_Get_count(&st, three, &count);
    CHECK(elements == 7 && count == MPI_UNDEFINED, "7 ints of int[3]: %d, count %d", elements,
          count);
    MPI_Status_set_elements(&st, three, 6);
    MPI_Get_count(&st, three, &count);
    CHECK(count == 2, "6 ints of int[3]: count %d", count);
    MPI_Count big = 5000000000LL, got;
    MPI_Status_set_elements_x(&st, MPI_BYTE, big);
    MPI_Get_elements_x(&st, MPI_BYTE, &got);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(got == big && count == MPI_UNDEFINED, "set_elements_x: %lld, count %d", (long long)got,
          count);
    MPI_Type_free(&three);
}

typedef struct bad_completer {
    MPI_Request req;
    int result;
} bad_completer_t;

static void *complete_bad(void *arg)
{
    bad_completer_t *c = arg;
    c->result = MPI_Grequest_complete(c->req);
    return NULL;
}

static void argument_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request req;
    state_t s;
    state_init(&s, 0, 0, 0);
    CHECK(error_class(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, NULL)) == MPI_ERR_ARG,
          "Grequest_start(request NULL)");
    CHECK(error_class(MPI_Grequest_start(NULL, free_fn, cancel_fn, &s, &req)) == MPI_ERR_ARG,
          "Grequest_start(query_fn NULL)");
    CHECK(error_class(MPI_Grequest_complete(MPI_REQUEST_NULL)) == MPI_ERR_REQUEST,
          "Grequest_complete(MPI_REQUEST_NULL)");
    int v = 0;
    MPI_Request recv;
    MPI_Irecv(&v, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, &recv);
    CHECK(error_class(MPI_Grequest_complete(recv)) == MPI_ERR_REQUEST,
          "Grequest_complete of a receive");
    MPI_Cancel(&recv);
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
    req = start(&s);
    MPI_Grequest_complete(req);
    CHECK(error_class(MPI_Grequest_complete(req)) == MPI_ERR_REQUEST, "completed twice");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    /* From a thread that is no rank: returned, no handler can run there. */
    bad_completer_t c = {(MPI_Request)0x12345, -1};
    pthread_t thread;
    pthread_create(&thread, NULL, complete_bad, &c);
    pthread_join(thread, NULL);
    CHECK(error_class(c.result) == MPI_ERR_REQUEST, "bad handle from a thread: %d", c.result);
    /* Another rank's generalized request is not this rank's to wait for. */
    if (size > 1) {
        state_init(&s, 0, 0, 0);
        MPI_Request mine = start(&s), theirs;
        MPI_Sendrecv(&mine, 1, MPI_INT, (rank + 1) % size, 8, &theirs, 1, MPI_INT,
                     (rank + size - 1) % size, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request keep = theirs;
        CHECK(error_class(MPI_Wait(&theirs, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST &&
                  theirs == keep,
              "waited for another rank's generalized request");
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Grequest_complete(mine);
        MPI_Wait(&mine, MPI_STATUS_IGNORE);
    }
    MPI_Status st;
    CHECK(error_class(MPI_Status_set_elements(NULL, MPI_INT, 1)) == MPI_ERR_ARG,
          "set_elements(NULL)");
    CHECK(error_class(MPI_Status_set_elements(&st, MPI_INT, -1)) == MPI_ERR_COUNT,
          "set_elements(-1)");
    CHECK(error_class(MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1)) == MPI_ERR_TYPE,
          "set_elements(MPI_DATATYPE_NULL)");
    CHECK(error_class(MPI_Status_set_cancelled(MPI_STATUS_IGNORE, 1)) == MPI_ERR_ARG,
          "set_cancelled(MPI_STATUS_IGNORE)");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    complete_by_rank();
    MPI_Barrier(MPI_COMM_WORLD);
    complete_by_thread();
    MPI_Barrier(MPI_COMM_WORLD);
    completion_calls();
    cancel_and_free();
    callback_errors();
    status_setters();
    argument_errors();
    int total;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_grequest: %d ranks, %d errors\n", size, total);
    MPI_Finalize();
    return total != 0;
}
