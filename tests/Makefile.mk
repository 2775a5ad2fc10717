# tests/: Check unit tests per layer (tests/unit/<layer>/) and MPI programs run by mpcrun
# (tests/mpi/, listed in tests/mpi/testlist).

TEST_EXTENSIONS = .x .sh
EXTRA_DIST += tests/lsan.supp tests/deps.sh
AM_TESTS_ENVIRONMENT = \
	TM_BUILDDIR='$(abs_top_builddir)'; TM_SRCDIR='$(abs_top_srcdir)'; \
	CK_DEFAULT_TIMEOUT=60; \
	LSAN_OPTIONS=use_tls=0:suppressions='$(abs_top_srcdir)/tests/lsan.supp'; \
	export TM_BUILDDIR TM_SRCDIR CK_DEFAULT_TIMEOUT LSAN_OPTIONS;
TM_UNIT_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(HWLOC_CFLAGS) $(INIH_CFLAGS)

include tests/unit/sched/Makefile.mk
include tests/unit/shm/Makefile.mk
include tests/unit/runtime/Makefile.mk
include tests/unit/mpi/Makefile.mk
include tests/unit/nbc/Makefile.mk
include tests/mpi/Makefile.mk
