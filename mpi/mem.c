/*
 * MPI_Alloc_mem and MPI_Free_mem: memory for the program's buffers, from the C library,
 * aligned to a cache line. A table of the blocks handed out and not freed yet lets
 * MPI_Free_mem refuse a pointer that is not one of them (MPI_ERR_BASE) rather than pass it to
 * free(); ranks share it, as they share the heap.
 */
#include "config.h"

#include <pthread.h>
#include <search.h>
#include <stdint.h>
#include <stdlib.h>

#include "mpi_impl.h"

#define MEM_ALIGN 64 /* a cache line: no false sharing with what the C library puts beside it */

static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static void *blocks; /* tsearch tree of the live blocks' addresses */

static int address_compare(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return (x > y) - (x < y);
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char call[] = "MPI_Alloc_mem";
    TM_MPI_RANK(r, call);
    if (size < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "negative size %lld",
                                  (long long)size);
    if (baseptr == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "baseptr is NULL");
    int err;
    if (info != MPI_INFO_NULL && (err = tm_mpi_info_check(r, info, call)) != MPI_SUCCESS)
        return err;
    void *mem = NULL;
    /* Size 0 still gets a block of its own, which MPI_Free_mem takes back. */
    if (posix_memalign(&mem, MEM_ALIGN, size > 0 ? (size_t)size : 1) != 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory for %lld bytes",
                                  (long long)size);
    pthread_mutex_lock(&blocks_lock);
    void *node = tsearch(mem, &blocks, address_compare);
    pthread_mutex_unlock(&blocks_lock);
    if (node == NULL) {
        free(mem);
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    }
    *(void **)baseptr = mem;
    return MPI_SUCCESS;
}
#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem

int PMPI_Free_mem(void *base)
{
    static const char call[] = "MPI_Free_mem";
    TM_MPI_RANK(r, call);
    if (base == NULL)
        return MPI_SUCCESS; /* as free(NULL), and as MPICH and Open MPI */
    pthread_mutex_lock(&blocks_lock);
    bool known = tdelete(base, &blocks, address_compare) != NULL;
    pthread_mutex_unlock(&blocks_lock);
    if (!known)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_BASE,
                                  "%p is not memory from MPI_Alloc_mem, or was freed already",
                                  base);
    free(base);
    return MPI_SUCCESS;
}
#pragma weak MPI_Free_mem = PMPI_Free_mem
