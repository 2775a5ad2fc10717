# io/: files through the MPI interface: the shared part of an open file (file.c), views
# (view.c), data access (access.c), two-phase collective accesses (collective.c) and the I/O
# threads of the non-blocking accesses (worker.c).

noinst_LTLIBRARIES += io/libtmio.la
io_libtmio_la_CFLAGS = $(TM_LIB_CFLAGS)
io_libtmio_la_SOURCES = \
	io/io.h \
	io/file.c \
	io/view.c \
	io/access.c \
	io/collective.c \
	io/worker.c
