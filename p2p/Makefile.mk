# p2p/: the point-to-point engine: requests, the sending and receiving sides (matching, MPI's
# order, delivery), progress and waiting, active messages, hang notes; below matching, the
# transport seam (transport.h) and the transport between ranks of this process (mailboxes,
# fastboxes, rendezvous copies).

noinst_LTLIBRARIES += p2p/libtmp2p.la
p2p_libtmp2p_la_CFLAGS = $(TM_LIB_CFLAGS)
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
	p2p/copy.c
