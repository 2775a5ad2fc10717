# MPI programs built with the build-tree mpicc (tests/mpicc-build) into NAME.x, and run by
# tests/mpi/run-test once per line "NAME nranks [args]" of tests/mpi/testlist.
# Behaviours of mpcrun and mpicc themselves (exit codes, signals, usage) are tests/mpi/*.sh.

MPI_TEST_PROGS =
MPI_SCRIPT_TESTS =
include tests/mpi/programs.mk

check_SCRIPTS = $(MPI_TEST_PROGS)
TESTS += $(MPI_TEST_PROGS) $(MPI_SCRIPT_TESTS)
CLEANFILES += $(MPI_TEST_PROGS)
EXTRA_DIST += tests/mpi/testlist tests/mpi/run-test tests/mpi/lib.sh $(MPI_SCRIPT_TESTS) \
	$(MPI_TEST_PROGS:.x=.c)

X_LOG_COMPILER = $(SHELL) $(srcdir)/tests/mpi/run-test
SH_LOG_COMPILER = $(SHELL)

SUFFIXES += .x
.c.x:
	$(AM_V_GEN)$(MKDIR_P) $(@D) && tests/mpicc-build -O1 -g -o $@ $< -lm
$(MPI_TEST_PROGS): tests/mpicc-build libthreadmpi.la launcher/libthreadmpi_launcher.a \
	runtime/libthreadmpi_rank.a
