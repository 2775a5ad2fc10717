/* Small blocking collectives back to back, as the flat algorithm runs them (coll/flat.c):
 * barrier, bcast, reduce, allreduce, allgather(v), alltoall, gather, scatter,
 * reduce_scatter(_block), scan and exscan (a chain, whose members run a few rounds ahead of the
 * next: also a burst of scans alone, the later ranks slower). Every round's result is checked,
 * so that a member that writes its slot for the next round, or a leader that writes the next
 * result, before every member is done with this round shows. Roots and values change at every
 * round; rounds alternate between MPI_COMM_WORLD and the two halves of an MPI_Comm_split (one
 * context id for two groups), with point-to-point traffic on the way, and now and then a rank
 * late. Also with more ranks than the flat algorithm takes (the message algorithms). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ROUNDS 400

static int failures;

static void check(long got, long want, const char *what, int round, int rank)
{
    if (got == want || failures++ > 5)
        return;
    fprintf(stderr, "coll_flat: rank %d, round %d: %s is %ld, expected %ld\n", rank, round, what,
            got, want);
}

/* Sum over the ranks of comm of value(rank, round). */
static long value(int rank, int round)
{
    return 1000L * rank + round;
}

static long sum(int size, int round)
{
    long s = 0;
    for (int k = 0; k < size; k++)
        s += value(k, round);
    return s;
}

/* Affine maps x -> a x + b modulo P, composed in rank order: an operation that does not
 * commute, so that a prefix folded out of order shows. (a, b) then (c, d) is (a c, b c + d). */
#define P 1000003L

static void compose(void *in, void *inout, int *len, MPI_Datatype *type)
{
    long *x = in, *y = inout;
    (void)type;
    for (int i = 0; i < *len; i += 2) {
        long a = x[i] * y[i] % P, b = (x[i + 1] * y[i] + y[i + 1]) % P;
        y[i] = a;
        y[i + 1] = b;
    }
}

static void affine(int rank, int round, long map[2])
{
    map[0] = 2 + (rank * 7 + round) % 11;
    map[1] = 1 + (rank * 13 + round * 3) % 17;
}

/* The maps of ranks [0, n) composed; the identity for n = 0. */
static void prefix(int n, int round, long out[2])
{
    out[0] = 1;
    out[1] = 0;
    for (int k = 0; k < n; k++) {
        long m[2];
        affine(k, round, m);
        int len = 2;
        compose(out, m, &len, NULL);
        out[0] = m[0];
        out[1] = m[1];
    }
}

static MPI_Op compose_op;

/* Three scans in a row, back to back: the chain's buffers are reused every few rounds. */
static void scans(MPI_Comm comm, int rank, int t)
{
    long map[2], got[2] = {-1, -1}, want[2];
    affine(rank, t, map);
    MPI_Scan(map, got, 2, MPI_LONG, compose_op, comm);
    prefix(rank + 1, t, want);
    check(got[0], want[0], "scan [0]", t, rank);
    check(got[1], want[1], "scan [1]", t, rank);
    got[0] = map[0];
    got[1] = map[1];
    MPI_Exscan(MPI_IN_PLACE, got, 2, MPI_LONG, compose_op, comm);
    prefix(rank, t, want);
    if (rank > 0) {
        check(got[0], want[0], "exscan in place [0]", t, rank);
        check(got[1], want[1], "exscan in place [1]", t, rank);
    }
    long sum_in = value(rank, t), partial = 0;
    MPI_Scan(MPI_IN_PLACE, &sum_in, 1, MPI_LONG, MPI_SUM, comm);
    for (int k = 0; k <= rank; k++)
        partial += value(k, t);
    check(sum_in, partial, "scan in place", t, rank);
}

/* Scans only, many in a row, the later ranks slower: the earlier ones run ahead as far as the
 * chain lets them, which must not overwrite a prefix before the next rank has read it. */
#define BURST 1000

static void scan_burst(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int t = 0; t < BURST; t++) {
        long in = value(rank, t), out = -1, want = 0;
        if (rank > size / 2 && t % 50 == 0)
            for (volatile int spin = 0; spin < 50000; spin++)
                ;
        MPI_Scan(&in, &out, 1, MPI_LONG, MPI_SUM, comm);
        for (int k = 0; k <= rank; k++)
            want += value(k, t);
        check(out, want, "scan burst", t, rank);
    }
}

/* Allgatherv with counts 1 to 3 and the blocks rotated by one place; reduce_scatter_block and
 * reduce_scatter of affine maps (in rank order), one map, or 0 to 2, to each rank. */
static void vblocks(MPI_Comm comm, int rank, int size, int t)
{
    int counts[80], displs[80], at = 0;
    for (int j = 0; j < size; j++) {
        counts[(j + 1) % size] = 1 + (j + t) % 3;
        displs[(j + 1) % size] = at;
        at += counts[(j + 1) % size];
    }
    long mine[3], all[240];
    for (int i = 0; i < counts[rank]; i++)
        mine[i] = value(rank, t) + i;
    MPI_Allgatherv(mine, counts[rank], MPI_LONG, all, counts, displs, MPI_LONG, comm);
    for (int j = 0; j < size; j++)
        for (int i = 0; i < counts[j]; i++)
            check(all[displs[j] + i], value(j, t) + i, "allgatherv", t, rank);
    /* in place */
    for (int i = 0; i < counts[rank]; i++)
        all[displs[rank] + i] = -value(rank, t) - i;
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts, displs, MPI_LONG, comm);
    for (int j = 0; j < size; j++)
        for (int i = 0; i < counts[j]; i++)
            check(all[displs[j] + i], -value(j, t) - i, "allgatherv in place", t, rank);
    /* every rank's maps for every rank; rank j gets the composition of the maps for it */
    long maps[160], got[4] = {-1, -1, -1, -1};
    for (int j = 0; j < size; j++)
        affine(rank, t + j, &maps[2 * j]);
    MPI_Reduce_scatter_block(maps, got, 2, MPI_LONG, compose_op, comm);
    long want[2];
    prefix(size, t + rank, want);
    check(got[0], want[0], "reduce_scatter_block [0]", t, rank);
    check(got[1], want[1], "reduce_scatter_block [1]", t, rank);
    int rcounts[80], n = 0, first = 0;
    for (int j = 0; j < size; j++) {
        rcounts[j] = 2 * ((j + t) % 3); /* 0, 1 or 2 maps */
        if (j < rank)
            first += rcounts[j];
        n += rcounts[j];
    }
    if (n <= 160) {
        for (int e = 0; e < n; e += 2)
            affine(rank, t + e, &maps[e]);
        MPI_Reduce_scatter(MPI_IN_PLACE, maps, rcounts, MPI_LONG, compose_op, comm);
        for (int e = 0; e < rcounts[rank]; e += 2) {
            prefix(size, t + first + e, want);
            check(maps[e], want[0], "reduce_scatter in place [0]", t, rank);
            check(maps[e + 1], want[1], "reduce_scatter in place [1]", t, rank);
        }
    }
}

static void rounds(MPI_Comm comm, int first)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int t = first; t < first + ROUNDS; t++) {
        long in = value(rank, t), out = -1;
        int root = t % size;
        /* Now and then the last rank comes 2 ms late (and its core with it): the leaders of the
         * other cores' members give up polling for it and sleep until it pokes them. */
        if (t % 50 == 0 && rank == size - 1)
            usleep(2000);
        MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, comm);
        check(out, sum(size, t), "allreduce", t, rank);
        long b = rank == root ? 7L * t : -1;
        MPI_Bcast(&b, 1, MPI_LONG, root, comm);
        check(b, 7L * t, "bcast", t, rank);
        out = -1;
        MPI_Reduce(&in, &out, 1, MPI_LONG, MPI_MAX, root, comm);
        if (rank == root)
            check(out, value(size - 1, t), "reduce", t, rank);
        if (t % 7 == 0) {
            /* a message around the ring between rounds */
            long token = t, got = -1;
            MPI_Sendrecv(&token, 1, MPI_LONG, (rank + 1) % size, t, &got, 1, MPI_LONG,
                         (rank + size - 1) % size, t, comm, MPI_STATUS_IGNORE);
            check(got, t, "sendrecv", t, rank);
        }
        /* in place, with two elements */
        long two[2] = {in, -in};
        MPI_Allreduce(MPI_IN_PLACE, two, 2, MPI_LONG, MPI_SUM, comm);
        check(two[0], sum(size, t), "allreduce in place [0]", t, rank);
        check(two[1], -sum(size, t), "allreduce in place [1]", t, rank);
        /* every rank's value to all, and a value per pair */
        long all[80], sendto[80], recvfrom[80];
        MPI_Allgather(&in, 1, MPI_LONG, all, 1, MPI_LONG, comm);
        for (int k = 0; k < size; k++)
            check(all[k], value(k, t), "allgather", t, rank);
        for (int k = 0; k < size; k++)
            sendto[k] = 100000L * rank + 100L * k + t % 100;
        MPI_Alltoall(sendto, 1, MPI_LONG, recvfrom, 1, MPI_LONG, comm);
        for (int k = 0; k < size; k++)
            check(recvfrom[k], 100000L * k + 100L * rank + t % 100, "alltoall", t, rank);
        /* to the root, and from it */
        MPI_Gather(&in, 1, MPI_LONG, all, 1, MPI_LONG, root, comm);
        if (rank == root)
            for (int k = 0; k < size; k++)
                check(all[k], value(k, t), "gather", t, rank);
        for (int k = 0; k < size; k++)
            sendto[k] = value(k, t) + 1;
        long mine = -1;
        MPI_Scatter(sendto, 1, MPI_LONG, &mine, 1, MPI_LONG, root, comm);
        check(mine, value(rank, t) + 1, "scatter", t, rank);
        /* Every fourth round: with more ranks than the flat algorithm takes, their message
         * algorithms (reduce_scatter's pairwise exchange above all) would make this test the
         * longest of the suite under ThreadSanitizer; each still runs its calls back to back. */
        if (t % 4 == 0) {
            scans(comm, rank, t);
            vblocks(comm, rank, size, t);
        }
        if (t % 3 == 0)
            MPI_Barrier(comm);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 80) {
        if (rank == 0)
            fprintf(stderr, "coll_flat: at most 80 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Op_create(compose, 0, &compose_op);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
    scan_burst(MPI_COMM_WORLD);
    rounds(MPI_COMM_WORLD, 0);
    rounds(half, ROUNDS);
    rounds(MPI_COMM_WORLD, 2 * ROUNDS);
    MPI_Comm_free(&half);
    MPI_Op_free(&compose_op);
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_flat: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
