/* Collectives whose members' calls disagree (another call, root or operation, or the amount or
 * the types of the data), under MPI_ERRORS_RETURN; the last rank makes the odd call of each pair.
 * Calls that agree with different types for the same data (MPI_INT and MPI_INT32_T) succeed.
 *
 * The flat algorithms' (blocking, small, up to 64 ranks; the others' call is the one they made just
 * before): every member gets the error of the mismatch (for a scan, the members from the first that
 * differs on: the chain's earlier results are right), its buffers untouched; the collectives after
 * it stay in step.
 *
 * With the argument "large" (more data than the flat algorithms take), "nb" (blocking calls
 * against non-blocking ones, and non-blocking ones against each other), or on more than 64
 * ranks: each pair runs on a communicator of its own (a duplicate of MPI_COMM_WORLD), which the
 * mismatch may break. No member hangs, some member gets an error (a member whose part needed
 * nobody else's, a broadcast's root say, from MPI_Comm_free), and MPI_COMM_WORLD stays usable.
 *
 * With the argument "inter": calls on an intercommunicator of the two halves of the ranks, where
 * the groups' calls are compared by the ledger (see inter_pair).
 *
 * With the arguments "fatal A B", under the default handler: the odd rank calls B, the others A
 * (for coll_mismatch_fatal.sh, which checks the message and the exit status). */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;
static int words = 4; /* ints per rank: 4 fit the flat algorithms, 128 ("large") do not */
static MPI_Comm comm;

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
    NKINDS,
    /* broadcasts from rank 0 of other data than BCAST0's: in the pairs of data_pairs only */
    BCAST0_MORE = NKINDS, /* an int more */
    BCAST0_FLOAT,         /* as many floats */
    BCAST0_INT32,         /* as many int32_t: the same data */
    NALL
};
static const char *names[NALL] = {
    "barrier",       "bcast0",    "bcast1",      "reduce_sum",   "reduce_max",  "allreduce_sum",
    "allreduce_max", "allgather", "alltoall",    "gather0",      "scatter0",    "reduce_scatter",
    "scan",          "exscan",    "bcast0_more", "bcast0_float", "bcast0_int32"};

/* Makes call k on comm with `in` (size * words ints, for every kind) into `out`; its
 * non-blocking form, waited for, when `nonblocking`. */
static int call(enum kind k, int *in, int *out, bool nonblocking)
{
    MPI_Request req;
    MPI_Request *q = nonblocking ? &req : NULL;
    int rc;
#define CALL(blocking, started, ...) (q ? started(__VA_ARGS__, q) : blocking(__VA_ARGS__))
    switch (k) {
    case BARRIER:
        rc = q ? MPI_Ibarrier(comm, q) : MPI_Barrier(comm);
        break;
    case BCAST0:
        rc = CALL(MPI_Bcast, MPI_Ibcast, out, words, MPI_INT, 0, comm);
        break;
    case BCAST1:
        rc = CALL(MPI_Bcast, MPI_Ibcast, out, words, MPI_INT, 1, comm);
        break;
    case REDUCE_SUM:
        rc = CALL(MPI_Reduce, MPI_Ireduce, in, out, words, MPI_INT, MPI_SUM, 0, comm);
        break;
    case REDUCE_MAX:
        rc = CALL(MPI_Reduce, MPI_Ireduce, in, out, words, MPI_INT, MPI_MAX, 0, comm);
        break;
    case ALLREDUCE_SUM:
        rc = CALL(MPI_Allreduce, MPI_Iallreduce, in, out, words, MPI_INT, MPI_SUM, comm);
        break;
    case ALLREDUCE_MAX:
        rc = CALL(MPI_Allreduce, MPI_Iallreduce, in, out, words, MPI_INT, MPI_MAX, comm);
        break;
    case ALLGATHER:
        rc = CALL(MPI_Allgather, MPI_Iallgather, in, words, MPI_INT, out, words, MPI_INT, comm);
        break;
    case ALLTOALL:
        rc = CALL(MPI_Alltoall, MPI_Ialltoall, in, words, MPI_INT, out, words, MPI_INT, comm);
        break;
    case GATHER0:
        rc = CALL(MPI_Gather, MPI_Igather, in, words, MPI_INT, out, words, MPI_INT, 0, comm);
        break;
    case SCATTER0:
        rc = CALL(MPI_Scatter, MPI_Iscatter, in, words, MPI_INT, out, words, MPI_INT, 0, comm);
        break;
    case REDUCE_SCATTER:
        rc = CALL(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, in, out, words, MPI_INT,
                  MPI_SUM, comm);
        break;
    case SCAN:
        rc = CALL(MPI_Scan, MPI_Iscan, in, out, words, MPI_INT, MPI_SUM, comm);
        break;
    case EXSCAN:
        rc = CALL(MPI_Exscan, MPI_Iexscan, in, out, words, MPI_INT, MPI_SUM, comm);
        break;
    case BCAST0_MORE:
        rc = CALL(MPI_Bcast, MPI_Ibcast, out, words + 1, MPI_INT, 0, comm);
        break;
    case BCAST0_FLOAT:
        rc = CALL(MPI_Bcast, MPI_Ibcast, out, words, MPI_FLOAT, 0, comm);
        break;
    case BCAST0_INT32:
        rc = CALL(MPI_Bcast, MPI_Ibcast, out, words, MPI_INT32_T, 0, comm);
        break;
    default:
        return MPI_ERR_OTHER;
    }
#undef CALL
    if (q && rc == MPI_SUCCESS)
        rc = MPI_Wait(q, MPI_STATUS_IGNORE);
    return rc;
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
    if (a == BCAST0_MORE || b == BCAST0_MORE)
        return MPI_ERR_TRUNCATE;
    if (a == BCAST0_FLOAT || b == BCAST0_FLOAT)
        return MPI_ERR_TYPE;
    return MPI_ERR_OTHER;
}

static int *ints(int value)
{
    int *v = malloc((size_t)size * (size_t)words * sizeof *v);
    for (int i = 0; i < size * words; i++)
        v[i] = value;
    return v;
}

/* The MPI_COMM_WORLD allreduce after a pair: in step. */
static void in_step(const char *a, const char *b)
{
    int one = 1, sum = 0;
    int rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS || sum != size) {
        failures++;
        fprintf(stderr, "coll_mismatch: rank %d: after %s against %s: allreduce %d, sum %d\n", rank,
                a, b, rc, sum);
    }
}

/* Flat: every rank calls a, then the others a again and the last rank b, on MPI_COMM_WORLD
 * (so that the others repeat their last call, as loops do). */
static void pair(enum kind a, enum kind b)
{
    int *in = ints(rank + 1), *out = ints(-7), *before = ints(0);
    enum kind mine = rank == size - 1 ? b : a, other = mine == a ? b : a;
    if (call(a, in, before, false) != MPI_SUCCESS) {
        failures++;
        fprintf(stderr, "coll_mismatch: rank %d: %s failed before the pair\n", rank, names[a]);
    }
    free(before);
    int rc = call(mine, in, out, false);
    /* A scan's chain: the members before the odd one have their results, right. */
    bool errs = !is_scan(a) || rank == size - 1;
    int want = errs ? expected_class(a, b) : MPI_SUCCESS;
    int got = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &got);
    if (got != want) {
        failures++;
        fprintf(stderr, "coll_mismatch: rank %d: %s against %s returned class %d, expected %d\n",
                rank, names[mine], names[other], got, want);
    }
    if (errs)
        for (int i = 0; i < size * words; i++)
            if (out[i] != -7) {
                failures++;
                fprintf(stderr, "coll_mismatch: rank %d: %s against %s wrote its buffer\n", rank,
                        names[mine], names[other]);
                break;
            }
    in_step(names[mine], names[other]);
    free(in);
    free(out);
}

/* The others call a, the last rank b (non-blocking: b, or both when `both`), on a communicator
 * of the pair's own: no hang, an error somewhere, MPI_COMM_WORLD in step after. */
static void pair_apart(enum kind a, enum kind b, bool nonblocking, bool both)
{
    int *in = ints(rank + 1), *out = ints(rank + 1);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    bool odd = rank == size - 1;
    int rc = call(odd ? b : a, in, out, nonblocking && (odd || both));
    /* A member whose part needed nobody hears of the mismatch when it frees the communicator. */
    int freed = MPI_Comm_free(&comm);
    int errors = rc != MPI_SUCCESS || freed != MPI_SUCCESS, all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char what_a[32], what_b[32];
    snprintf(what_a, sizeof what_a, "%s%s", nonblocking && both ? "i" : "", names[a]);
    snprintf(what_b, sizeof what_b, "%s%s", nonblocking ? "i" : "", names[b]);
    if (all == 0) {
        failures++;
        if (rank == 0)
            fprintf(stderr, "coll_mismatch: %s against %s: no member got an error\n", what_a,
                    what_b);
    }
    in_step(what_a, what_b);
    comm = MPI_COMM_WORLD;
    free(in);
    free(out);
}

/* Broadcasts whose members pass other data: an int more, either way (a receive too small, or
 * too large for what comes: never success with part of the buffer left as it was); floats
 * against ints, where the members meet in the flat block (messages carry no types); and ints
 * against int32_t, which agree: rank 0's data arrives. */
static void data_pairs(bool flat)
{
    if (flat) {
        pair(BCAST0, BCAST0_MORE);
        pair(BCAST0_MORE, BCAST0);
        pair(BCAST0, BCAST0_FLOAT);
    } else {
        pair_apart(BCAST0, BCAST0_MORE, false, false);
        pair_apart(BCAST0_MORE, BCAST0, false, false);
    }
    int *in = ints(0), *out = ints(rank == 0 ? 5 : -7);
    int rc = call(rank == size - 1 ? BCAST0_INT32 : BCAST0, in, out, false);
    if (rc != MPI_SUCCESS || out[0] != 5 || out[words - 1] != 5) {
        failures++;
        fprintf(stderr, "coll_mismatch: rank %d: MPI_INT against MPI_INT32_T returned %d, got %d\n",
                rank, rc, out[0]);
    }
    free(in);
    free(out);
}

/* On an intercommunicator of the two halves of MPI_COMM_WORLD: group 0 calls a, group 1 b
 * (barrier, bcast from group 0's rank 0, allreduce with `op`); calls that differ are an error
 * somewhere (class want), never a hang, and MPI_COMM_WORLD stays in step; calls that agree
 * succeed with the right data. */
enum inter_call { INTER_BARRIER, INTER_BCAST, INTER_ALLREDUCE_SUM, INTER_ALLREDUCE_MAX };
static const char *inter_names[] = {"barrier", "bcast", "allreduce_sum", "allreduce_max"};

static void inter_pair(enum inter_call a, enum inter_call b, int want)
{
    int group = rank < size / 2, local;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, group, rank, &half);
    MPI_Comm_rank(half, &local);
    /* the other group's leader: world rank 0 or size / 2 */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, group ? size / 2 : 0, 77, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    enum inter_call mine = group ? a : b;
    int rc = MPI_SUCCESS, value = 10 + rank, result = -1, remote = 0;
    MPI_Comm_remote_size(inter, &remote);
    switch (mine) {
    case INTER_BARRIER:
        rc = MPI_Barrier(inter);
        break;
    case INTER_BCAST: /* from the first group's (world ranks 0...) rank 0 */
        rc = MPI_Bcast(&value, 1, MPI_INT, group ? (local == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0,
                       inter);
        break;
    default:
        rc = MPI_Allreduce(&value, &result, 1, MPI_INT,
                           mine == INTER_ALLREDUCE_SUM ? MPI_SUM : MPI_MAX, inter);
        break;
    }
    int freed = MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    int got = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &got);
    else if (freed != MPI_SUCCESS)
        MPI_Error_class(freed, &got);
    int wrong = want == MPI_SUCCESS ? got != MPI_SUCCESS : got != MPI_SUCCESS && got != want;
    if (want == MPI_SUCCESS && a == INTER_ALLREDUCE_SUM && got == MPI_SUCCESS) {
        /* the other group's sum: world ranks [size/2, size) for group 1, [0, size/2) for 0 */
        int lo = group ? size / 2 : 0, hi = group ? size : size / 2, sum = 0;
        for (int k = lo; k < hi; k++)
            sum += 10 + k;
        wrong |= result != sum;
    }
    int errors = got != MPI_SUCCESS, all_errors = 0, all_wrong = 0;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (all_wrong || (want != MPI_SUCCESS && all_errors == 0)) {
        failures++;
        if (rank == 0)
            fprintf(stderr,
                    "coll_mismatch: intercommunicator, %s against %s: %d members wrong, %d "
                    "errors\n",
                    inter_names[a], inter_names[b], all_wrong, all_errors);
    }
    in_step(inter_names[a], inter_names[b]);
}

static void inter_pairs(void)
{
    inter_pair(INTER_BARRIER, INTER_BARRIER, MPI_SUCCESS);
    inter_pair(INTER_ALLREDUCE_SUM, INTER_ALLREDUCE_SUM, MPI_SUCCESS);
    inter_pair(INTER_BARRIER, INTER_BCAST, MPI_ERR_OTHER);
    inter_pair(INTER_BCAST, INTER_ALLREDUCE_SUM, MPI_ERR_OTHER);
    inter_pair(INTER_ALLREDUCE_SUM, INTER_ALLREDUCE_MAX, MPI_ERR_OP);
}

static enum kind kind_named(const char *name)
{
    for (int k = 0; k < NALL; k++)
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
    comm = MPI_COMM_WORLD;
    if (argc == 4 && strcmp(argv[1], "fatal") == 0) {
        int *in = ints(0), *out = ints(0);
        call(rank == size - 1 ? kind_named(argv[3]) : kind_named(argv[2]), in, out, false);
        free(in);
        free(out);
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "inter") == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        inter_pairs();
        int all = 0;
        MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0)
            printf("coll_mismatch: %s\n", all ? "FAILED" : "ok");
        MPI_Finalize();
        return all ? 1 : 0;
    }
    bool large = argc > 1 && strcmp(argv[1], "large") == 0;
    bool nonblocking = argc > 1 && strcmp(argv[1], "nb") == 0;
    if (large)
        words = 128;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (nonblocking) {
        /* Each call against its non-blocking form, and the non-blocking ones against the next. */
        for (int a = 0; a < NKINDS; a++) {
            pair_apart(a, a, true, false);
            pair_apart(a, (a + 1) % NKINDS, true, true);
        }
    } else if (large || size > 64) {
        for (int a = 0; a < NKINDS; a++)
            for (int b = 0; b < NKINDS; b++)
                if (a != b)
                    pair_apart(a, b, false, false);
        data_pairs(false);
    } else {
        /* Every pair of calls of the rounds, and the scans with each other. */
        for (int a = 0; a < NKINDS; a++)
            for (int b = 0; b < NKINDS; b++)
                if (a != b && is_scan(a) == is_scan(b))
                    pair(a, b);
        data_pairs(true);
    }
    int all = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_mismatch: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
