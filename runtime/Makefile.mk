# runtime/: the process's services: start-up and shutdown of the job, privatization (program
# loading), signals, settings, placement, the profiler, and the rank's identity.

noinst_LTLIBRARIES += runtime/libtmrt.la
runtime_libtmrt_la_CFLAGS = $(TM_LIB_CFLAGS)
runtime_libtmrt_la_SOURCES = \
	runtime/rank.h \
	runtime/job.h \
	runtime/job.c \
	runtime/program.h \
	runtime/program.c \
	runtime/elf_section.h \
	runtime/elf_section.c \
	runtime/signals.h \
	runtime/signals.c \
	runtime/settings.h \
	runtime/settings.c \
	runtime/placement.h \
	runtime/placement.c \
	runtime/profile.h \
	runtime/profile_clock.h \
	runtime/profile.c \
	runtime/affinity.c \
	runtime/sleep.c \
	runtime/threads.c

# Linked into the program's shared object, so into each rank's private copy: exit() and the
# standard-input functions of a rank go through the runtime (rank_hooks.c), and the C library's
# per-process state that a program observes is the copy's own (the other files: getopt, the
# random generators, strtok, strerror, the time conversions, the name lookups, hsearch, signgam,
# and the CPU affinity of the rank's own thread); a rank's sleeps let the other ranks of its core
# run (rank_sleep.c).
# Each file is an archive member that a program pulls in only when it calls one of its functions.
pkglib_LIBRARIES += runtime/libthreadmpi_rank.a
runtime_libthreadmpi_rank_a_SOURCES = runtime/rank_hooks.c runtime/rank_getopt.c \
	runtime/rank_random.c runtime/rank_strings.c runtime/rank_time.c runtime/rank_names.c \
	runtime/rank_hsearch.c runtime/rank_math.c runtime/rank_affinity.c runtime/rank_sleep.c
runtime_libthreadmpi_rank_a_CFLAGS = $(AM_CFLAGS) -fPIC

runtime_libtmrt_la_CPPFLAGS = $(AM_CPPFLAGS) -DTM_SYSCONFDIR='"$(sysconfdir)"'
