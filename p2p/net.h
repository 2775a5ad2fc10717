/*
 * ThreadMPI p2p/, below the transport seam: the network between this process and the other
 * processes of a job (one per host), on UCX's UCP active messages.
 *
 * One UCP worker per process and an endpoint to each peer process. A message is a header (the
 * transport's envelope, at most tm_p2p_net_max_header bytes) and data; UCX picks eager or
 * rendezvous by size. On arrival the receiver's callback gets the header and either the data
 * (eager: valid during the callback) or a descriptor that tm_p2p_net_fetch later reads into the
 * receive buffer, straight from the sender's memory where the transport can (rendezvous). The
 * messages of one sender arrive in the order it sent them.
 *
 * Not thread-safe: one caller at a time (the transport above serializes). The callbacks run
 * inside tm_p2p_net_progress and may send and fetch.
 */
#ifndef TM_P2P_NET_H
#define TM_P2P_NET_H

#include <stddef.h>

typedef struct tm_p2p_net tm_p2p_net_t;

/* A message as it arrives: the header, and the data or what fetches it. */
typedef struct tm_p2p_net_arrival {
    const void *header;
    size_t header_len;
    size_t data_len;
    const void *data; /* eager: the data, valid during the callback only; else NULL */
    void *desc;       /* rendezvous: for tm_p2p_net_fetch (exactly once); else NULL */
} tm_p2p_net_arrival_t;

/* A message arrived. */
typedef void (*tm_p2p_net_arrive_fn)(void *arg, const tm_p2p_net_arrival_t *m);

/* A send's buffer may be reused, or a fetch's data is in; err is 0 or -EIO. */
typedef void (*tm_p2p_net_done_fn)(void *arg, int err);

/* Opens the network of this process: the worker, and the callback for arrivals. 0, -ENOMEM, or
 * -EIO (UCX failed; it said why on stderr). */
int tm_p2p_net_open(tm_p2p_net_t **net_p, tm_p2p_net_arrive_fn arrive, void *arg);

/* The address the other processes connect to (valid until close). */
void tm_p2p_net_address(const tm_p2p_net_t *net, const void **addr, size_t *len);

/* Endpoints to npeers processes, peer i at addrs[i] (NULL: none, e.g. this process). 0 or
 * -EIO. */
int tm_p2p_net_connect(tm_p2p_net_t *net, int npeers, const void *const addrs[]);

/* The largest header a message may have. */
size_t tm_p2p_net_max_header(const tm_p2p_net_t *net);

/* Sends header (copied) and data (read until done) to peer. 0: done, the buffer may be reused; 1:
 * under way, done(arg, err) comes from a later tm_p2p_net_progress; -EINVAL (no such peer, header
 * too long) or -EIO. */
int tm_p2p_net_send(tm_p2p_net_t *net, int peer, const void *header, size_t header_len,
                    const void *data, size_t len, tm_p2p_net_done_fn done, void *arg);

/* Reads the data of a rendezvous arrival (desc) into buf, len bytes (the arrival's data_len).
 * 0: the data is in; 1: under way, done comes later; -EIO. */
int tm_p2p_net_fetch(tm_p2p_net_t *net, void *desc, void *buf, size_t len, tm_p2p_net_done_fn done,
                     void *arg);

/* Moves messages: runs arrivals and completions. Returns how many events it processed. */
unsigned tm_p2p_net_progress(tm_p2p_net_t *net);

/* Closes the endpoints and the worker, at once: call it when nothing is in flight (after the
 * job's last collective). */
void tm_p2p_net_close(tm_p2p_net_t *net);

#endif /* TM_P2P_NET_H */
