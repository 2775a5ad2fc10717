# bench/: benchmarks that print tables (never timed tests). `make bench` builds them and runs the
# side-by-side suite, bench/run.sh (BENCH_FLAGS=--short for its short mode; results in
# bench/results/ of the build tree).

EXTRA_PROGRAMS = bench/ult_switch bench/shm_queue bench/line_pingpong
tm_bench_programs = bench/ult_switch$(EXEEXT) bench/shm_queue$(EXEEXT) bench/line_pingpong$(EXEEXT)
CLEANFILES += $(tm_bench_programs)

bench_ult_switch_SOURCES = bench/ult_switch.c
bench_ult_switch_CFLAGS = $(AM_CFLAGS) $(HWLOC_CFLAGS)
bench_ult_switch_LDADD = sched/libtmsched.la $(HWLOC_LIBS)

bench_shm_queue_SOURCES = bench/shm_queue.c
bench_shm_queue_CFLAGS = $(AM_CFLAGS) $(HWLOC_CFLAGS)
bench_shm_queue_LDADD = shm/libtmshm.la $(NUMA_LIBS) $(HWLOC_LIBS)

bench_line_pingpong_SOURCES = bench/line_pingpong.c
bench_line_pingpong_CFLAGS = $(AM_CFLAGS) -pthread
bench_line_pingpong_LDFLAGS = -pthread

.PHONY: bench
bench: all $(tm_bench_programs)
	$(SHELL) $(srcdir)/bench/run.sh $(BENCH_FLAGS) .
EXTRA_DIST += bench/startup.c bench/startup.sh bench/p2p.c bench/p2p.sh bench/ring.c
EXTRA_DIST += bench/coll.c bench/overlap.c bench/overlap.sh bench/coll.sh bench/breakdown.c bench/breakdown.sh
EXTRA_DIST += bench/bcast_dynamic.c bench/bcast_dynamic.sh bench/rma.c bench/rma.sh bench/io.c bench/io.sh
EXTRA_DIST += bench/run.sh bench/lib.sh bench/plots.gp bench/manycore.sh bench/netpath.sh \
	bench/hosts.sh
