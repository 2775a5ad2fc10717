/* Collectives whose ranks pass different amounts of data, under MPI_ERRORS_RETURN. Rank 0 passes
 * blocks of 2 ints where the others pass blocks of 1 (each call's own arguments agreeing, so that
 * no rank sees the error in its arguments alone):
 *   - small enough for the flat algorithms of coll/flat.c (bcast, allgather, alltoall, gather,
 *     scatter), where the members compare their amounts: every member gets MPI_ERR_TRUNCATE,
 *     its buffers untouched;
 *   - more than those take (the message algorithms): a rank whose receive is too small for what
 *     comes gets MPI_ERR_TRUNCATE, with what fits written, and so does one whose receive is too
 *     large (never success with part of its buffer left as it was); the others may succeed.
 *   - MPI_Ibcast and MPI_Iallreduce of as little: the members that read another's data get
 *     MPI_ERR_TRUNCATE from MPI_Wait, their buffers untouched.
 * After each error, the collectives stay in step. At most 16 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, failures;

static void expect(int got, int want, const char *what)
{
    if (got == want)
        return;
    failures++;
    fprintf(stderr, "coll_truncate: rank %d: %s returned %d, expected %d\n", rank, what, got, want);
}

static void expect_int(int got, int want, const char *what)
{
    if (got == want)
        return;
    failures++;
    fprintf(stderr, "coll_truncate: rank %d: %s is %d, expected %d\n", rank, what, got, want);
}

/* A barrier and an allreduce after an erroneous collective succeed, with the right sum. */
static void in_step(const char *after)
{
    char what[64];
    snprintf(what, sizeof what, "the barrier after the %s", after);
    expect(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS, what);
    int one = 1, sum = 0;
    snprintf(what, sizeof what, "the allreduce after the %s", after);
    expect(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS, what);
    expect_int(sum, size, what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 16)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int big = rank == 0, n = big ? 2 : 1; /* ints per block of this rank */

    /* bcast from rank 0: 2 ints, the others' buffers of 1 */
    int b[2] = {big ? 41 : -1, big ? 42 : -1};
    int rc = MPI_Bcast(b, n, MPI_INT, 0, MPI_COMM_WORLD);
    expect(rc, MPI_ERR_TRUNCATE, "bcast");
    expect_int(b[0], big ? 41 : -1, "bcast's first int");
    in_step("bcast");

    /* allgather: rank 0's block of 2 against the others' blocks of 1 */
    int mine[2] = {100 + rank, 200 + rank}, all[32] = {0};
    rc = MPI_Allgather(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD);
    expect(rc, MPI_ERR_TRUNCATE, "allgather");
    expect_int(all[0], 0, "allgather's buffer");

    /* gather to rank 1, which takes blocks of 1: rank 0 sends 2 */
    rc = MPI_Gather(mine, n, MPI_INT, all, 1, MPI_INT, 1, MPI_COMM_WORLD);
    expect(rc, MPI_ERR_TRUNCATE, "gather");
    expect_int(all[0], 0, "gather's buffer");

    /* the collectives after an error stay in step on every rank */
    in_step("gather");

    /* the same gather, more than the flat algorithm takes: the message algorithm */
    int *large = calloc(2000, sizeof *large),
        *gathered = calloc(1000 * (size_t)size, sizeof *gathered);
    for (int i = 0; i < 2000; i++)
        large[i] = rank;
    rc = MPI_Gather(large, big ? 2000 : 1000, MPI_INT, gathered, 1000, MPI_INT, 1, MPI_COMM_WORLD);
    /* the root fails; so may the ranks that forwarded rank 0's block on its way (a tree) */
    if (rank == 1 || rc != MPI_SUCCESS)
        expect(rc, MPI_ERR_TRUNCATE, "large gather");
    if (rank == 1)
        for (int k = 0; k < size; k++)
            expect_int(gathered[1000 * k + 999], k, "large gather's block");
    free(large);
    free(gathered);
    in_step("large gather");

    /* scatter from rank 0, blocks of 2: the others take 1 */
    int blocks[32], got[2] = {-1, -1};
    for (int k = 0; k < 2 * size; k++)
        blocks[k] = 300 + k;
    rc = MPI_Scatter(blocks, 2, MPI_INT, got, n, MPI_INT, 0, MPI_COMM_WORLD);
    if (size > 1) {
        expect(rc, MPI_ERR_TRUNCATE, "scatter");
        expect_int(got[0], -1, "scatter's buffer");
    }

    /* alltoall: rank 0's blocks of 2 do not fit the others' blocks of 1 */
    int to[32], from[32] = {0};
    for (int k = 0; k < 2 * size; k++)
        to[k] = 1000 * rank + k;
    rc = MPI_Alltoall(to, n, MPI_INT, from, n, MPI_INT, MPI_COMM_WORLD);
    expect(rc, MPI_ERR_TRUNCATE, "alltoall");
    expect_int(from[0], 0, "alltoall's buffer");
    in_step("alltoall");

    /* the non-blocking forms through the flat block's rings (coll/flat.c): the members that
     * read what another passed find the sizes differ, and their requests fail with
     * MPI_ERR_TRUNCATE, their buffers untouched (MPI_Ibcast's root reads nothing) */
    MPI_Request q;
    b[0] = big ? 51 : -1;
    rc = MPI_Ibcast(b, n, MPI_INT, 0, MPI_COMM_WORLD, &q);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    expect(rc, big ? MPI_SUCCESS : MPI_ERR_TRUNCATE, "ibcast");
    expect_int(b[0], big ? 51 : -1, "ibcast's first int");
    in_step("ibcast");
    int two[2] = {1, 1}, sums[2] = {-1, -1};
    rc = MPI_Iallreduce(two, sums, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    expect(rc, MPI_ERR_TRUNCATE, "iallreduce");
    expect_int(sums[0], -1, "iallreduce's first int");
    in_step("iallreduce");

    /* more than the flat algorithms take, on 2 ranks: the message algorithm, with the root's
     * data too large for rank 1's buffer, then too small for it */
    if (size == 2) {
        int *v = calloc(2000, sizeof *v);
        for (int i = 0; i < 2000; i++)
            v[i] = big ? i : -1;
        rc = MPI_Bcast(v, big ? 2000 : 1000, MPI_INT, 0, MPI_COMM_WORLD);
        expect(rc, big ? MPI_SUCCESS : MPI_ERR_TRUNCATE, "large bcast");
        expect_int(v[999], 999, "large bcast's last int that fits");
        in_step("large bcast");
        rc = MPI_Bcast(v, big ? 1000 : 2000, MPI_INT, 0, MPI_COMM_WORLD);
        expect(rc, big ? MPI_SUCCESS : MPI_ERR_TRUNCATE, "short large bcast");
        in_step("short large bcast");
        free(v);
    }

    int all_failures;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_truncate: %s\n", all_failures ? "FAILED" : "ok");
    MPI_Finalize();
    return all_failures ? 1 : 0;
}
