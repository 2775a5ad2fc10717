# Check unit tests of sched/. They link the convenience library directly and so also reach the
# internal headers (runq.h, stack.h).

tm_sched_test_ldadd = sched/libtmsched.la $(CHECK_LIBS) $(HWLOC_LIBS) -lm

check_PROGRAMS += \
	tests/unit/sched/test_runq \
	tests/unit/sched/test_stack \
	tests/unit/sched/test_ult \
	tests/unit/sched/test_vp
TESTS += \
	tests/unit/sched/test_runq \
	tests/unit/sched/test_stack \
	tests/unit/sched/test_ult \
	tests/unit/sched/test_vp

tests_unit_sched_test_runq_SOURCES = tests/unit/sched/test_runq.c
tests_unit_sched_test_runq_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_sched_test_runq_LDADD = $(tm_sched_test_ldadd)

tests_unit_sched_test_stack_SOURCES = tests/unit/sched/test_stack.c
tests_unit_sched_test_stack_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_sched_test_stack_LDADD = $(tm_sched_test_ldadd)

tests_unit_sched_test_ult_SOURCES = tests/unit/sched/test_ult.c
if TM_CONTEXT_X86_64
tests_unit_sched_test_ult_SOURCES += tests/unit/sched/regs_x86_64.S
endif
if TM_CONTEXT_AARCH64
tests_unit_sched_test_ult_SOURCES += tests/unit/sched/regs_aarch64.S
endif
EXTRA_DIST += tests/unit/sched/regs_x86_64.S tests/unit/sched/regs_aarch64.S
tests_unit_sched_test_ult_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_sched_test_ult_LDADD = $(tm_sched_test_ldadd)

tests_unit_sched_test_vp_SOURCES = tests/unit/sched/test_vp.c
tests_unit_sched_test_vp_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_sched_test_vp_LDADD = $(tm_sched_test_ldadd)
