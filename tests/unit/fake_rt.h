/*
 * A fake of runtime/rank.h for the unit tests of the layers above runtime/: the test chooses who
 * is calling, and tm_rt_job_abort ends the test process, after checking what was printed on
 * stderr.
 */
#ifndef TM_TEST_FAKE_RT_H
#define TM_TEST_FAKE_RT_H

#include "runtime/rank.h"

/* The rank the test runs as: tm_rt_rank_self() returns it to a thread that called
 * fake_rt_set_caller(1) (fake_rt_setup does for its caller), NULL after fake_rt_set_caller(0). */
extern tm_rt_rank_t fake_rt_rank;
void fake_rt_set_caller(int is_rank);
extern int fake_rt_world_size;
/* The ranks of "this process" (tm_rt_rank_is_local): fake_rt_setup makes them the whole world;
 * a test may narrow them to play a job on several hosts. */
extern int fake_rt_local_first, fake_rt_local_size;
extern double fake_rt_now;

/* Exit statuses of the test process that tell a broken expectation from an error class. */
#define FAKE_RT_EXIT_UNEXPECTED_ABORT 250
#define FAKE_RT_EXIT_WRONG_STDERR     251
#define FAKE_RT_EXIT_WRONG_RANK       252

/* Makes the caller rank `world_rank` of a job of `size` ranks, before MPI_Init. */
void fake_rt_setup(int world_rank, int size);

/* Expects tm_rt_job_abort(rank, ...) after exactly `expected` on stderr (which goes to a file from
 * now on); the process then exits with the abort's code, or with FAKE_RT_EXIT_* on a mismatch. */
void fake_rt_expect_abort(int rank, const char *expected);

/* What has been written on stderr since fake_rt_capture_stderr(), in a static buffer. */
void fake_rt_capture_stderr(void);
const char *fake_rt_captured_stderr(void);

#endif /* TM_TEST_FAKE_RT_H */
