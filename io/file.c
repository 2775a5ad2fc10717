/*
 * The shared part of an open file (io.h): its descriptor, opened once for all the members, its
 * size, and its end.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

int tm_io_shared_open(const char *path, int amode, int members, tm_io_shared_t **sh_p)
{
    int flags = O_CLOEXEC;

    /* MPI_MODE_APPEND only places the file pointers at the end (mpi/file.c): O_APPEND would
     * make every pwrite append, whatever its offset. */
    if (amode & MPI_MODE_RDONLY)
        flags |= O_RDONLY;
    else if (amode & MPI_MODE_WRONLY)
        flags |= O_WRONLY;
    else
        flags |= O_RDWR;
    if (amode & MPI_MODE_CREATE)
        flags |= O_CREAT;
    if (amode & MPI_MODE_EXCL)
        flags |= O_EXCL;

    tm_io_shared_t *sh = calloc(1, sizeof(*sh));
    if (sh == NULL || (sh->path = strdup(path)) == NULL ||
        (sh->parts[0] = calloc(2 * (size_t)members, sizeof(tm_io_part_t))) == NULL) {
        if (sh != NULL)
            free(sh->path);
        free(sh);
        return -ENOMEM;
    }
    sh->parts[1] = sh->parts[0] + members;
    sh->nmembers = members;
    int fd;
    do
        fd = open(path, flags, 0666);
    while (fd < 0 && errno == EINTR);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        fd = -1;
        errno = EISDIR;
    }
    if (fd < 0) {
        int err = errno;
        free(sh->parts[0]);
        free(sh->path);
        free(sh);
        return -err;
    }
    sh->fd = fd;
    sh->amode = amode;
    atomic_init(&sh->members, members);
    atomic_init(&sh->shared_pos, 0);
    atomic_init(&sh->atomic, false);
    pthread_rwlock_init(&sh->lock, NULL);
    *sh_p = sh;
    return 0;
}

int tm_io_shared_release(tm_io_shared_t *sh)
{
    /* acq_rel: the last member sees every access the others made before letting go. */
    if (atomic_fetch_sub_explicit(&sh->members, 1, memory_order_acq_rel) != 1)
        return 0;
    int err = close(sh->fd) < 0 && errno != EINTR ? -errno : 0;
    if ((sh->amode & MPI_MODE_DELETE_ON_CLOSE) && unlink(sh->path) < 0 && err == 0)
        err = -errno;
    pthread_rwlock_destroy(&sh->lock);
    free(sh->parts[0]);
    free(sh->path);
    free(sh);
    return err;
}

MPI_Offset tm_io_size(tm_io_shared_t *sh)
{
    struct stat st;

    if (fstat(sh->fd, &st) < 0)
        return -errno;
    return (MPI_Offset)st.st_size;
}

int tm_io_set_size(tm_io_shared_t *sh, MPI_Offset size)
{
    int rc;

    do
        rc = ftruncate(sh->fd, (off_t)size);
    while (rc < 0 && errno == EINTR);
    return rc < 0 ? -errno : 0;
}

int tm_io_preallocate(tm_io_shared_t *sh, MPI_Offset size)
{
    if (size == 0)
        return 0;
    /* posix_fallocate only ever grows the file; it returns the error rather than setting errno */
    return -posix_fallocate(sh->fd, 0, (off_t)size);
}

int tm_io_sync(tm_io_shared_t *sh)
{
    return fsync(sh->fd) < 0 ? -errno : 0;
}

bool tm_io_atomic_begin(tm_io_shared_t *sh, bool write)
{
    if (!atomic_load_explicit(&sh->atomic, memory_order_acquire))
        return false;
    if (write)
        pthread_rwlock_wrlock(&sh->lock);
    else
        pthread_rwlock_rdlock(&sh->lock);
    return true;
}

void tm_io_atomic_end(tm_io_shared_t *sh, bool held)
{
    if (held)
        pthread_rwlock_unlock(&sh->lock);
}
