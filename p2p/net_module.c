/*
 * The module threadmpi-net.so (net.h): UCX's network (net_ucx.c) and PMIx's process manager
 * (net_pmix.c) behind one table, which the library looks up after loading the module for a job
 * on several hosts (net_transport.c).
 */
#include "config.h"

#include "p2p/net.h"

__attribute__((visibility("default"))) const tm_p2p_net_module_t tm_p2p_net_module = {
    .open = tm_p2p_net_open,
    .address = tm_p2p_net_address,
    .connect = tm_p2p_net_connect,
    .wire = tm_p2p_net_wire,
    .max_header = tm_p2p_net_max_header,
    .send = tm_p2p_net_send,
    .fetch = tm_p2p_net_fetch,
    .progress = tm_p2p_net_progress,
    .arm = tm_p2p_net_arm,
    .sleep = tm_p2p_net_sleep,
    .signal = tm_p2p_net_signal,
    .close = tm_p2p_net_close,
    .pm_init = tm_p2p_pm_init,
    .pm_exchange = tm_p2p_pm_exchange,
    .pm_fence = tm_p2p_pm_fence,
    .pm_finalize = tm_p2p_pm_finalize,
};
