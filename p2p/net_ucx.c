/*
 * The network between processes (net.h) on UCX: UCP with the active-message feature, one worker
 * in serialized mode (the caller serializes), one endpoint per peer, one active-message id.
 *
 * Completions: an operation that completes at once returns 0 and calls nothing; one that UCX
 * returns a request for returns 1, and its callback, from ucp_worker_progress, calls the
 * caller's done with the request freed. Arrivals: the callback hands eager data over during the
 * call (UCS_OK: UCX reuses the memory after it); a rendezvous descriptor is kept by returning
 * UCS_INPROGRESS, and ucp_am_recv_data_nbx takes it over in tm_p2p_net_fetch.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ucp/api/ucp.h>

#include "p2p/net.h"

/* The active-message id of ThreadMPI's messages. */
#define TM_P2P_NET_AM_ID 0

struct tm_p2p_net {
    ucp_context_h context;
    ucp_worker_h worker;
    ucp_address_t *address;
    size_t address_len;
    size_t max_header;
    ucp_ep_h *eps;
    int npeers;
    tm_p2p_net_arrive_fn arrive;
    void *arrive_arg;
    unsigned events; /* counted by the callbacks, for tm_p2p_net_progress */
    int efd;         /* the worker's event descriptor (tm_p2p_net_sleep) */
};

/* What a pending operation's callback needs: where to report; for a send, its header too, which
 * UCX reads until the send completes. */
typedef struct pending {
    tm_p2p_net_t *net;
    tm_p2p_net_done_fn done;
    void *arg;
    char header[];
} pending_t;

static int ucx_failed(const char *what, ucs_status_t status)
{
    fprintf(stderr, "threadmpi: network (UCX): %s: %s\n", what, ucs_status_string(status));
    return -EIO;
}

static ucs_status_t on_arrival(void *arg, const void *header, size_t header_length, void *data,
                               size_t length, const ucp_am_recv_param_t *param)
{
    tm_p2p_net_t *net = arg;
    bool rndv = param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV;
    tm_p2p_net_arrival_t m = {
        .header = header,
        .header_len = header_length,
        .data_len = length,
        .data = rndv ? NULL : data,
        .desc = rndv ? data : NULL,
    };
    net->events++;
    net->arrive(net->arrive_arg, &m);
    return rndv ? UCS_INPROGRESS : UCS_OK;
}

int tm_p2p_net_open(tm_p2p_net_t **net_p, tm_p2p_net_arrive_fn arrive, void *arg)
{
    tm_p2p_net_t *net = calloc(1, sizeof *net);
    ucp_config_t *config;
    ucs_status_t st;
    int err = -EIO;
    if (!net)
        return -ENOMEM;
    net->arrive = arrive;
    net->arrive_arg = arg;

    st = ucp_config_read(NULL, NULL, &config);
    if (st != UCS_OK) {
        err = ucx_failed("reading its configuration", st);
        goto undo_alloc;
    }
    /* Hosts may share a kernel and /dev/shm (containers, namespaces): their traffic still goes
     * through the network, never shared memory, unless the user chooses UCX's transports. */
    if (!getenv("UCX_TLS") && (st = ucp_config_modify(config, "TLS", "^sm")) != UCS_OK) {
        ucp_config_release(config);
        err = ucx_failed("excluding shared memory from its transports", st);
        goto undo_alloc;
    }
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP,
        .mt_workers_shared = 0,
    };
    st = ucp_init(&params, config, &net->context);
    ucp_config_release(config);
    if (st != UCS_OK) {
        err = ucx_failed("ucp_init", st);
        goto undo_alloc;
    }
    ucp_worker_params_t wparams = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE | UCP_WORKER_PARAM_FIELD_EVENTS,
        .thread_mode = UCS_THREAD_MODE_SERIALIZED,
        .events = UCP_WAKEUP_RX | UCP_WAKEUP_TX,
    };
    st = ucp_worker_create(net->context, &wparams, &net->worker);
    if (st != UCS_OK) {
        err = ucx_failed("ucp_worker_create", st);
        goto undo_context;
    }
    ucp_worker_attr_t attr = {.field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER};
    st = ucp_worker_query(net->worker, &attr);
    if (st != UCS_OK) {
        err = ucx_failed("ucp_worker_query", st);
        goto undo_worker;
    }
    net->max_header = attr.max_am_header;
    st = ucp_worker_get_efd(net->worker, &net->efd);
    if (st != UCS_OK) {
        err = ucx_failed("ucp_worker_get_efd", st);
        goto undo_worker;
    }
    st = ucp_worker_get_address(net->worker, &net->address, &net->address_len);
    if (st != UCS_OK) {
        err = ucx_failed("ucp_worker_get_address", st);
        goto undo_worker;
    }
    ucp_am_handler_param_t handler = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
        .id = TM_P2P_NET_AM_ID,
        .cb = on_arrival,
        .arg = net,
        .flags = UCP_AM_FLAG_WHOLE_MSG,
    };
    st = ucp_worker_set_am_recv_handler(net->worker, &handler);
    if (st != UCS_OK) {
        err = ucx_failed("ucp_worker_set_am_recv_handler", st);
        goto undo_address;
    }
    *net_p = net;
    return 0;

undo_address:
    ucp_worker_release_address(net->worker, net->address);
undo_worker:
    ucp_worker_destroy(net->worker);
undo_context:
    ucp_cleanup(net->context);
undo_alloc:
    free(net);
    return err;
}

void tm_p2p_net_address(const tm_p2p_net_t *net, const void **addr, size_t *len)
{
    *addr = net->address;
    *len = net->address_len;
}

size_t tm_p2p_net_max_header(const tm_p2p_net_t *net)
{
    return net->max_header;
}

int tm_p2p_net_connect(tm_p2p_net_t *net, int npeers, const void *const addrs[])
{
    net->eps = calloc((size_t)npeers, sizeof *net->eps);
    if (!net->eps)
        return -ENOMEM;
    net->npeers = npeers;
    for (int i = 0; i < npeers; i++) {
        if (!addrs[i])
            continue;
        ucp_ep_params_t params = {
            .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
            .address = addrs[i],
        };
        ucs_status_t st = ucp_ep_create(net->worker, &params, &net->eps[i]);
        if (st != UCS_OK)
            return ucx_failed("ucp_ep_create", st);
    }
    return 0;
}

int tm_p2p_net_wire(tm_p2p_net_t *net)
{
    ucs_status_ptr_t *flushes = calloc((size_t)net->npeers + 1, sizeof *flushes);
    if (!flushes)
        return -ENOMEM;
    int err = 0;
    ucp_request_param_t param = {.op_attr_mask = 0};
    for (int i = 0; i < net->npeers; i++) {
        if (!net->eps[i])
            continue;
        flushes[i] = ucp_ep_flush_nbx(net->eps[i], &param);
        if (UCS_PTR_IS_ERR(flushes[i])) {
            err = ucx_failed("ucp_ep_flush_nbx", UCS_PTR_STATUS(flushes[i]));
            flushes[i] = NULL;
        }
    }
    for (int i = 0; i < net->npeers; i++) {
        if (!flushes[i])
            continue;
        ucs_status_t st;
        while ((st = ucp_request_check_status(flushes[i])) == UCS_INPROGRESS)
            ucp_worker_progress(net->worker);
        ucp_request_free(flushes[i]);
        if (st != UCS_OK && !err)
            err = ucx_failed("connecting to another host (ucp_ep_flush_nbx)", st);
    }
    free(flushes);
    return err;
}

static void on_complete(void *request, ucs_status_t status, void *user_data)
{
    pending_t *p = user_data;
    p->net->events++;
    ucp_request_free(request);
    if (status != UCS_OK)
        ucx_failed("a transfer", status);
    p->done(p->arg, status == UCS_OK ? 0 : -EIO);
    free(p);
}

static void on_fetched(void *request, ucs_status_t status, size_t length, void *user_data)
{
    (void)length;
    on_complete(request, status, user_data);
}

/* What an operation's status pointer says (see the top of this file). */
static int started(ucs_status_ptr_t sp, pending_t *p, const char *what)
{
    if (sp == NULL) {
        free(p);
        return 0;
    }
    if (UCS_PTR_IS_ERR(sp)) {
        free(p);
        return ucx_failed(what, UCS_PTR_STATUS(sp));
    }
    return 1;
}

int tm_p2p_net_send(tm_p2p_net_t *net, int peer, const void *header, size_t header_len,
                    const void *data, size_t len, tm_p2p_net_done_fn done, void *arg)
{
    if (peer < 0 || peer >= net->npeers || !net->eps[peer] || header_len > net->max_header)
        return -EINVAL;
    pending_t *p = malloc(sizeof *p + header_len);
    if (!p)
        return -ENOMEM;
    *p = (pending_t){.net = net, .done = done, .arg = arg};
    if (header_len)
        memcpy(p->header, header, header_len);
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = on_complete,
        .user_data = p,
    };
    return started(
        ucp_am_send_nbx(net->eps[peer], TM_P2P_NET_AM_ID, p->header, header_len, data, len, &param),
        p, "ucp_am_send_nbx");
}

int tm_p2p_net_fetch(tm_p2p_net_t *net, void *desc, void *buf, size_t len, tm_p2p_net_done_fn done,
                     void *arg)
{
    pending_t *p = malloc(sizeof *p);
    if (!p)
        return -ENOMEM;
    *p = (pending_t){.net = net, .done = done, .arg = arg};
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.recv_am = on_fetched,
        .user_data = p,
    };
    return started(ucp_am_recv_data_nbx(net->worker, desc, buf, len, &param), p,
                   "ucp_am_recv_data_nbx");
}

unsigned tm_p2p_net_progress(tm_p2p_net_t *net)
{
    net->events = 0;
    while (ucp_worker_progress(net->worker) != 0)
        ;
    return net->events;
}

int tm_p2p_net_arm(tm_p2p_net_t *net)
{
    ucs_status_t st = ucp_worker_arm(net->worker);
    if (st == UCS_ERR_BUSY)
        return 1; /* events came since the last progress, or a signal */
    return st == UCS_OK ? 0 : ucx_failed("ucp_worker_arm", st);
}

int tm_p2p_net_sleep(tm_p2p_net_t *net, int timeout_ms)
{
    struct pollfd fd = {.fd = net->efd, .events = POLLIN};
    return poll(&fd, 1, timeout_ms) < 0 && errno != EINTR ? -EIO : 0;
}

void tm_p2p_net_signal(tm_p2p_net_t *net)
{
    ucp_worker_signal(net->worker);
}

/* Closes one endpoint at once, without waiting for the peer: by then the job has agreed that
 * nothing is in flight (its last collective), and a peer that is gone must not stall the close. */
static void close_ep(tm_p2p_net_t *net, ucp_ep_h ep)
{
    ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                 .flags = UCP_EP_CLOSE_FLAG_FORCE};
    ucs_status_ptr_t req = ucp_ep_close_nbx(ep, &param);
    if (req == NULL || UCS_PTR_IS_ERR(req))
        return;
    while (ucp_request_check_status(req) == UCS_INPROGRESS)
        ucp_worker_progress(net->worker);
    ucp_request_free(req);
}

void tm_p2p_net_close(tm_p2p_net_t *net)
{
    for (int i = 0; i < net->npeers; i++)
        if (net->eps[i])
            close_ep(net, net->eps[i]);
    free(net->eps);
    ucp_worker_release_address(net->worker, net->address);
    ucp_worker_destroy(net->worker);
    ucp_cleanup(net->context);
    free(net);
}
