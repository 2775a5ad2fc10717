/*
 * Host lists and host files (hosts.h).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/hosts.h"

#define MAX_RANKS (1L << 20)

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* What a host name may hold: what DNS names and ssh's user@host use. */
static bool name_char(char c)
{
    return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_' || c == '@';
}

static int parse_slots(const char *s, size_t len, long *slots)
{
    char buf[32], *end;
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    long n = strtol(buf, &end, 10);
    if (*end || errno || n < 1 || n > MAX_RANKS || !isdigit((unsigned char)buf[0]))
        return -1;
    *slots = n;
    return 0;
}

/* Adds host `name` (len bytes) with `slots` (0: not given). */
static int add_host(tm_launch_hosts_t *h, const char *name, size_t len, long slots, char *err,
                    size_t errlen)
{
    if (len == 0)
        return fail(err, errlen, "an empty host name");
    for (size_t i = 0; i < len; i++)
        if (!name_char(name[i]))
            return fail(err, errlen, "\"%.*s\" is not a host name", (int)len, name);
    for (int i = 0; i < h->n; i++)
        if (strlen(h->v[i].name) == len && memcmp(h->v[i].name, name, len) == 0)
            return fail(err, errlen, "host %.*s is listed twice", (int)len, name);
    tm_launch_host_t *more = realloc(h->v, (size_t)(h->n + 1) * sizeof *more);
    if (!more)
        return fail(err, errlen, "out of memory");
    h->v = more;
    char *copy = strndup(name, len);
    if (!copy)
        return fail(err, errlen, "out of memory");
    h->v[h->n++] = (tm_launch_host_t){.name = copy, .slots = slots};
    return 0;
}

/* "HOST" or "HOST:SLOTS", len bytes. */
static int add_entry(tm_launch_hosts_t *h, const char *s, size_t len, char *err, size_t errlen)
{
    const char *colon = memchr(s, ':', len);
    long slots = 0;
    if (colon && parse_slots(colon + 1, len - (size_t)(colon + 1 - s), &slots) < 0)
        return fail(err, errlen, "\"%.*s\": the slots after ':' are not a number from 1 to %ld",
                    (int)len, s, MAX_RANKS);
    return add_host(h, s, colon ? (size_t)(colon - s) : len, slots, err, errlen);
}

int tm_launch_hosts_parse_list(tm_launch_hosts_t *h, const char *list, char *err, size_t errlen)
{
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        if (add_entry(h, p, len, err, errlen) < 0)
            return -1;
        p += len;
        if (!*p)
            return 0;
    }
}

int tm_launch_hosts_parse_file(tm_launch_hosts_t *h, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, errlen, "%s: %s", path, strerror(errno));
    char line[1024], why[512];
    int lineno = 0, rc = 0, before = h->n;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = fail(err, errlen, "%s:%d: line too long", path, lineno);
            break;
        }
        line[strcspn(line, "#\n")] = '\0';
        char *save, *host = strtok_r(line, " \t\r", &save);
        if (!host)
            continue;
        char *slots_word = strtok_r(NULL, " \t\r", &save);
        long slots;
        if (add_entry(h, host, strlen(host), why, sizeof why) < 0)
            rc = fail(err, errlen, "%s:%d: %s", path, lineno, why);
        else if (strtok_r(NULL, " \t\r", &save))
            rc = fail(err, errlen, "%s:%d: more than a host and slots=N", path, lineno);
        else if (!slots_word)
            continue;
        else if (strncmp(slots_word, "slots=", 6) != 0 ||
                 parse_slots(slots_word + 6, strlen(slots_word + 6), &slots) < 0)
            rc = fail(err, errlen, "%s:%d: \"%s\" is not slots=N (N from 1 to %ld)", path, lineno,
                      slots_word, MAX_RANKS);
        else if (h->v[h->n - 1].slots)
            rc = fail(err, errlen, "%s:%d: the slots are given twice", path, lineno);
        else
            h->v[h->n - 1].slots = slots;
    }
    if (rc == 0 && ferror(f))
        rc = fail(err, errlen, "%s: %s", path, strerror(errno));
    fclose(f);
    if (rc == 0 && h->n == before)
        rc = fail(err, errlen, "%s: no host in the file", path);
    return rc;
}

int tm_launch_hosts_distribute(tm_launch_hosts_t *h, long nranks, char *err, size_t errlen)
{
    int with_slots = 0;
    long total = 0;
    if (h->n == 0)
        return fail(err, errlen, "no host");
    for (int i = 0; i < h->n; i++)
        if (h->v[i].slots) {
            with_slots++;
            total += h->v[i].slots;
        }
    if (with_slots != 0 && with_slots != h->n)
        return fail(err, errlen,
                    "some hosts give their slots and others do not: give them for every host "
                    "or for none");
    if (with_slots == 0 && nranks == 0)
        return fail(err, errlen, "-n is needed when the hosts do not give their slots");
    if (with_slots && nranks == 0)
        nranks = total;
    if (with_slots && nranks > total)
        return fail(err, errlen, "%ld ranks do not fit in the hosts' %ld slots", nranks, total);
    if (nranks > MAX_RANKS)
        return fail(err, errlen, "%ld ranks: at most %ld", nranks, MAX_RANKS);
    long next = 0;
    for (int i = 0; i < h->n; i++) {
        long take;
        if (with_slots)
            take = nranks - next < h->v[i].slots ? nranks - next : h->v[i].slots;
        else
            take = nranks / h->n + (i < nranks % h->n);
        h->v[i].first_rank = next;
        h->v[i].nranks = take;
        next += take;
    }
    return 0;
}

int tm_launch_hosts_used(const tm_launch_hosts_t *h)
{
    int used = 0;
    for (int i = 0; i < h->n; i++)
        used += h->v[i].nranks > 0;
    return used;
}

void tm_launch_hosts_free(tm_launch_hosts_t *h)
{
    for (int i = 0; i < h->n; i++)
        free(h->v[i].name);
    free(h->v);
    h->v = NULL;
    h->n = 0;
}
