/* The errors of MPI-IO (MPI-3.1 13.7, 13.8), under the default file error handler, which is
 * MPI_ERRORS_RETURN (MPI_File_get_errhandler(MPI_FILE_NULL) says so); every code returned goes
 * through MPI_Error_class:
 *   - MPI_File_open of a missing file without MPI_MODE_CREATE: MPI_ERR_NO_SUCH_FILE;
 *     MPI_MODE_RDONLY with MPI_MODE_CREATE, with MPI_MODE_EXCL or with MPI_MODE_RDWR,
 *     MPI_MODE_SEQUENTIAL with MPI_MODE_RDWR, and none of RDONLY, WRONLY, RDWR:
 *     MPI_ERR_AMODE; MPI_MODE_EXCL on a file that exists:
 *     MPI_ERR_FILE_EXISTS; a file in a directory of mode 0: MPI_ERR_ACCESS (not as root, whom
 *     permissions do not stop);
 *   - reading a file opened MPI_MODE_WRONLY: MPI_ERR_ACCESS; writing one opened
 *     MPI_MODE_RDONLY: MPI_ERR_READ_ONLY;
 *   - explicit offsets on a file opened MPI_MODE_SEQUENTIAL: MPI_ERR_UNSUPPORTED_OPERATION;
 *   - MPI_File_delete of a missing file: MPI_ERR_NO_SUCH_FILE;
 *   - a negative offset: MPI_ERR_ARG;
 *   - an unknown data representation in MPI_File_set_view: MPI_ERR_UNSUPPORTED_DATAREP;
 *   - a handler of MPI_File_create_errhandler set with MPI_File_set_errhandler (and returned by
 *     _get_errhandler): called with the file and the error, by an error and by
 *     MPI_File_call_errhandler; set on MPI_FILE_NULL, called by a failed open and a failed
 *     delete with MPI_FILE_NULL, and inherited by a file opened then.
 * After each error the file in question still works, and at the end no file is left. Usage:
 * file_errors (any number of ranks). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_TEST "file_errors"
#include "file_test.h"

/* A call that must fail with error class `want`. */
#define FAILS(call, want) fails((call), want, #call, __LINE__)

static int fails(int code, int want, const char *what, int line)
{
    int class = -1;
    MPI_Error_class(code, &class);
    if (code == MPI_SUCCESS || class != want) {
        char s[MPI_MAX_ERROR_STRING] = "MPI_SUCCESS";
        int l;
        if (code != MPI_SUCCESS)
            MPI_Error_string(code, s, &l);
        fprintf(stderr, "file_errors: rank %d, line %d: %s: class %d (%s), expected %d\n", rank,
                line, what, class, s, want);
        errors++;
    }
    return class;
}

static int exists(const char *p)
{
    return access(p, F_OK) == 0;
}

/* A file of `n` ints 0, 1, ..., made collectively. */
static void make_file(const char *p, int n)
{
    MPI_File fh;
    MPI_Status st;
    MUST(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    if (rank == 0)
        for (int i = 0; i < n; i++)
            MUST(MPI_File_write_at(fh, i * (MPI_Offset)sizeof(int), &i, 1, MPI_INT, &st));
    MUST(MPI_File_close(&fh));
}

/* What the user handler saw (MPI_FILE_NULL may be 0: whether it was is told apart). */
static int calls, last_class, last_null;
static MPI_File last_file;

static void handler(MPI_File *fh, int *code, ...)
{
    calls++;
    last_file = *fh;
    last_null = *fh == MPI_FILE_NULL;
    MPI_Error_class(*code, &last_class);
}

static void test_open(void)
{
    char p[PATHLEN + 32], missing[PATHLEN + 32];
    path(p, "exists");
    path(missing, "missing");
    MPI_File fh = MPI_FILE_NULL;

    /* Files are born MPI_ERRORS_RETURN: the default handler, on MPI_FILE_NULL. */
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MUST(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == MPI_ERRORS_RETURN);

    FAILS(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
          MPI_ERR_NO_SUCH_FILE);
    FAILS(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
          MPI_ERR_NO_SUCH_FILE);
    /* The amodes the standard calls erroneous; none of them creates the file. */
    FAILS(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh),
          MPI_ERR_AMODE);
    FAILS(
        MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY | MPI_MODE_EXCL, MPI_INFO_NULL, &fh),
        MPI_ERR_AMODE);
    FAILS(
        MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
        MPI_ERR_AMODE);
    FAILS(MPI_File_open(MPI_COMM_WORLD, missing,
                        MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh),
          MPI_ERR_AMODE);
    FAILS(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
          MPI_ERR_AMODE);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(!exists(missing));
    MPI_Barrier(MPI_COMM_WORLD);

    /* MPI_MODE_EXCL on a file that exists; the file is left as it was. */
    make_file(p, 4);
    FAILS(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                        MPI_INFO_NULL, &fh),
          MPI_ERR_FILE_EXISTS);
    struct stat s;
    CHECK(stat(p, &s) == 0 && s.st_size == 4 * sizeof(int));

    /* A directory nobody may enter (permissions do not stop root: skipped then). */
    int root = geteuid() == 0, any_root;
    MPI_Allreduce(&root, &any_root, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any_root) {
        char locked[PATHLEN + 32], inside[PATHLEN + 64];
        path(locked, "locked");
        snprintf(inside, sizeof inside, "%s/f", locked);
        if (rank == 0)
            CHECK(mkdir(locked, 0) == 0);
        MPI_Barrier(MPI_COMM_WORLD);
        FAILS(MPI_File_open(MPI_COMM_WORLD, inside, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh),
              MPI_ERR_ACCESS);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            CHECK(rmdir(locked) == 0);
    } else if (rank == 0) {
        printf("file_errors: running as root: the check of a directory of mode 0 is skipped\n");
    }

    /* MPI_File_delete of a missing file, on each rank. */
    FAILS(MPI_File_delete(missing, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
    delete_file(p);
}

/* Access against the amode, explicit offsets on a sequential file, bad offsets, bad datarep. */
static void test_access(void)
{
    char p[PATHLEN + 32], q[PATHLEN + 32];
    path(p, "data");
    path(q, "sequential");
    make_file(p, 8);
    MPI_File fh;
    MPI_Status st;
    int v = -1, w = 99;

    /* Read what was opened write-only: the pointer stays; a write then works. */
    MUST(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    FAILS(MPI_File_read_at(fh, 0, &v, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    FAILS(MPI_File_read(fh, &v, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    CHECK(v == -1);
    MPI_Offset pos = -1;
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == 0);
    MUST(MPI_File_write_at(fh, (8 + rank) * (MPI_Offset)sizeof(int), &w, 1, MPI_INT, &st));
    MUST(MPI_File_close(&fh));

    /* Write what was opened read-only: the file unchanged; a read then works. */
    MUST(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    FAILS(MPI_File_write_at(fh, 0, &w, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
    FAILS(MPI_File_write(fh, &w, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
    MUST(MPI_File_read_at(fh, 0, &v, 1, MPI_INT, &st));
    CHECK(v == 0);
    MUST(MPI_File_read_at(fh, 8 * sizeof(int), &v, 1, MPI_INT, &st));
    CHECK(v == 99);

    /* Negative offsets; the file still reads after. (Open MPI 4.1 does not check them.) */
    FAILS(MPI_File_read_at(fh, -1, &v, 1, MPI_INT, &st), MPI_ERR_ARG);
    FAILS(MPI_File_read_at(fh, -4 * (MPI_Offset)sizeof(int), &v, 1, MPI_INT, &st), MPI_ERR_ARG);

    /* An unknown data representation (collective, as every rank errs alike); the view in place
     * still works. */
    FAILS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-datarep", MPI_INFO_NULL),
          MPI_ERR_UNSUPPORTED_DATAREP);
    MUST(MPI_File_read_at(fh, 3 * sizeof(int), &v, 1, MPI_INT, &st));
    CHECK(v == 3);
    MUST(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    struct stat s;
    CHECK(stat(p, &s) == 0 && s.st_size == (8 + size) * (long)sizeof(int));
    delete_file(p);

    /* MPI_MODE_SEQUENTIAL: no explicit offsets; the shared pointer works. (Open MPI 4.1 does
     * not check this.) */
    MUST(MPI_File_open(MPI_COMM_WORLD, q, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                       MPI_INFO_NULL, &fh));
    FAILS(MPI_File_write_at(fh, 0, &w, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION);
    FAILS(MPI_File_write_at_all(fh, 0, &w, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION);
    MUST(MPI_File_write_shared(fh, &w, 1, MPI_INT, &st));
    MUST(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(stat(q, &s) == 0 && s.st_size == size * (long)sizeof(int));
    delete_file(q);
}

/* User handlers: on a file, and on MPI_FILE_NULL for the opens and deletes. */
static void test_handlers(void)
{
    char p[PATHLEN + 32], missing[PATHLEN + 32];
    path(p, "handled");
    path(missing, "missing");
    make_file(p, 2);
    MPI_File fh, fh2;
    MPI_Status st;
    MPI_Errhandler eh, got = MPI_ERRHANDLER_NULL;
    int v = -1;
    MUST(MPI_File_create_errhandler(handler, &eh));

    /* On a file: the error's call returns the error after the handler ran, with that file. */
    MUST(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    MUST(MPI_File_set_errhandler(fh, eh));
    /* (The handles MPI_File_get_errhandler returns are not freed: MPICH 4.0's do not count as
     * references, and freeing them trips its reference count.) */
    MUST(MPI_File_get_errhandler(fh, &got));
    CHECK(got == eh);
    calls = 0;
    last_null = -1;
    last_class = -1;
    FAILS(MPI_File_read_at(fh, 0, &v, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    CHECK(calls == 1 && last_null == 0 && last_file == fh && last_class == MPI_ERR_ACCESS);
    /* Called by hand with another class. */
    last_null = -1;
    MUST(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    CHECK(calls == 2 && last_null == 0 && last_file == fh && last_class == MPI_ERR_IO);
    /* Back to MPI_ERRORS_RETURN: no call. */
    MUST(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    FAILS(MPI_File_read_at(fh, 0, &v, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    CHECK(calls == 2);
    MUST(MPI_File_close(&fh));

    /* On MPI_FILE_NULL: a failed open and a failed delete call it, with MPI_FILE_NULL. */
    MUST(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    MUST(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    CHECK(got == eh);
    calls = 0;
    last_null = -1;
    last_class = -1;
    FAILS(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
          MPI_ERR_NO_SUCH_FILE);
    CHECK(calls == 1 && last_null == 1 && last_class == MPI_ERR_NO_SUCH_FILE);
    last_null = -1;
    last_class = -1;
    FAILS(MPI_File_delete(missing, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
    CHECK(calls == 2 && last_null == 1 && last_class == MPI_ERR_NO_SUCH_FILE);
    /* A file opened now starts with that handler. */
    MUST(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh2));
    MUST(MPI_File_get_errhandler(fh2, &got));
    CHECK(got == eh);
    last_null = -1;
    FAILS(MPI_File_read_at(fh2, 0, &v, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    CHECK(calls == 3 && last_null == 0 && last_file == fh2 && last_class == MPI_ERR_ACCESS);
    MUST(MPI_File_close(&fh2));

    /* Back to the default: no more calls. */
    MUST(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MUST(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    CHECK(got == MPI_ERRORS_RETURN);
    FAILS(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
          MPI_ERR_NO_SUCH_FILE);
    CHECK(calls == 3);
    MUST(MPI_Errhandler_free(&eh));
    delete_file(p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_dir();

    test_open();
    test_access();
    test_handlers();

    /* Every file deleted: the directory is empty. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && rmdir(dir) != 0) {
        fprintf(stderr, "file_errors: rmdir %s: %s\n", dir, strerror(errno));
        errors++;
    }
    int all_errors;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("file_errors: %s\n", all_errors ? "FAILED" : "ok");
    MPI_Finalize();
    return all_errors ? 1 : 0;
}
