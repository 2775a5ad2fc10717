# sched/: virtual processors, user-level threads, context switch, stacks.

noinst_LTLIBRARIES += sched/libtmsched.la
sched_libtmsched_la_CFLAGS = $(TM_LIB_CFLAGS)
sched_libtmsched_la_LIBADD = $(HWLOC_LIBS) $(NUMA_LIBS)
sched_libtmsched_la_SOURCES = \
	sched/sched.h \
	sched/context.h \
	sched/runq.h \
	sched/stack.h \
	sched/stack.c \
	sched/ult.h \
	sched/ult.c \
	sched/vp.h \
	sched/vp.c

if TM_CONTEXT_X86_64
sched_libtmsched_la_SOURCES += sched/context_x86_64.S
endif
if TM_CONTEXT_AARCH64
sched_libtmsched_la_SOURCES += sched/context_aarch64.S
endif
if TM_CONTEXT_UCONTEXT
sched_libtmsched_la_SOURCES += sched/context_ucontext.c
endif
EXTRA_DIST += sched/context_x86_64.S sched/context_aarch64.S sched/context_ucontext.c
