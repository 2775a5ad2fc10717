/*
 * mpcrun (and mpiexec): checks its arguments and the program, then executes the program with
 * what was asked in the environment (see settings.h). The job runs in that process: its exit
 * status, signals and standard streams are the program's, with nothing in between.
 * `mpcrun --split-model CORES` runs nothing: it prints the split-tree model's table (nbc/model.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nbc/model.h"
#include "runtime/elf_section.h"
#include "runtime/settings.h"

#define EXIT_USAGE 2

static const char *progname = "mpcrun";

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: %s [-n N] [--config FILE] [--timeout SECONDS] PROGRAM [ARGS...]\n"
            "       %s --split-model CORES\n"
            "Runs PROGRAM, built with ThreadMPI's mpicc, as N MPI ranks: user-level threads of\n"
            "one process, each with its own copy of the program's global variables.\n"
            "\n"
            "  -n, -np N          number of ranks (default: one per core available to the job)\n"
            "  --config FILE      read settings from FILE ([section] key = value lines)\n"
            "  --timeout SECONDS  end the job after SECONDS, saying which MPI call each rank is\n"
            "                     blocked in (the setting [job] timeout)\n"
            "  --split-model CORES\n"
            "                     print the split-tree model for a machine of CORES cores (3 to\n"
            "                     65536) and exit: for each number of ranks N from 2 to CORES-1,\n"
            "                     the levels S of a non-blocking collective's tree it leaves to\n"
            "                     the ranks, and its predicted time for each S\n"
            "  -h, --help         print this help and exit\n"
            "  -V, --version      print the version and exit\n"
            "\n"
            "Settings also come from environment variables THREADMPI_<SECTION>_<KEY>.\n"
            "The exit status is 0 if every rank returned 0, else the first non-zero status.\n",
            progname, progname);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", progname);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    usage(stderr);
    return EXIT_USAGE;
}

/* Finds PROGRAM as a shell would: as given when it has a '/', else in $PATH. */
static int find_program(const char *name, char *path, size_t len)
{
    if (strchr(name, '/')) {
        snprintf(path, len, "%s", name);
        return access(path, F_OK) == 0 ? 0 : -errno;
    }
    const char *dirs = getenv("PATH");
    if (!dirs || !*dirs)
        dirs = "/usr/local/bin:/usr/bin:/bin";
    while (*dirs) {
        size_t n = strcspn(dirs, ":");
        snprintf(path, len, "%.*s%s%s", (int)n, dirs, n ? "/" : "", name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
            return 0;
        dirs += n + (dirs[n] == ':');
    }
    return -ENOENT;
}

static int check_program(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || access(path, X_OK) < 0) {
        fprintf(stderr, "%s: %s: %s\n", progname, path,
                errno && !S_ISDIR(st.st_mode) ? strerror(errno) : "not an executable file");
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "%s: %s: %s\n", progname, path, strerror(errno));
        return -1;
    }
    uint64_t off, size;
    int rc = tm_rt_elf_section_find(fd, TM_RT_PROGRAM_SECTION, &off, &size);
    close(fd);
    if (rc < 0) {
        fprintf(stderr, "%s: %s was not built with ThreadMPI's mpicc (%s); rebuild it with mpicc\n",
                progname, path,
                rc == -ENOEXEC ? "not an ELF executable of this machine"
                               : "it carries no ThreadMPI program");
        return -1;
    }
    return 0;
}

static int parse_ranks(const char *s, long *n_p)
{
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (end == s || *end || errno || n < 1 || n > (1 << 20))
        return -1;
    *n_p = n;
    return 0;
}

int main(int argc, char **argv)
{
    const char *slash = strrchr(argv[0], '/');
    progname = slash ? slash + 1 : argv[0];
    long nranks = 0; /* 0: one per core */
    const char *config = NULL;
    char settings[256] = ""; /* the settings given as flags, "section.key=value" lines */
    int i;

    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
            printf("%s (ThreadMPI) %s\n", progname, PACKAGE_VERSION);
            return 0;
        } else if (strcmp(a, "-n") == 0 || strcmp(a, "-np") == 0 || strcmp(a, "--np") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a number of ranks", a);
            if (parse_ranks(argv[++i], &nranks) < 0)
                return usage_error("\"%s\" is not a number of ranks from 1 to 1048576", argv[i]);
        } else if (strcmp(a, "--timeout") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a number of seconds", a);
            char *end;
            long t = strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end || t < 1 || t > 1000000000)
                return usage_error("\"%s\" is not a number of seconds from 1 to 1000000000",
                                   argv[i]);
            snprintf(settings + strlen(settings), sizeof settings - strlen(settings),
                     "job.timeout=%ld\n", t);
        } else if (strcmp(a, "--split-model") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a number of cores", a);
            char *end;
            errno = 0;
            long cores = strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end || errno || cores < 3 || cores > 65536)
                return usage_error("\"%s\" is not a number of cores from 3 to 65536", argv[i]);
            tm_nbc_model_print(stdout, (int)cores);
            if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "%s: --split-model: cannot write the table: %s\n", progname,
                        strerror(errno));
                return 1;
            }
            return 0;
        } else if (strcmp(a, "--config") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a file name", a);
            config = argv[++i];
        } else {
            return usage_error("unknown option %s", a);
        }
    }
    if (i >= argc)
        return usage_error("%s", "no program to run");

    char path[PATH_MAX];
    if (find_program(argv[i], path, sizeof path) < 0) {
        fprintf(stderr, "%s: %s: program not found\n", progname, argv[i]);
        return EXIT_USAGE;
    }
    if (check_program(path) < 0)
        return EXIT_USAGE;

    char np[32], config_abs[PATH_MAX];
    snprintf(np, sizeof np, "%ld", nranks);
    if (setenv(TM_RT_ENV_MPCRUN_NP, np, 1) < 0)
        return 1;
    if (settings[0] && setenv(TM_RT_ENV_MPCRUN_SETTINGS, settings, 1) < 0)
        return 1;
    if (config) {
        if (!realpath(config, config_abs)) {
            fprintf(stderr, "%s: --config %s: %s\n", progname, config, strerror(errno));
            return EXIT_USAGE;
        }
        if (setenv(TM_RT_ENV_MPCRUN_CONFIG, config_abs, 1) < 0)
            return 1;
    }
    execv(path, argv + i);
    fprintf(stderr, "%s: cannot execute %s: %s\n", progname, path, strerror(errno));
    return 126;
}
