/*
 * libFuzzer target for the configuration parser (runtime/settings.c): `make fuzz`.
 *
 * The first byte of the input chooses the layer its rest is read as: a configuration file (INI
 * lines), mpcrun's "section.key=value" option lines, or environment entries (one per line).
 * Whatever the input, the parser must return 0 or a negative value with a one-line message, and
 * never crash, leak or read out of bounds (AddressSanitizer and UBSan watch). When the input is
 * accepted, the values it produced must survive a round trip: what --show-config prints for each
 * key, given back as mpcrun options, yields the same settings.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/settings.h"

/* The value part of each line of tm_rt_settings_show(), given back as option lines. */
static char *show_as_flags(const tm_rt_settings_t *s)
{
    char *shown, *flags;
    size_t shown_len, flags_len;
    FILE *out = open_memstream(&shown, &shown_len);
    tm_rt_settings_show(s, out);
    fclose(out);
    out = open_memstream(&flags, &flags_len);
    for (char *line = strtok(shown, "\n"); line; line = strtok(NULL, "\n")) {
        char *eq = strstr(line, " = "), *hash = strstr(line, " # ");
        if (!eq || !hash)
            abort();
        char *name_end = eq;
        while (name_end > line && name_end[-1] == ' ')
            name_end--;
        char *value_end = hash;
        while (value_end > eq + 3 && value_end[-1] == ' ')
            value_end--;
        fprintf(out, "%.*s=%.*s\n", (int)(name_end - line), line, (int)(value_end - eq - 3),
                eq + 3);
    }
    fclose(out);
    free(shown);
    return flags;
}

/* Whether two settings hold the same values, field by field: the strings up to their end (the
 * bytes after it, and the structure's padding, are whatever the buffers held). */
_Static_assert(TM_RT_SETTINGS_COUNT == 14, "same_values compares every setting");
static bool same_values(const tm_rt_settings_t *a, const tm_rt_settings_t *b)
{
    return a->sched_stack_size == b->sched_stack_size &&
           a->sched_idle_spin_us == b->sched_idle_spin_us && a->job_timeout == b->job_timeout &&
           a->p2p_eager_limit == b->p2p_eager_limit && a->nbc_split_levels == b->nbc_split_levels &&
           a->nbc_handoff_bytes == b->nbc_handoff_bytes &&
           a->nbc_progress_spin_us == b->nbc_progress_spin_us &&
           a->coll_check_types == b->coll_check_types && a->placement_ranks == b->placement_ranks &&
           strcmp(a->placement_list, b->placement_list) == 0 &&
           a->placement_smt == b->placement_smt && a->placement_progress == b->placement_progress &&
           a->placement_comm_cores == b->placement_comm_cores &&
           a->memory_policy == b->memory_policy && a->profile_mode == b->profile_mode &&
           strcmp(a->profile_file, b->profile_file) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int layer = data[0] % 3;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';

    tm_rt_settings_t s;
    char err[1024];
    int rc;
    if (layer == 0) {
        tm_rt_settings_defaults(&s);
        FILE *f = fmemopen((void *)(data + 1), size - 1 ? size - 1 : 1, "r");
        if (!f) {
            free(text);
            return 0;
        }
        rc = tm_rt_settings_apply_stream(&s, f, "fuzz.conf", err, sizeof err);
        fclose(f);
    } else if (layer == 1) {
        tm_rt_settings_sources_t src = {.flags = text};
        rc = tm_rt_settings_apply(&s, &src, err, sizeof err);
    } else {
        char *env[64];
        int n = 0;
        for (char *line = strtok(text, "\n"); line && n < 63; line = strtok(NULL, "\n"))
            env[n++] = line;
        env[n] = NULL;
        tm_rt_settings_sources_t src = {.environ = env};
        rc = tm_rt_settings_apply(&s, &src, err, sizeof err);
    }
    if (rc < 0) {
        if (!err[0] || strchr(err, '\n'))
            abort(); /* an error is one line that says something */
    } else {
        char *flags = show_as_flags(&s);
        tm_rt_settings_t again;
        tm_rt_settings_sources_t src = {.flags = flags};
        if (tm_rt_settings_apply(&again, &src, err, sizeof err) < 0)
            abort(); /* a value it printed, it refuses */
        if (!same_values(&s, &again))
            abort(); /* the round trip changed a value */
        free(flags);
    }
    free(text);
    return 0;
}
