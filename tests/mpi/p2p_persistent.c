/* Persistent requests (started many times, completed by every completion call, inactive ones
 * treated as null) and buffered sends (attach, many sends before any receive, detach, no room
 * is MPI_ERR_BUFFER, MPI_Buffer_flush and MPI_Buffer_iflush). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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

static void persistent(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    enum { N = 2000 }; /* rendezvous-sized */
    static int out[N], in[N];
    MPI_Request reqs[2];
    MPI_Status sts[2];
    MPI_Recv_init(in, N, MPI_INT, prev, 3, MPI_COMM_WORLD, &reqs[0]);
    MPI_Send_init(out, N, MPI_INT, next, 3, MPI_COMM_WORLD, &reqs[1]);
    for (int it = 0; it < 20; it++) {
        for (int i = 0; i < N; i++)
            out[i] = rank * 100000 + it * 100 + i % 100;
        MPI_Startall(2, reqs);
        if (it % 2)
            MPI_Waitall(2, reqs, sts);
        else {
            int flag = 0;
            while (!flag)
                MPI_Testall(2, reqs, &flag, sts);
        }
        CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL,
              "a persistent request lost its handle");
        CHECK(in[N - 1] == prev * 100000 + it * 100 + (N - 1) % 100 && sts[0].MPI_SOURCE == prev,
              "iteration %d: got %d", it, in[N - 1]);
    }
    /* Inactive: a wait returns at once, with an empty status. */
    MPI_Status st;
    st.MPI_SOURCE = 12345;
    MPI_Wait(&reqs[0], &st);
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && reqs[0] != MPI_REQUEST_NULL, "inactive wait");
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "request_free");

    /* Ssend_init and a persistent receive from MPI_PROC_NULL. */
    int v = rank, w = -1;
    MPI_Request s, n;
    MPI_Ssend_init(&v, 1, MPI_INT, next, 4, MPI_COMM_WORLD, &s);
    MPI_Recv_init(&w, 1, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD, &n);
    MPI_Start(&s);
    MPI_Start(&n);
    MPI_Recv(&w, 1, MPI_INT, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    MPI_Wait(&n, &st);
    CHECK(w == prev && st.MPI_SOURCE == MPI_PROC_NULL, "ssend_init / proc null: %d", w);
    MPI_Request_free(&s);
    MPI_Request_free(&n);
}

static void buffered(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    enum { M = 10, LEN = 3000 };
    int bufsize = M * (LEN * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *attached = malloc((size_t)bufsize);
    MPI_Buffer_attach(attached, bufsize);
    int *msg = malloc(LEN * sizeof *msg);
    for (int m = 0; m < M; m++) {
        for (int i = 0; i < LEN; i++)
            msg[i] = rank * 1000 + m;
        if (m % 3 == 0) {
            MPI_Request req;
            MPI_Ibsend(msg, LEN, MPI_INT, next, 5, MPI_COMM_WORLD, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Bsend(msg, LEN, MPI_INT, next, 5, MPI_COMM_WORLD);
        }
    }
    /* A message larger than the whole buffer never has room. */
    {
        int *huge = calloc((size_t)bufsize, 1);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int err = MPI_Bsend(huge, bufsize / (int)sizeof(int), MPI_INT, next, 6, MPI_COMM_WORLD),
            cls;
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_BUFFER, "a bsend without room returned %d", err);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        free(huge);
    }
    for (int m = 0; m < M; m++) {
        MPI_Recv(msg, LEN, MPI_INT, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(msg[0] == prev * 1000 + m && msg[LEN - 1] == prev * 1000 + m, "bsend %d: %d", m,
              msg[0]);
    }
    /* Detach waits until our buffered messages are received; attach again for Bsend_init. */
    void *back;
    int backsize;
    MPI_Buffer_detach(&back, &backsize);
    CHECK(back == attached && backsize == bufsize, "detach gave %p %d", back, backsize);
    MPI_Buffer_attach(attached, bufsize);
    MPI_Request p;
    MPI_Bsend_init(msg, 1, MPI_INT, next, 7, MPI_COMM_WORLD, &p);
    msg[0] = rank;
    MPI_Start(&p);
    MPI_Wait(&p, MPI_STATUS_IGNORE);
    MPI_Request_free(&p);
    int got;
    MPI_Recv(&got, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(got == prev, "bsend_init: %d", got);
    MPI_Buffer_detach(&back, &backsize);
    CHECK(back == attached && backsize == bufsize, "detach gave %p %d", back, backsize);
    free(attached);
    free(msg);
}

/* MPI_Buffer_iflush completes only once the messages buffered before it are sent (large ones,
 * rendezvous under every eager limit p2p_eager.sh sets, cannot be before their receive between
 * ranks of one host; from another host, a standard send's data leaves before, into the
 * receiving host); MPI_Buffer_flush waits for them and frees their room in the buffer. */
static void flush(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Comm host;
    int host_size;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_size(host, &host_size);
    MPI_Comm_free(&host);
    enum { BIG = 300000 }; /* 1.2 MB */
    int bufsize = 2 * (BIG * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *attached = malloc((size_t)bufsize);
    int *out = malloc(BIG * sizeof *out), *in = malloc(BIG * sizeof *in);
    for (int i = 0; i < BIG; i++)
        out[i] = rank + i;
    MPI_Buffer_attach(attached, bufsize);
    MPI_Bsend(out, BIG, MPI_INT, next, 8, MPI_COMM_WORLD);
    MPI_Request fl;
    int flag = 1;
    CHECK(MPI_Buffer_iflush(&fl) == MPI_SUCCESS, "MPI_Buffer_iflush failed");
    MPI_Test(&fl, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag || host_size < size, "MPI_Buffer_iflush complete before the message was received");
    MPI_Barrier(MPI_COMM_WORLD); /* no rank receives before every rank has tested */
    MPI_Recv(in, BIG, MPI_INT, prev, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in[0] == prev && in[BIG - 1] == prev + BIG - 1, "iflush: received %d", in[0]);
    CHECK(MPI_Wait(&fl, MPI_STATUS_IGNORE) == MPI_SUCCESS && fl == MPI_REQUEST_NULL,
          "waiting for MPI_Buffer_iflush failed");
    /* Flushed, the buffer has room for two messages again, and nothing to wait for. */
    MPI_Request rr[2];
    MPI_Irecv(in, BIG, MPI_INT, prev, 9, MPI_COMM_WORLD, &rr[0]);
    MPI_Irecv(in, BIG, MPI_INT, prev, 10, MPI_COMM_WORLD, &rr[1]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Bsend(out, BIG, MPI_INT, next, 9, MPI_COMM_WORLD) == MPI_SUCCESS, "bsend 9");
    CHECK(MPI_Bsend(out, BIG, MPI_INT, next, 10, MPI_COMM_WORLD) == MPI_SUCCESS, "bsend 10");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(MPI_Buffer_flush() == MPI_SUCCESS, "MPI_Buffer_flush failed");
    MPI_Waitall(2, rr, MPI_STATUSES_IGNORE);
    CHECK(in[1] == prev + 1, "flush: received %d", in[1]);
    MPI_Buffer_iflush(&fl);
    flag = 0;
    MPI_Test(&fl, &flag, MPI_STATUS_IGNORE);
    CHECK(flag, "MPI_Buffer_iflush with nothing buffered is not complete");
    void *back;
    int backsize;
    MPI_Buffer_detach(&back, &backsize);
    free(attached);
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    persistent();
    buffered();
    flush();
    MPI_Finalize();
    return errors ? 1 : 0;
}
