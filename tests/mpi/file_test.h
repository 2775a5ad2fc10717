/* What the MPI-IO test programs (tests/mpi/file_*.c) share: their checks, which print the
 * program (FILE_TEST, defined before this header), the rank, the line and what failed; the
 * directory of a run's files, which rank 0 makes under $TMPDIR and broadcasts (ranks may be
 * threads of one process or processes: nothing here relies on either); and the plain POSIX
 * reads that check what MPI-IO wrote. */
#ifndef TM_TESTS_FILE_TEST_H
#define TM_TESTS_FILE_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int rank, size, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, FILE_TEST ": rank %d, line %d: %s\n", rank, __LINE__, #cond);          \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* The same, for the checks of a helper: the caller's line too. */
#define CHECK_AT(line, cond)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, FILE_TEST ": rank %d, line %d (from %d): %s\n", rank, __LINE__, line,  \
                    #cond);                                                                        \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* An MPI call that must succeed: its error string otherwise. */
#define MUST(call)                                                                                 \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            char s_[MPI_MAX_ERROR_STRING];                                                         \
            int l_;                                                                                \
            MPI_Error_string(rc_, s_, &l_);                                                        \
            fprintf(stderr, FILE_TEST ": rank %d, line %d: %s: %s\n", rank, __LINE__, #call, s_);  \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* Byte for byte: the first difference is reported. */
#define SAME(got, want, n) same(got, want, n, #got, __LINE__)

static inline void same(const void *got, const void *want, size_t n, const char *what, int line)
{
    const unsigned char *g = got, *w = want;
    for (size_t i = 0; i < n; i++)
        if (g[i] != w[i]) {
            fprintf(stderr,
                    FILE_TEST ": rank %d, line %d: %s: byte %zu of %zu is 0x%02x, expected "
                              "0x%02x\n",
                    rank, line, what, i, n, g[i], w[i]);
            errors++;
            return;
        }
}

static inline int count_of(MPI_Status *st, MPI_Datatype type)
{
    int n = -12345;
    MUST(MPI_Get_count(st, type, &n));
    return n;
}

/* The directory of this run's files: made by rank 0, its name broadcast. */
enum { PATHLEN = 512 };
static char dir[PATHLEN];

static inline void make_dir(void)
{
    if (rank == 0) {
        const char *tmp = getenv("TMPDIR");
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        snprintf(dir, sizeof dir, "%s/" FILE_TEST ".%ld.%ld.%ld", tmp && *tmp ? tmp : "/tmp",
                 (long)getpid(), (long)t.tv_sec, t.tv_nsec);
        if (mkdir(dir, 0700) != 0) {
            fprintf(stderr, FILE_TEST ": mkdir %s: %s\n", dir, strerror(errno));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* The path of file `name` of the run's directory (out: PATHLEN + 32 bytes). */
static inline void path(char *out, const char *name)
{
    snprintf(out, PATHLEN + 32, "%s/%s", dir, name);
}

/* Every rank done with the file, rank 0 deletes it, then every rank goes on. */
static inline void delete_file(const char *p)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MUST(MPI_File_delete(p, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);
}

static inline MPI_File create(const char *p)
{
    MPI_File fh = MPI_FILE_NULL;
    MUST(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    return fh;
}

/* Every rank's writes visible to every rank (MPI-3.1 13.6.1: sync, barrier, sync). */
static inline void settle(MPI_File fh)
{
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_sync(fh));
}

/* The file's size and bytes as POSIX sees them. */
static inline long posix_size(const char *p)
{
    struct stat s;
    return stat(p, &s) == 0 ? (long)s.st_size : -1;
}

static inline long posix_read(const char *p, long off, void *buf, size_t n)
{
    int fd = open(p, O_RDONLY);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, (char *)buf + got, n - got, off + (off_t)got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    return (long)got;
}

/* The whole file, into a buffer the caller frees; its size in *n. */
static inline unsigned char *posix_whole(const char *p, long *n)
{
    *n = posix_size(p);
    unsigned char *buf = malloc(*n > 0 ? (size_t)*n : 1);
    CHECK(posix_read(p, 0, buf, *n > 0 ? (size_t)*n : 0) == *n);
    return buf;
}

#endif /* TM_TESTS_FILE_TEST_H */
