# coll/: the collective algorithms: each collective's entry point, which picks its algorithm
# (coll.c), which checks that the members' calls agree (check.c); the flat (flat.c) and shared-address (shared.c) ones; one schedule algorithm per
# file, run by nbc/'s engine; dynamic broadcasts.

noinst_LTLIBRARIES += coll/libtmcoll.la
coll_libtmcoll_la_CFLAGS = $(TM_LIB_CFLAGS)
coll_libtmcoll_la_SOURCES = \
	coll/coll.h \
	coll/coll.c \
	coll/inter.c \
	coll/check.h \
	coll/check.c \
	coll/blocks.h \
	coll/steps.h \
	coll/flat.c \
	coll/shared.c \
	coll/bcast_dynamic.c

# Schedule algorithms: one-to-all and all-to-one trees, and the linear v-forms.
coll_libtmcoll_la_SOURCES += \
	coll/bcast_binomial.c \
	coll/reduce_binomial.c \
	coll/gather_binomial.c \
	coll/scatter_binomial.c \
	coll/gatherv_linear.c \
	coll/scatterv_linear.c

# Schedule algorithms in which every member sends and receives.
coll_libtmcoll_la_SOURCES += \
	coll/barrier_dissemination.c \
	coll/allgather_recdoubling.c \
	coll/allgather_bruck.c \
	coll/allgather_ring.c \
	coll/alltoall_bruck.c \
	coll/alltoall_pairwise.c \
	coll/allreduce_recdoubling.c \
	coll/allreduce_rabenseifner.c \
	coll/allreduce_split.c \
	coll/scan_recdoubling.c \
	coll/reduce_scatter_pairwise.c \
	coll/neighbor_linear.c
