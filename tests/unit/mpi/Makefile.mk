# Check unit tests of mpi/, through the MPI calls. They link the layer's library and those below
# it with a fake of the runtime (tests/unit/fake_rt.c), which decides which rank is calling and
# turns tm_rt_job_abort into an exit status that Check's exit tests compare with the expected
# error class.

TM_MPI_UNIT_TESTS = \
	tests/unit/mpi/test_error \
	tests/unit/mpi/test_init \
	tests/unit/mpi/test_comm \
	tests/unit/mpi/test_env
check_PROGRAMS += $(TM_MPI_UNIT_TESTS)
TESTS += $(TM_MPI_UNIT_TESTS)

tm_mpi_unit_fake = $(tm_unit_fake_rt)
tm_mpi_unit_ldadd = mpi/libtmmpi.la io/libtmio.la rma/libtmrma.la coll/libtmcoll.la nbc/libtmnbc.la $(tm_p2p_unit_ldadd)

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

# Reduction operations (obj/op.c, mpi/op.c).
TM_MPI_UNIT_TESTS += tests/unit/mpi/test_op
tests_unit_mpi_test_op_SOURCES = tests/unit/mpi/test_op.c $(tm_mpi_unit_fake)
tests_unit_mpi_test_op_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_mpi_test_op_LDADD = $(tm_mpi_unit_ldadd)
