# Check unit tests of nbc/: the split-tree model (test_model) and the schedule engine
# (test_engine), which links the layer's library and those below it with a fake of the runtime.

check_PROGRAMS += tests/unit/nbc/test_model tests/unit/nbc/test_engine
TESTS += tests/unit/nbc/test_model tests/unit/nbc/test_engine

tests_unit_nbc_test_model_SOURCES = tests/unit/nbc/test_model.c
tests_unit_nbc_test_model_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_nbc_test_model_LDADD = nbc/libtmnbc.la $(CHECK_LIBS)

tests_unit_nbc_test_engine_SOURCES = tests/unit/nbc/test_engine.c $(tm_unit_fake_rt)
tests_unit_nbc_test_engine_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_nbc_test_engine_LDADD = nbc/libtmnbc.la $(tm_p2p_unit_ldadd)
