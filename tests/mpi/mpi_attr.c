/* Attributes on every rank: each rank's keyvals and values are its own, delete callbacks run
 * with the right arguments, and MPI_Finalize deletes MPI_COMM_SELF's attributes (the last
 * callback reports). Predefined attributes of the job. Usage: mpi_attr */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int errors, rank, deleted;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "mpi_attr: rank %d: line %d: %s\n", rank, __LINE__, #cond);            \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static int delete_fn(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)keyval;
    if (comm != MPI_COMM_WORLD || *(int *)value != rank || extra != &rank)
        errors++;
    deleted++;
    free(value);
    return MPI_SUCCESS;
}

static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    /* Runs inside MPI_Finalize: the exit status is the only way out. */
    if (value != &rank || errors || deleted != 0) {
        fprintf(stderr, "mpi_attr: rank %d: %d errors at MPI_Finalize\n", rank, errors);
        exit(1);
    }
    deleted++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int key, skey, flag, size, *val, *mine = malloc(sizeof(int));

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    *mine = rank;
    CHECK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, delete_fn, &key, &rank) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, mine) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &val, &flag) == MPI_SUCCESS && flag &&
          val == mine && *val == rank);
    CHECK(MPI_Comm_get_attr(MPI_COMM_SELF, key, &val, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Comm_free_keyval(&key) == MPI_SUCCESS && key == MPI_KEYVAL_INVALID);
    CHECK(deleted == 0);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag) == MPI_SUCCESS && flag &&
          *val >= 32767);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &val, &flag) == MPI_SUCCESS &&
          flag && *val == size);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag) == MPI_SUCCESS &&
          flag && *val == 1);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &val, &flag) == MPI_SUCCESS && flag &&
          *val == MPI_ANY_SOURCE);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &val, &flag) == MPI_SUCCESS && flag &&
          *val == MPI_PROC_NULL);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &val, &flag) == MPI_SUCCESS && flag &&
          *val == 0);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &flag) == MPI_ERR_KEYVAL);
    /* The world attribute outlived its keyval; deleting it now runs its callback. */
    CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &skey, NULL) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, skey, &rank) == MPI_SUCCESS);
    MPI_Finalize();
    /* self_delete ran at MPI_Finalize, before the world attribute was deleted. */
    if (deleted != 2) {
        fprintf(stderr, "mpi_attr: rank %d: %d delete callbacks ran, not 2\n", rank, deleted);
        return 1;
    }
    return errors ? 1 : 0;
}
