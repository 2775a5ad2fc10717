/* MPI_Cancel of sends: a send whose message no receive has matched is cancelled (eager,
 * rendezvous, synchronous, buffered, persistent) and its receiver gets the next message instead; a
 * send already received is not (even when its cell was reused since); a cancel racing with the
 * receive either cancels the message or lets it through, never both; argument errors. Each
 * rank sends to the next one and receives from the previous one. */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Eager (8 B, 4 KiB), rendezvous (4 KiB + 4, 400 KB): counts of ints. */
static const int counts[] = {2, 1024, 1025, 100000};
#define NCOUNTS (int)(sizeof counts / sizeof counts[0])

static void fill(int *buf, int n, int value)
{
    for (int i = 0; i < n; i++)
        buf[i] = value + i;
}

static int cancelled(MPI_Status *st)
{
    int flag = -1;
    MPI_Test_cancelled(st, &flag);
    return flag;
}

/* mode 0: Isend, 1: Issend, 2: Send_init/Start, 3: Ssend_init/Start, 4: Ibsend, 5:
 * Bsend_init/Start. The first message of tag `tag` is cancelled before the receiver posts
 * anything; the receiver then gets the second. */
#define NMODES 6
static void cancel_unmatched(int count, int mode, int tag)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int *a = malloc((size_t)count * sizeof *a), *b = malloc((size_t)count * sizeof *b);
    int *in = malloc((size_t)count * sizeof *in);
    fill(a, count, 1000000 * (rank + 1));
    fill(b, count, 2000000 * (rank + 1));
    MPI_Request req;
    MPI_Status st;
    bool persistent = mode == 2 || mode == 3 || mode == 5;
    if (mode == 0)
        MPI_Isend(a, count, MPI_INT, next, tag, MPI_COMM_WORLD, &req);
    else if (mode == 1)
        MPI_Issend(a, count, MPI_INT, next, tag, MPI_COMM_WORLD, &req);
    else if (mode == 4)
        MPI_Ibsend(a, count, MPI_INT, next, tag, MPI_COMM_WORLD, &req);
    else {
        if (mode == 2)
            MPI_Send_init(a, count, MPI_INT, next, tag, MPI_COMM_WORLD, &req);
        else if (mode == 3)
            MPI_Ssend_init(a, count, MPI_INT, next, tag, MPI_COMM_WORLD, &req);
        else
            MPI_Bsend_init(a, count, MPI_INT, next, tag, MPI_COMM_WORLD, &req);
        MPI_Start(&req);
    }
    CHECK(MPI_Cancel(&req) == MPI_SUCCESS, "MPI_Cancel failed");
    MPI_Wait(&req, &st);
    CHECK(cancelled(&st) == 1, "count %d mode %d: an unmatched send was not cancelled", count,
          mode);
    /* The cancelled message is gone: a probe sees nothing, a receive gets the next one. */
    MPI_Barrier(MPI_COMM_WORLD);
    int flag = 1;
    MPI_Iprobe(prev, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "count %d mode %d: the cancelled message is still there", count, mode);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Request rreq;
    MPI_Irecv(in, count, MPI_INT, prev, tag, MPI_COMM_WORLD, &rreq);
    if (persistent) {
        /* The persistent request again: not cancelled this time. */
        memcpy(a, b, (size_t)count * sizeof *a);
        MPI_Start(&req);
        MPI_Wait(&req, &st);
        CHECK(cancelled(&st) == 0, "count %d mode %d: restarted send cancelled", count, mode);
        MPI_Request_free(&req);
    } else {
        MPI_Send(b, count, MPI_INT, next, tag, MPI_COMM_WORLD);
    }
    MPI_Wait(&rreq, &st);
    int got;
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(got == count && in[0] == 2000000 * (prev + 1) && in[count - 1] == in[0] + count - 1,
          "count %d mode %d: received %d ints starting %d instead of the second message", count,
          mode, got, in[0]);
    CHECK(cancelled(&st) == 0, "a receive says cancelled");
    free(a);
    free(b);
    free(in);
}

/* A send received before the cancel is not cancelled, even once its cell has carried other
 * messages: those are not cancelled either. */
static void cancel_after_match(int count, int tag)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int *a = malloc((size_t)count * sizeof *a), *in = malloc((size_t)count * sizeof *in);
    fill(a, count, 7 * (rank + 1));
    MPI_Request req, later[4];
    MPI_Status st;
    MPI_Isend(a, count, MPI_INT, next, tag, MPI_COMM_WORLD, &req);
    MPI_Recv(in, count, MPI_INT, prev, tag, MPI_COMM_WORLD, &st);
    CHECK(in[0] == 7 * (prev + 1), "count %d: got %d", count, in[0]);
    /* Received: the receiver has let the cell go; more sends may take it again. */
    MPI_Barrier(MPI_COMM_WORLD);
    int v[4] = {11, 12, 13, 14}, w[4];
    for (int i = 0; i < 4; i++)
        MPI_Isend(&v[i], 1, MPI_INT, next, tag + 1, MPI_COMM_WORLD, &later[i]);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    CHECK(cancelled(&st) == 0, "count %d: a received send was cancelled", count);
    for (int i = 0; i < 4; i++) {
        MPI_Recv(&w[i], 1, MPI_INT, prev, tag + 1, MPI_COMM_WORLD, &st);
        CHECK(w[i] == v[i], "message %d after the failed cancel: %d", i, w[i]);
    }
    MPI_Waitall(4, later, MPI_STATUSES_IGNORE);
    free(a);
    free(in);
}

/* The receive is posted while the sender cancels: either the message is cancelled and the
 * receive gets the replacement, or it arrives and the cancel failed. */
static void cancel_race(int rounds, int tag)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int n = 2000;
    int *out = malloc((size_t)n * sizeof *out), *in = malloc((size_t)n * sizeof *in);
    int ncancelled = 0;
    for (int i = 0; i < rounds; i++) {
        int count = i % 2 ? n : 1; /* rendezvous and eager in turn */
        MPI_Request rreq, sreq;
        MPI_Status st;
        MPI_Irecv(in, count, MPI_INT, prev, tag, MPI_COMM_WORLD, &rreq);
        fill(out, count, i * 10);
        MPI_Isend(out, count, MPI_INT, next, tag, MPI_COMM_WORLD, &sreq);
        /* Give the receiver a varying head start (each probe lets the others run). */
        for (int k = 0; k < (i % 5) * 20; k++) {
            int flag;
            MPI_Iprobe(prev, tag + 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        }
        MPI_Cancel(&sreq);
        MPI_Wait(&sreq, &st);
        int flag = cancelled(&st);
        ncancelled += flag;
        /* Non-blocking: by rendezvous (eager_limit 0) a blocking send would wait for a
         * receive the next rank posts only after its own sends. */
        int replacement = -1, their_flag;
        MPI_Request more[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        if (flag)
            MPI_Isend(&replacement, 1, MPI_INT, next, tag, MPI_COMM_WORLD, &more[0]);
        MPI_Isend(&flag, 1, MPI_INT, next, tag + 1, MPI_COMM_WORLD, &more[1]);
        MPI_Wait(&rreq, &st);
        MPI_Recv(&their_flag, 1, MPI_INT, prev, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Waitall(2, more, MPI_STATUSES_IGNORE);
        int got;
        MPI_Get_count(&st, MPI_INT, &got);
        if (their_flag)
            CHECK(got == 1 && in[0] == -1, "round %d: cancelled, yet received %d ints (%d)", i, got,
                  in[0]);
        else
            CHECK(got == count && in[0] == i * 10 && in[count - 1] == i * 10 + count - 1,
                  "round %d: not cancelled, yet received %d ints (%d)", i, got, in[0]);
    }
    if (rank == 0)
        printf("cancel race: %d of %d sends cancelled on rank 0\n", ncancelled, rounds);
    free(out);
    free(in);
}

static void argument_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err, cls;
    MPI_Request null = MPI_REQUEST_NULL, bogus = (MPI_Request)0x12345;
    err = MPI_Cancel(NULL);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "MPI_Cancel(NULL): %d", cls);
    err = MPI_Cancel(&null);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_REQUEST, "MPI_Cancel(MPI_REQUEST_NULL): %d", cls);
    err = MPI_Cancel(&bogus);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_REQUEST, "MPI_Cancel(bogus): %d", cls);
    int flag;
    err = MPI_Test_cancelled(NULL, &flag);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "MPI_Test_cancelled(NULL): %d", cls);
    /* A send to MPI_PROC_NULL: nothing to cancel, it completes normally. */
    MPI_Request req;
    MPI_Status st;
    MPI_Isend(&flag, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    CHECK(MPI_Cancel(&req) == MPI_SUCCESS, "cancel of a send to MPI_PROC_NULL");
    MPI_Wait(&req, &st);
    CHECK(cancelled(&st) == 0, "a send to MPI_PROC_NULL was cancelled");
    /* A freed request is no request any more. */
    MPI_Isend(&flag, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    MPI_Request copy = req;
    MPI_Request_free(&req);
    err = MPI_Cancel(&copy);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_REQUEST, "MPI_Cancel of a freed request: %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int tag = 100;
    /* room for two buffered messages of the largest count at once */
    int room = 2 * (counts[NCOUNTS - 1] * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *attached = malloc((size_t)room);
    MPI_Buffer_attach(attached, room);
    for (int mode = 0; mode < NMODES; mode++)
        for (int c = 0; c < NCOUNTS; c++, tag++)
            cancel_unmatched(counts[c], mode, tag);
    for (int c = 0; c < NCOUNTS; c++, tag += 2)
        cancel_after_match(counts[c], tag);
    MPI_Buffer_detach(&attached, &room);
    free(attached);
    cancel_race(200, 1000);
    argument_errors();
    MPI_Barrier(MPI_COMM_WORLD);
    int total;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_cancel: %d ranks, %d errors\n", size, total);
    MPI_Finalize();
    return total != 0;
}
