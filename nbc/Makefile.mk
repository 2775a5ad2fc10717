# nbc/: the schedule engine of the collectives: schedules (sched.c), their progress by the ranks
# and their progress threads (engine.c), and the split-tree (split.c) with its model (model.c),
# which picks how many levels of a collective's tree the ranks run themselves; mpcrun
# --split-model prints it.

noinst_LTLIBRARIES += nbc/libtmnbc.la
nbc_libtmnbc_la_CFLAGS = $(TM_LIB_CFLAGS)
nbc_libtmnbc_la_SOURCES = \
	nbc/nbc.h \
	nbc/sched.h \
	nbc/sched.c \
	nbc/engine.c \
	nbc/model.h \
	nbc/model.c \
	nbc/split.c
