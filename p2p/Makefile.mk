# p2p/: the point-to-point engine: requests, the sending and receiving sides (matching, MPI's
# order, delivery), progress and waiting, active messages, hang notes; below matching, the
# transport seam (transport.h) and the transport between ranks of this process (mailboxes,
# fastboxes, rendezvous copies).

noinst_LTLIBRARIES += p2p/libtmp2p.la
p2p_libtmp2p_la_CFLAGS = $(TM_LIB_CFLAGS) -DTM_PKGLIBDIR='"$(pkglibdir)"'
p2p_libtmp2p_la_SOURCES = \
	p2p/p2p.h \
	p2p/p2p_impl.h \
	p2p/message.h \
	p2p/transport.h \
	p2p/fastbox.h \
	p2p/p2p.c \
	p2p/request.c \
	p2p/send.c \
	p2p/match.c \
	p2p/wait.c \
	p2p/note.c \
	p2p/mailbox.c \
	p2p/fastbox.c \
	p2p/copy.c \
	p2p/net.h \
	p2p/net_transport.c

# The network between the processes of a job on several hosts, a module that the library loads
# for such a job only (net_transport.c): a job of one process never loads UCX or PMIx.
pkglib_LTLIBRARIES += p2p/threadmpi-net.la
p2p_threadmpi_net_la_SOURCES = p2p/net.h p2p/net_module.c p2p/net_ucx.c p2p/net_pmix.c
p2p_threadmpi_net_la_CFLAGS = $(TM_LIB_CFLAGS) $(UCX_CFLAGS) $(PMIX_CFLAGS)
p2p_threadmpi_net_la_LIBADD = $(UCX_LIBS) $(PMIX_LIBS)
p2p_threadmpi_net_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -Wl,--no-undefined
