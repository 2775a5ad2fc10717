# Check unit tests of mpi/. They link the layer's library with a fake of the runtime
# (fake_rt.c), which decides which rank is calling and turns tm_rt_job_abort into an exit
# status that Check's exit tests compare with the expected error class.

TM_MPI_UNIT_TESTS = \
	tests/unit/mpi/test_error \
	tests/unit/mpi/test_init \
	tests/unit/mpi/test_comm \
	tests/unit/mpi/test_env
check_PROGRAMS += $(TM_MPI_UNIT_TESTS)
TESTS += $(TM_MPI_UNIT_TESTS)

tm_mpi_unit_fake = tests/unit/mpi/fake_rt.c tests/unit/mpi/fake_rt.h runtime/profile.c runtime/profile.h \
	runtime/profile_clock.h
# mpi/ and nbc/ call each other: one archive of both, so that the link order does not matter.
check_LTLIBRARIES = tests/unit/mpi/libtmmpinbc.la
tests_unit_mpi_libtmmpinbc_la_SOURCES =
nodist_EXTRA_tests_unit_mpi_libtmmpinbc_la_SOURCES = dummy.c
tests_unit_mpi_libtmmpinbc_la_LIBADD = mpi/libtmmpi.la coll/libtmcoll.la nbc/libtmnbc.la p2p/libtmp2p.la obj/libtmobj.la
tm_mpi_unit_ldadd = tests/unit/mpi/libtmmpinbc.la shm/libtmshm.la sched/libtmsched.la $(NUMA_LIBS) $(HWLOC_LIBS) \
	$(CHECK_LIBS)

tests_unit_mpi_test_error_SOURCES = tests/unit/mpi/test_error.c $(tm_mpi_unit_fake)
tests_unit_mpi_test_error_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_mpi_test_error_LDADD = $(tm_mpi_unit_ldadd)

tests_unit_mpi_test_init_SOURCES = tests/unit/mpi/test_init.c $(tm_mpi_unit_fake)
tests_unit_mpi_test_init_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_mpi_test_init_LDADD = $(tm_mpi_unit_ldadd)

tests_unit_mpi_test_comm_SOURCES = tests/unit/mpi/test_comm.c $(tm_mpi_unit_fake)
tests_unit_mpi_test_comm_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_mpi_test_comm_LDADD = $(tm_mpi_unit_ldadd)

tests_unit_mpi_test_env_SOURCES = tests/unit/mpi/test_env.c $(tm_mpi_unit_fake)
tests_unit_mpi_test_env_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_mpi_test_env_LDADD = $(tm_mpi_unit_ldadd)

TM_MPI_UNIT_TESTS += tests/unit/mpi/test_datatype
tests_unit_mpi_test_datatype_SOURCES = tests/unit/mpi/test_datatype.c $(tm_mpi_unit_fake)
tests_unit_mpi_test_datatype_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_mpi_test_datatype_LDADD = $(tm_mpi_unit_ldadd)

# Groups, communicator queries, MPI_Dims_create, error handlers, attributes, info objects.
TM_MPI_UNIT_TESTS += \
	tests/unit/mpi/test_group \
	tests/unit/mpi/test_errhandler \
	tests/unit/mpi/test_attr \
	tests/unit/mpi/test_info

tests_unit_mpi_test_group_SOURCES = tests/unit/mpi/test_group.c $(tm_mpi_unit_fake)
tests_unit_mpi_test_group_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_mpi_test_group_LDADD = $(tm_mpi_unit_ldadd)

tests_unit_mpi_test_errhandler_SOURCES = tests/unit/mpi/test_errhandler.c $(tm_mpi_unit_fake)
tests_unit_mpi_test_errhandler_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_mpi_test_errhandler_LDADD = $(tm_mpi_unit_ldadd)

tests_unit_mpi_test_attr_SOURCES = tests/unit/mpi/test_attr.c $(tm_mpi_unit_fake)
tests_unit_mpi_test_attr_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_mpi_test_attr_LDADD = $(tm_mpi_unit_ldadd)

tests_unit_mpi_test_info_SOURCES = tests/unit/mpi/test_info.c $(tm_mpi_unit_fake)
tests_unit_mpi_test_info_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_mpi_test_info_LDADD = $(tm_mpi_unit_ldadd)

# Reduction operations (mpi/op.c).
TM_MPI_UNIT_TESTS += tests/unit/mpi/test_op
tests_unit_mpi_test_op_SOURCES = tests/unit/mpi/test_op.c $(tm_mpi_unit_fake)
tests_unit_mpi_test_op_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_mpi_test_op_LDADD = $(tm_mpi_unit_ldadd)

# Matching (mpi/p2p.c) under races: producer threads, each a rank's sending side, and a receiver
# posting MPI_ANY_SOURCE / MPI_ANY_TAG receives; short enough for ThreadSanitizer.
TM_MPI_UNIT_TESTS += tests/unit/mpi/test_p2p
tests_unit_mpi_test_p2p_SOURCES = tests/unit/mpi/test_p2p.c $(tm_mpi_unit_fake)
tests_unit_mpi_test_p2p_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_mpi_test_p2p_LDADD = $(tm_mpi_unit_ldadd)
