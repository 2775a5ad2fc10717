# rma/: one-sided communication: windows (win.c), their accesses (access.c) and their
# synchronization (sync.c).

noinst_LTLIBRARIES += rma/libtmrma.la
rma_libtmrma_la_CFLAGS = $(TM_LIB_CFLAGS)
rma_libtmrma_la_SOURCES = \
	rma/rma.h \
	rma/win.c \
	rma/access.c \
	rma/sync.c
