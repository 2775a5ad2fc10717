/*
 * The split-tree's S for a collective: the configuration's number, or the model's choice for
 * this job (model.h): N = the ranks of the collective, P = the cores no rank uses, where the
 * progress threads run. With no idle core the progress threads share the ranks' cores and the
 * model gives S = H: the whole tree on the ranks, as in the blocking collective; a collective
 * then overlaps computation only through the rank's own MPI_Test calls.
 */
#include "config.h"

#include <stdatomic.h>

#include "model.h"
#include "nbc.h"
#include "runtime/rank.h"

int tm_nbc_tree_height(int size)
{
    int h = 0;
    while ((1 << h) < size)
        h++;
    return h;
}

/* The answers so far, S + 1 (0: not asked yet) by kind and size: the inputs are fixed for the job
 * once it starts, and every non-blocking collective asks. Ranks that ask at once store the same
 * answer. */
#define CACHED_SIZES 4096
static _Atomic unsigned char cached[2][CACHED_SIZES];

int tm_nbc_split_levels(int size, bool doubling)
{
    bool cache = size >= 0 && size < CACHED_SIZES;
    if (cache) {
        int known = atomic_load_explicit(&cached[doubling][size], memory_order_relaxed);
        if (known)
            return known - 1;
    }
    int height = tm_nbc_tree_height(size);
    int s = tm_rt_split_levels();
    if (s < 0)
        s = tm_nbc_model_choose(doubling ? TM_NBC_MODEL_DOUBLING : TM_NBC_MODEL_CONSTANT, size,
                                size + tm_rt_idle_cores());
    s = s < height ? s : height;
    if (cache && s >= 0)
        atomic_store_explicit(&cached[doubling][size], (unsigned char)(s + 1),
                              memory_order_relaxed);
    return s;
}
