/*
 * Data access (io.h): the bytes of a typed buffer to and from the runs of file bytes that a view
 * gives them.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "io.h"

/* Moves len bytes between mem and file byte `file` of fd; *moved_p: how many (fewer for a read
 * that meets the end of the file). 0 or -errno. */
static int move_run(int fd, char *mem, size_t len, MPI_Offset file, bool write, size_t *moved_p)
{
    size_t done = 0;
    int err = 0;

    while (done < len) {
        ssize_t n = write ? pwrite(fd, mem + done, len - done, (off_t)(file + (MPI_Offset)done))
                          : pread(fd, mem + done, len - done, (off_t)(file + (MPI_Offset)done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            err = -errno;
            break;
        }
        if (n == 0) {
            if (write) /* a regular file takes what it has room for, or fails: never 0 */
                err = -EIO;
            break;
        }
        done += (size_t)n;
    }
    *moved_p = done;
    return err;
}

/* Moves stream bytes [off, off + len) of f's view between `data` (those bytes back to back) and
 * the file, run by run. */
static int move_stream(tm_io_file_t *f, MPI_Offset off, char *data, size_t len, bool write,
                       size_t *moved_p)
{
    size_t done = 0;
    int err = 0;

    while (done < len) {
        MPI_Offset run, file = tm_io_view_map(&f->view, off + (MPI_Offset)done, &run);
        size_t n = (MPI_Offset)(len - done) < run ? len - done : (size_t)run, moved;

        err = move_run(f->shared->fd, data + done, n, file, write, &moved);
        done += moved;
        if (err < 0 || moved < n) /* an error, or the end of the file: no run lies beyond */
            break;
    }
    *moved_p = done;
    return err;
}

/* access_stream for a view in external32: the data converted, whole datatypes at a time, in a
 * buffer of about TM_IO_CHUNK bytes (a read converts the whole datatypes it got). *bytes_p
 * counts the data as memory holds it. */
static int access_external32(tm_io_file_t *f, MPI_Offset off, void *buf, size_t count,
                             const tm_mpi_type_t *type, bool write, size_t *bytes_p)
{
    size_t size = tm_mpi_type_external32_size(type); /* of one datatype in the file */
    size_t per = TM_IO_CHUNK / size ? TM_IO_CHUNK / size : 1, done = 0;
    char *tmp = malloc((count < per ? count : per) * size);
    int err = 0;

    *bytes_p = 0;
    if (tmp == NULL)
        return -ENOMEM;
    while (done < count) {
        size_t k = count - done < per ? count - done : per, n = k * size, moved;
        char *at = (char *)buf + (MPI_Aint)done * type->extent;

        if (write)
            tm_mpi_type_external32_pack(at, k, type, tmp);
        err = move_stream(f, off + (MPI_Offset)(done * size), tmp, n, write, &moved);
        if (moved < n) /* the whole datatypes */
            k = moved / size;
        if (!write)
            tm_mpi_type_external32_unpack(tmp, at, k, type);
        *bytes_p += k * type->size;
        done += k;
        if (err < 0 || moved < n)
            break;
    }
    free(tmp);
    return err;
}

/* tm_io_access without atomic mode's lock. */
static int access_stream(tm_io_file_t *f, MPI_Offset off, void *buf, size_t count,
                         const tm_mpi_type_t *type, bool write, size_t *bytes_p)
{
    size_t total = count * type->size;

    if (f->view.external32)
        return access_external32(f, off, buf, count, type, write, bytes_p);
    if (type->contiguous)
        return move_stream(f, off, (char *)buf + type->contig_disp, total, write, bytes_p);

    size_t chunk = total < TM_IO_CHUNK ? total : TM_IO_CHUNK, done = 0;
    char *tmp = malloc(chunk);
    int err = 0;

    if (tmp == NULL) {
        *bytes_p = 0;
        return -ENOMEM;
    }
    while (done < total) {
        size_t n = total - done < chunk ? total - done : chunk, moved;

        if (write)
            tm_mpi_type_pack(buf, count, type, done, n, tmp);
        err = move_stream(f, off + (MPI_Offset)done, tmp, n, write, &moved);
        if (!write)
            tm_mpi_type_unpack(tmp, moved, buf, count, type, done);
        done += moved;
        if (err < 0 || moved < n)
            break;
    }
    free(tmp);
    *bytes_p = done;
    return err;
}

int tm_io_access(tm_io_file_t *f, MPI_Offset off, void *buf, size_t count,
                 const tm_mpi_type_t *type, bool write, size_t *bytes_p)
{
    tm_io_shared_t *sh = f->shared;

    *bytes_p = 0;
    if (count == 0 || type->size == 0)
        return 0;
    bool held = tm_io_atomic_begin(sh, write);
    int err = access_stream(f, off, buf, count, type, write, bytes_p);
    tm_io_atomic_end(sh, held);
    return err;
}

int tm_io_access_stored(tm_io_file_t *f, MPI_Offset off, void *data, size_t len, bool write,
                        size_t *bytes_p)
{
    tm_io_shared_t *sh = f->shared;

    *bytes_p = 0;
    if (len == 0)
        return 0;
    bool held = tm_io_atomic_begin(sh, write);
    int err = move_stream(f, off, data, len, write, bytes_p);
    tm_io_atomic_end(sh, held);
    return err;
}
