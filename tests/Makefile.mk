# tests/: Check unit tests per layer (tests/unit/<layer>/) and MPI programs run by mpcrun
# (tests/mpi/, listed in tests/mpi/testlist).

TEST_EXTENSIONS = .x .sh
EXTRA_DIST += tests/lsan.supp tests/tsan.supp tests/deps.sh
# UCX_MEM_MMAP_HOOK_MODE=none: UCX's memory hooks (libucm, set up as it loads) patch mmap and
# madvise, which the sanitizers intercept too; a thread that exits then crashes
# ThreadSanitizer. The hooks serve the registration caches of RDMA transports, unused here.
AM_TESTS_ENVIRONMENT = \
	TM_BUILDDIR='$(abs_top_builddir)'; TM_SRCDIR='$(abs_top_srcdir)'; TM_CC='$(CC)'; \
	TM_SANITIZE_FLAGS='$(TM_SANITIZE_FLAGS)'; \
	CK_DEFAULT_TIMEOUT=60; \
	LSAN_OPTIONS=use_tls=0:suppressions='$(abs_top_srcdir)/tests/lsan.supp'; \
	TSAN_OPTIONS=suppressions='$(abs_top_srcdir)/tests/tsan.supp'; \
	UCX_MEM_MMAP_HOOK_MODE=none; \
	export TM_BUILDDIR TM_SRCDIR TM_CC TM_SANITIZE_FLAGS CK_DEFAULT_TIMEOUT LSAN_OPTIONS TSAN_OPTIONS \
	    UCX_MEM_MMAP_HOOK_MODE;
TM_UNIT_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(HWLOC_CFLAGS) $(INIH_CFLAGS)

# The layers' dependencies point one way: no include and no call runs upward (tests/layers.sh).
TESTS += tests/layers.sh
EXTRA_DIST += tests/layers.sh

include tests/unit/sched/Makefile.mk
include tests/unit/shm/Makefile.mk
include tests/unit/runtime/Makefile.mk
include tests/unit/p2p/Makefile.mk
include tests/unit/nbc/Makefile.mk
include tests/unit/mpi/Makefile.mk
include tests/unit/io/Makefile.mk
include tests/unit/launcher/Makefile.mk
include tests/mpi/Makefile.mk

# A libFuzzer target for the configuration parser: `make fuzz` builds it with clang and runs it
# for FUZZ_SECONDS from the seeds in tests/fuzz/corpus (new finds go to tests/fuzz/found in the
# build tree). Not part of `make check`: a bounded run by hand, or in a nightly job.
FUZZ_CC = clang
FUZZ_SECONDS = 60
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
EXTRA_DIST += tests/fuzz/settings_fuzz.c tests/fuzz/corpus/file_all_keys \
	tests/fuzz/corpus/file_bad_value tests/fuzz/corpus/file_bad_line tests/fuzz/corpus/flags \
	tests/fuzz/corpus/environ
CLEANFILES += tests/fuzz/settings_fuzz

tests/fuzz/settings_fuzz: $(srcdir)/tests/fuzz/settings_fuzz.c $(srcdir)/runtime/settings.c \
		$(srcdir)/runtime/settings.h
	@command -v $(FUZZ_CC) > /dev/null || { echo "make fuzz needs clang with libFuzzer" \
	    "(Debian: apt-get install clang); or set FUZZ_CC" >&2; exit 1; }
	$(AM_V_GEN)$(MKDIR_P) tests/fuzz && $(FUZZ_CC) $(FUZZ_FLAGS) -I$(top_builddir) \
	    -I$(top_srcdir) -DTM_SYSCONFDIR='"$(sysconfdir)"' $(HWLOC_CFLAGS) $(INIH_CFLAGS) \
	    -o $@ $(srcdir)/tests/fuzz/settings_fuzz.c $(srcdir)/runtime/settings.c $(INIH_LIBS)

fuzz: tests/fuzz/settings_fuzz
	$(MKDIR_P) tests/fuzz/found
	tests/fuzz/settings_fuzz -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=tests/fuzz/found/ \
	    tests/fuzz/found $(srcdir)/tests/fuzz/corpus
.PHONY: fuzz
clean-local:
	rm -rf tests/fuzz/found
