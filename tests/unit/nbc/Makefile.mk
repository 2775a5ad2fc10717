# Check unit tests of nbc/. They link the layer's convenience library directly.

tm_nbc_test_ldadd = nbc/libtmnbc.la $(CHECK_LIBS)

check_PROGRAMS += tests/unit/nbc/test_model
TESTS += tests/unit/nbc/test_model

tests_unit_nbc_test_model_SOURCES = tests/unit/nbc/test_model.c
tests_unit_nbc_test_model_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_nbc_test_model_LDADD = $(tm_nbc_test_ldadd)
