# Check unit tests of p2p/: matching through the layer's seams (test_match), and under races
# between real threads (test_match_races). They link the layer's library and those below it,
# with a fake of the runtime (tests/unit/fake_rt.c).

TM_P2P_UNIT_TESTS = tests/unit/p2p/test_match tests/unit/p2p/test_match_races
check_PROGRAMS += $(TM_P2P_UNIT_TESTS)
TESTS += $(TM_P2P_UNIT_TESTS)

tm_unit_fake_rt = tests/unit/fake_rt.c tests/unit/fake_rt.h runtime/profile.c runtime/profile.h \
	runtime/profile_clock.h
tm_p2p_unit_ldadd = p2p/libtmp2p.la obj/libtmobj.la shm/libtmshm.la sched/libtmsched.la \
	$(NUMA_LIBS) $(HWLOC_LIBS) $(CHECK_LIBS)

tests_unit_p2p_test_match_SOURCES = tests/unit/p2p/test_match.c $(tm_unit_fake_rt)
tests_unit_p2p_test_match_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_p2p_test_match_LDADD = $(tm_p2p_unit_ldadd)

# Producer threads, each a rank's sending side, and a receiver posting MPI_ANY_SOURCE /
# MPI_ANY_TAG receives; short enough for ThreadSanitizer.
tests_unit_p2p_test_match_races_SOURCES = tests/unit/p2p/test_match_races.c $(tm_unit_fake_rt)
tests_unit_p2p_test_match_races_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_p2p_test_match_races_LDADD = $(tm_p2p_unit_ldadd)

# The network between processes (p2p/net_ucx.c): two networks of one process connected to each
# other, with UCX's own choice of transports and with TCP on the loopback interface.
check_PROGRAMS += tests/unit/p2p/test_net
TESTS += tests/unit/p2p/test_net
tests_unit_p2p_test_net_SOURCES = tests/unit/p2p/test_net.c p2p/net_ucx.c p2p/net.h
tests_unit_p2p_test_net_CFLAGS = $(TM_UNIT_CFLAGS) $(UCX_CFLAGS)
tests_unit_p2p_test_net_LDADD = $(UCX_LIBS) $(CHECK_LIBS)
