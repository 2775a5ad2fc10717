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

/* mpcrun hands its part to the launcher in these variables (they are not settings). */
#define TM_RT_ENV_MPCRUN_NP       "THREADMPI_MPCRUN_NP"       /* -n; "0": one per core */
#define TM_RT_ENV_MPCRUN_CONFIG   "THREADMPI_MPCRUN_CONFIG"   /* --config FILE */
#define TM_RT_ENV_MPCRUN_SETTINGS "THREADMPI_MPCRUN_SETTINGS" /* flags: "sec.key=value\n"... */

typedef struct tm_rt_settings {
    size_t sched_stack_size;     /* [sched] stack_size */
    unsigned sched_idle_spin_us; /* [sched] idle_spin_us */
    unsigned job_timeout;        /* [job] timeout: seconds, 0 for none */
    size_t p2p_eager_limit;      /* [p2p] eager_limit: bytes */
    int nbc_split_levels;        /* [nbc] split_levels: -1 for auto */
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

#endif /* TM_RT_SETTINGS_H */
