#!/bin/sh
# A rank's sleeps let the other ranks of its core run (rank_sleep.c): 3 ranks on a synthetic
# machine of one core, so that they share it whatever this machine has.
. "$TM_SRCDIR/tests/mpi/lib.sh"

exe=$(tm_build rank_sleep.c) || exit 1
tm_run_env HWLOC_SYNTHETIC="core:1 pu:1" 3 "$exe"
expect_status 0 "rank_sleep at 3 ranks on one core"
expect_no_temp_files "rank_sleep"
