# shm/: shared-memory transport: the inbound MPSC queues, the SPSC rings and the pools of cells.

noinst_LTLIBRARIES += shm/libtmshm.la
shm_libtmshm_la_CFLAGS = $(TM_LIB_CFLAGS)
shm_libtmshm_la_LIBADD = $(NUMA_LIBS)
shm_libtmshm_la_SOURCES = \
	shm/shm.h \
	shm/pool.h \
	shm/ring.h \
	shm/queue.c \
	shm/ring.c \
	shm/pool.c
