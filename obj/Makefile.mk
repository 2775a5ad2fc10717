# obj/: the MPI objects every layer above shares: handles and the rank's tables of them, the
# rank's MPI state, communicators, groups, datatypes (type maps and the type-to-type copy engine,
# external32), reduction operations, error classes and error handlers.

noinst_LTLIBRARIES += obj/libtmobj.la
obj_libtmobj_la_CFLAGS = $(TM_LIB_CFLAGS)
obj_libtmobj_la_SOURCES = \
	obj/obj.h \
	obj/handle.c \
	obj/table.c \
	obj/rank.c \
	obj/comm.c \
	obj/error.c \
	obj/errhandler.c \
	obj/group.h \
	obj/group.c \
	obj/datatype.h \
	obj/datatype.c \
	obj/external32.c \
	obj/op.h \
	obj/op.c
