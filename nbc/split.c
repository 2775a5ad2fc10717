/*
 * The split-tree's S for a collective: the configuration's number, or the model's choice for
 * this job (model.h): N = the ranks of the collective, P = the cores no rank uses, where the
 * progress threads run. With no idle core the progress threads share the ranks' cores and the
 * model gives S = H: the whole tree on the ranks, as in the blocking collective; a collective
 * then overlaps computation only through the rank's own MPI_Test calls.
 */
#include "config.h"

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

int tm_nbc_split_levels(int size, bool doubling)
{
    int height = tm_nbc_tree_height(size);
    int s = tm_rt_split_levels();
    if (s < 0)
        s = tm_nbc_model_choose(doubling ? TM_NBC_MODEL_DOUBLING : TM_NBC_MODEL_CONSTANT, size,
                                size + tm_rt_idle_cores());
    return s < height ? s : height;
}
