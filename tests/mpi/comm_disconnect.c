/* MPI_Comm_disconnect: on a duplicate of MPI_COMM_WORLD, each rank posts a receive from the rank
 * before it and starts a send to the rank after it, frees both requests while pending, and
 * disconnects: when the call returns the receive is complete (its data is in the buffer, even
 * on the rank that reached the call last and so never waited in it), the communicator's
 * attribute was deleted, and the handle is MPI_COMM_NULL. Eager and rendezvous sizes. Then an
 * intercommunicator between the two halves of the ranks is disconnected, and the errors:
 * MPI_COMM_WORLD (MPI_ERR_COMM), MPI_COMM_NULL (MPI_ERR_COMM), a NULL pointer (MPI_ERR_ARG). */
#include <mpi.h>
#include <stdio.h>

static int rank, errors, deleted;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "comm_disconnect: rank %d, line %d: %s\n", rank, __LINE__, #cond);     \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static int on_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)value;
    (void)extra;
    deleted++;
    return MPI_SUCCESS;
}

static int error_class(int code)
{
    int class;
    MPI_Error_class(code, &class);
    return class;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    enum { N = 1 << 16 }; /* ints: 256 KiB, past the eager limit */
    static int in[N], out[N];
    int keyval;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &keyval, NULL);
    static const int counts[] = {4, N};
    for (int k = 0; k < 2; k++) {
        int n = counts[k];
        for (int i = 0; i < n; i++) {
            in[i] = -1;
            out[i] = rank * n + i;
        }
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_set_attr(comm, keyval, NULL);
        MPI_Request recv, send;
        int from = (rank + size - 1) % size, to = (rank + 1) % size;
        MPI_Irecv(in, n, MPI_INT, from, 0, comm, &recv);
        MPI_Request_free(&recv);
        MPI_Isend(out, n, MPI_INT, to, 0, comm, &send);
        MPI_Request_free(&send);
        CHECK(MPI_Comm_disconnect(&comm) == MPI_SUCCESS);
        CHECK(comm == MPI_COMM_NULL);
        CHECK(deleted == k + 1);
        for (int i = 0; i < n; i++)
            if (in[i] != from * n + i) {
                CHECK(in[i] == from * n + i);
                break;
            }
    }
    MPI_Comm_free_keyval(&keyval);

    if (size > 1) {
        MPI_Comm half, inter;
        int low = rank < size / 2;
        MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 5, &inter);
        int remote = 0;
        MPI_Comm_remote_size(inter, &remote);
        CHECK(remote == (low ? size - size / 2 : size / 2));
        CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS && inter == MPI_COMM_NULL);
        CHECK(MPI_Comm_disconnect(&half) == MPI_SUCCESS && half == MPI_COMM_NULL);
    }

    MPI_Comm world = MPI_COMM_WORLD, null = MPI_COMM_NULL;
    CHECK(error_class(MPI_Comm_disconnect(&world)) == MPI_ERR_COMM);
    CHECK(error_class(MPI_Comm_disconnect(&null)) == MPI_ERR_COMM);
    CHECK(error_class(MPI_Comm_disconnect(NULL)) == MPI_ERR_ARG);

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("comm_disconnect: ok\n");
    MPI_Finalize();
    return all ? 1 : 0;
}
