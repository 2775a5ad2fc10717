/* Erroneous MPI calls under the default error handler, MPI_ERRORS_ARE_FATAL, and MPI_Abort: rank
 * WHO makes the call chosen by MODE, the others finalize and return 0. Run by mpi_fatal.sh,
 * which checks the job's exit status and message. Usage: mpi_fatal MODE WHO [CODE]
 *   bad-comm        MPI_Comm_rank(MPI_INT, ...)
 *   null-comm       MPI_Comm_size(MPI_COMM_NULL, ...)
 *   null-arg        MPI_Comm_rank(MPI_COMM_WORLD, NULL)
 *   bad-code        MPI_Error_string(-1, ...)
 *   free-null       MPI_Request_free on MPI_REQUEST_NULL
 *   start-null      MPI_Start on MPI_REQUEST_NULL
 *   before-init     MPI_Comm_rank before MPI_Init (by every rank: none knows its rank yet)
 *   init-twice      MPI_Init a second time
 *   finalize-twice  MPI_Finalize a second time
 *   after-finalize  MPI_Comm_size after MPI_Finalize
 *   thread          MPI_Comm_rank from a thread the rank created
 *   abort           MPI_Abort(MPI_COMM_WORLD, CODE)
 *   abort-self      MPI_Abort(MPI_COMM_SELF, CODE)
 *   abort-in-op     every rank: MPI_Ireduce of 4 KiB to root WHO with a user operation that calls
 *                   MPI_Abort(MPI_COMM_WORLD, CODE), then 10 s without MPI calls; the others
 *                   call it 1 s after WHO, so that on a machine with idle cores for the progress
 *                   threads and split_levels = 0, the operation runs on WHO's progress thread
 *                   (WHO's MPI_Ireduce itself would run it if their data were there) */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int abort_code;

static void abort_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in, (void)inout, (void)len, (void)type;
    MPI_Abort(MPI_COMM_WORLD, abort_code);
}

static void *other_thread(void *arg)
{
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return arg;
}

int main(int argc, char **argv)
{
    char s[MPI_MAX_ERROR_STRING];
    const char *mode = argc > 2 ? argv[1] : "";
    int who = argc > 2 ? atoi(argv[2]) : -1, code = argc > 3 ? atoi(argv[3]) : 0;
    int rank, size, len;
    pthread_t thread;

    if (argc < 3) {
        fprintf(stderr, "usage: mpi_fatal MODE WHO [CODE]\n");
        return 2;
    }
    if (strcmp(mode, "before-init") == 0)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(mode, "abort-in-op") == 0) {
        MPI_Op op;
        MPI_Request req;
        /* More than the flat block's non-blocking reductions take (coll/flat.c), which the
         * progress thread runs only when its core is its own (here the VPs are not pinned). */
        static int in[1024], out[1024];
        in[0] = rank;
        abort_code = code;
        MPI_Op_create(abort_op, 1, &op);
        if (rank != who)
            sleep(1);
        MPI_Ireduce(in, out, 1024, MPI_INT, op, who, MPI_COMM_WORLD, &req);
        sleep(10);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (rank == who) {
        if (strcmp(mode, "bad-comm") == 0)
            MPI_Comm_rank(MPI_INT, &rank);
        else if (strcmp(mode, "null-comm") == 0)
            MPI_Comm_size(MPI_COMM_NULL, &size);
        else if (strcmp(mode, "null-arg") == 0)
            MPI_Comm_rank(MPI_COMM_WORLD, NULL);
        else if (strcmp(mode, "bad-code") == 0)
            MPI_Error_string(-1, s, &len);
        else if (strcmp(mode, "free-null") == 0) {
            MPI_Request req = MPI_REQUEST_NULL;
            MPI_Request_free(&req);
        } else if (strcmp(mode, "start-null") == 0) {
            MPI_Request req = MPI_REQUEST_NULL;
            MPI_Start(&req);
        } else if (strcmp(mode, "init-twice") == 0)
            MPI_Init(&argc, &argv);
        else if (strcmp(mode, "thread") == 0) {
            if (pthread_create(&thread, NULL, other_thread, NULL) == 0)
                pthread_join(thread, NULL);
        } else if (strcmp(mode, "abort") == 0)
            MPI_Abort(MPI_COMM_WORLD, code);
        else if (strcmp(mode, "abort-self") == 0)
            MPI_Abort(MPI_COMM_SELF, code);
        else if (strcmp(mode, "mpi1-attr") == 0)
            MPI_Attr_put(MPI_COMM_WORLD, 12345, NULL);
    }
    MPI_Finalize();
    if (rank == who) {
        if (strcmp(mode, "finalize-twice") == 0)
            MPI_Finalize();
        else if (strcmp(mode, "after-finalize") == 0)
            MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    /* Reached only when the erroneous call returned, which it must not. */
    if (rank == who) {
        fprintf(stderr, "mpi_fatal: rank %d survived %s\n", rank, mode);
        return 1;
    }
    return 0;
}
