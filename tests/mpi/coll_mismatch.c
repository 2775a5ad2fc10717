/* Collectives whose members' calls disagree (another call, root or operation): under
 * MPI_ERRORS_RETURN every member gets the error of the mismatch (for a scan, the members from the
 * first that differs on: the chain's earlier results are right), its buffers untouched; the
 * collectives after it stay in step. The last rank makes the odd call of each pair. With an
 * argument "fatal A B", under the default handler: the odd rank calls B, the others A (for
 * coll_mismatch_fatal.sh, which checks the message and the exit status). */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

enum kind {
    BARRIER,
    BCAST0,
    BCAST1,
    REDUCE_SUM,
    REDUCE_MAX,
    ALLREDUCE_SUM,
    ALLREDUCE_MAX,
    ALLGATHER,
    ALLTOALL,
    GATHER0,
    SCATTER0,
    REDUCE_SCATTER,
    SCAN,
    EXSCAN,
    NKINDS
};
static const char *names[NKINDS] = {
    "barrier",       "bcast0",         "bcast1",    "reduce_sum", "reduce_max",
    "allreduce_sum", "allreduce_max",  "allgather", "alltoall",   "gather0",
    "scatter0",      "reduce_scatter", "scan",      "exscan"};

#define WORDS 4 /* ints per rank, small enough for the flat algorithms */

/* Makes call k with `in` (size * WORDS ints, for every kind) into `out`. */
static int call(enum kind k, int *in, int *out)
{
    switch (k) {
    case BARRIER:
        return MPI_Barrier(MPI_COMM_WORLD);
    case BCAST0:
        return MPI_Bcast(out, WORDS, MPI_INT, 0, MPI_COMM_WORLD);
    case BCAST1:
        return MPI_Bcast(out, WORDS, MPI_INT, 1, MPI_COMM_WORLD);
    case REDUCE_SUM:
        return MPI_Reduce(in, out, WORDS, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    case REDUCE_MAX:
        return MPI_Reduce(in, out, WORDS, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    case ALLREDUCE_SUM:
        return MPI_Allreduce(in, out, WORDS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    case ALLREDUCE_MAX:
        return MPI_Allreduce(in, out, WORDS, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    case ALLGATHER:
        return MPI_Allgather(in, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
    case ALLTOALL:
        return MPI_Alltoall(in, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
    case GATHER0:
        return MPI_Gather(in, 1, MPI_INT, out, 1, MPI_INT, 0, MPI_COMM_WORLD);
    case SCATTER0:
        return MPI_Scatter(in, 1, MPI_INT, out, 1, MPI_INT, 0, MPI_COMM_WORLD);
    case REDUCE_SCATTER:
        return MPI_Reduce_scatter_block(in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    case SCAN:
        return MPI_Scan(in, out, WORDS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    case EXSCAN:
        return MPI_Exscan(in, out, WORDS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    default:
        return MPI_ERR_OTHER;
    }
}

static bool is_scan(enum kind k)
{
    return k == SCAN || k == EXSCAN;
}

/* The class the mismatch of a and b reports. */
static int expected_class(enum kind a, enum kind b)
{
    if ((a == BCAST0 && b == BCAST1) || (a == BCAST1 && b == BCAST0))
        return MPI_ERR_ROOT;
    if ((a == REDUCE_SUM && b == REDUCE_MAX) || (a == REDUCE_MAX && b == REDUCE_SUM) ||
        (a == ALLREDUCE_SUM && b == ALLREDUCE_MAX) || (a == ALLREDUCE_MAX && b == ALLREDUCE_SUM))
        return MPI_ERR_OP;
    return MPI_ERR_OTHER;
}

/* The others call a, the last rank b. */
static void pair(enum kind a, enum kind b)
{
    int *in = malloc((size_t)size * WORDS * sizeof *in),
        *out = malloc((size_t)size * WORDS * sizeof *out);
    for (int i = 0; i < size * WORDS; i++) {
        in[i] = rank + 1;
        out[i] = -7;
    }
    enum kind mine = rank == size - 1 ? b : a;
    int rc = call(mine, in, out);
    /* A scan's chain: the members before the odd one have their results, right. */
    bool errs = !is_scan(a) || rank == size - 1;
    int want = errs ? expected_class(a, b) : MPI_SUCCESS;
    int got = rc == MPI_SUCCESS ? MPI_SUCCESS : (MPI_Error_class(rc, &got), got);
    if (got != want) {
        failures++;
        fprintf(stderr, "coll_mismatch: rank %d: %s against %s returned class %d, expected %d\n",
                rank, names[mine], names[mine == a ? b : a], got, want);
    }
    if (errs)
        for (int i = 0; i < size * WORDS; i++)
            if (out[i] != -7) {
                failures++;
                fprintf(stderr, "coll_mismatch: rank %d: %s against %s wrote its buffer\n", rank,
                        names[mine], names[mine == a ? b : a]);
                break;
            }
    int one = 1, sum = 0;
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS || sum != size) {
        failures++;
        fprintf(stderr, "coll_mismatch: rank %d: after %s against %s: allreduce %d, sum %d\n", rank,
                names[mine], names[mine == a ? b : a], rc, sum);
    }
    free(in);
    free(out);
}

static enum kind kind_named(const char *name)
{
    for (int k = 0; k < NKINDS; k++)
        if (strcmp(names[k], name) == 0)
            return (enum kind)k;
    fprintf(stderr, "coll_mismatch: no call %s\n", name);
    exit(2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc == 4 && strcmp(argv[1], "fatal") == 0) {
        int in[64 * WORDS] = {0}, out[64 * WORDS];
        call(rank == size - 1 ? kind_named(argv[3]) : kind_named(argv[2]), in, out);
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Every pair of calls of the rounds, and the scans with each other. */
    for (int a = 0; a < NKINDS; a++)
        for (int b = 0; b < NKINDS; b++)
            if (a != b && is_scan(a) == is_scan(b))
                pair(a, b);
    int all = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_mismatch: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
