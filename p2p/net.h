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
 * Not thread-safe: one caller at a time (the transport above serializes), but for
 * tm_p2p_net_signal. The callbacks run inside tm_p2p_net_progress and may send and fetch.
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
    const void *data; /* eager: the data, valid during the callback only (NULL when none) */
    void *desc;       /* rendezvous: for tm_p2p_net_fetch (exactly once); eager: NULL */
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

/* Makes every endpoint's connection now, before any message, and returns once all are made: the
 * peers must progress meanwhile (in their own tm_p2p_net_wire, or after it), and their first
 * messages may arrive during it. A peer that cannot be reached then fails the wire-up, in
 * MPI_Init, rather than a later message. 0, -ENOMEM or -EIO. */
int tm_p2p_net_wire(tm_p2p_net_t *net);

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

/* Asks the network to wake tm_p2p_net_sleep when it has something for tm_p2p_net_progress. Call
 * it after a progress that found nothing. 0: armed; 1: events came meanwhile (progress again);
 * -EIO. */
int tm_p2p_net_arm(tm_p2p_net_t *net);

/* Sleeps, after an arm that returned 0, until the network has something for
 * tm_p2p_net_progress, tm_p2p_net_signal is called, or timeout_ms pass. Touches nothing but the
 * event descriptor, so that others may send meanwhile. 0 or -EIO. */
int tm_p2p_net_sleep(tm_p2p_net_t *net, int timeout_ms);

/* Ends a tm_p2p_net_sleep, or the next one, at once. Any thread (the one exception). */
void tm_p2p_net_signal(tm_p2p_net_t *net);

/* Closes the endpoints and the worker, at once: call it when nothing is in flight (after the
 * job's last collective). */
void tm_p2p_net_close(tm_p2p_net_t *net);

/* ---- the process manager (net_pmix.c): who the job's processes are, and their addresses ---- */

/* Connects to the process manager that started this process (mpcrun's agent, or another PMIx
 * server): this process is number *index of *nprocs, one per host. 0, or -EIO (it said why on
 * stderr). */
int tm_p2p_pm_init(int *nprocs, int *index);

/* Publishes `len` bytes of `mine` and, after a fence with every process of the job, reads every
 * process's: (*all)[i] of (*lens)[i] bytes for process i, in one block the caller frees with
 * free(*all). 0, -ENOMEM or -EIO. */
int tm_p2p_pm_exchange(const void *mine, size_t len, void ***all, size_t **lens);

/* A fence with every process of the job. 0 or -EIO. */
int tm_p2p_pm_fence(void);

void tm_p2p_pm_finalize(void);

/* ---- the module ---- */

/* The functions above, as the module threadmpi-net.so exports them (symbol
 * TM_P2P_NET_MODULE_SYMBOL): the library loads it for a job on several hosts only, so that a job
 * of one process never loads UCX or PMIx. */
typedef struct tm_p2p_net_module {
    int (*open)(tm_p2p_net_t **net_p, tm_p2p_net_arrive_fn arrive, void *arg);
    void (*address)(const tm_p2p_net_t *net, const void **addr, size_t *len);
    int (*connect)(tm_p2p_net_t *net, int npeers, const void *const addrs[]);
    int (*wire)(tm_p2p_net_t *net);
    size_t (*max_header)(const tm_p2p_net_t *net);
    int (*send)(tm_p2p_net_t *net, int peer, const void *header, size_t header_len,
                const void *data, size_t len, tm_p2p_net_done_fn done, void *arg);
    int (*fetch)(tm_p2p_net_t *net, void *desc, void *buf, size_t len, tm_p2p_net_done_fn done,
                 void *arg);
    unsigned (*progress)(tm_p2p_net_t *net);
    int (*arm)(tm_p2p_net_t *net);
    int (*sleep)(tm_p2p_net_t *net, int timeout_ms);
    void (*signal)(tm_p2p_net_t *net);
    void (*close)(tm_p2p_net_t *net);
    int (*pm_init)(int *nprocs, int *index);
    int (*pm_exchange)(const void *mine, size_t len, void ***all, size_t **lens);
    int (*pm_fence)(void);
    void (*pm_finalize)(void);
} tm_p2p_net_module_t;

#define TM_P2P_NET_MODULE_SYMBOL "tm_p2p_net_module"

/* The module's file in the package's library folder, unless mpcrun names another one
 * (runtime/settings.h, TM_RT_ENV_MPCRUN_NET_MODULE: a build tree's). */
#define TM_P2P_NET_MODULE_FILE "threadmpi-net.so"

#endif /* TM_P2P_NET_H */
