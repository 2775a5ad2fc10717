#!/bin/sh
# Non-blocking collectives go on while the ranks compute (coll_progress.c): 2 ranks on a
# synthetic machine of 4 cores, which leaves a core to each progress thread, with the whole
# schedule theirs ([nbc] split_levels = 0).
. "$TM_SRCDIR/tests/mpi/lib.sh"

exe=$(tm_build coll_progress.c) || exit 1
tm_run_env HWLOC_SYNTHETIC="core:4 pu:1" 2 --set nbc.split_levels=0 "$exe"
expect_status 0 "coll_progress at 2 ranks, progress threads on their own cores"
expect_no_temp_files "coll_progress"

# On 2 cores with a communication core (issue 29's item 5): the ranks share one core, their
# progress threads the other, and a rank that cannot run has its part run by its thread. The job
# is confined to 2 of this machine's CPUs (taskset), so that its VPs are pinned and the threads'
# core is their own; with a single CPU, on a synthetic machine of 2 cores.
# run_comm EXE: runs EXE so.
run_comm() {
    if taskset -c 0,1 true 2> /dev/null; then
        taskset -c 0,1 "$MPCRUN" -n 2 --timeout "$TM_JOB_TIMEOUT" --set placement.progress=comm \
            --set placement.comm_cores=1 --set nbc.split_levels=0 "$1" > "$out" 2> "$err" < /dev/null
        status=$?
    else
        tm_run_env HWLOC_SYNTHETIC="core:2 pu:1" 2 --set placement.progress=comm \
            --set placement.comm_cores=1 --set nbc.split_levels=0 "$1"
    fi
}
exe=$(tm_build coll_progress_comm.c) || exit 1
run_comm "$exe"
expect_status 0 "coll_progress_comm at 2 ranks on one core, progress threads on the other"
expect_no_temp_files "coll_progress_comm"

# The same setting: a large collective goes to the progress thread as it starts.
exe=$(tm_build coll_handoff.c) || exit 1
run_comm "$exe"
expect_status 0 "coll_handoff at 2 ranks on one core, progress threads on the other"
expect_no_temp_files "coll_handoff"
