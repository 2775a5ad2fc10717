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
	nbc/bcast_binomial.c
