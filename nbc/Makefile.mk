# nbc/: the schedule engine of the collectives (engine.c, sched.c), their algorithms (one file
# each), and the split-tree model (model.c), which picks how many levels of a collective's tree
# the ranks run themselves; mpcrun --split-model prints it.

noinst_LTLIBRARIES += nbc/libtmnbc.la
nbc_libtmnbc_la_CFLAGS = $(TM_LIB_CFLAGS)
nbc_libtmnbc_la_SOURCES = \
	nbc/model.h \
	nbc/model.c \
	nbc/nbc.h \
	nbc/sched.h \
	nbc/sched.c \
	nbc/engine.c \
	nbc/split.c \
	nbc/bcast_binomial.c \
	nbc/bcast_dynamic.c \
	nbc/scan_recdoubling.c \
	nbc/reduce_scatter_pairwise.c \
	nbc/neighbor_linear.c \
	nbc/reduce_binomial.c \
	nbc/gather_binomial.c \
	nbc/scatter_binomial.c \
	nbc/gatherv_linear.c \
	nbc/scatterv_linear.c \
	nbc/blocks.h \
	nbc/steps.h \
	nbc/barrier_dissemination.c \
	nbc/allgather_recdoubling.c \
	nbc/allgather_bruck.c \
	nbc/allgather_ring.c \
	nbc/alltoall_bruck.c \
	nbc/alltoall_pairwise.c \
	nbc/allreduce_recdoubling.c \
	nbc/allreduce_rabenseifner.c \
	nbc/allreduce_split.c
