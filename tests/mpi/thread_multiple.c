/* MPI_THREAD_MULTIPLE: the threads a rank starts call MPI for it, concurrently with the rank and
 * with each other. Each rank starts NTHREADS threads; thread t of every rank works on a
 * duplicate of MPI_COMM_WORLD of its own (collectives of different threads must not share a
 * communicator) and, on MPI_COMM_WORLD, with messages tagged t:
 *   - a ring of blocking sends and receives, of MPI_Sendrecv, of MPI_Isend/MPI_Irecv/MPI_Waitall,
 *     and receives from MPI_ANY_SOURCE with MPI_ANY_TAG on its own communicator;
 *   - MPI_Allreduce and MPI_Bcast on its own communicator;
 *   - messages between two threads of one rank (thread 0 sends to its own rank, thread 1
 *     receives them), which only the threads' turns order;
 *   - requests made and completed as fast as they can, to its own rank;
 * while the rank itself runs MPI_Allreduce on MPI_COMM_WORLD and a ring of its own. A thread of
 * a thread counts as the rank's too. Every value received is checked. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 3
#define ROUNDS   150
#define SELF_TAG 1000

static int rank, size, errors_total;
static pthread_mutex_t errors_lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Comm comms[NTHREADS];

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "thread_multiple: rank %d, line %d: %s\n", rank, __LINE__, #cond);     \
            pthread_mutex_lock(&errors_lock);                                                      \
            errors_total++;                                                                        \
            pthread_mutex_unlock(&errors_lock);                                                    \
        }                                                                                          \
    } while (0)

static void ring(int t, int round)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int out = rank * 100000 + t * 1000 + round, in = -1;
    MPI_Status st;

    /* blocking, in an order that cannot deadlock: even ranks send first */
    if (rank % 2 == 0) {
        CHECK(MPI_Send(&out, 1, MPI_INT, to, t, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Recv(&in, 1, MPI_INT, from, t, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    } else {
        CHECK(MPI_Recv(&in, 1, MPI_INT, from, t, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        CHECK(MPI_Send(&out, 1, MPI_INT, to, t, MPI_COMM_WORLD) == MPI_SUCCESS);
    }
    CHECK(in == from * 100000 + t * 1000 + round);
    in = -1;
    CHECK(MPI_Sendrecv(&out, 1, MPI_INT, to, t, &in, 1, MPI_INT, from, t, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(in == from * 100000 + t * 1000 + round);
    /* non-blocking, a message large enough for the receiver's copy */
    enum { N = 2048 };
    static __thread int big_out[N], big_in[N];
    for (int i = 0; i < N; i++)
        big_out[i] = out + i;
    MPI_Request reqs[2];
    CHECK(MPI_Irecv(big_in, N, MPI_INT, from, t, MPI_COMM_WORLD, &reqs[0]) == MPI_SUCCESS);
    CHECK(MPI_Isend(big_out, N, MPI_INT, to, t, MPI_COMM_WORLD, &reqs[1]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        if (big_in[i] != from * 100000 + t * 1000 + round + i) {
            CHECK(big_in[i] == from * 100000 + t * 1000 + round + i);
            break;
        }
    /* any source, any tag, on the thread's own communicator */
    CHECK(MPI_Send(&out, 1, MPI_INT, to, round, comms[t]) == MPI_SUCCESS);
    CHECK(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[t], &st) == MPI_SUCCESS);
    CHECK(in == from * 100000 + t * 1000 + round && st.MPI_SOURCE == from && st.MPI_TAG == round);
}

static void collectives(int t, int round)
{
    int sum = -1, mine = rank + t + round;
    CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comms[t]) == MPI_SUCCESS);
    CHECK(sum == size * (size - 1) / 2 + size * (t + round));
    int value = rank == round % size ? round * 7 + t : -1;
    CHECK(MPI_Bcast(&value, 1, MPI_INT, round % size, comms[t]) == MPI_SUCCESS);
    CHECK(value == round * 7 + t);
}

/* Threads 0 and 1 of a rank: thread 0 sends to its own rank, thread 1 receives. */
static void between_threads(int t, int round)
{
    int v = -1, flag = 0;
    if (t == 0) {
        v = round;
        CHECK(MPI_Send(&v, 1, MPI_INT, rank, SELF_TAG, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else if (t == 1) {
        MPI_Request req;
        CHECK(MPI_Irecv(&v, 1, MPI_INT, rank, SELF_TAG, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
        while (!flag) /* a thread polling: the others must go on meanwhile */
            CHECK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(v == round);
    }
}

/* Requests made and freed as fast as the threads can, all on the rank's one pool and queues:
 * messages to the rank itself on the thread's own communicator. */
static void churn(int t)
{
    for (int i = 0; i < 2000; i++) {
        int out = t * 100000 + i, in = -1;
        MPI_Request reqs[2];
        CHECK(MPI_Irecv(&in, 1, MPI_INT, rank, i % 7, comms[t], &reqs[0]) == MPI_SUCCESS);
        CHECK(MPI_Isend(&out, 1, MPI_INT, rank, i % 7, comms[t], &reqs[1]) == MPI_SUCCESS);
        CHECK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        CHECK(in == out);
    }
}

static void *grandchild(void *arg)
{
    int *out = arg, r = -1, provided = -1, main_flag = -1;
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &r) == MPI_SUCCESS);
    CHECK(MPI_Query_thread(&provided) == MPI_SUCCESS && provided == MPI_THREAD_MULTIPLE);
    CHECK(MPI_Is_thread_main(&main_flag) == MPI_SUCCESS && main_flag == 0);
    *out = r;
    return NULL;
}

static void *thread_main(void *arg)
{
    int t = (int)(long)arg;
    churn(t);
    for (int round = 0; round < ROUNDS; round++) {
        ring(t, round);
        collectives(t, round);
        between_threads(t, round);
    }
    /* a thread started by a thread of the rank is the rank's too */
    int r = -1;
    pthread_t g;
    CHECK(pthread_create(&g, NULL, grandchild, &r) == 0 && pthread_join(g, NULL) == 0);
    CHECK(r == rank);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);

    pthread_t threads[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&threads[t], NULL, thread_main, (void *)(long)t) == 0);
    /* the rank meanwhile: requests to itself, collectives on MPI_COMM_WORLD and a ring of its
     * own tag */
    for (int i = 0; i < 2000; i++) {
        int out = i, in = -1;
        MPI_Request reqs[2];
        CHECK(MPI_Irecv(&in, 1, MPI_INT, rank, 998, MPI_COMM_WORLD, &reqs[0]) == MPI_SUCCESS);
        CHECK(MPI_Isend(&out, 1, MPI_INT, rank, 998, MPI_COMM_WORLD, &reqs[1]) == MPI_SUCCESS);
        CHECK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        CHECK(in == out);
    }
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    for (int round = 0; round < ROUNDS; round++) {
        int one = 1, sum = 0, in = -1;
        CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(sum == size);
        CHECK(MPI_Sendrecv(&round, 1, MPI_INT, to, 999, &in, 1, MPI_INT, from, 999, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(in == round);
    }
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(threads[t], NULL);
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_free(&comms[t]);

    int all = 0;
    MPI_Allreduce(&errors_total, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("thread_multiple: %s (%d ranks, %d threads each)\n", all ? "FAILED" : "ok", size,
               NTHREADS);
    MPI_Finalize();
    return all != 0;
}
