/*
 * The agent's PMIx server (agent_pmix.h), on libpmix's server interface.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "launcher/agent_pmix.h"

#if defined(__SANITIZE_THREAD__)
/* The test suite's ThreadSanitizer build: a remote shell starts the agent with a bare
 * environment, without the suite's TSAN_OPTIONS, so the agent carries the one suppression of
 * tests/tsan.supp it needs itself (libpmix's server; the file says why it is no race). */
const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void)
{
    return "race:libpmix.so\n";
}
#endif

static tm_agent_pmix_fence_fn fence_out;

/* The fence under way (one at a time: the job's process fences once per wire-up). */
static pthread_mutex_t fence_lock = PTHREAD_MUTEX_INITIALIZER;
static pmix_modex_cbfunc_t fence_cb;
static void *fence_cbdata;

static pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                              void *cbdata)
{
    (void)procs, (void)nprocs, (void)info, (void)ninfo;
    pthread_mutex_lock(&fence_lock);
    bool busy = fence_cb != NULL;
    if (!busy) {
        fence_cb = cbfunc;
        fence_cbdata = cbdata;
    }
    pthread_mutex_unlock(&fence_lock);
    if (busy)
        return PMIX_ERR_NOT_SUPPORTED;
    fence_out(data, ndata);
    return PMIX_SUCCESS;
}

void tm_agent_pmix_fence_done(const char *data, size_t len)
{
    pthread_mutex_lock(&fence_lock);
    pmix_modex_cbfunc_t cb = fence_cb;
    void *cbdata = fence_cbdata;
    fence_cb = NULL;
    pthread_mutex_unlock(&fence_lock);
    if (!cb)
        return;
    char *copy = malloc(len ? len : 1);
    if (!copy) {
        cb(PMIX_ERR_NOMEM, NULL, 0, cbdata, NULL, NULL);
        return;
    }
    memcpy(copy, data, len);
    cb(PMIX_SUCCESS, copy, len, cbdata, free, copy);
}

static pmix_status_t on_connected(const pmix_proc_t *proc, void *server_object,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc, (void)server_object, (void)cbfunc, (void)cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t on_finalized(const pmix_proc_t *proc, void *server_object,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc, (void)server_object, (void)cbfunc, (void)cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

/* Registrations complete through a callback, possibly on PMIx's thread. */
typedef struct op {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
} op_t;

static void op_done(pmix_status_t status, void *cbdata)
{
    op_t *op = cbdata;
    pthread_mutex_lock(&op->lock);
    op->status = status;
    op->done = true;
    pthread_cond_signal(&op->cond);
    pthread_mutex_unlock(&op->lock);
}

static pmix_status_t op_wait(pmix_status_t rc, op_t *op)
{
    if (rc == PMIX_OPERATION_SUCCEEDED)
        return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        return rc;
    pthread_mutex_lock(&op->lock);
    while (!op->done)
        pthread_cond_wait(&op->cond, &op->lock);
    pthread_mutex_unlock(&op->lock);
    op->done = false;
    return op->status;
}

static int failed(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "tm-agent: PMIx: %s: %s\n", what, PMIx_Error_string(rc));
    return -1;
}

int tm_agent_pmix_start(const char *nspace, int rank, const char *hosts,
                        tm_agent_pmix_fence_fn fence, char ***env)
{
    static pmix_server_module_t module = {
        .client_connected = on_connected,
        .client_finalized = on_finalized,
        .fence_nb = on_fence,
    };
    fence_out = fence;
    pmix_status_t rc = PMIx_server_init(&module, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return failed("PMIx_server_init", rc);

    uint32_t nprocs = 1, one = 1, nodeid = (uint32_t)rank;
    for (const char *p = hosts; *p; p++)
        nprocs += *p == ',';
    /* Process i runs on host i: "0;1;2..." */
    char *ppn_list = malloc((size_t)nprocs * 12), *node_map = NULL, *proc_map = NULL, peer[16];
    if (!ppn_list)
        return failed("the process map", PMIX_ERR_NOMEM);
    size_t used = 0;
    for (uint32_t i = 0; i < nprocs; i++)
        used += (size_t)sprintf(ppn_list + used, "%s%u", i ? ";" : "", i);
    snprintf(peer, sizeof peer, "%d", rank);
    if ((rc = PMIx_generate_regex(hosts, &node_map)) != PMIX_SUCCESS ||
        (rc = PMIx_generate_ppn(ppn_list, &proc_map)) != PMIX_SUCCESS) {
        free(ppn_list);
        return failed("the node and process maps", rc);
    }
    free(ppn_list);
    pmix_info_t *info;
    size_t ninfo = 7;
    PMIX_INFO_CREATE(info, ninfo);
    PMIX_INFO_LOAD(&info[0], PMIX_UNIV_SIZE, &nprocs, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_JOB_SIZE, &nprocs, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[2], PMIX_LOCAL_SIZE, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[3], PMIX_LOCAL_PEERS, peer, PMIX_STRING);
    PMIX_INFO_LOAD(&info[4], PMIX_NODE_MAP, node_map, PMIX_REGEX);
    PMIX_INFO_LOAD(&info[5], PMIX_PROC_MAP, proc_map, PMIX_REGEX);
    PMIX_INFO_LOAD(&info[6], PMIX_NODEID, &nodeid, PMIX_UINT32);
    free(node_map);
    free(proc_map);

    op_t op = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    rc = op_wait(PMIx_server_register_nspace(nspace, 1, info, ninfo, op_done, &op), &op);
    PMIX_INFO_FREE(info, ninfo);
    if (rc != PMIX_SUCCESS)
        return failed("PMIx_server_register_nspace", rc);
    pmix_proc_t proc;
    PMIX_PROC_LOAD(&proc, nspace, (pmix_rank_t)rank);
    rc = op_wait(PMIx_server_register_client(&proc, getuid(), getgid(), NULL, op_done, &op), &op);
    if (rc != PMIX_SUCCESS)
        return failed("PMIx_server_register_client", rc);
    if ((rc = PMIx_server_setup_fork(&proc, env)) != PMIX_SUCCESS)
        return failed("PMIx_server_setup_fork", rc);
    return 0;
}

void tm_agent_pmix_stop(void)
{
    PMIx_server_finalize();
}
