/* Intercommunicators: MPI_Intercomm_create between the even and the odd ranks (leaders: their rank
 * 0, over MPI_COMM_WORLD); sizes, remote group, MPI_Comm_test_inter; point-to-point across (a
 * ping-pong of leaders, small and large; every member to the remote rank 0 with MPI_ANY_SOURCE,
 * whose status names the sender's rank in its group; MPI_Sendrecv between partners); MPI_Comm_dup
 * and MPI_Comm_idup, whose messages stay apart from the original's; MPI_Comm_compare;
 * MPI_Intercomm_merge with high flags and with a tie; MPI_Comm_create and MPI_Comm_split on it;
 * the collectives, v and w forms too (MPI_ROOT and MPI_PROC_NULL roots, reductions in the remote
 * group's rank order, non-blocking and persistent forms, a bad root, MPI_IN_PLACE); pairs of
 * MPI_COMM_SELF joined over MPI_COMM_WORLD; what is refused (scans, topologies: MPI_ERR_COMM;
 * MPI_Comm_remote_size of an intracommunicator). Needs 2 ranks or more. */
#include <mpi.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "intercomm: rank %d, line %d: %s\n", rank, __LINE__, #cond);           \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* A non-commutative operation: the left operand (the result is the first in rank order). */
static void keep_left(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = ((int *)in)[i];
}

/* The world rank of rank i of the group of parity p. */
static int world_of(int p, int i)
{
    return 2 * i + p;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int parity = rank % 2, other = 1 - parity;
    int nmine = (size + 1 - parity) / 2, ntheirs = (size + parity) / 2;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, parity, rank, &local);
    CHECK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, other, 77, &inter) == MPI_SUCCESS);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);

    int flag = 0, n = -1, me = -1;
    CHECK(MPI_Comm_test_inter(inter, &flag) == MPI_SUCCESS && flag);
    CHECK(MPI_Comm_test_inter(local, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Comm_size(inter, &n) == MPI_SUCCESS && n == nmine);
    CHECK(MPI_Comm_rank(inter, &me) == MPI_SUCCESS && me == rank / 2);
    CHECK(MPI_Comm_remote_size(inter, &n) == MPI_SUCCESS && n == ntheirs);
    MPI_Group remote, world_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    CHECK(MPI_Comm_remote_group(inter, &remote) == MPI_SUCCESS);
    int *ranks = malloc(size * sizeof(int)), *wranks = malloc(size * sizeof(int));
    for (int i = 0; i < ntheirs; i++)
        ranks[i] = i;
    MPI_Group_translate_ranks(remote, ntheirs, ranks, world_group, wranks);
    for (int i = 0; i < ntheirs; i++)
        CHECK(wranks[i] == world_of(other, i));
    MPI_Group_free(&remote);

    /* the leaders' ping-pong, small then large (a rendezvous) */
    enum { BIG = 100000 };
    int *big = malloc(BIG * sizeof(int));
    MPI_Status st;
    if (me == 0) {
        for (int i = 0; i < BIG; i++)
            big[i] = rank + i;
        if (parity == 0) {
            CHECK(MPI_Send(big, BIG, MPI_INT, 0, 1, inter) == MPI_SUCCESS);
            CHECK(MPI_Recv(big, BIG, MPI_INT, 0, 2, inter, &st) == MPI_SUCCESS);
            CHECK(big[0] == 1 && big[BIG - 1] == 1 + BIG - 1);
        } else {
            CHECK(MPI_Recv(big, BIG, MPI_INT, 0, 1, inter, &st) == MPI_SUCCESS);
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 1 && big[0] == 0 && big[BIG - 1] == BIG - 1);
            for (int i = 0; i < BIG; i++)
                big[i] = rank + i;
            CHECK(MPI_Send(big, BIG, MPI_INT, 0, 2, inter) == MPI_SUCCESS);
        }
    }

    /* every member to the remote rank 0, received from MPI_ANY_SOURCE */
    MPI_Request req;
    CHECK(MPI_Isend(&rank, 1, MPI_INT, 0, 3, inter, &req) == MPI_SUCCESS);
    if (me == 0) {
        int *seen = calloc(ntheirs, sizeof(int));
        for (int k = 0; k < ntheirs; k++) {
            int v = -1;
            CHECK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, inter, &st) == MPI_SUCCESS);
            CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < ntheirs &&
                  v == world_of(other, st.MPI_SOURCE));
            if (st.MPI_SOURCE >= 0 && st.MPI_SOURCE < ntheirs)
                seen[st.MPI_SOURCE]++;
        }
        for (int k = 0; k < ntheirs; k++)
            CHECK(seen[k] == 1);
        free(seen);
    }
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);

    /* partners: rank i of each group with rank i of the other */
    if (me < ntheirs) {
        int out = rank, in = -1;
        CHECK(MPI_Sendrecv(&out, 1, MPI_INT, me, 4, &in, 1, MPI_INT, me, 4, inter, &st) ==
              MPI_SUCCESS);
        CHECK(in == world_of(other, me) && st.MPI_SOURCE == me);
    }
    /* a rank past the remote group is refused */
    CHECK(MPI_Send(&rank, 1, MPI_INT, ntheirs, 4, inter) == MPI_ERR_RANK);

    /* duplicates: their own contexts */
    MPI_Comm dup, idup;
    int res = -1;
    CHECK(MPI_Comm_dup(inter, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup(inter, &idup, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Comm_test_inter(dup, &flag) == MPI_SUCCESS && flag);
    CHECK(MPI_Comm_remote_size(idup, &n) == MPI_SUCCESS && n == ntheirs);
    CHECK(MPI_Comm_compare(inter, dup, &res) == MPI_SUCCESS && res == MPI_CONGRUENT);
    CHECK(MPI_Comm_compare(inter, local, &res) == MPI_SUCCESS && res == MPI_UNEQUAL);
    if (me == 0) {
        int a = 10 + parity, b = 20 + parity, c = 30 + parity, got[3] = {-1, -1, -1};
        MPI_Request rs[6];
        MPI_Isend(&a, 1, MPI_INT, 0, 5, inter, &rs[0]);
        MPI_Isend(&b, 1, MPI_INT, 0, 5, dup, &rs[1]);
        MPI_Isend(&c, 1, MPI_INT, 0, 5, idup, &rs[2]);
        MPI_Irecv(&got[2], 1, MPI_INT, 0, 5, idup, &rs[3]);
        MPI_Irecv(&got[1], 1, MPI_INT, 0, 5, dup, &rs[4]);
        MPI_Irecv(&got[0], 1, MPI_INT, 0, 5, inter, &rs[5]);
        CHECK(MPI_Waitall(6, rs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        CHECK(got[0] == 10 + other && got[1] == 20 + other && got[2] == 30 + other);
    }
    MPI_Comm_free(&idup);

    /* merged: the odd group (high) after the even one */
    MPI_Comm merged;
    CHECK(MPI_Intercomm_merge(dup, parity, &merged) == MPI_SUCCESS);
    CHECK(MPI_Comm_test_inter(merged, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Comm_size(merged, &n) == MPI_SUCCESS && n == size);
    int want = parity == 0 ? me : (size + 1) / 2 + me, sum = 0;
    CHECK(MPI_Comm_rank(merged, &n) == MPI_SUCCESS && n == want);
    CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged) == MPI_SUCCESS &&
          sum == size * (size - 1) / 2);
    MPI_Comm_free(&merged);
    /* a tie: the group of world rank 0 first; then the other way round */
    CHECK(MPI_Intercomm_merge(inter, 0, &merged) == MPI_SUCCESS);
    CHECK(MPI_Comm_rank(merged, &n) == MPI_SUCCESS && n == want);
    MPI_Comm_free(&merged);
    CHECK(MPI_Intercomm_merge(inter, !parity, &merged) == MPI_SUCCESS);
    want = parity == 1 ? me : size / 2 + me;
    CHECK(MPI_Comm_rank(merged, &n) == MPI_SUCCESS && n == want);
    MPI_Comm_free(&merged);
    /* a group whose members pass different highs (erroneous): its rank 0's counts, so every
     * member sees the same order (the even group's rank 0 says high: it goes second) */
    CHECK(MPI_Intercomm_merge(inter, parity == 0 ? me == 0 : me != 0, &merged) == MPI_SUCCESS);
    int *order = malloc(size * sizeof(int));
    CHECK(MPI_Allgather(&rank, 1, MPI_INT, order, 1, MPI_INT, merged) == MPI_SUCCESS);
    for (int i = 0; i < size; i++) /* the odd ranks, then the even ones */
        CHECK(order[i] == (i < size / 2 ? 2 * i + 1 : 2 * (i - size / 2)));
    free(order);
    MPI_Comm_free(&merged);

    /* collectives: the even group's rank 0 roots the broadcast and the gather, the odd group's
     * rank 0 the reduction and the scatter */
    int even_root = parity == 0 ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int odd_root = parity == 1 ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int sum_theirs = 0, v[4] = {-1, -1, -1, -1};
    for (int i = 0; i < ntheirs; i++)
        sum_theirs += world_of(other, i);
    CHECK(MPI_Barrier(inter) == MPI_SUCCESS);
    v[0] = parity == 0 && me == 0 ? 42 : -1;
    CHECK(MPI_Bcast(v, 1, MPI_INT, even_root, inter) == MPI_SUCCESS);
    CHECK(v[0] == (parity == 1 || me == 0 ? 42 : -1));
    int total = -1;
    CHECK(MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS &&
          total == sum_theirs);
    MPI_Op left;
    MPI_Op_create(keep_left, 0, &left);
    total = -1;
    CHECK(MPI_Allreduce(&rank, &total, 1, MPI_INT, left, inter) == MPI_SUCCESS &&
          total == world_of(other, 0)); /* rank order: the remote rank 0's */
    total = -1;
    CHECK(MPI_Reduce(&rank, &total, 1, MPI_INT, MPI_SUM, odd_root, inter) == MPI_SUCCESS);
    CHECK(total == (parity == 1 && me == 0 ? sum_theirs : -1));
    total = -1;
    CHECK(MPI_Reduce(&rank, &total, 1, MPI_INT, left, odd_root, inter) == MPI_SUCCESS);
    CHECK(total == (parity == 1 && me == 0 ? world_of(other, 0) : -1));
    MPI_Op_free(&left);
    /* The members that take no part (MPI_PROC_NULL) pass an operation of no significance: the
     * consistency check, which compares the calls within a few tenths of a second, finds no
     * mismatch with the root's. */
    usleep(300 * 1000);
    CHECK(MPI_Barrier(inter) == MPI_SUCCESS);
    for (int i = 0; i < size; i++)
        ranks[i] = -1;
    CHECK(MPI_Gather(&rank, 1, MPI_INT, ranks, 1, MPI_INT, even_root, inter) == MPI_SUCCESS);
    for (int i = 0; parity == 0 && me == 0 && i < ntheirs; i++)
        CHECK(ranks[i] == world_of(other, i));
    for (int i = 0; i < size; i++)
        wranks[i] = 100 + i;
    v[0] = -1;
    CHECK(MPI_Scatter(wranks, 1, MPI_INT, v, 1, MPI_INT, odd_root, inter) == MPI_SUCCESS);
    CHECK(v[0] == (parity == 0 ? 100 + me : -1));
    CHECK(MPI_Allgather(&rank, 1, MPI_INT, ranks, 1, MPI_INT, inter) == MPI_SUCCESS);
    for (int i = 0; i < ntheirs; i++)
        CHECK(ranks[i] == world_of(other, i));
    for (int i = 0; i < ntheirs; i++)
        wranks[i] = rank * 100 + i;
    CHECK(MPI_Alltoall(wranks, 1, MPI_INT, ranks, 1, MPI_INT, inter) == MPI_SUCCESS);
    for (int i = 0; i < ntheirs; i++)
        CHECK(ranks[i] == world_of(other, i) * 100 + me);
    /* non-blocking and persistent forms */
    MPI_Request two[2];
    total = -1;
    CHECK(MPI_Iallreduce(&rank, &total, 1, MPI_INT, MPI_MAX, inter, &two[0]) == MPI_SUCCESS);
    CHECK(MPI_Ibarrier(inter, &two[1]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, two, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    CHECK(total == world_of(other, ntheirs - 1));
    CHECK(MPI_Bcast_init(v, 2, MPI_INT, odd_root, inter, MPI_INFO_NULL, &req) == MPI_SUCCESS);
    for (int run = 0; run < 2; run++) {
        v[0] = parity == 1 && me == 0 ? run : -1;
        v[1] = parity == 1 && me == 0 ? run + 1 : -1;
        CHECK(MPI_Start(&req) == MPI_SUCCESS && MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        if (parity == 0)
            CHECK(v[0] == run && v[1] == run + 1);
    }
    MPI_Request_free(&req);
    /* their errors */
    CHECK(MPI_Bcast(v, 1, MPI_INT, ntheirs, inter) == MPI_ERR_ROOT);
    CHECK(MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, inter) == MPI_ERR_BUFFER);

    /* the v and w forms: remote member i's block takes i + 1 ints, in reverse order */
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    int *bdispls = malloc(size * sizeof(int)), cap = 0;
    MPI_Datatype *types = malloc(size * sizeof(MPI_Datatype));
    for (int i = ntheirs - 1; i >= 0; i--) {
        counts[i] = i + 1;
        displs[i] = cap;
        bdispls[i] = cap * (int)sizeof(int);
        types[i] = MPI_INT;
        cap += i + 1;
    }
    int *out = malloc((cap + size) * sizeof(int)), *in = malloc((cap + size) * sizeof(int));
    for (int k = 0; k < cap + size; k++)
        out[k] = rank * 1000 + k;
    /* gatherv at the even root: remote i sends i + 1 ints */
    for (int k = 0; k < cap; k++)
        in[k] = -1;
    CHECK(MPI_Gatherv(out, me + 1, MPI_INT, in, counts, displs, MPI_INT, even_root, inter) ==
          MPI_SUCCESS);
    for (int i = 0; parity == 0 && me == 0 && i < ntheirs; i++)
        for (int k = 0; k <= i; k++)
            CHECK(in[displs[i] + k] == world_of(other, i) * 1000 + k);
    /* scatterv from the odd root: block i to even member i */
    for (int k = 0; k < cap; k++)
        in[k] = -1;
    CHECK(MPI_Scatterv(out, counts, displs, MPI_INT, in, me + 1, MPI_INT, odd_root, inter) ==
          MPI_SUCCESS);
    int at = 0; /* where my block starts in the root's layout, over my group */
    for (int j = me + 1; j < nmine; j++)
        at += j + 1;
    for (int k = 0; parity == 0 && k <= me; k++)
        CHECK(in[k] == world_of(other, 0) * 1000 + at + k);
    /* allgatherv: everyone's i + 1 ints */
    CHECK(MPI_Allgatherv(out, me + 1, MPI_INT, in, counts, displs, MPI_INT, inter) == MPI_SUCCESS);
    for (int i = 0; i < ntheirs; i++)
        for (int k = 0; k <= i; k++)
            CHECK(in[displs[i] + k] == world_of(other, i) * 1000 + k);
    /* alltoallv and alltoallw: to remote i, i + 1 ints from my displs[i]; from remote i, my
     * rank + 1 ints... each side names the other's counts: remote i sends me + 1 ints */
    int *scounts = malloc(size * sizeof(int));
    for (int i = 0; i < ntheirs; i++)
        scounts[i] = me + 1;
    int *sdispls = malloc(size * sizeof(int)), *sbdispls = malloc(size * sizeof(int));
    for (int i = 0; i < ntheirs; i++) {
        sdispls[i] = i * (me + 1);
        sbdispls[i] = sdispls[i] * (int)sizeof(int);
    }
    /* I send me + 1 ints to each remote i and receive i + 1 from it (remote i's me is i) */
    for (int w = 0; w < 2; w++) {
        for (int k = 0; k < cap; k++)
            in[k] = -1;
        if (w == 0)
            CHECK(MPI_Alltoallv(out, scounts, sdispls, MPI_INT, in, counts, displs, MPI_INT,
                                inter) == MPI_SUCCESS);
        else
            CHECK(MPI_Alltoallw(out, scounts, sbdispls, types, in, counts, bdispls, types, inter) ==
                  MPI_SUCCESS);
        for (int i = 0; i < ntheirs; i++)
            for (int k = 0; k <= i; k++)
                CHECK(in[displs[i] + k] == world_of(other, i) * 1000 + me * (i + 1) + k);
    }
    free(scounts);
    free(sdispls);
    free(sbdispls);
    free(counts);
    free(displs);
    free(bdispls);
    free(types);
    free(out);
    free(in);

    /* reduce-scatter: each group's vectors have nmine x ntheirs elements (the same count on
     * both sides); my block of the sum of the remote vectors, in equal blocks, then with the
     * first member taking two blocks and the last none */
    int count = nmine * ntheirs, *vec = malloc(count * sizeof(int));
    int *blk = malloc(2 * ntheirs * sizeof(int) + sizeof(int)),
        *rcounts = malloc(size * sizeof(int));
    for (int k = 0; k < count; k++)
        vec[k] = rank + k;
    CHECK(MPI_Reduce_scatter_block(vec, blk, ntheirs, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS);
    for (int k = 0; k < ntheirs; k++)
        CHECK(blk[k] == sum_theirs + ntheirs * (me * ntheirs + k));
    for (int i = 0; i < nmine; i++)
        rcounts[i] = nmine == 1 ? ntheirs : i == 0 ? 2 * ntheirs : i == nmine - 1 ? 0 : ntheirs;
    int off = me == 0 ? 0 : (me + 1) * ntheirs; /* where my block starts */
    CHECK(MPI_Reduce_scatter(vec, blk, rcounts, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS);
    for (int k = 0; k < rcounts[me]; k++)
        CHECK(blk[k] == sum_theirs + ntheirs * (off + k));
    free(vec);
    free(blk);
    free(rcounts);

    /* MPI_Comm_create on the intercommunicator: each side without its last member (when it
     * has two or more); then the empty group, which makes nothing */
    MPI_Group lg, sub;
    MPI_Comm_group(inter, &lg);
    int drop[1] = {nmine - 1};
    if (nmine > 1)
        MPI_Group_excl(lg, 1, drop, &sub);
    else
        MPI_Group_incl(lg, 1, drop, &sub);
    MPI_Comm ic;
    CHECK(MPI_Comm_create(inter, sub, &ic) == MPI_SUCCESS);
    if (nmine > 1 && me == nmine - 1) {
        CHECK(ic == MPI_COMM_NULL);
    } else {
        int rsz = -1, got = -1;
        CHECK(MPI_Comm_test_inter(ic, &flag) == MPI_SUCCESS && flag);
        CHECK(MPI_Comm_remote_size(ic, &rsz) == MPI_SUCCESS &&
              rsz == (ntheirs > 1 ? ntheirs - 1 : 1));
        CHECK(MPI_Comm_size(ic, &n) == MPI_SUCCESS && n == (nmine > 1 ? nmine - 1 : 1));
        int expect = 0;
        for (int i = 0; i < rsz; i++)
            expect += world_of(other, i);
        CHECK(MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, ic) == MPI_SUCCESS && got == expect);
        MPI_Comm_free(&ic);
    }
    CHECK(MPI_Comm_create(inter, MPI_GROUP_EMPTY, &ic) == MPI_SUCCESS && ic == MPI_COMM_NULL);
    MPI_Group_free(&sub);
    MPI_Group_free(&lg);

    /* MPI_Comm_split on the intercommunicator: color = rank % 2 on both sides, ordered by
     * reversed rank; the even side's rank 2 alone takes color 5 (no partner: MPI_COMM_NULL); the
     * odd side's rank 2 passes MPI_UNDEFINED */
    int color = me % 2, sk = -me;
    if (me == 2)
        color = parity == 0 ? 5 : MPI_UNDEFINED;
    CHECK(MPI_Comm_split(inter, color, sk, &ic) == MPI_SUCCESS);
    int lsz = 0, rsz = 0, lpos = 0, rsum = 0;
    for (int i = 0; i < nmine; i++)
        if (i != 2 && i % 2 == color) {
            lsz++;
            lpos += i > me; /* members after me in rank come first */
        }
    for (int i = 0; i < ntheirs; i++)
        if (i != 2 && i % 2 == color) {
            rsz++;
            rsum += world_of(other, i);
        }
    if (me == 2 || rsz == 0) {
        CHECK(ic == MPI_COMM_NULL);
    } else {
        int got = -1;
        CHECK(MPI_Comm_size(ic, &n) == MPI_SUCCESS && n == lsz);
        CHECK(MPI_Comm_rank(ic, &n) == MPI_SUCCESS && n == lpos);
        CHECK(MPI_Comm_remote_size(ic, &n) == MPI_SUCCESS && n == rsz);
        CHECK(MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, ic) == MPI_SUCCESS && got == rsum);
        MPI_Comm_free(&ic);
    }

    /* refused */
    CHECK(MPI_Scan(&rank, v, 1, MPI_INT, MPI_SUM, inter) == MPI_ERR_COMM);
    MPI_Comm bad;
    int dims[1] = {nmine}, periods[1] = {0};
    CHECK(MPI_Cart_create(inter, 1, dims, periods, 0, &bad) == MPI_ERR_COMM);
    CHECK(MPI_Comm_remote_size(local, &n) == MPI_ERR_COMM);
    CHECK(MPI_Intercomm_merge(local, 0, &bad) == MPI_ERR_COMM);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);

    /* pairs of ranks joined from MPI_COMM_SELF over MPI_COMM_WORLD */
    int partner = rank ^ 1;
    if (partner < size) {
        MPI_Comm pair;
        CHECK(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, partner, 9, &pair) ==
              MPI_SUCCESS);
        int in = -1;
        CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 0, &in, 1, MPI_INT, 0, 0, pair,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS &&
              in == partner);
        MPI_Comm_free(&pair);
    }

    MPI_Group_free(&world_group);
    MPI_Comm_free(&local);
    free(big);
    free(ranks);
    free(wranks);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("intercomm: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
