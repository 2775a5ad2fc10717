# mpi/: the MPI API (mpi.h), argument checking, error classes, PMPI.

noinst_LTLIBRARIES += mpi/libtmmpi.la
mpi_libtmmpi_la_CFLAGS = $(TM_LIB_CFLAGS)
mpi_libtmmpi_la_SOURCES = \
	mpi/mpi_impl.h \
	mpi/profile_calls.h \
	mpi/profile_calls.c \
	mpi/error.c \
	mpi/rank.c \
	mpi/init.c \
	mpi/comm.c \
	mpi/time.c \
	mpi/env.c \
	mpi/mem.c \
	mpi/handles.c \
	mpi/group.c \
	mpi/errhandler.c \
	mpi/attr.h \
	mpi/attr.c \
	mpi/info.c \
	mpi/comm_query.c \
	mpi/comm_create.c \
	mpi/comm_idup.c \
	mpi/intercomm.c \
	mpi/topo.h \
	mpi/topo_cart.c \
	mpi/topo_graph.c \
	mpi/topo_dims.c \
	mpi/bcast_dynamic.h \
	mpi/bcast_dynamic.c \
	mpi/deferred_send.c \
	mpi/pt2pt.h \
	mpi/pt2pt.c \
	mpi/wait.c \
	mpi/mprobe.c \
	mpi/greq.c \
	mpi/bsend.c \
	mpi/persist.c

# Datatypes: constructors, inquiries, pack/unpack.
mpi_libtmmpi_la_SOURCES += \
	mpi/type_create.c \
	mpi/type_query.c \
	mpi/pack.c

# One-sided communication: windows, synchronization, accesses (the windows are rma/'s).
mpi_libtmmpi_la_SOURCES += \
	mpi/win.h \
	mpi/win.c \
	mpi/win_sync.c \
	mpi/win_access.c

# Files (MPI-IO): opening, views, hints, error handlers (file.c); reading and writing
# (file_access.c). The files are io/'s.
mpi_libtmmpi_la_SOURCES += \
	mpi/file.h \
	mpi/file.c \
	mpi/file_access.c

# Reduction operations: MPI_Op_create, MPI_Op_free, MPI_Op_commutative, MPI_Reduce_local.
mpi_libtmmpi_la_SOURCES += \
	mpi/op.c

# Collectives: the calls (argument checks); the entry points and algorithms are in coll/.
mpi_libtmmpi_la_SOURCES += \
	mpi/coll.h \
	mpi/coll.c \
	mpi/coll_persistent.c \
	mpi/coll_inter.c \
	mpi/coll_bcast.c

# Rooted collectives: reduce, gather(v), scatter(v), blocking and non-blocking.
mpi_libtmmpi_la_SOURCES += \
	mpi/coll_reduce.c \
	mpi/coll_gather.c \
	mpi/coll_scatter.c

# Prefix reductions, reduce-scatter and the neighbourhood collectives, blocking and non-blocking.
mpi_libtmmpi_la_SOURCES += \
	mpi/coll_scan.c \
	mpi/coll_reduce_scatter.c \
	mpi/coll_neighbor.c

# Barrier and the collectives in which every member sends and receives: allgather(v),
# alltoall(v,w), allreduce, blocking and non-blocking.
mpi_libtmmpi_la_SOURCES += \
	mpi/coll_barrier.c \
	mpi/coll_allgather.c \
	mpi/coll_alltoall.c \
	mpi/coll_allreduce.c
