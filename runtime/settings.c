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

#include "sched/sched.h"

typedef int (*setting_parse_fn_t)(const char *value, void *field, char *why, size_t whylen);

typedef struct setting {
    const char *section;
    const char *key;
    size_t offset; /* of the field in tm_rt_settings_t */
    setting_parse_fn_t parse;
} setting_t;

static int parse_stack_size(const char *value, void *field, char *why, size_t whylen);
static int parse_spin_us(const char *value, void *field, char *why, size_t whylen);
static int parse_timeout(const char *value, void *field, char *why, size_t whylen);
static int parse_eager_limit(const char *value, void *field, char *why, size_t whylen);
static int parse_split_levels(const char *value, void *field, char *why, size_t whylen);

static const setting_t settings_table[] = {
    {"sched", "stack_size", offsetof(tm_rt_settings_t, sched_stack_size), parse_stack_size},
    {"sched", "idle_spin_us", offsetof(tm_rt_settings_t, sched_idle_spin_us), parse_spin_us},
    {"job", "timeout", offsetof(tm_rt_settings_t, job_timeout), parse_timeout},
    {"p2p", "eager_limit", offsetof(tm_rt_settings_t, p2p_eager_limit), parse_eager_limit},
    {"nbc", "split_levels", offsetof(tm_rt_settings_t, nbc_split_levels), parse_split_levels},
};
#define NSETTINGS (sizeof settings_table / sizeof settings_table[0])

void tm_rt_settings_defaults(tm_rt_settings_t *s)
{
    s->sched_stack_size = TM_SCHED_STACK_SIZE_DEFAULT;
    s->sched_idle_spin_us = 50;
    s->job_timeout = 0;
    s->p2p_eager_limit = 4096;
    s->nbc_split_levels = -1;
}

/* ---- value parsers ----------------------------------------------------------------------- */

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

static int parse_spin_us(const char *value, void *field, char *why, size_t whylen)
{
    char *end;
    errno = 0;
    long n = strtol(value, &end, 10);
    if (end == value || *end || errno || n < 0 || n > 1000000) {
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
    char *end;
    if (strcmp(value, "auto") == 0) {
        *(int *)field = -1;
        return 0;
    }
    errno = 0;
    long n = strtol(value, &end, 10);
    if (end == value || *end || errno || n < 0 || n > 31) {
        snprintf(why, whylen, "\"%s\" is not \"auto\" or a number of tree levels from 0 to 31",
                 value);
        return -EINVAL;
    }
    *(int *)field = (int)n;
    return 0;
}

static int parse_timeout(const char *value, void *field, char *why, size_t whylen)
{
    char *end;
    errno = 0;
    long n = strtol(value, &end, 10);
    if (end == value || *end || errno || n < 0 || n > 1000000000) {
        snprintf(why, whylen, "\"%s\" is not a number of seconds from 0 (none) to 1000000000",
                 value);
        return -EINVAL;
    }
    *(unsigned *)field = (unsigned)n;
    return 0;
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

/* Sets section.key = value; on error writes why and returns -EINVAL. */
static int settings_set(tm_rt_settings_t *s, const char *section, const char *key,
                        const char *value, char *why, size_t whylen)
{
    for (size_t i = 0; i < NSETTINGS; i++) {
        const setting_t *st = &settings_table[i];
        if (strcmp(st->section, section) == 0 && strcmp(st->key, key) == 0)
            return st->parse(value, (char *)s + st->offset, why, whylen);
    }
    explain_unknown(section, key, why, whylen);
    return -EINVAL;
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
    char v[512], why[256];
    snprintf(v, sizeof v, "%s", value);
    strip_hash_comment(v);
    if (settings_set(ctx->settings, section, key, v, why, sizeof why) < 0) {
        snprintf(ctx->err, ctx->errlen, "%s:%d: %s.%s: %s", ctx->path, ctx->line, section, key,
                 why);
        ctx->failed = 1;
    }
    return 1;
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
    file_ctx_t ctx = {.settings = s, .file = f, .path = path, .err = err, .errlen = errlen};
    int rc = ini_parse_stream(file_reader, &ctx, file_handler, &ctx);
    fclose(f);
    if (ctx.failed)
        return -EINVAL;
    if (rc != 0) {
        snprintf(err, errlen, "%s:%d: not a line of the form [section] or key = value", path, rc);
        return -EINVAL;
    }
    return 0;
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
        char section[64] = "", key[128] = "", why[256];
        if (eq && us && us < eq && (size_t)(us - name) < sizeof section &&
            (size_t)(eq - us - 1) < sizeof key) {
            for (const char *p = name; p < us; p++)
                section[p - name] = (char)tolower((unsigned char)*p);
            for (const char *p = us + 1; p < eq; p++)
                key[p - us - 1] = (char)tolower((unsigned char)*p);
        }
        if (!eq || !section[0] || !key[0]) {
            snprintf(err, errlen, "environment: %.*s: not of the form THREADMPI_<SECTION>_<KEY>",
                     (int)(eq ? eq - e : (long)strlen(e)), e);
            return -EINVAL;
        }
        if (settings_set(s, section, key, eq + 1, why, sizeof why) < 0) {
            snprintf(err, errlen, "environment: %.*s: %s.%s: %s", (int)(eq - e), e, section, key,
                     why);
            return -EINVAL;
        }
    }
    return 0;
}

static int apply_flags(tm_rt_settings_t *s, const char *flags, char *err, size_t errlen)
{
    while (flags && *flags) {
        const char *nl = strchr(flags, '\n');
        size_t len = nl ? (size_t)(nl - flags) : strlen(flags);
        char line[512], why[256];
        snprintf(line, sizeof line, "%.*s", (int)len, flags);
        flags += len + (nl != NULL);
        if (!line[0])
            continue;
        char *dot = strchr(line, '.'), *eq = strchr(line, '=');
        if (!dot || !eq || dot > eq) {
            snprintf(err, errlen, "mpcrun: \"%s\" is not section.key=value", line);
            return -EINVAL;
        }
        *dot = *eq = '\0';
        if (settings_set(s, line, dot + 1, eq + 1, why, sizeof why) < 0) {
            snprintf(err, errlen, "mpcrun: %s.%s: %s", line, dot + 1, why);
            return -EINVAL;
        }
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
