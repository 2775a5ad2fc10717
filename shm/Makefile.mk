# shm/: shared-memory transport: the inbound MPSC queues and the pools of cells.

noinst_LTLIBRARIES += shm/libtmshm.la
shm_libtmshm_la_CFLAGS = $(TM_LIB_CFLAGS)
shm_libtmshm_la_LIBADD = $(NUMA_LIBS)
shm_libtmshm_la_SOURCES = \
	shm/shm.h \
	shm/pool.h \
	shm/queue.c \
	shm/pool.c
