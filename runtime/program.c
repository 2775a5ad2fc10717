/*
 * Privatization (see program.h). Copies are written from one read-only mapping of the embedded
 * section; each is then dlopen()ed RTLD_LOCAL, so nothing of the program enters the global
 * symbol scope and two copies never share a symbol.
 */
#include "config.h"

#include "runtime/program.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "runtime/elf_section.h"
#include "runtime/job.h"

/* The mapping of the embedded section, shared by every copy written. */
static const char *section_map;
static size_t section_map_len, section_map_skip;

static void remove_dir_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        int dfd = dirfd(d);
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, ".."))
                unlinkat(dfd, e->d_name, 0);
        closedir(d);
    }
    rmdir(dir);
}

/* The write end of the watchdog's pipe (below), which a process forked by a rank closes. */
static int watchdog_fd = -1;

static void watchdog_forget(void)
{
    if (watchdog_fd >= 0)
        close(watchdog_fd);
    watchdog_fd = -1;
}

/* A child process that outlives us only long enough to remove the directory: it waits for the
 * end of file on a pipe whose write end only the job holds, which comes however the job dies,
 * SIGKILL included. It holds no other descriptor, so it never delays readers of our output; a
 * process a rank forks closes its copy of the write end at once (pthread_atfork), so that it
 * never keeps the directory after the job. */
static void start_watchdog(const char *dir)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid > 0) {
        close(fds[0]); /* the write end stays open, unused, until we die */
        watchdog_fd = fds[1];
        pthread_atfork(NULL, NULL, watchdog_forget);
        return;
    }
    /* Child: Ctrl-C reaches the whole foreground process group; the job handles it. */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    prctl(PR_SET_NAME, "threadmpi-clean");
    long maxfd = sysconf(_SC_OPEN_MAX);
    for (int fd = 0; fd < (maxfd > 0 && maxfd < 65536 ? maxfd : 1024); fd++)
        if (fd != fds[0])
            close(fd);
    char c;
    while (read(fds[0], &c, 1) < 0 && errno == EINTR)
        ;
    remove_dir_tree(dir);
    _exit(0);
}

static int open_self(tm_rt_program_t *prog, char *err, size_t errlen)
{
    prog->exe_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (prog->exe_fd < 0) {
        snprintf(err, errlen, "cannot open /proc/self/exe: %s", strerror(errno));
        return -errno;
    }
    int rc =
        tm_rt_elf_section_find(prog->exe_fd, TM_RT_PROGRAM_SECTION, &prog->offset, &prog->size);
    if (rc < 0) {
        snprintf(err, errlen,
                 "this executable carries no MPI program (%s); build it with ThreadMPI's mpicc",
                 rc == -ENOENT ? "no " TM_RT_PROGRAM_SECTION " section" : strerror(-rc));
        return rc;
    }
    long page = sysconf(_SC_PAGESIZE);
    section_map_skip = (size_t)(prog->offset % (uint64_t)page);
    section_map_len = section_map_skip + (size_t)prog->size;
    void *m = mmap(NULL, section_map_len, PROT_READ, MAP_PRIVATE, prog->exe_fd,
                   (off_t)(prog->offset - section_map_skip));
    if (m == MAP_FAILED) {
        snprintf(err, errlen, "cannot map the embedded program: %s", strerror(errno));
        return -errno;
    }
    section_map = m;
    return 0;
}

int tm_rt_program_open(tm_rt_program_t *prog, int ncopies, char *err, size_t errlen)
{
    memset(prog, 0, sizeof *prog);
    prog->exe_fd = -1;
    int rc = open_self(prog, err, errlen);
    if (rc < 0)
        goto fail;

    /* Name the directory and the files after the program so that tools show it. */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : "program";
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    size_t dirlen = strlen(tmp) + strlen(base) + 32;
    prog->dir = malloc(dirlen);
    if (!prog->dir)
        goto fail_nomem;
    snprintf(prog->dir, dirlen, "%s/threadmpi-%.64s.XXXXXX", tmp, base);
    if (!mkdtemp(prog->dir)) {
        rc = -errno;
        snprintf(err, errlen, "cannot create a temporary directory in %s: %s", tmp,
                 strerror(errno));
        free(prog->dir);
        prog->dir = NULL;
        goto fail;
    }
    /* The copies are loaded from there: a file system mounted noexec refuses them. */
    struct statvfs fs;
    if (statvfs(prog->dir, &fs) == 0 && (fs.f_flag & ST_NOEXEC)) {
        rc = -EACCES;
        snprintf(err, errlen,
                 "%s is on a file system mounted noexec, where the ranks' copies of the program "
                 "cannot be loaded: set TMPDIR to a directory that allows running programs",
                 tmp);
        rmdir(prog->dir);
        free(prog->dir);
        prog->dir = NULL;
        goto fail;
    }
    start_watchdog(prog->dir);

    prog->paths = calloc((size_t)ncopies, sizeof *prog->paths);
    if (!prog->paths)
        goto fail_nomem;
    prog->ncopies = ncopies;
    for (int i = 0; i < ncopies; i++) {
        size_t len = strlen(prog->dir) + strlen(base) + 32;
        prog->paths[i] = malloc(len);
        if (!prog->paths[i])
            goto fail_nomem;
        snprintf(prog->paths[i], len, "%s/%.64s.rank%d.so", prog->dir, base, i);
    }
    return 0;

fail_nomem:
    rc = -ENOMEM;
    snprintf(err, errlen, "out of memory");
fail:
    tm_rt_program_remove_files(prog);
    tm_rt_program_close(prog);
    return rc;
}

static int write_copy(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -errno;
    }
    const char *p = section_map + section_map_skip;
    size_t left = section_map_len - section_map_skip;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
            close(fd);
            return -e;
        }
        p += w;
        left -= (size_t)w;
    }
    return close(fd) < 0 ? -errno : 0;
}

int tm_rt_program_load(tm_rt_program_t *prog, int index, tm_rt_program_copy_t *copy, char *err,
                       size_t errlen)
{
    const char *path = prog->paths[index];
    int rc = write_copy(path, err, errlen);
    if (rc < 0)
        return rc;
    /* Lazy binding keeps start-up short: most of a program's imports are never called. */
    copy->handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    if (!copy->handle) {
        snprintf(err, errlen, "cannot load the program: %s", dlerror());
        return -ENOEXEC;
    }
    copy->main = (tm_rt_program_main_fn_t)(uintptr_t)dlsym(copy->handle, "main");
    Dl_info info;
    if (!copy->main || !dladdr((void *)(uintptr_t)copy->main, &info) ||
        strcmp(info.dli_fname, path) != 0) {
        snprintf(err, errlen, "the program has no main function");
        return -ENOEXEC;
    }
    /* dlsym also searches the copy's dependencies: only a `stdin` of the copy itself counts. */
    copy->stdin_p = dlsym(copy->handle, "stdin");
    if (copy->stdin_p && (!dladdr(copy->stdin_p, &info) || strcmp(info.dli_fname, path) != 0))
        copy->stdin_p = NULL;
    /* The copy's hooks name its rank in what they report (job.h). */
    int *rank = dlsym(copy->handle, TM_RT_COPY_RANK_SYMBOL);
    if (rank && dladdr(rank, &info) && strcmp(info.dli_fname, path) == 0)
        *rank = index;
    return 0;
}

void tm_rt_program_remove_files(const tm_rt_program_t *prog)
{
    if (!prog->dir)
        return;
    for (int i = 0; i < prog->ncopies; i++)
        if (prog->paths[i])
            unlink(prog->paths[i]);
    rmdir(prog->dir);
}

void tm_rt_program_close(tm_rt_program_t *prog)
{
    if (prog->paths)
        for (int i = 0; i < prog->ncopies; i++)
            free(prog->paths[i]);
    free(prog->paths);
    free(prog->dir);
    if (section_map)
        munmap((void *)section_map, section_map_len);
    section_map = NULL;
    if (prog->exe_fd >= 0)
        close(prog->exe_fd);
    memset(prog, 0, sizeof *prog);
    prog->exe_fd = -1;
}
