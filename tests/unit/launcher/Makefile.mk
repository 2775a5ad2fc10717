# Check unit tests of launcher/.
check_PROGRAMS += tests/unit/launcher/test_hosts
TESTS += tests/unit/launcher/test_hosts
tests_unit_launcher_test_hosts_SOURCES = tests/unit/launcher/test_hosts.c launcher/hosts.c \
	launcher/hosts.h
tests_unit_launcher_test_hosts_CFLAGS = $(TM_UNIT_CFLAGS)
tests_unit_launcher_test_hosts_LDADD = $(CHECK_LIBS)
