/* Attributes on every rank: each rank's keyvals and values are its own, delete callbacks run
 * with the right arguments, and MPI_Finalize deletes MPI_COMM_SELF's attributes (the last
 * callback reports). Predefined attributes of the job. Delete callbacks that delete other
 * attributes, and their own, from MPI_Comm_delete_attr, MPI_Comm_set_attr's replacement and
 * MPI_Comm_free: each callback runs once, nothing is touched after it is freed (ASan).
 * A keyval freed while in use, a duplication whose copy callback fails.
 * Datatypes' attributes: on a derived type (copied by MPI_Type_dup through the copy callback,
 * deleted by MPI_Type_free, a failing delete callback keeping the type) and on a predefined one
 * (each rank's own value, though the ranks share MPI_INT). Usage: mpi_attr */
#include <mpi.h>
#include <stdint.h>
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

/* Keyvals whose delete callbacks delete the attributes of the others (nested[k] deletes those of
 * nested[k + 1] and nested[k + 2], and its own) on the communicator. */
/* Datatypes' attributes: the callbacks count what they see. */
static int type_copies, type_deletes, type_refuse;

static int type_copy(MPI_Datatype old, int key, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)key;
    CHECK(extra == &type_copies);
    type_copies++;
    *(void **)out = (char *)in + 1; /* the copy's value differs: it shows which one is read */
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype type, int key, void *value, void *extra)
{
    (void)type, (void)key, (void)value, (void)extra;
    type_deletes++;
    return type_refuse ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void type_cases(void)
{
    static char base[2];
    MPI_Datatype v, d;
    int key, plain, flag;
    void *val;

    CHECK(MPI_Type_create_keyval(type_copy, type_delete, &key, &type_copies) == MPI_SUCCESS);
    CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &plain, NULL) ==
          MPI_SUCCESS);
    CHECK(MPI_Type_vector(2, 1, 2, MPI_INT, &v) == MPI_SUCCESS);
    CHECK(MPI_Type_get_attr(v, key, &val, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Type_set_attr(v, key, base) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(v, plain, base) == MPI_SUCCESS);
    CHECK(MPI_Type_dup(v, &d) == MPI_SUCCESS && type_copies == 1);
    CHECK(MPI_Type_get_attr(d, key, &val, &flag) == MPI_SUCCESS && flag && val == base + 1);
    CHECK(MPI_Type_get_attr(d, plain, &val, &flag) == MPI_SUCCESS && !flag); /* not copied */
    CHECK(MPI_Type_get_attr(v, key, &val, &flag) == MPI_SUCCESS && flag && val == base);
    CHECK(MPI_Type_set_attr(v, key, base + 1) == MPI_SUCCESS && type_deletes == 1); /* replaced */
    CHECK(MPI_Type_delete_attr(v, key) == MPI_SUCCESS && type_deletes == 2);
    CHECK(MPI_Type_get_attr(v, key, &val, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Type_free(&v) == MPI_SUCCESS && type_deletes == 2);
    /* a delete callback that fails keeps the type and its attribute */
    type_refuse = 1;
    CHECK(MPI_Type_free(&d) == MPI_ERR_OTHER && d != MPI_DATATYPE_NULL && type_deletes == 3);
    CHECK(MPI_Type_get_attr(d, key, &val, &flag) == MPI_SUCCESS && flag);
    type_refuse = 0;
    CHECK(MPI_Type_free(&d) == MPI_SUCCESS && d == MPI_DATATYPE_NULL && type_deletes == 4);
    /* each rank's value on the shared MPI_INT */
    CHECK(MPI_Type_set_attr(MPI_INT, plain, &rank) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Type_get_attr(MPI_INT, plain, &val, &flag) == MPI_SUCCESS && flag && val == &rank);
    CHECK(MPI_Type_delete_attr(MPI_INT, plain) == MPI_SUCCESS);
    CHECK(MPI_Type_get_attr(MPI_INT, plain, &val, &flag) == MPI_SUCCESS && !flag);
    /* a communicator's key is not a datatype's */
    int ckey;
    CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckey, NULL) ==
          MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(MPI_INT, ckey, &rank) == MPI_ERR_KEYVAL);
    CHECK(MPI_Type_get_attr(MPI_INT, MPI_TAG_UB, &val, &flag) == MPI_ERR_KEYVAL);
    CHECK(MPI_Comm_free_keyval(&ckey) == MPI_SUCCESS);
    CHECK(MPI_Type_free_keyval(&key) == MPI_SUCCESS && key == MPI_KEYVAL_INVALID);
    CHECK(MPI_Type_free_keyval(&plain) == MPI_SUCCESS);
}

static int refuse_copy(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)key, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}

/* A keyval freed while an attribute uses it still reads and deletes that attribute (as MPICH
 * and Open MPI allow), but sets nothing; a duplication whose copy callback fails gives
 * MPI_COMM_NULL. */
static void freed_key_cases(void)
{
    MPI_Comm dup = MPI_COMM_WORLD;
    int key, saved, flag, *val;

    CHECK(MPI_Comm_create_keyval(refuse_copy, MPI_COMM_NULL_DELETE_FN, &key, NULL) == MPI_SUCCESS);
    saved = key;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, key, &rank) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_SELF, &dup) == MPI_ERR_OTHER && dup == MPI_COMM_NULL);
    CHECK(MPI_Comm_free_keyval(&key) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_attr(MPI_COMM_SELF, saved, &val, &flag) == MPI_SUCCESS && flag &&
          val == &rank);
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, saved, &rank) == MPI_ERR_KEYVAL);
    CHECK(MPI_Comm_delete_attr(MPI_COMM_SELF, saved) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_attr(MPI_COMM_SELF, saved, &val, &flag) == MPI_ERR_KEYVAL); /* gone */
}

static int nested[4], nested_calls[4];

static int nested_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)value;
    int k = (int)(intptr_t)extra;
    nested_calls[k]++;
    for (int j = k + 1; j <= k + 2 && j < 4; j++)
        if (MPI_Comm_delete_attr(comm, nested[j]) != MPI_SUCCESS)
            errors++;
    if (MPI_Comm_delete_attr(comm, keyval) != MPI_SUCCESS) /* its own: nothing more happens */
        errors++;
    return MPI_SUCCESS;
}

/* Sets the four nested attributes on comm, newest last (so nested[0] is deleted first at free). */
static void nested_set(MPI_Comm comm)
{
    for (int k = 3; k >= 0; k--)
        CHECK(MPI_Comm_set_attr(comm, nested[k], &nested_calls[k]) == MPI_SUCCESS);
}

static void nested_cases(void)
{
    for (int k = 0; k < 4; k++)
        CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, nested_delete, &nested[k],
                                     (void *)(intptr_t)k) == MPI_SUCCESS);
    MPI_Comm dup;
    int flag, *val;
    /* MPI_Comm_delete_attr of the first deletes them all, each callback once (on a duplicate of
     * MPI_COMM_SELF, which has no attribute yet: MPI_COMM_WORLD's would be copied) */
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    nested_set(dup);
    CHECK(MPI_Comm_delete_attr(dup, nested[0]) == MPI_SUCCESS);
    for (int k = 0; k < 4; k++) {
        CHECK(nested_calls[k] == 1);
        CHECK(MPI_Comm_get_attr(dup, nested[k], &val, &flag) == MPI_SUCCESS && !flag);
        nested_calls[k] = 0;
    }
    /* replacing the first's value deletes the others; its own stays, with the new value */
    nested_set(dup);
    CHECK(MPI_Comm_set_attr(dup, nested[0], &flag) == MPI_SUCCESS);
    CHECK(nested_calls[0] == 1 && nested_calls[1] == 1 && nested_calls[2] == 1);
    CHECK(MPI_Comm_get_attr(dup, nested[0], &val, &flag) == MPI_SUCCESS && flag && val == &flag);
    CHECK(MPI_Comm_delete_attr(dup, nested[0]) == MPI_SUCCESS);
    for (int k = 0; k < 4; k++)
        nested_calls[k] = 0;
    /* freeing the communicator: every callback once */
    nested_set(dup);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
    for (int k = 0; k < 4; k++)
        CHECK(nested_calls[k] == 1);
    for (int k = 0; k < 4; k++)
        CHECK(MPI_Comm_free_keyval(&nested[k]) == MPI_SUCCESS);
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
    /* One clock for the ranks of a host, not across hosts (mpcrun --hosts). */
    MPI_Comm host;
    int host_size;
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) ==
              MPI_SUCCESS &&
          MPI_Comm_size(host, &host_size) == MPI_SUCCESS && MPI_Comm_free(&host) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag) == MPI_SUCCESS &&
          flag && *val == (host_size == size));
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &val, &flag) == MPI_SUCCESS && flag &&
          *val == MPI_ANY_SOURCE);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &val, &flag) == MPI_SUCCESS && flag &&
          *val == MPI_PROC_NULL);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &val, &flag) == MPI_SUCCESS && flag &&
          *val == 0);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &flag) == MPI_ERR_KEYVAL);
    nested_cases();
    type_cases();
    freed_key_cases();
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
