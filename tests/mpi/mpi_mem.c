/* MPI_Alloc_mem and MPI_Free_mem: blocks of 0, 1, 100 and 1 MiB bytes, 64-byte aligned, each
 * written whole and distinct from the others; a block allocated by one rank and freed by another
 * (ranks share the heap, as the threads of a process do); under MPI_ERRORS_RETURN, a negative
 * size and a NULL baseptr (MPI_ERR_ARG), an invalid info (MPI_ERR_INFO), more memory than there
 * is (MPI_ERR_NO_MEM), and MPI_Free_mem of a pointer that is not a block, or of a block twice
 * (MPI_ERR_BASE); MPI_Free_mem(NULL) succeeds. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int rank, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "mpi_mem: rank %d, line %d: %s\n", rank, __LINE__, #cond);             \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Aint sizes[] = {0, 1, 100, 1 << 20};
    char *blocks[4];
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    for (int i = 0; i < 4; i++) {
        blocks[i] = NULL;
        CHECK(MPI_Alloc_mem(sizes[i], i % 2 ? info : MPI_INFO_NULL, &blocks[i]) == MPI_SUCCESS);
        CHECK(blocks[i] != NULL && (uintptr_t)blocks[i] % 64 == 0);
        memset(blocks[i], 'a' + i, (size_t)sizes[i]);
    }
    for (int i = 0; i < 4; i++) {
        for (MPI_Aint k = 0; k < sizes[i]; k++)
            if (blocks[i][k] != 'a' + i) {
                CHECK(!"a block's bytes stay as written");
                break;
            }
        for (int j = 0; j < i; j++)
            CHECK(blocks[i] != blocks[j]);
    }
    for (int i = 0; i < 4; i++)
        CHECK(MPI_Free_mem(blocks[i]) == MPI_SUCCESS);
    MPI_Info_free(&info);

    /* from one rank to the next: allocated by rank k, freed by rank k + 1 */
    if (size > 1) {
        void *mine = NULL, *theirs = NULL;
        CHECK(MPI_Alloc_mem(4096, MPI_INFO_NULL, &mine) == MPI_SUCCESS);
        MPI_Sendrecv(&mine, sizeof mine, MPI_BYTE, (rank + 1) % size, 0, &theirs, sizeof theirs,
                     MPI_BYTE, (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(MPI_Free_mem(theirs) == MPI_SUCCESS);
    }

    /* bad input */
    void *p = &p;
    CHECK(MPI_Alloc_mem(-1, MPI_INFO_NULL, &p) == MPI_ERR_ARG && p == &p);
    CHECK(MPI_Alloc_mem(8, MPI_INFO_NULL, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Alloc_mem(8, (MPI_Info)MPI_COMM_WORLD, &p) == MPI_ERR_INFO && p == &p);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) /* theirs abort there */
    CHECK(MPI_Alloc_mem((MPI_Aint)1 << 62, MPI_INFO_NULL, &p) == MPI_ERR_NO_MEM && p == &p);
#endif
    int on_stack;
    CHECK(MPI_Free_mem(&on_stack) == MPI_ERR_BASE);
    void *once = NULL;
    CHECK(MPI_Alloc_mem(16, MPI_INFO_NULL, &once) == MPI_SUCCESS);
    CHECK(MPI_Free_mem((char *)once + 8) == MPI_ERR_BASE); /* inside a block: not one */
    CHECK(MPI_Free_mem(once) == MPI_SUCCESS);
    CHECK(MPI_Free_mem(once) == MPI_ERR_BASE);
    CHECK(MPI_Free_mem(NULL) == MPI_SUCCESS);

    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_mem: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
