# Check unit tests of io/: views (the file bytes of each stream byte), accesses through a view to
# a real file, atomic mode and the I/O threads. Their types are built through the MPI calls, so
# they link mpi/ too, with the fake runtime (tests/unit/fake_rt.c).

TM_IO_UNIT_TESTS = tests/unit/io/test_io
check_PROGRAMS += $(TM_IO_UNIT_TESTS)
TESTS += $(TM_IO_UNIT_TESTS)

tests_unit_io_test_io_SOURCES = tests/unit/io/test_io.c $(tm_unit_fake_rt)
tests_unit_io_test_io_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_io_test_io_LDADD = $(tm_mpi_unit_ldadd)
