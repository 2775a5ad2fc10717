/*
 * ThreadMPI runtime settings: the [section] key = value configuration and its layers.
 *
 * Layers, later wins: built-in defaults < $sysconfdir/threadmpi.conf < the user's
 * $XDG_CONFIG_HOME/threadmpi.conf (default ~/.config) < the file given to mpcrun --config <
 * environment variables THREADMPI_<SECTION>_<KEY> < mpcrun flags. Unknown sections and keys and
 * bad values are errors that name their origin (file:line, or the environment variable).
 */
#ifndef TM_RT_SETTINGS_H
#define TM_RT_SETTINGS_H

#include <stddef.h>
#include <stdio.h>

/* mpcrun hands its part to the launcher in these variables (they are not settings). */
#define TM_RT_ENV_MPCRUN_NP       "THREADMPI_MPCRUN_NP"       /* -n; "0": one per core */
#define TM_RT_ENV_MPCRUN_CONFIG   "THREADMPI_MPCRUN_CONFIG"   /* --config FILE */
#define TM_RT_ENV_MPCRUN_SETTINGS "THREADMPI_MPCRUN_SETTINGS" /* flags: "sec.key=value\n"... */
/* One host's part of a job on several (mpcrun --hosts): the host, its first rank, the job's
 * ranks. */
#define TM_RT_ENV_MPCRUN_HOST       "THREADMPI_MPCRUN_HOST"
#define TM_RT_ENV_MPCRUN_FIRST_RANK "THREADMPI_MPCRUN_FIRST_RANK"
#define TM_RT_ENV_MPCRUN_WORLD      "THREADMPI_MPCRUN_WORLD"
/* The network module of a job on several hosts, when it is not installed (a build tree). */
#define TM_RT_ENV_MPCRUN_NET_MODULE "THREADMPI_MPCRUN_NET_MODULE"

/* [placement] ranks: where the ranks go (placement.h). */
typedef enum tm_rt_rank_policy {
    TM_RT_RANKS_COMPACT, /* fill cores in hwloc logical order */
    TM_RT_RANKS_SCATTER, /* round-robin across packages, then NUMA nodes, then cores */
    TM_RT_RANKS_NUMA,    /* balanced across NUMA nodes, consecutive ranks together */
    TM_RT_RANKS_LIST     /* the cores of placement_list, in its order */
} tm_rt_rank_policy_t;

/* [placement] progress: where each rank's progress thread goes (placement.h). */
typedef enum tm_rt_progress_policy {
    TM_RT_PROGRESS_IDLE, /* the closest idle core, spread; "same" when no core is idle */
    TM_RT_PROGRESS_SAME, /* the rank's core */
    TM_RT_PROGRESS_NEXT, /* the core after the rank's */
    TM_RT_PROGRESS_COMM, /* the comm_cores last cores, which host no rank */
    TM_RT_PROGRESS_NONE  /* no progress thread: collectives progress in MPI calls only */
} tm_rt_progress_policy_t;

/* [memory] policy: where a rank's memory (stack, mailbox cells) comes from. */
typedef enum tm_rt_memory_policy {
    TM_RT_MEMORY_LOCAL,     /* the NUMA node of the rank's core */
    TM_RT_MEMORY_INTERLEAVE /* page by page across every NUMA node */
} tm_rt_memory_policy_t;

/* [profile] mode: whether the job profiles its MPI calls, and how it reports (profile.h). */
typedef enum tm_rt_profile_mode {
    TM_RT_PROFILE_MODE_OFF,   /* no profile: the points cost one branch each */
    TM_RT_PROFILE_MODE_TABLE, /* a table on stderr at the end of the job */
    TM_RT_PROFILE_MODE_CSV    /* CSV rows to profile_file at the end of the job */
} tm_rt_profile_mode_t;

#define TM_RT_SETTINGS_COUNT      14 /* keys in the table of settings.c */
#define TM_RT_SETTINGS_ORIGIN_LEN 256
#define TM_RT_SETTINGS_LIST_LEN   1024 /* longest core list of placement.ranks = list:... */

typedef struct tm_rt_settings {
    size_t sched_stack_size;       /* [sched] stack_size */
    unsigned sched_idle_spin_us;   /* [sched] idle_spin_us */
    unsigned job_timeout;          /* [job] timeout: seconds, 0 for none */
    size_t p2p_eager_limit;        /* [p2p] eager_limit: bytes */
    int nbc_split_levels;          /* [nbc] split_levels: -1 for auto */
    size_t nbc_handoff_bytes;      /* [nbc] handoff_bytes */
    unsigned nbc_progress_spin_us; /* [nbc] progress_spin_us */
    int coll_check_types; /* [coll] check_types: 1, collectives compare their data's types */
    tm_rt_rank_policy_t placement_ranks;          /* [placement] ranks */
    char placement_list[TM_RT_SETTINGS_LIST_LEN]; /* the cores after "list:", as written */
    int placement_smt;                          /* [placement] smt: 1, a rank per hardware thread */
    tm_rt_progress_policy_t placement_progress; /* [placement] progress */
    int placement_comm_cores;                   /* [placement] comm_cores */
    tm_rt_memory_policy_t memory_policy;        /* [memory] policy */
    tm_rt_profile_mode_t profile_mode;          /* [profile] mode */
    char profile_file[TM_RT_SETTINGS_LIST_LEN]; /* the FILE of mode = csv:FILE, as written */
    /* Which layer set each key, in the order of the table: "default", "FILE:LINE",
     * "environment THREADMPI_<SECTION>_<KEY>" or "mpcrun option". */
    char origin[TM_RT_SETTINGS_COUNT][TM_RT_SETTINGS_ORIGIN_LEN];
} tm_rt_settings_t;

/* Where to look for each layer; tm_rt_settings_load() fills it from the process environment
 * (tests fill it themselves). A NULL file is skipped; a missing system or user file is not an
 * error, a missing --config file is. */
typedef struct tm_rt_settings_sources {
    const char *system_file;
    const char *user_file;
    const char *config_file;
    char *const *environ; /* scanned for THREADMPI_<SECTION>_<KEY>=value */
    const char *flags;    /* "section.key=value" lines */
} tm_rt_settings_sources_t;

/* Sets every setting to its built-in default. */
void tm_rt_settings_defaults(tm_rt_settings_t *s);

/* Applies the layers of `src` in order over the defaults. On error returns a negative value and
 * writes a one-line message such as "threadmpi.conf:3: sched.stack_size: \"huge\" is not a
 * size (bytes, or a number with K, M or G; 64K to 1G)" to err. */
int tm_rt_settings_apply(tm_rt_settings_t *s, const tm_rt_settings_sources_t *src, char *err,
                         size_t errlen);

/* The sources of this process: $sysconfdir, XDG/HOME, THREADMPI_MPCRUN_CONFIG, environ and
 * THREADMPI_MPCRUN_SETTINGS; then tm_rt_settings_apply(). */
int tm_rt_settings_load(tm_rt_settings_t *s, char *err, size_t errlen);

/* Applies the lines of `f` (INI syntax) over `s`, as a configuration file named `name`. Errors
 * as tm_rt_settings_apply(). For tests and the fuzz target. */
int tm_rt_settings_apply_stream(tm_rt_settings_t *s, FILE *f, const char *name, char *err,
                                size_t errlen);

/* Which layer set `name` ("section.key"): see tm_rt_settings_t.origin. NULL for no such key. */
const char *tm_rt_settings_origin(const tm_rt_settings_t *s, const char *name);

/* Prints every key as "section.key = value   # origin", one per line, in the table's order. */
void tm_rt_settings_show(const tm_rt_settings_t *s, FILE *out);

/* Prints the documentation of every key as a configuration file whose lines are all comments:
 * for each section a "[section]" comment, for each key its meaning, type, range and default,
 * then "# key = default". This is the threadmpi.conf installed under $sysconfdir. */
void tm_rt_settings_help(FILE *out);

/* Expands a core list such as "0,2,4-7" into *cores_p (malloc'ed, in the order written) and
 * *n_p. Returns -EINVAL with the reason in why when it is not a comma-separated list of
 * numbers and ascending ranges (a-b) from 0 to 65535, or names a core twice. */
int tm_rt_settings_list_expand(const char *list, int **cores_p, int *n_p, char *why, size_t whylen);

#endif /* TM_RT_SETTINGS_H */
