#!/bin/sh
# Dynamic broadcasts across NUMA nodes: a destination that heads a subtree on another NUMA node
# than the data stages a copy of its own for its subtree (coll/bcast_dynamic.c). This machine has
# one node, so the jobs run on synthetic topologies of 2 and 4 nodes (not pinned, but placed and
# numbered as there), where bcast_dynamic.c's receivers check every byte of its sweep (every
# destination count and payload size); with memory interleaved nobody stages.
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build bcast_dynamic.c)

for topology in "package:1 numa:2 core:4 pu:1" "package:2 numa:2 core:2 pu:1"; do
    tm_run_env HWLOC_SYNTHETIC="$topology" 12 "$prog" sweep
    expect_status 0 "$topology"
done
tm_run_env HWLOC_SYNTHETIC="package:1 numa:2 core:4 pu:1" 7 --set memory.policy=interleave "$prog" \
    sweep
expect_status 0 "interleaved memory"
expect_no_temp_files "bcast_dynamic_numa"
echo "bcast_dynamic_numa: ok"
