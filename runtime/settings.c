/*
 * Settings: a table of keys, each with its parser, applied layer by layer (see settings.h).
 * Files are parsed with inih; Debian's inih does not pass line numbers to the handler, so the
 * line reader counts them (the handler runs right after the line of its key has been read).
 */
#include "config.h"

#include "runtime/settings.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

#include "sched/sched.h"

typedef int (*setting_parse_fn_t)(const char *value, void *field, char *why, size_t whylen);
typedef void (*setting_format_fn_t)(const void *field, char *text, size_t len);

/* One key: where its value lives, how it is read and written back, and its documentation
 * (tm_rt_settings_help prints it; the default comes from tm_rt_settings_defaults). */
typedef struct setting {
    const char *section;
    const char *key;
    size_t offset; /* of the field in tm_rt_settings_t */
    setting_parse_fn_t parse;
    setting_format_fn_t format;
    const char *values; /* type and range, as the help says them */
    const char *doc;    /* what it does; lines end with '\n' */
} setting_t;

static int parse_stack_size(const char *value, void *field, char *why, size_t whylen);
static int parse_spin_us(const char *value, void *field, char *why, size_t whylen);
static int parse_timeout(const char *value, void *field, char *why, size_t whylen);
static int parse_eager_limit(const char *value, void *field, char *why, size_t whylen);
static int parse_handoff_bytes(const char *value, void *field, char *why, size_t whylen);
static int parse_split_levels(const char *value, void *field, char *why, size_t whylen);
static int parse_ranks(const char *value, void *field, char *why, size_t whylen);
static int parse_bool(const char *value, void *field, char *why, size_t whylen);
static int parse_progress(const char *value, void *field, char *why, size_t whylen);
static int parse_comm_cores(const char *value, void *field, char *why, size_t whylen);
static int parse_memory_policy(const char *value, void *field, char *why, size_t whylen);
static int parse_profile_mode(const char *value, void *field, char *why, size_t whylen);
static void format_size(const void *field, char *text, size_t len);
static void format_unsigned(const void *field, char *text, size_t len);
static void format_int(const void *field, char *text, size_t len);
static void format_split_levels(const void *field, char *text, size_t len);
static void format_ranks(const void *field, char *text, size_t len);
static void format_bool(const void *field, char *text, size_t len);
static void format_progress(const void *field, char *text, size_t len);
static void format_memory_policy(const void *field, char *text, size_t len);
static void format_profile_mode(const void *field, char *text, size_t len);

#define FIELD(name) offsetof(tm_rt_settings_t, name)

static const setting_t settings_table[] = {
    {"sched", "stack_size", FIELD(sched_stack_size), parse_stack_size, format_size,
     "a size: bytes, or a number with K, M or G; 64K to 1G",
     "The stack of each rank's user-level thread. Address space is reserved at once and\n"
     "memory is used only as the stack grows.\n"},
    {"sched", "idle_spin_us", FIELD(sched_idle_spin_us), parse_spin_us, format_unsigned,
     "an integer from 0 to 1000000 (microseconds)",
     "How long a core with nothing to run polls before it sleeps until it is woken.\n"},
    {"job", "timeout", FIELD(job_timeout), parse_timeout, format_unsigned,
     "an integer from 0 (none) to 1000000000 (seconds)",
     "End the job after this many seconds, saying which MPI call each rank is blocked in\n"
     "(mpcrun --timeout).\n"},
    {"p2p", "eager_limit", FIELD(p2p_eager_limit), parse_eager_limit, format_size,
     "a size: bytes, or a number with K or M; 0 to 1M",
     "Messages up to this size travel inside the receiver's mailbox (two copies); larger ones\n"
     "are copied once, straight from the sender's buffer, once matched.\n"},
    {"nbc", "split_levels", FIELD(nbc_split_levels), parse_split_levels, format_split_levels,
     "auto, or a number of tree levels from 0 to 31",
     "Levels of a non-blocking collective's binomial tree that run on the ranks rather than on\n"
     "their progress threads (the split-tree algorithm); auto: the model's choice for the job\n"
     "(mpcrun --split-model CORES prints it).\n"},
    {"nbc", "handoff_bytes", FIELD(nbc_handoff_bytes), parse_handoff_bytes, format_size,
     "a size: bytes, or a number with K, M or G; 0 to 1G",
     "A non-blocking collective that moves or combines this many bytes at once in rounds its\n"
     "progress thread may run goes to that thread as it starts, when the thread has a core\n"
     "of its own (progress = idle, comm): the thread makes its copies and reductions while\n"
     "the rank computes. Smaller ones start on the rank, and the thread takes them over\n"
     "once the rank has left MPI for a moment.\n"},
    {"nbc", "progress_spin_us", FIELD(nbc_progress_spin_us), parse_spin_us, format_unsigned,
     "an integer from 0 to 1000000 (microseconds)",
     "How long a progress thread with a core of its own (progress = idle, comm) keeps polling\n"
     "for work after its last, before it sleeps until a collective hands it work: the core\n"
     "is the job's, and a polling thread takes work at once, where waking one costs the rank\n"
     "a system call and the thread several microseconds.\n"},
    {"coll", "check_types", FIELD(coll_check_types), parse_bool, format_bool, "true or false",
     "Whether the members of a collective compare the types of their data, beside its amount\n"
     "and the call: as integers, floating-point and complex numbers of each size (MPI_INT\n"
     "agrees with MPI_INT32_T and MPI_UNSIGNED, not with MPI_FLOAT or 4 MPI_BYTE). Where the\n"
     "members meet in shared memory (small blocking collectives).\n"},
    {"placement", "ranks", FIELD(placement_ranks), parse_ranks, format_ranks,
     "one of compact, scatter, numa, list:CORES (e.g. list:0,2,4-7)",
     "Where the ranks run. compact: cores in hwloc logical order; scatter: round-robin across\n"
     "packages, then NUMA nodes, then cores; numa: consecutive ranks in equal shares of the\n"
     "NUMA nodes; list: the cores listed (hwloc logical indices), in that order. More ranks\n"
     "than cores share them evenly.\n"},
    {"placement", "smt", FIELD(placement_smt), parse_bool, format_bool, "true or false",
     "true: a rank per hardware thread; false: a rank per core.\n"},
    {"placement", "progress", FIELD(placement_progress), parse_progress, format_progress,
     "one of idle, same, next, comm, none",
     "Where each rank's progress thread (which runs its non-blocking collectives) goes.\n"
     "idle: the closest core no rank uses, one each before any gets two (the rank's own core\n"
     "when every core has a rank); same: the rank's core; next: the next core; comm: the\n"
     "comm_cores last cores, which then host no rank; none: no progress thread, collectives\n"
     "progress inside MPI calls only.\n"},
    {"placement", "comm_cores", FIELD(placement_comm_cores), parse_comm_cores, format_int,
     "an integer from 1 to 65535",
     "With progress = comm, the number of cores at the end of the machine kept for the\n"
     "progress threads.\n"},
    {"memory", "policy", FIELD(memory_policy), parse_memory_policy, format_memory_policy,
     "one of local, interleave",
     "Where a rank's memory (its stack, its mailbox cells) comes from. local: the NUMA node\n"
     "of its core; interleave: page by page across every NUMA node.\n"},
    {"profile", "mode", FIELD(profile_mode), parse_profile_mode, format_profile_mode,
     "one of off, table, csv:FILE",
     "Profile the MPI calls of every rank (mpcrun --profile): per kind of call, the time in\n"
     "posting, progress, copies, the collective engine and the scheduler, measured with the\n"
     "cycle counter less its own cost. table: a table on stderr once every rank has ended;\n"
     "csv:FILE: the same per rank and for the job, as CSV in FILE. off: each point costs\n"
     "one branch.\n"},
};
#define NSETTINGS (sizeof settings_table / sizeof settings_table[0])
_Static_assert(NSETTINGS == TM_RT_SETTINGS_COUNT, "settings.h counts the keys of the table");

void tm_rt_settings_defaults(tm_rt_settings_t *s)
{
    memset(s, 0, sizeof *s);
    s->sched_stack_size = TM_SCHED_STACK_SIZE_DEFAULT;
    s->sched_idle_spin_us = 50;
    s->job_timeout = 0;
    s->p2p_eager_limit = 4096;
    s->nbc_split_levels = -1;
    s->nbc_handoff_bytes = 256 * 1024;
    s->nbc_progress_spin_us = 1000;
    s->coll_check_types = 1;
    s->placement_ranks = TM_RT_RANKS_COMPACT;
    s->placement_smt = 0;
    s->placement_progress = TM_RT_PROGRESS_IDLE;
    s->placement_comm_cores = 1;
    s->memory_policy = TM_RT_MEMORY_LOCAL;
    s->profile_mode = TM_RT_PROFILE_MODE_OFF;
    for (size_t i = 0; i < NSETTINGS; i++)
        snprintf(s->origin[i], sizeof s->origin[i], "default");
}

/* ---- value parsers and formatters --------------------------------------------------------- */

static int parse_bytes(const char *value, unsigned long long *n_p);

static int parse_stack_size(const char *value, void *field, char *why, size_t whylen)
{
    unsigned long long n;
    if (parse_bytes(value, &n) < 0 || n < TM_SCHED_STACK_SIZE_MIN || n > (1ull << 30)) {
        snprintf(why, whylen,
                 "\"%s\" is not a size from 64K to 1G (bytes, or a number with K, M or G)", value);
        return -EINVAL;
    }
    *(size_t *)field = (size_t)n;
    return 0;
}

/* An integer from lo to hi, the whole of `value`. */
static int parse_long(const char *value, long lo, long hi, long *n_p)
{
    char *end;
    errno = 0;
    long n = strtol(value, &end, 10);
    if (end == value || *end || errno || n < lo || n > hi)
        return -EINVAL;
    *n_p = n;
    return 0;
}

static int parse_spin_us(const char *value, void *field, char *why, size_t whylen)
{
    long n;
    if (parse_long(value, 0, 1000000, &n) < 0) {
        snprintf(why, whylen, "\"%s\" is not an integer from 0 to 1000000 (microseconds)", value);
        return -EINVAL;
    }
    *(unsigned *)field = (unsigned)n;
    return 0;
}

/* A size in bytes, with an optional K, M or G suffix (and B or iB after it). */
static int parse_bytes(const char *value, unsigned long long *n_p)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(value, &end, 10);
    if (end == value || errno || *value == '-')
        return -EINVAL;
    unsigned long long unit = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K':
            unit = 1ull << 10;
            break;
        case 'M':
            unit = 1ull << 20;
            break;
        case 'G':
            unit = 1ull << 30;
            break;
        default:
            return -EINVAL;
        }
        end++;
        if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)
            end += strlen(end);
        if (*end)
            return -EINVAL;
    }
    if (n > (1ull << 32))
        return -EINVAL;
    *n_p = n * unit;
    return 0;
}

static int parse_handoff_bytes(const char *value, void *field, char *why, size_t whylen)
{
    unsigned long long n;
    if (parse_bytes(value, &n) < 0 || n > (1ull << 30)) {
        snprintf(why, whylen,
                 "\"%s\" is not a size from 0 to 1G (bytes, or a number with K, M or G)", value);
        return -EINVAL;
    }
    *(size_t *)field = (size_t)n;
    return 0;
}

static int parse_eager_limit(const char *value, void *field, char *why, size_t whylen)
{
    unsigned long long n;
    if (parse_bytes(value, &n) < 0 || n > (1ull << 20)) {
        snprintf(why, whylen, "\"%s\" is not a size from 0 to 1M (bytes, or a number with K or M)",
                 value);
        return -EINVAL;
    }
    *(size_t *)field = (size_t)n;
    return 0;
}

static int parse_split_levels(const char *value, void *field, char *why, size_t whylen)
{
    long n;
    if (strcmp(value, "auto") == 0) {
        *(int *)field = -1;
        return 0;
    }
    if (parse_long(value, 0, 31, &n) < 0) {
        snprintf(why, whylen, "\"%s\" is not \"auto\" or a number of tree levels from 0 to 31",
                 value);
        return -EINVAL;
    }
    *(int *)field = (int)n;
    return 0;
}

static int parse_timeout(const char *value, void *field, char *why, size_t whylen)
{
    long n;
    if (parse_long(value, 0, 1000000000, &n) < 0) {
        snprintf(why, whylen, "\"%s\" is not a number of seconds from 0 (none) to 1000000000",
                 value);
        return -EINVAL;
    }
    *(unsigned *)field = (unsigned)n;
    return 0;
}

/* Index of `value` in names[0..n-1], or -1. */
static int name_index(const char *value, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(value, names[i]) == 0)
            return i;
    return -1;
}

static const char *const rank_policy_names[] = {"compact", "scatter", "numa", "list"};
static const char *const progress_policy_names[] = {"idle", "same", "next", "comm", "none"};
static const char *const memory_policy_names[] = {"local", "interleave"};
static const char *const profile_mode_names[] = {"off", "table", "csv"};

static int parse_ranks(const char *value, void *field, char *why, size_t whylen)
{
    tm_rt_settings_t *s = (tm_rt_settings_t *)((char *)field - FIELD(placement_ranks));
    static const char list[] = "list:";
    if (strncmp(value, list, sizeof list - 1) == 0) {
        const char *cores = value + sizeof list - 1;
        int *expanded, n;
        char what[200];
        if (strlen(cores) >= sizeof s->placement_list) {
            snprintf(why, whylen, "the list of cores is longer than %zu characters",
                     sizeof s->placement_list - 1);
            return -EINVAL;
        }
        if (tm_rt_settings_list_expand(cores, &expanded, &n, what, sizeof what) < 0) {
            snprintf(why, whylen, "\"%s\": %s", value, what);
            return -EINVAL;
        }
        free(expanded);
        s->placement_ranks = TM_RT_RANKS_LIST;
        memset(s->placement_list, 0, sizeof s->placement_list);
        memcpy(s->placement_list, cores, strlen(cores));
        return 0;
    }
    int i = name_index(value, rank_policy_names, TM_RT_RANKS_LIST);
    if (i < 0) {
        snprintf(why, whylen, "\"%s\" is not one of compact, scatter, numa, list", value);
        return -EINVAL;
    }
    s->placement_ranks = (tm_rt_rank_policy_t)i;
    memset(s->placement_list, 0, sizeof s->placement_list);
    return 0;
}

static int parse_bool(const char *value, void *field, char *why, size_t whylen)
{
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(value, yes[i]) == 0 || strcasecmp(value, no[i]) == 0) {
            *(int *)field = strcasecmp(value, yes[i]) == 0;
            return 0;
        }
    }
    snprintf(why, whylen, "\"%s\" is not true or false", value);
    return -EINVAL;
}

static int parse_progress(const char *value, void *field, char *why, size_t whylen)
{
    int i = name_index(value, progress_policy_names, 5);
    if (i < 0) {
        snprintf(why, whylen, "\"%s\" is not one of idle, same, next, comm, none", value);
        return -EINVAL;
    }
    *(tm_rt_progress_policy_t *)field = (tm_rt_progress_policy_t)i;
    return 0;
}

static int parse_comm_cores(const char *value, void *field, char *why, size_t whylen)
{
    long n;
    if (parse_long(value, 1, 65535, &n) < 0) {
        snprintf(why, whylen, "\"%s\" is not a number of cores from 1 to 65535", value);
        return -EINVAL;
    }
    *(int *)field = (int)n;
    return 0;
}

static int parse_memory_policy(const char *value, void *field, char *why, size_t whylen)
{
    int i = name_index(value, memory_policy_names, 2);
    if (i < 0) {
        snprintf(why, whylen, "\"%s\" is not one of local, interleave", value);
        return -EINVAL;
    }
    *(tm_rt_memory_policy_t *)field = (tm_rt_memory_policy_t)i;
    return 0;
}

static int parse_profile_mode(const char *value, void *field, char *why, size_t whylen)
{
    tm_rt_settings_t *s = (tm_rt_settings_t *)((char *)field - FIELD(profile_mode));
    static const char csv[] = "csv:";
    if (strncmp(value, csv, sizeof csv - 1) == 0) {
        const char *file = value + sizeof csv - 1;
        if (!*file) {
            snprintf(why, whylen, "\"%s\": csv: needs a file name", value);
            return -EINVAL;
        }
        if (strlen(file) >= sizeof s->profile_file) {
            snprintf(why, whylen, "the file name of csv: is longer than %zu characters",
                     sizeof s->profile_file - 1);
            return -EINVAL;
        }
        s->profile_mode = TM_RT_PROFILE_MODE_CSV;
        snprintf(s->profile_file, sizeof s->profile_file, "%s", file);
        return 0;
    }
    int i = name_index(value, profile_mode_names, TM_RT_PROFILE_MODE_CSV);
    if (i < 0) {
        snprintf(why, whylen, "\"%s\" is not one of off, table, csv:FILE", value);
        return -EINVAL;
    }
    s->profile_mode = (tm_rt_profile_mode_t)i;
    s->profile_file[0] = '\0';
    return 0;
}

/* Sizes are written with the largest unit that divides them. */
static void format_size(const void *field, char *text, size_t len)
{
    size_t n = *(const size_t *)field;
    if (n && n % (1u << 30) == 0)
        snprintf(text, len, "%zuG", n >> 30);
    else if (n && n % (1u << 20) == 0)
        snprintf(text, len, "%zuM", n >> 20);
    else if (n && n % (1u << 10) == 0)
        snprintf(text, len, "%zuK", n >> 10);
    else
        snprintf(text, len, "%zu", n);
}

static void format_unsigned(const void *field, char *text, size_t len)
{
    snprintf(text, len, "%u", *(const unsigned *)field);
}

static void format_int(const void *field, char *text, size_t len)
{
    snprintf(text, len, "%d", *(const int *)field);
}

static void format_split_levels(const void *field, char *text, size_t len)
{
    int n = *(const int *)field;
    if (n < 0)
        snprintf(text, len, "auto");
    else
        snprintf(text, len, "%d", n);
}

static void format_ranks(const void *field, char *text, size_t len)
{
    const tm_rt_settings_t *s =
        (const tm_rt_settings_t *)((const char *)field - FIELD(placement_ranks));
    if (s->placement_ranks == TM_RT_RANKS_LIST)
        snprintf(text, len, "list:%s", s->placement_list);
    else
        snprintf(text, len, "%s", rank_policy_names[s->placement_ranks]);
}

static void format_bool(const void *field, char *text, size_t len)
{
    snprintf(text, len, "%s", *(const int *)field ? "true" : "false");
}

static void format_progress(const void *field, char *text, size_t len)
{
    snprintf(text, len, "%s", progress_policy_names[*(const tm_rt_progress_policy_t *)field]);
}

static void format_memory_policy(const void *field, char *text, size_t len)
{
    snprintf(text, len, "%s", memory_policy_names[*(const tm_rt_memory_policy_t *)field]);
}

static void format_profile_mode(const void *field, char *text, size_t len)
{
    const tm_rt_settings_t *s =
        (const tm_rt_settings_t *)((const char *)field - FIELD(profile_mode));
    if (s->profile_mode == TM_RT_PROFILE_MODE_CSV)
        snprintf(text, len, "csv:%s", s->profile_file);
    else
        snprintf(text, len, "%s", profile_mode_names[s->profile_mode]);
}

/* ---- core lists ----------------------------------------------------------------------------- */

#define CORE_MAX 65535

int tm_rt_settings_list_expand(const char *list, int **cores_p, int *n_p, char *why, size_t whylen)
{
    int *cores = NULL, n = 0, cap = 0;
    unsigned char *seen = calloc(CORE_MAX + 1, 1);
    const char *p = list;
    if (!seen) {
        snprintf(why, whylen, "out of memory");
        return -ENOMEM;
    }
    if (!*p) {
        snprintf(why, whylen, "no core listed");
        goto fail;
    }
    while (*p) {
        long lo, hi;
        char *end;
        if (!isdigit((unsigned char)*p))
            goto syntax;
        errno = 0;
        lo = strtol(p, &end, 10);
        hi = lo;
        if (*end == '-') {
            if (!isdigit((unsigned char)end[1]))
                goto syntax;
            hi = strtol(end + 1, &end, 10);
        }
        if (errno || lo > CORE_MAX || hi > CORE_MAX) {
            snprintf(why, whylen, "cores are numbered from 0 to %d", CORE_MAX);
            goto fail;
        }
        if (hi < lo) {
            snprintf(why, whylen, "the range %ld-%ld goes down", lo, hi);
            goto fail;
        }
        for (long c = lo; c <= hi; c++) {
            if (seen[c]) {
                snprintf(why, whylen, "core %ld is listed twice", c);
                goto fail;
            }
            seen[c] = 1;
            if (n == cap) {
                int *more = realloc(cores, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *cores);
                if (!more) {
                    snprintf(why, whylen, "out of memory");
                    free(cores);
                    free(seen);
                    return -ENOMEM;
                }
                cores = more;
            }
            cores[n++] = (int)c;
        }
        p = end;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            goto syntax;
    }
    free(seen);
    *cores_p = cores;
    *n_p = n;
    return 0;
syntax:
    snprintf(why, whylen, "not a list of cores such as 0,2,4-7");
fail:
    free(cores);
    free(seen);
    return -EINVAL;
}

/* ---- lookup, with a suggestion for misspelt names ----------------------------------------- */

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return SIZE_MAX;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost =
                diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = cost < best ? cost : best;
            diag = up;
        }
    }
    return row[lb];
}

static int section_exists(const char *section)
{
    for (size_t i = 0; i < NSETTINGS; i++)
        if (strcmp(settings_table[i].section, section) == 0)
            return 1;
    return 0;
}

/* Writes "unknown ...; did you mean ...?" for section.key into why. */
static void explain_unknown(const char *section, const char *key, char *why, size_t whylen)
{
    char full[160], best[160] = "";
    size_t best_d = SIZE_MAX;
    snprintf(full, sizeof full, "%s.%s", section, key);
    for (size_t i = 0; i < NSETTINGS; i++) {
        char cand[160];
        snprintf(cand, sizeof cand, "%s.%s", settings_table[i].section, settings_table[i].key);
        size_t d = edit_distance(full, cand);
        if (d < best_d) {
            best_d = d;
            snprintf(best, sizeof best, "%s", cand);
        }
    }
    const char *what = section_exists(section) ? "key" : "section";
    if (best_d <= 3)
        snprintf(why, whylen, "unknown %s (did you mean %s?)", what, best);
    else
        snprintf(why, whylen, "unknown %s", what);
}

/* Sets section.key = value and records `origin` as the layer that set it. On error writes
 * "<origin>: section.key: <why>" to err and returns -EINVAL. */
static int settings_set(tm_rt_settings_t *s, const char *section, const char *key,
                        const char *value, const char *origin, char *err, size_t errlen)
{
    char why[256];
    size_t i = 0;
    while (i < NSETTINGS && (strcmp(settings_table[i].section, section) != 0 ||
                             strcmp(settings_table[i].key, key) != 0))
        i++;
    if (i == NSETTINGS) {
        explain_unknown(section, key, why, sizeof why);
    } else if (settings_table[i].parse(value, (char *)s + settings_table[i].offset, why,
                                       sizeof why) == 0) {
        snprintf(s->origin[i], sizeof s->origin[i], "%s", origin);
        return 0;
    }
    snprintf(err, errlen, "%s: %s.%s: %s", origin, section, key, why);
    return -EINVAL;
}

const char *tm_rt_settings_origin(const tm_rt_settings_t *s, const char *name)
{
    for (size_t i = 0; i < NSETTINGS; i++) {
        const setting_t *st = &settings_table[i];
        size_t n = strlen(st->section);
        if (strncmp(name, st->section, n) == 0 && name[n] == '.' &&
            strcmp(name + n + 1, st->key) == 0)
            return s->origin[i];
    }
    return NULL;
}

void tm_rt_settings_show(const tm_rt_settings_t *s, FILE *out)
{
    for (size_t i = 0; i < NSETTINGS; i++) {
        const setting_t *st = &settings_table[i];
        char value[TM_RT_SETTINGS_LIST_LEN + 8], name[64];
        st->format((const char *)s + st->offset, value, sizeof value);
        snprintf(name, sizeof name, "%s.%s", st->section, st->key);
        fprintf(out, "%-22s = %-10s # %s\n", name, value, s->origin[i]);
    }
}

void tm_rt_settings_help(FILE *out)
{
    tm_rt_settings_t defaults;
    tm_rt_settings_defaults(&defaults);
    fprintf(out,
            "# ThreadMPI settings. Every key, with its meaning, values and default.\n"
            "#\n"
            "# Layers, later wins: these defaults; $sysconfdir/threadmpi.conf;\n"
            "# $XDG_CONFIG_HOME/threadmpi.conf (default ~/.config/threadmpi.conf); the file\n"
            "# of mpcrun --config FILE; environment variables THREADMPI_<SECTION>_<KEY>\n"
            "# (e.g. THREADMPI_PLACEMENT_RANKS=scatter); mpcrun options. mpcrun --show-config\n"
            "# prints the value in effect of every key and which layer set it.\n"
            "# Syntax: [section] lines, then key = value lines; '#' starts a comment.\n");
    for (size_t i = 0; i < NSETTINGS; i++) {
        const setting_t *st = &settings_table[i];
        char value[TM_RT_SETTINGS_LIST_LEN + 8];
        if (i == 0 || strcmp(st->section, settings_table[i - 1].section) != 0)
            fprintf(out, "\n[%s]\n", st->section);
        fprintf(out, "\n");
        for (const char *line = st->doc; *line;) {
            size_t n = strcspn(line, "\n");
            fprintf(out, "# %.*s\n", (int)n, line);
            line += n + (line[n] == '\n');
        }
        st->format((const char *)&defaults + st->offset, value, sizeof value);
        fprintf(out, "# Values: %s. Default: %s.\n# Environment: THREADMPI_", st->values, value);
        for (const char *c = st->section; *c; c++)
            fputc(toupper((unsigned char)*c), out);
        fputc('_', out);
        for (const char *c = st->key; *c; c++)
            fputc(toupper((unsigned char)*c), out);
        fputc('\n', out);
        fprintf(out, "# %s = %s\n", st->key, value);
    }
}

/* ---- files ------------------------------------------------------------------------------- */

typedef struct file_ctx {
    tm_rt_settings_t *settings;
    FILE *file;
    const char *path;
    int line;
    char *err;
    size_t errlen;
    int failed;
} file_ctx_t;

static char *file_reader(char *buf, int size, void *stream)
{
    file_ctx_t *ctx = stream;
    char *line = fgets(buf, size, ctx->file);
    if (line)
        ctx->line++;
    return line;
}

/* Drops a trailing "# comment" (inih only strips ';' comments inside a line). */
static void strip_hash_comment(char *value)
{
    for (char *p = value; *p; p++) {
        if (*p == '#' && (p == value || isspace((unsigned char)p[-1]))) {
            *p = '\0';
            break;
        }
    }
    size_t n = strlen(value);
    while (n > 0 && isspace((unsigned char)value[n - 1]))
        value[--n] = '\0';
}

static int file_handler(void *user, const char *section, const char *key, const char *value)
{
    file_ctx_t *ctx = user;
    if (ctx->failed)
        return 1;
    char v[512], origin[TM_RT_SETTINGS_ORIGIN_LEN];
    snprintf(v, sizeof v, "%s", value);
    strip_hash_comment(v);
    snprintf(origin, sizeof origin, "%s:%d", ctx->path, ctx->line);
    if (settings_set(ctx->settings, section, key, v, origin, ctx->err, ctx->errlen) < 0)
        ctx->failed = 1;
    return 1;
}

int tm_rt_settings_apply_stream(tm_rt_settings_t *s, FILE *f, const char *name, char *err,
                                size_t errlen)
{
    file_ctx_t ctx = {.settings = s, .file = f, .path = name, .err = err, .errlen = errlen};
    int rc = ini_parse_stream(file_reader, &ctx, file_handler, &ctx);
    if (ctx.failed)
        return -EINVAL;
    if (rc != 0) {
        snprintf(err, errlen, "%s:%d: not a line of the form [section] or key = value", name,
                 rc < 0 ? ctx.line : rc);
        return -EINVAL;
    }
    return 0;
}

static int apply_file(tm_rt_settings_t *s, const char *path, int must_exist, char *err,
                      size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (!must_exist && errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: cannot read the configuration file: %s", path, strerror(errno));
        return -errno;
    }
    /* Read twice, by mpcrun and by the job: only a regular file reads the same both times (a
     * directory would read as empty, a device such as /dev/zero would never end). */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: cannot read the configuration file: %s", path,
                 S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file");
        fclose(f);
        return -EINVAL;
    }
    int rc = tm_rt_settings_apply_stream(s, f, path, err, errlen);
    fclose(f);
    return rc;
}

/* ---- environment and flags ------------------------------------------------------------------ */

static int apply_environ(tm_rt_settings_t *s, char *const *env, char *err, size_t errlen)
{
    static const char prefix[] = "THREADMPI_";
    static const char reserved[] = "THREADMPI_MPCRUN_";
    for (; env && *env; env++) {
        const char *e = *env;
        if (strncmp(e, prefix, sizeof prefix - 1) != 0 ||
            strncmp(e, reserved, sizeof reserved - 1) == 0)
            continue;
        const char *name = e + sizeof prefix - 1;
        const char *eq = strchr(name, '=');
        const char *us = strchr(name, '_');
        char section[64] = "", key[128] = "", origin[TM_RT_SETTINGS_ORIGIN_LEN];
        if (eq && us && us < eq && (size_t)(us - name) < sizeof section &&
            (size_t)(eq - us - 1) < sizeof key) {
            for (const char *p = name; p < us; p++)
                section[p - name] = (char)tolower((unsigned char)*p);
            for (const char *p = us + 1; p < eq; p++)
                key[p - us - 1] = (char)tolower((unsigned char)*p);
        }
        if (!eq || !section[0] || !key[0]) {
            snprintf(err, errlen, "environment %.*s: not of the form THREADMPI_<SECTION>_<KEY>",
                     (int)(eq ? eq - e : (long)strlen(e)), e);
            return -EINVAL;
        }
        snprintf(origin, sizeof origin, "environment %.*s", (int)(eq - e), e);
        if (settings_set(s, section, key, eq + 1, origin, err, errlen) < 0)
            return -EINVAL;
    }
    return 0;
}

static int apply_flags(tm_rt_settings_t *s, const char *flags, char *err, size_t errlen)
{
    while (flags && *flags) {
        const char *nl = strchr(flags, '\n');
        size_t len = nl ? (size_t)(nl - flags) : strlen(flags);
        char line[TM_RT_SETTINGS_LIST_LEN + 64];
        snprintf(line, sizeof line, "%.*s", (int)len, flags);
        flags += len + (nl != NULL);
        if (!line[0])
            continue;
        char *dot = strchr(line, '.'), *eq = strchr(line, '=');
        if (!dot || !eq || dot > eq) {
            snprintf(err, errlen, "mpcrun option: \"%s\" is not section.key=value", line);
            return -EINVAL;
        }
        *dot = *eq = '\0';
        if (settings_set(s, line, dot + 1, eq + 1, "mpcrun option", err, errlen) < 0)
            return -EINVAL;
    }
    return 0;
}

int tm_rt_settings_apply(tm_rt_settings_t *s, const tm_rt_settings_sources_t *src, char *err,
                         size_t errlen)
{
    int rc = 0;
    tm_rt_settings_defaults(s);
    if (src->system_file && (rc = apply_file(s, src->system_file, 0, err, errlen)) < 0)
        return rc;
    if (src->user_file && (rc = apply_file(s, src->user_file, 0, err, errlen)) < 0)
        return rc;
    if (src->config_file && (rc = apply_file(s, src->config_file, 1, err, errlen)) < 0)
        return rc;
    if ((rc = apply_environ(s, src->environ, err, errlen)) < 0)
        return rc;
    return apply_flags(s, src->flags, err, errlen);
}

extern char **environ;

int tm_rt_settings_load(tm_rt_settings_t *s, char *err, size_t errlen)
{
    char user_file[4096];
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    tm_rt_settings_sources_t src = {
        .system_file = TM_SYSCONFDIR "/threadmpi.conf",
        .config_file = getenv(TM_RT_ENV_MPCRUN_CONFIG),
        .environ = environ,
        .flags = getenv(TM_RT_ENV_MPCRUN_SETTINGS),
    };
    if (xdg && *xdg)
        snprintf(user_file, sizeof user_file, "%s/threadmpi.conf", xdg);
    else if (home && *home)
        snprintf(user_file, sizeof user_file, "%s/.config/threadmpi.conf", home);
    else
        user_file[0] = '\0';
    src.user_file = user_file[0] ? user_file : NULL;
    return tm_rt_settings_apply(s, &src, err, errlen);
}
