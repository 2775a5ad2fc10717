/*
 * The mappings a job needs (maps.h).
 */
#include "config.h"

#include "runtime/maps.h"

#include <stdio.h>

/* A user-level thread's stack: the stack and its guard page (sched/stack.c). */
#define MAPS_PER_STACK 2
/* A VP's kernel thread: its stack and guard page, and the malloc arena the C library may give
 * it (a heap and the reserved rest of it). */
#define MAPS_PER_VP 4
/* What the job maps beyond what the caller has loaded: the libraries a job loads on top, the
 * mailboxes' first cells (p2p/mailbox.c), buffers that malloc maps on its own. */
#define MAPS_MARGIN 128

long tm_rt_maps_count(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    long lines = 0;
    int c;
    while ((c = getc(f)) != EOF)
        lines += c == '\n';
    fclose(f);
    return lines;
}

static long max_map_count(void)
{
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (!f)
        return -1;
    long limit;
    if (fscanf(f, "%ld", &limit) != 1)
        limit = -1;
    fclose(f);
    return limit;
}

void tm_rt_maps_need(const tm_rt_placement_t *p, int program, tm_rt_maps_need_t *need)
{
    long own = tm_rt_maps_count();
    long progress = 0;
    for (int r = 0; r < p->nranks; r++)
        progress += p->progress_vp[r] >= 0;
    need->program = program;
    need->per_rank = program + MAPS_PER_STACK;
    need->total = (own > 0 ? own : 0) + MAPS_MARGIN + (long)p->nvps * MAPS_PER_VP +
                  (long)p->nranks * need->per_rank + progress * MAPS_PER_STACK;
    if (progress == p->nranks)
        need->per_rank += MAPS_PER_STACK;
    need->limit = max_map_count();
}
