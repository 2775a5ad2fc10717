# Check unit tests of shm/. They link the convenience library directly and so also reach the
# internal header (pool.h).

tm_shm_test_ldadd = shm/libtmshm.la $(NUMA_LIBS) $(CHECK_LIBS)

check_PROGRAMS += \
	tests/unit/shm/test_queue \
	tests/unit/shm/test_pool \
	tests/unit/shm/test_ring \
	tests/unit/shm/test_transport
TESTS += \
	tests/unit/shm/test_queue \
	tests/unit/shm/test_pool \
	tests/unit/shm/test_ring \
	tests/unit/shm/test_transport

tests_unit_shm_test_queue_SOURCES = tests/unit/shm/test_queue.c
tests_unit_shm_test_queue_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_shm_test_queue_LDADD = $(tm_shm_test_ldadd)

tests_unit_shm_test_pool_SOURCES = tests/unit/shm/test_pool.c
tests_unit_shm_test_pool_CFLAGS = $(TM_UNIT_CFLAGS) $(NUMA_CFLAGS)
tests_unit_shm_test_pool_LDADD = $(tm_shm_test_ldadd)

tests_unit_shm_test_transport_SOURCES = tests/unit/shm/test_transport.c
tests_unit_shm_test_transport_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_shm_test_transport_LDADD = $(tm_shm_test_ldadd)

tests_unit_shm_test_ring_SOURCES = tests/unit/shm/test_ring.c
tests_unit_shm_test_ring_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_shm_test_ring_LDADD = $(tm_shm_test_ldadd)
