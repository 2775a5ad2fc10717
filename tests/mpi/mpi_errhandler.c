/* User error handlers on every rank: each rank's handler sees its own rank's errors, with the
 * communicator and the code; MPI_ERRORS_RETURN returns the classes. Error classes, codes and
 * strings the program adds: each rank's own, their classes, strings and MPI_LASTUSEDCODE, and
 * a handler called with one. Usage: mpi_errhandler */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int errors, calls, last_code, rank;
static MPI_Comm last_comm;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "mpi_errhandler: rank %d: line %d: %s\n", rank, __LINE__, #cond);      \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_comm = *comm;
    last_code = *code;
}

int main(int argc, char **argv)
{
    MPI_Errhandler eh, got;
    int size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(MPI_Comm_create_errhandler(handler, &eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got) == MPI_SUCCESS && got == eh);
    CHECK(MPI_Errhandler_free(&got) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS);
    /* Only the odd ranks make an error: the others' handlers must not run. */
    if (rank % 2) {
        CHECK(MPI_Comm_size(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
        CHECK(calls == 1 && last_comm == MPI_COMM_WORLD && last_code == MPI_ERR_ARG);
        CHECK(MPI_Comm_size(MPI_COMM_NULL, &size) == MPI_ERR_COMM);
        CHECK(calls == 2 && last_code == MPI_ERR_COMM);
    }
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER) == MPI_SUCCESS);
    CHECK(calls == (rank % 2 ? 3 : 1) && last_code == MPI_ERR_OTHER);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_rank(MPI_COMM_SELF, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Group_size(MPI_GROUP_NULL, &size) == MPI_ERR_GROUP);
    CHECK(calls == (rank % 2 ? 4 : 2) && last_comm == MPI_COMM_WORLD);

    /* added classes and codes: rank r adds r + 1 classes, so the numbers are each rank's */
    int cls = 0, code = 0, got_class = -1, len, *last, flag;
    char text[MPI_MAX_ERROR_STRING];
    for (int i = 0; i <= rank; i++)
        CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS && cls > MPI_ERR_LASTCODE);
    CHECK(MPI_Add_error_code(cls, &code) == MPI_SUCCESS && code > cls);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag) == MPI_SUCCESS &&
          flag && *last == code && code == MPI_ERR_LASTCODE + rank + 2);
    CHECK(MPI_Error_class(code, &got_class) == MPI_SUCCESS && got_class == cls);
    CHECK(MPI_Error_class(cls, &got_class) == MPI_SUCCESS && got_class == cls);
    CHECK(MPI_Error_string(code, text, &len) == MPI_SUCCESS && len == 0 && text[0] == '\0');
    CHECK(MPI_Add_error_string(code, "the program's own error") == MPI_SUCCESS);
    CHECK(MPI_Error_string(code, text, &len) == MPI_SUCCESS &&
          strcmp(text, "the program's own error") == 0 && len == (int)strlen(text));
    CHECK(MPI_Add_error_code(code, &got_class) == MPI_ERR_ARG); /* a code, not a class */
    CHECK(MPI_Add_error_string(MPI_ERR_ARG, "mine") == MPI_ERR_ARG);
    CHECK(MPI_Error_class(code + 1, &got_class) == MPI_ERR_ARG);
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_SELF, code) == MPI_SUCCESS);
    int before = calls;
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code) == MPI_SUCCESS);
    CHECK(calls == before + 1 && last_code == code);
    MPI_Finalize();
    return errors ? 1 : 0;
}
