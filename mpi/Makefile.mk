# mpi/: the MPI API (mpi.h), argument checking, error classes, PMPI.

noinst_LTLIBRARIES += mpi/libtmmpi.la
mpi_libtmmpi_la_CFLAGS = $(TM_LIB_CFLAGS)
mpi_libtmmpi_la_SOURCES = \
	mpi/mpi.h \
	mpi/mpi_impl.h \
	mpi/handle.c \
	mpi/error.c \
	mpi/rank.c \
	mpi/init.c \
	mpi/comm.c \
	mpi/time.c \
	mpi/env.c
