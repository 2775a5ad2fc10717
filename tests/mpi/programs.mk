# The MPI test programs (tests/mpi/NAME.c -> NAME.x, run per tests/mpi/testlist) and the script
# tests (tests/mpi/NAME.sh, which build what they need themselves).
MPI_TEST_PROGS += \
	examples/hello.x \
	examples/globals.x \
	examples/task_dag.x \
	tests/mpi/privatize.x \
	tests/mpi/symbols.x \
	tests/mpi/argv.x \
	tests/mpi/libc_state.x

MPI_SCRIPT_TESTS += \
	tests/mpi/libc_same.sh \
	tests/mpi/threads_fork.sh \
	tests/mpi/thread_openmp.sh \
	tests/mpi/affinity.sh \
	tests/mpi/rank_sleep.sh \
	tests/mpi/many_ranks.sh \
	tests/mpi/coll_mismatch_fatal.sh \
	tests/mpi/exit_status.sh \
	tests/mpi/signals.sh \
	tests/mpi/mpcrun_usage.sh \
	tests/mpi/mpicc.sh \
	tests/mpi/stdin.sh \
	tests/mpi/hosts.sh \
	tests/mpi/hosts_netns.sh \
	tests/mpi/hosts_programs.sh \
	tests/mpi/foreign_launcher.sh \
	tests/mpi/settings.sh \
	tests/mpi/exports.sh \
	tests/mpi/gdb.sh

# Programs that only the script tests build.
EXTRA_DIST += \
	tests/mpi/rank_sleep.c \
	tests/mpi/getopt_cases.c \
	tests/mpi/static_cases.c \
	tests/mpi/threads_fork.c \
	tests/mpi/thread_openmp.c \
	tests/mpi/affinity.c \
	tests/mpi/many_ranks.c \
	tests/mpi/status.c \
	tests/mpi/crash.c \
	tests/mpi/sleeper.c \
	tests/mpi/stdin_read.c \
	tests/mpi/hosts_probe.c \
	tests/mpi/hosts_pmix.c \
	tests/mpi/hosts_cross.c \
	tests/mpi/rsh_local.sh \
	tests/mpi/recurse.c \
	tests/mpi/part_a.c \
	tests/mpi/part_b.c

# mpi/: the first slice of the API.
MPI_TEST_PROGS += \
	tests/mpi/mpi_init.x \
	tests/mpi/mpi_init_thread.x \
	tests/mpi/mpi_comm.x \
	tests/mpi/mpi_time.x \
	tests/mpi/mpi_mem.x \
	tests/mpi/mpi_handles.x \
	tests/mpi/mpi_removed.x \
	tests/mpi/intercomm.x \
	tests/mpi/comm_disconnect.x \
	tests/mpi/type_f90.x \
	tests/mpi/type_large_count.x \
	tests/mpi/type_repeat.x \
	tests/mpi/thread_multiple.x \
	tests/mpi/mpi_version.x \
	tests/mpi/mpi_errors.x \
	tests/mpi/mpi_pmpi.x
MPI_SCRIPT_TESTS += tests/mpi/mpi_fatal.sh
EXTRA_DIST += tests/mpi/mpi_fatal.c

# Point-to-point.
MPI_TEST_PROGS += tests/mpi/p2p_basic.x tests/mpi/p2p_ring.x tests/mpi/p2p_flood.x tests/mpi/p2p_datatype.x \
	tests/mpi/p2p_large.x tests/mpi/p2p_persistent.x tests/mpi/p2p_cancel.x \
	tests/mpi/p2p_grequest.x tests/mpi/p2p_isendrecv.x tests/mpi/p2p_large_count.x
MPI_SCRIPT_TESTS += tests/mpi/p2p_errors.sh tests/mpi/hang.sh tests/mpi/p2p_eager.sh
EXTRA_DIST += tests/mpi/p2p_errors.c tests/mpi/hang.c

# Datatypes.
MPI_TEST_PROGS += tests/mpi/mpi_datatype.x

# mpi/: groups, communicator queries, error handlers, attributes, info objects.
MPI_TEST_PROGS += \
	tests/mpi/mpi_group.x \
	tests/mpi/mpi_errhandler.x \
	tests/mpi/mpi_attr.x \
	tests/mpi/mpi_info.x tests/mpi/info_lifetime.x

# Communicator creation (MPI_Comm_idup apart), process topologies.
MPI_TEST_PROGS += tests/mpi/comm_create.x tests/mpi/comm_idup.x tests/mpi/topo.x

# nbc/: the split-tree model that mpcrun --split-model prints.
MPI_SCRIPT_TESTS += tests/mpi/split_model.sh

# Reduction operations.
MPI_TEST_PROGS += tests/mpi/mpi_op.x

# Collectives, against serial references (argument `nb`: the non-blocking forms); every S of the
# split-tree (coll_split.sh).
MPI_TEST_PROGS += tests/mpi/coll_rooted.x tests/mpi/coll_reduce.x tests/mpi/coll_all.x \
	tests/mpi/coll_neighbor.x tests/mpi/coll_nbc_many.x tests/mpi/coll_ibarrier.x \
	tests/mpi/coll_persistent.x tests/mpi/coll_large_count.x tests/mpi/coll_large_count_v.x \
	tests/mpi/coll_errors.x \
	tests/mpi/coll_flat.x tests/mpi/coll_truncate.x tests/mpi/coll_mismatch.x tests/mpi/coll_ring.x
MPI_SCRIPT_TESTS += tests/mpi/coll_split.sh
# Progress threads run a non-blocking collective while its ranks compute or cannot run
# (coll_progress.sh, which builds coll_progress.c, coll_progress_comm.c and coll_handoff.c).
MPI_SCRIPT_TESTS += tests/mpi/coll_progress.sh
EXTRA_DIST += tests/mpi/coll_progress.c tests/mpi/coll_progress_comm.c tests/mpi/coll_progress.h \
	tests/mpi/coll_handoff.c \
	tests/mpi/pause.h

# runtime/: placement of ranks and progress threads, and the configuration's layers and errors
# (mpcrun --dry-run, --report-bindings, --show-config, --help-config on synthetic topologies).
MPI_SCRIPT_TESTS += tests/mpi/placement.sh

# Dynamic broadcasts and send aggregation (MPIX_Ibcast_dynamic, MPIX_Deferred_send_*): their
# receivers check them; argument errors under MPI_ERRORS_RETURN, fatal ones by a script, and the
# staging across NUMA nodes on synthetic topologies by another.
MPI_TEST_PROGS += tests/mpi/bcast_dynamic.x tests/mpi/bcast_dynamic_errors.x
MPI_SCRIPT_TESTS += tests/mpi/bcast_dynamic_fatal.sh tests/mpi/bcast_dynamic_numa.sh

# One-sided communication: windows of every flavor, accesses with derived datatypes, the
# accumulates' atomicity, fence, PSCW, locks, shared windows, the errors, and MPI-4.0's `_c`
# forms.
MPI_TEST_PROGS += tests/mpi/rma_put_get.x tests/mpi/rma_accumulate.x tests/mpi/rma_sync.x \
	tests/mpi/rma_shared.x tests/mpi/rma_errors.x tests/mpi/rma_large_count.x

# Files (MPI-IO): open, sizes, hints, file pointers; views with vector, indexed, subarray and
# struct filetypes checked byte for byte with POSIX reads by other ranks; shared and ordered
# accesses; non-blocking and split collective ones; the error classes and file error handlers;
# two-phase collective accesses under every combination of their hints; the "external32" data
# representation; the large-count (_c) forms of the data-access calls.
MPI_TEST_PROGS += tests/mpi/file_basic.x tests/mpi/file_view.x tests/mpi/file_shared.x \
	tests/mpi/file_nonblocking.x tests/mpi/file_errors.x tests/mpi/file_collective.x \
	tests/mpi/file_external32.x tests/mpi/file_large_count.x
EXTRA_DIST += tests/mpi/file_test.h

# runtime/: the breakdown profiler (mpcrun --profile, --profile=csv:FILE), on a program that makes
# a known number of each kind of call.
MPI_SCRIPT_TESTS += tests/mpi/profile.sh
EXTRA_DIST += tests/mpi/profile.c

# bench/breakdown.c (the model of a message's injection overhead and latency): it builds, runs
# and prints its parts, model, error and what-if.
MPI_SCRIPT_TESTS += tests/mpi/bench_breakdown.sh

# bench/coll.c (every collective, blocking and non-blocking, each result checked): it builds with
# ThreadMPI's mpicc and runs on 3 ranks with a tiny measurement time.
MPI_SCRIPT_TESTS += tests/mpi/bench_coll.sh

# bench/ring.c (a token around a ring, the ring exchange and the halo exchange, each plus an
# allreduce, every value checked): it builds with ThreadMPI's mpicc and runs on 7 ranks.
MPI_SCRIPT_TESTS += tests/mpi/bench_ring.sh

# bench/rma.c (the one-sided patterns, the data of each put and get checked): it builds with
# ThreadMPI's mpicc and runs every operation at 2 and 5 ranks with a tiny measurement time.
MPI_SCRIPT_TESTS += tests/mpi/bench_rma.sh

# bench/io.c (IOR's patterns through MPI-IO, the data read back checked): it builds with
# ThreadMPI's mpicc and runs every access at 1 and 3 ranks on small blocks.
MPI_SCRIPT_TESTS += tests/mpi/bench_io.sh

# bench/overlap.sh (overlap by placement of the progress threads and split-tree levels): one run
# of tiny measurements on 2 ranks prints a row for each policy, level and collective.
MPI_SCRIPT_TESTS += tests/mpi/bench_overlap.sh

# bench/manycore.sh (the progress engine's targets on a many-core node): one run of tiny
# measurements on a synthetic machine of 2 cores prints figures for what it can test, and says
# what the rest needs.
MPI_SCRIPT_TESTS += tests/mpi/bench_manycore.sh

# bench/netpath.sh (the network libraries a multi-node job could use, between two network
# namespaces): one short run prints a row for 8 bytes (as root, with the tools of
# tests/deps.sh --compare; a SKIP otherwise).
MPI_SCRIPT_TESTS += tests/mpi/bench_netpath.sh

# bench/hosts.sh (ThreadMPI across two namespaces as hosts, beside Open MPI over TCP): one short
# run prints a row for 8 bytes (as root; a SKIP otherwise).
MPI_SCRIPT_TESTS += tests/mpi/bench_hosts.sh

# bench/run.sh, the side-by-side suite: its usage, and its plots drawn from a small CSV (no
# benchmark runs).
MPI_SCRIPT_TESTS += tests/mpi/bench_run.sh
