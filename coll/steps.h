/*
 * nbc/: where the steps of the algorithms that are not trees run (the dissemination barrier,
 * allgather, alltoall, allreduce by exchanges): the split-tree's S applied to a sequence of
 * steps, for the algorithm files.
 *
 *   steps       0     1     2   ...   steps-rank_steps  ...  steps-1
 *   where       ANY   ANY   ANY       RANK                   RANK
 *
 * An algorithm of about lg p steps runs its last S steps on the rank, as a tree its last S
 * levels; one of p - 1 equal steps runs the same share of them as the last S levels of a
 * binomial tree hold of its transfers: all but the first (p - 1) / 2^S (tm_coll_linear_steps).
 */
#ifndef TM_COLL_STEPS_H
#define TM_COLL_STEPS_H

#include "nbc/nbc.h"

/* Where step `step` of `steps` runs (past the last step: as the last) when the last rank_steps
 * run on the rank. */
static inline tm_nbc_where_t tm_coll_step_where(int step, int steps, int rank_steps)
{
    if (step > steps - 1)
        step = steps - 1;
    return step >= steps - rank_steps ? TM_NBC_RANK : TM_NBC_ANY;
}

/* The steps of `steps` equal ones that run on the rank for split-tree level count S. */
static inline int tm_coll_linear_steps(int steps, int rank_levels)
{
    return steps - (rank_levels >= 31 ? 0 : steps >> rank_levels);
}

#endif /* TM_COLL_STEPS_H */
