/* Handle conversions to Fortran integers and back (MPI_*_c2f, MPI_*_f2c): each kind's handle
 * comes back equal and still works (a communicator, a derived datatype, a user operation, an
 * info, a group, an error handler, a pending request that MPI_Wait then completes, a message of
 * MPI_Mprobe that MPI_Mrecv receives; the null window and file); a status through its Fortran
 * integers keeps its fields and its count; MPI_ERR_ARG for an ignored status. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "mpi_handles: rank %d, line %d: %s\n", rank, __LINE__, #cond);         \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* Sums *len pairs of ints. */
static void add(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < 2 * *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm dup, back;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    back = MPI_Comm_f2c(MPI_Comm_c2f(dup));
    int n = 0;
    CHECK(back == dup && MPI_Comm_size(back, &n) == MPI_SUCCESS && n == size);
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_NULL)) == MPI_COMM_NULL);

    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Datatype tback = MPI_Type_f2c(MPI_Type_c2f(pair));
    int tsize = 0;
    CHECK(tback == pair && MPI_Type_size(tback, &tsize) == MPI_SUCCESS && tsize == 8);

    MPI_Op op;
    MPI_Op_create(add, 1, &op);
    int one[2] = {1, 2}, sum[2] = {0, 0};
    CHECK(MPI_Allreduce(one, sum, 1, pair, MPI_Op_f2c(MPI_Op_c2f(op)), back) == MPI_SUCCESS);
    CHECK(sum[0] == size && sum[1] == 2 * size);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "k", "v");
    int nkeys = 0;
    CHECK(MPI_Info_get_nkeys(MPI_Info_f2c(MPI_Info_c2f(info)), &nkeys) == MPI_SUCCESS &&
          nkeys == 1);

    MPI_Group group;
    MPI_Comm_group(dup, &group);
    int gsize = 0;
    CHECK(MPI_Group_size(MPI_Group_f2c(MPI_Group_c2f(group)), &gsize) == MPI_SUCCESS &&
          gsize == size);

    MPI_Errhandler eh = MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN));
    CHECK(MPI_Comm_set_errhandler(dup, eh) == MPI_SUCCESS);
    CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL);
    CHECK(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL);

    /* a request and a message, each converted while pending */
    int to = (rank + 1) % size, from = (rank + size - 1) % size, got = -1, data = 100 + rank;
    MPI_Request req;
    MPI_Irecv(&got, 1, MPI_INT, from, 7, dup, &req);
    MPI_Fint freq = MPI_Request_c2f(req);
    MPI_Send(&data, 1, MPI_INT, to, 7, dup);
    MPI_Request rback = MPI_Request_f2c(freq);
    MPI_Status st;
    CHECK(MPI_Wait(&rback, &st) == MPI_SUCCESS && got == 100 + from);
    CHECK(rback == MPI_REQUEST_NULL);

    MPI_Send(&data, 1, MPI_INT, to, 8, dup);
    MPI_Message msg;
    MPI_Mprobe(from, 8, dup, &msg, MPI_STATUS_IGNORE);
    MPI_Message mback = MPI_Message_f2c(MPI_Message_c2f(msg));
    got = -1;
    CHECK(MPI_Mrecv(&got, 1, MPI_INT, &mback, &st) == MPI_SUCCESS && got == 100 + from);

    /* the last status through Fortran integers */
    MPI_Fint fst[MPI_F_STATUS_SIZE];
    MPI_Status cst;
    memset(&cst, 0, sizeof cst);
    CHECK(MPI_Status_c2f(&st, fst) == MPI_SUCCESS);
    CHECK(MPI_Status_f2c(fst, &cst) == MPI_SUCCESS);
    int count = -1;
    CHECK(cst.MPI_SOURCE == from && cst.MPI_TAG == 8 && cst.MPI_ERROR == st.MPI_ERROR);
    CHECK(MPI_Get_count(&cst, MPI_INT, &count) == MPI_SUCCESS && count == 1);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Status_c2f(MPI_STATUS_IGNORE, fst) == MPI_ERR_ARG);
    CHECK(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &cst) == MPI_ERR_ARG);
    CHECK(MPI_Status_c2f(&st, NULL) == MPI_ERR_ARG);

    MPI_Group_free(&group);
    MPI_Info_free(&info);
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
    MPI_Comm_free(&dup);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_handles: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
