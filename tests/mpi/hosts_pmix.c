/* The PMIx wire-up of a job started by mpcrun --hosts: rank 0, as the host's process, puts a
 * key, fences with the job's other processes (one per host, through the agents' PMIx servers and
 * mpcrun) and reads every process's key. Prints "pmix: process P of N, key of Q: VALUE" for each
 * Q. */
#include <mpi.h>
#include <pmix.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = 0;
    if (rank == 0) {
        pmix_proc_t me, job;
        pmix_value_t value, *got;
        char text[64];
        if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 3);
        PMIX_PROC_LOAD(&job, me.nspace, PMIX_RANK_WILDCARD);
        if (PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &got) != PMIX_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 4);
        uint32_t nprocs = got->data.uint32;
        PMIX_VALUE_RELEASE(got);
        snprintf(text, sizeof text, "from process %u", me.rank);
        PMIX_VALUE_LOAD(&value, text, PMIX_STRING);
        pmix_info_t collect;
        bool yes = true;
        PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        if (PMIx_Put(PMIX_GLOBAL, "threadmpi.test", &value) != PMIX_SUCCESS ||
            PMIx_Commit() != PMIX_SUCCESS || PMIx_Fence(&job, 1, &collect, 1) != PMIX_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 5);
        for (uint32_t q = 0; q < nprocs; q++) {
            pmix_proc_t peer;
            PMIX_PROC_LOAD(&peer, me.nspace, q);
            if (PMIx_Get(&peer, "threadmpi.test", NULL, 0, &got) != PMIX_SUCCESS) {
                rc = 6;
                continue;
            }
            printf("pmix: process %u of %u, key of %u: %s\n", me.rank, nprocs, q, got->data.string);
            PMIX_VALUE_RELEASE(got);
        }
        PMIx_Finalize(NULL, 0);
    }
    MPI_Finalize();
    return rc;
}
