/*
 * mpcrun (and mpiexec): checks its arguments and the program, then executes the program with
 * what was asked in the environment (see settings.h). The job runs in that process: its exit
 * status, signals and standard streams are the program's, with nothing in between.
 * Before that it resolves the settings and the placement, exactly as the job will (settings.h,
 * placement.h), so that every configuration error ends mpcrun with status 2 before any rank
 * starts, and so that --report-bindings prints where each rank and progress thread will run.
 * `--split-model CORES`, `--help-config`, `--show-config` and `--dry-run` run nothing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/hosts.h"
#include "launcher/remote.h"
#include "nbc/model.h"
#include "runtime/elf_section.h"
#include "runtime/maps.h"
#include "runtime/placement.h"
#include "runtime/settings.h"

#define EXIT_USAGE 2

static const char *progname = "mpcrun";

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: %s [OPTIONS] PROGRAM [ARGS...]\n"
            "       %s --dry-run [OPTIONS] [PROGRAM [ARGS...]]\n"
            "       %s --show-config [OPTIONS] | --help-config | --split-model CORES\n"
            "Runs PROGRAM, built with ThreadMPI's mpicc, as N MPI ranks: user-level threads of\n"
            "one process, each with its own copy of the program's global variables.\n"
            "\n"
            "  -n, -np N          number of ranks (default: one per core available to the job)\n"
            "  --config FILE      read settings from FILE ([section] key = value lines)\n"
            "  --set SECTION.KEY=VALUE\n"
            "                     set one setting, over every other layer (repeatable)\n"
            "  --timeout SECONDS  end the job after SECONDS, saying which MPI call each rank is\n"
            "                     blocked in (the setting job.timeout)\n"
            "  --profile[=MODE]   profile the MPI calls (the setting profile.mode): per kind of\n"
            "                     call, the time in posting, progress, copies, the collective\n"
            "                     engine and the scheduler; MODE table (the default: a table on\n"
            "                     stderr at the end) or csv:FILE (CSV rows in FILE)\n"
            "  --hosts HOST[:SLOTS],...\n"
            "                     run the ranks on these hosts, reached through --rsh, numbered\n"
            "                     host by host: as many as each host's slots when all give them,\n"
            "                     else spread evenly (a job across several hosts is not in this\n"
            "                     release: --dry-run shows where its ranks would run)\n"
            "  --hostfile FILE    the hosts, one per line: HOST [slots=N]; '#' starts a comment\n"
            "  --rsh CMD          how to run a command on a host (default: ssh), called as\n"
            "                     CMD HOST COMMAND..., as ssh is\n"
            "  --report-bindings  print the core of each rank and progress thread, then run\n"
            "  --dry-run          resolve the settings and the placement, print what would run\n"
            "                     and where, and exit without running anything\n"
            "  --show-config      print every setting in effect and which layer set it, and exit\n"
            "  --help-config      print every setting with its meaning, values and default (as a\n"
            "                     configuration file whose lines are comments), and exit\n"
            "  --split-model CORES\n"
            "                     print the split-tree model for a machine of CORES cores (3 to\n"
            "                     65536) and exit: for each number of ranks N from 2 to CORES-1,\n"
            "                     the levels S of a non-blocking collective's tree it leaves to\n"
            "                     the ranks, and its predicted time for each S\n"
            "  -h, --help         print this help and exit\n"
            "  -V, --version      print the version and exit\n"
            "\n"
            "Settings also come from environment variables THREADMPI_<SECTION>_<KEY>, and the\n"
            "topology from hwloc, which honours HWLOC_SYNTHETIC and HWLOC_XMLFILE.\n"
            "The exit status is 0 if every rank returned 0, else the first non-zero status;\n"
            "2 for a bad command line or configuration.\n",
            progname, progname, progname);
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

/* The program's checks; stores the mappings of a rank's copy of it (maps.h) in *mappings. */
static int check_program(const char *path, int *mappings)
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
    if (rc == 0) {
        rc = tm_rt_elf_mappings(fd, off, size);
        *mappings = rc;
    }
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

/* The hosts of --hosts and --hostfile, and the options each host's mpcrun gets too (all but -n
 * and the hosts'); both live until mpcrun exits. */
static tm_launch_hosts_t hosts;
static char **forwarded;

/* The settings given as options, "section.key=value" lines (malloc'ed; lives until exec). */
static char *option_settings;

/* Appends "section.key=value\n" to *flags (malloc'ed). */
static int add_setting(char **flags, const char *fmt, const char *value)
{
    char line[TM_RT_SETTINGS_LIST_LEN + 64];
    snprintf(line, sizeof line, fmt, value);
    size_t have = *flags ? strlen(*flags) : 0;
    char *more = realloc(*flags, have + strlen(line) + 2);
    if (!more)
        return -ENOMEM;
    sprintf(more + have, "%s\n", line);
    *flags = more;
    return 0;
}

/* What mpcrun resolved before running anything. */
typedef struct resolved {
    tm_rt_settings_t settings;
    hwloc_topology_t topo;
    tm_rt_placement_t placement;
} resolved_t;

/* Settings, topology and placement, as the job will resolve them (the environment mpcrun
 * passes on is already set). Prints the error and returns the exit status on failure. */
static int resolve(resolved_t *r, long nranks, bool with_placement)
{
    char err[1024];
    if (tm_rt_settings_load(&r->settings, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", progname, err);
        return EXIT_USAGE;
    }
    if (!with_placement)
        return 0;
    if (hwloc_topology_init(&r->topo) < 0)
        goto no_topology;
    if (hwloc_topology_load(r->topo) < 0) {
        hwloc_topology_destroy(r->topo);
        goto no_topology;
    }
    if (tm_rt_placement_compute(&r->placement, r->topo, &r->settings, (int)nranks, err,
                                sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", progname, err);
        hwloc_topology_destroy(r->topo);
        return EXIT_USAGE;
    }
    return 0;
no_topology:
    fprintf(stderr, "%s: cannot read the machine's topology (hwloc)\n", progname);
    return 1;
}

/* Refuses, before anything starts, a job that needs more memory mappings than the kernel lets
 * a process have: it would fail at whatever mmap crosses the limit. */
static int check_mappings(const tm_rt_placement_t *p, int program_maps)
{
    tm_rt_maps_need_t need;
    tm_rt_maps_need(p, program_maps, &need);
    if (need.limit < 0 || need.total <= need.limit)
        return 0;
    long fits = (need.limit - (need.total - p->nranks * need.per_rank)) / need.per_rank;
    /* Twice the need, rounded up to 65,536: room for what the program maps itself. */
    long raise = (2 * need.total + 65535) / 65536 * 65536;
    fprintf(stderr,
            "%s: %d ranks need about %ld memory mappings (%ld per rank: %ld for its copy of the "
            "program, the others for its stacks), more than the %ld the kernel allows a process "
            "(vm.max_map_count). Raise the limit, as root: sysctl -w vm.max_map_count=%ld (or "
            "run at most %ld ranks)\n",
            progname, p->nranks, need.total, need.per_rank, need.program, need.limit, raise,
            fits > 0 ? fits : 0);
    return EXIT_USAGE;
}

static int flush_stdout(const char *what)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: %s: cannot write: %s\n", progname, what, strerror(errno));
        return 1;
    }
    return 0;
}

/* tm-agent's path on every host: beside this mpcrun in a build tree, else where it is
 * installed. */
static int agent_path(const char *mpcrun, char *agent, size_t len)
{
    const char *slash = strrchr(mpcrun, '/');
    snprintf(agent, len, "%.*s/tm-agent", (int)(slash - mpcrun), mpcrun);
    if (access(agent, X_OK) == 0)
        return 0;
    snprintf(agent, len, "%s/tm-agent", TM_PKGLIBEXECDIR);
    return access(agent, X_OK);
}

/* The network module that this host's process of a job on several hosts loads
 * (p2p/net_transport.c), when mpcrun runs from a build tree: there it is not where the library
 * looks for it. */
static void net_module_path(const char *mpcrun)
{
    char module[PATH_MAX + 64];
    const char *slash = strrchr(mpcrun, '/');
    snprintf(module, sizeof module, "%.*s/../p2p/.libs/threadmpi-net.so", (int)(slash - mpcrun),
             mpcrun);
    if (!getenv(TM_RT_ENV_MPCRUN_NET_MODULE) && access(module, R_OK) == 0)
        setenv(TM_RT_ENV_MPCRUN_NET_MODULE, module, 1);
}

/* The job on other hosts (remote.h); mpcrun's exit status, or it ends by the signal that ended
 * the job. */
static int run_on_hosts(const tm_launch_hosts_t *on, const char *rsh, char **args, bool dry_run)
{
    char mpcrun[PATH_MAX], agent[PATH_MAX + 16];
    if (!realpath("/proc/self/exe", mpcrun)) {
        fprintf(stderr, "%s: cannot find its own executable: %s\n", progname, strerror(errno));
        return 1;
    }
    if (agent_path(mpcrun, agent, sizeof agent) < 0) {
        fprintf(stderr, "%s: %s: %s\n", progname, agent, strerror(errno));
        return 1;
    }
    if (fflush(stdout) != 0)
        return 1;
    tm_launch_remote_t job = {.hosts = on,
                              .rsh = rsh,
                              .mpcrun = mpcrun,
                              .agent = agent,
                              .args = args,
                              .ordered = dry_run,
                              .progname = progname};
    int rc = tm_launch_remote_run(&job);
    if (rc >= 0)
        return rc;
    /* The job ended by a signal: so does mpcrun, as when the job runs in its process. */
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    signal(-rc, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, -rc);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(-rc);
    return 128 - rc;
}

int main(int argc, char **argv)
{
    const char *slash = strrchr(argv[0], '/');
    progname = slash ? slash + 1 : argv[0];
    long nranks = 0; /* 0: one per core */
    const char *config = NULL;
    bool report_bindings = false, dry_run = false, show_config = false;
    const char *rsh = NULL;
    char herr[1024];
    int nforwarded = 0, i;
    forwarded = calloc((size_t)argc + 1, sizeof *forwarded);
    if (!forwarded)
        return 1;

    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        int first = i;
        bool forward = true;
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
            forward = false;
        } else if (strcmp(a, "--hosts") == 0 || strcmp(a, "--hostfile") == 0) {
            bool file = strcmp(a, "--hostfile") == 0;
            if (i + 1 >= argc)
                return usage_error(file ? "%s needs a file name" : "%s needs a list of hosts", a);
            int rc = file ? tm_launch_hosts_parse_file(&hosts, argv[++i], herr, sizeof herr)
                          : tm_launch_hosts_parse_list(&hosts, argv[++i], herr, sizeof herr);
            if (rc < 0)
                return usage_error("%s", herr);
            forward = false;
        } else if (strcmp(a, "--rsh") == 0) {
            if (i + 1 >= argc || !argv[i + 1][strspn(argv[i + 1], " \t")])
                return usage_error("%s needs a command", a);
            rsh = argv[++i];
            forward = false;
        } else if (strcmp(a, "--timeout") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a number of seconds", a);
            char *end;
            long t = strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end || t < 1 || t > 1000000000)
                return usage_error("\"%s\" is not a number of seconds from 1 to 1000000000",
                                   argv[i]);
            if (add_setting(&option_settings, "job.timeout=%s", argv[i]) < 0)
                return 1;
        } else if (strcmp(a, "--set") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs SECTION.KEY=VALUE", a);
            const char *kv = argv[++i], *dot = strchr(kv, '.'), *eq = strchr(kv, '=');
            if (!dot || !eq || dot > eq || strchr(kv, '\n'))
                return usage_error("--set \"%s\" is not SECTION.KEY=VALUE", kv);
            if (add_setting(&option_settings, "%s", kv) < 0)
                return 1;
        } else if (strcmp(a, "--profile") == 0 || strncmp(a, "--profile=", 10) == 0) {
            /* the value is checked with the other settings */
            if (strchr(a, '\n'))
                return usage_error("\"%s\": a file name with a newline", a);
            if (add_setting(&option_settings, "profile.mode=%s", a[9] ? a + 10 : "table") < 0)
                return 1;
        } else if (strcmp(a, "--report-bindings") == 0) {
            report_bindings = true;
        } else if (strcmp(a, "--dry-run") == 0) {
            dry_run = true;
        } else if (strcmp(a, "--show-config") == 0) {
            show_config = true;
        } else if (strcmp(a, "--help-config") == 0) {
            tm_rt_settings_help(stdout);
            return flush_stdout("--help-config");
        } else if (strcmp(a, "--split-model") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a number of cores", a);
            char *end;
            errno = 0;
            long cores = strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end || errno || cores < 3 || cores > 65536)
                return usage_error("\"%s\" is not a number of cores from 3 to 65536", argv[i]);
            tm_nbc_model_print(stdout, (int)cores);
            return flush_stdout("--split-model");
        } else if (strcmp(a, "--config") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a file name", a);
            config = argv[++i];
        } else {
            return usage_error("unknown option %s", a);
        }
        while (forward && first <= i)
            forwarded[nforwarded++] = argv[first++];
    }
    if (rsh && !hosts.n)
        return usage_error("%s", "--rsh needs --hosts or --hostfile");
    bool runs = !dry_run && !show_config;
    if (i >= argc && runs)
        return usage_error("%s", "no program to run");

    char path[PATH_MAX];
    int program_maps = 0;
    if (i < argc) {
        if (find_program(argv[i], path, sizeof path) < 0) {
            fprintf(stderr, "%s: %s: program not found\n", progname, argv[i]);
            return EXIT_USAGE;
        }
        if (check_program(path, &program_maps) < 0)
            return EXIT_USAGE;
    }

    /* What the job reads (settings.h), set before resolving so both read the same. */
    char np[32], config_abs[PATH_MAX];
    snprintf(np, sizeof np, "%ld", nranks);
    if (setenv(TM_RT_ENV_MPCRUN_NP, np, 1) < 0)
        return 1;
    if (option_settings && setenv(TM_RT_ENV_MPCRUN_SETTINGS, option_settings, 1) < 0)
        return 1;
    if (config) {
        if (!realpath(config, config_abs)) {
            fprintf(stderr, "%s: --config %s: %s\n", progname, config, strerror(errno));
            return EXIT_USAGE;
        }
        if (setenv(TM_RT_ENV_MPCRUN_CONFIG, config_abs, 1) < 0)
            return 1;
    }

    resolved_t r = {0};
    bool here = !hosts.n || show_config; /* the job runs in this process */
    int rc = resolve(&r, nranks, here && !show_config);
    if (rc != 0)
        return rc;
    if (show_config) {
        tm_rt_settings_show(&r.settings, stdout);
        return flush_stdout("--show-config");
    }
    if (!here) {
        if (tm_launch_hosts_distribute(&hosts, nranks, herr, sizeof herr) < 0)
            return usage_error("%s", herr);
        if (i < argc) {
            forwarded[nforwarded++] = "--";
            forwarded[nforwarded++] = path;
            for (int k = i + 1; k < argc; k++)
                forwarded[nforwarded++] = argv[k];
        }
        return run_on_hosts(&hosts, rsh ? rsh : "ssh", forwarded, dry_run);
    }
    /* This host's part of a job on several (remote.c): its host and its first rank. */
    const char *host = getenv(TM_RT_ENV_MPCRUN_HOST);
    const char *first_rank = getenv(TM_RT_ENV_MPCRUN_FIRST_RANK);
    const char *world = getenv(TM_RT_ENV_MPCRUN_WORLD);
    long first = host && first_rank ? atol(first_rank) : 0;
    char self[PATH_MAX];
    if (host && realpath("/proc/self/exe", self))
        net_module_path(self);
    if (dry_run) {
        int ncores = hwloc_get_nbobjs_by_type(r.topo, HWLOC_OBJ_CORE);
        if (host)
            printf("dry run on host %s: ranks %ld to %ld of %s, ", host, first,
                   first + r.placement.nranks - 1, world ? world : "?");
        else
            printf("dry run: %d rank%s of ", r.placement.nranks,
                   r.placement.nranks == 1 ? "" : "s");
        printf("%s on %d VP%s (the topology has %d core%s); nothing runs\n",
               i < argc ? path : "a program", r.placement.nvps, r.placement.nvps == 1 ? "" : "s",
               ncores, ncores == 1 ? "" : "s");
    }
    if (dry_run || report_bindings) {
        tm_rt_placement_report(&r.placement, stdout, host, first);
        /* Said once: a job that runs says it itself when idle was asked for (job.c). */
        bool job_says_it =
            !dry_run &&
            strcmp(tm_rt_settings_origin(&r.settings, "placement.progress"), "default") != 0;
        if (r.placement.idle_fallback && !job_says_it)
            fprintf(stderr,
                    "%s: no idle core for the progress threads (placement.progress = idle): "
                    "each runs on its rank's core\n",
                    progname);
        rc = flush_stdout(dry_run ? "--dry-run" : "--report-bindings");
    }
    if (rc == 0 && !dry_run)
        rc = check_mappings(&r.placement, program_maps);
    tm_rt_placement_free(&r.placement);
    hwloc_topology_destroy(r.topo);
    if (dry_run || rc != 0)
        return rc;
    execv(path, argv + i);
    fprintf(stderr, "%s: cannot execute %s: %s\n", progname, path, strerror(errno));
    return 126;
}
