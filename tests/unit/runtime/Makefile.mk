# Check unit tests of runtime/.
check_PROGRAMS += tests/unit/runtime/test_settings tests/unit/runtime/test_elf_section \
	tests/unit/runtime/test_placement
TESTS += tests/unit/runtime/test_settings tests/unit/runtime/test_elf_section \
	tests/unit/runtime/test_placement

tests_unit_runtime_test_settings_SOURCES = tests/unit/runtime/test_settings.c \
	runtime/settings.c runtime/settings.h
tests_unit_runtime_test_settings_CPPFLAGS = $(AM_CPPFLAGS) -DTM_SYSCONFDIR='"$(sysconfdir)"'
tests_unit_runtime_test_settings_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_runtime_test_settings_LDADD = $(INIH_LIBS) $(CHECK_LIBS)

tests_unit_runtime_test_elf_section_SOURCES = tests/unit/runtime/test_elf_section.c \
	runtime/elf_section.c runtime/elf_section.h
tests_unit_runtime_test_elf_section_CPPFLAGS = $(AM_CPPFLAGS) -DOBJCOPY='"$(OBJCOPY)"'
tests_unit_runtime_test_elf_section_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_runtime_test_elf_section_LDADD = $(CHECK_LIBS)

tests_unit_runtime_test_placement_SOURCES = tests/unit/runtime/test_placement.c \
	runtime/placement.c runtime/placement.h runtime/settings.c runtime/settings.h
tests_unit_runtime_test_placement_CPPFLAGS = $(AM_CPPFLAGS) -DTM_SYSCONFDIR='"$(sysconfdir)"'
tests_unit_runtime_test_placement_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_runtime_test_placement_LDADD = $(HWLOC_LIBS) $(INIH_LIBS) $(CHECK_LIBS)

# The profiler: the accounting, the points on a ULT, the timer, the table and the CSV.
check_PROGRAMS += tests/unit/runtime/test_profile
TESTS += tests/unit/runtime/test_profile
tests_unit_runtime_test_profile_SOURCES = tests/unit/runtime/test_profile.c \
	runtime/profile.c runtime/profile.h runtime/profile_clock.h
tests_unit_runtime_test_profile_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_runtime_test_profile_LDADD = sched/libtmsched.la $(HWLOC_LIBS) $(CHECK_LIBS)
