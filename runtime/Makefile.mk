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
	runtime/profile.c

# Linked into the program's shared object, so into each rank's private copy: exit() and the
# standard-input functions of a rank go through the runtime.
pkglib_LIBRARIES += runtime/libthreadmpi_rank.a
runtime_libthreadmpi_rank_a_SOURCES = runtime/rank_hooks.c
runtime_libthreadmpi_rank_a_CFLAGS = $(AM_CFLAGS) -fPIC

runtime_libtmrt_la_CPPFLAGS = $(AM_CPPFLAGS) -DTM_SYSCONFDIR='"$(sysconfdir)"'
