/*
 * The process manager of a job on several hosts (net.h), through PMIx's client library: the
 * server is mpcrun's agent on each host (launcher/agent_pmix.c) or any PMIx launcher (Open MPI's
 * mpirun, PRRTE, Slurm). The job is a namespace of one process per host; each process publishes
 * its network address under one key, and a fence that collects the data hands every process the
 * others'.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "p2p/net.h"

#define ADDRESS_KEY "threadmpi.net.address"

static pmix_proc_t pm_self;
static int pm_nprocs;

static int pm_failed(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "threadmpi: process manager (PMIx): %s: %s\n", what, PMIx_Error_string(rc));
    return -EIO;
}

int tm_p2p_pm_init(int *nprocs, int *index)
{
    pmix_status_t rc = PMIx_Init(&pm_self, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return pm_failed("PMIx_Init (was the job started by mpcrun --hosts, or a PMIx launcher?)",
                         rc);
    pmix_proc_t job;
    pmix_value_t *size;
    PMIX_PROC_LOAD(&job, pm_self.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &size);
    if (rc != PMIX_SUCCESS) {
        PMIx_Finalize(NULL, 0);
        return pm_failed("the job's size", rc);
    }
    pm_nprocs = (int)size->data.uint32;
    PMIX_VALUE_RELEASE(size);
    *nprocs = pm_nprocs;
    *index = (int)pm_self.rank;
    return 0;
}

int tm_p2p_pm_exchange(const void *mine, size_t len, void ***all_p, size_t **lens_p)
{
    pmix_value_t value;
    pmix_byte_object_t bo = {.bytes = (char *)mine, .size = len};
    PMIX_VALUE_LOAD(&value, &bo, PMIX_BYTE_OBJECT);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, ADDRESS_KEY, &value);
    PMIX_VALUE_DESTRUCT(&value);
    if (rc != PMIX_SUCCESS)
        return pm_failed("PMIx_Put", rc);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
        return pm_failed("PMIx_Commit", rc);
    pmix_proc_t job;
    pmix_info_t collect;
    bool yes = true;
    PMIX_PROC_LOAD(&job, pm_self.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(&job, 1, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
    if (rc != PMIX_SUCCESS)
        return pm_failed("PMIx_Fence", rc);

    /* One block: the pointers, the lengths, then the addresses. */
    pmix_value_t **got = calloc((size_t)pm_nprocs, sizeof *got);
    if (!got)
        return -ENOMEM;
    size_t total = 0;
    int err = 0;
    for (int i = 0; i < pm_nprocs && !err; i++) {
        pmix_proc_t peer;
        PMIX_PROC_LOAD(&peer, pm_self.nspace, (pmix_rank_t)i);
        rc = PMIx_Get(&peer, ADDRESS_KEY, NULL, 0, &got[i]);
        if (rc != PMIX_SUCCESS || got[i]->type != PMIX_BYTE_OBJECT)
            err = pm_failed("another process's address", rc);
        else
            total += got[i]->data.bo.size;
    }
    void **all = err ? NULL : malloc((size_t)pm_nprocs * (sizeof *all + sizeof(size_t)) + total);
    if (!err && !all)
        err = -ENOMEM;
    if (!err) {
        size_t *lens = (size_t *)(all + pm_nprocs);
        char *at = (char *)(lens + pm_nprocs);
        for (int i = 0; i < pm_nprocs; i++) {
            lens[i] = got[i]->data.bo.size;
            all[i] = at;
            memcpy(at, got[i]->data.bo.bytes, lens[i]);
            at += lens[i];
        }
        *all_p = all;
        *lens_p = lens;
    }
    for (int i = 0; i < pm_nprocs; i++)
        if (got[i])
            PMIX_VALUE_RELEASE(got[i]);
    free(got);
    return err;
}

int tm_p2p_pm_fence(void)
{
    pmix_proc_t job;
    PMIX_PROC_LOAD(&job, pm_self.nspace, PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_Fence(&job, 1, NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : pm_failed("PMIx_Fence", rc);
}

void tm_p2p_pm_finalize(void)
{
    PMIx_Finalize(NULL, 0);
}
