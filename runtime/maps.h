/*
 * The memory mappings a job needs, against the kernel's limit on those of one process
 * (/proc/sys/vm/max_map_count, 65,530 by default). Every rank adds its own: the segments of its
 * copy of the program (2 for a program linked by our mpicc) and the stacks of its user-level
 * threads (a stack and its guard page are 2: 4 with a progress thread). Past the limit, mmap
 * fails wherever the job happens to be; mpcrun compares first (tm_rt_maps_need) and refuses a
 * job that cannot fit, saying how to raise the limit.
 */
#ifndef TM_RT_MAPS_H
#define TM_RT_MAPS_H

#include "runtime/placement.h"

typedef struct tm_rt_maps_need {
    long program;  /* the mappings of one copy of the program */
    long per_rank; /* the program's and the stacks' */
    long total;    /* the whole job's, with the process's own and its threads' */
    long limit;    /* vm.max_map_count, or -1 when it cannot be read */
} tm_rt_maps_need_t;

/* The job of placement p, whose program copy makes `program` mappings (tm_rt_elf_mappings),
 * run in a process like the calling one (the same libraries loaded: its own mappings count). */
void tm_rt_maps_need(const tm_rt_placement_t *p, int program, tm_rt_maps_need_t *need);

/* The mappings of the calling process now, or -1. */
long tm_rt_maps_count(void);

#endif /* TM_RT_MAPS_H */
