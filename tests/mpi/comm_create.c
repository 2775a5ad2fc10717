/* Communicator creation on every rank: MPI_Comm_dup (separate contexts, attributes, error
 * handler), MPI_Comm_split (odd/even, rank % 3 with reversed keys, MPI_UNDEFINED) with a ring in
 * each new communicator, MPI_Comm_split_type, MPI_Comm_create (with one group, and with
 * disjoint groups), MPI_Comm_create_group,
 * MPI_Comm_compare, MPI_Comm_free and its errors, and many dups/frees in a loop.
 * Usage: comm_create */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;
static int rank;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "comm_create: rank %d: line %d: %s\n", rank, __LINE__, #cond);         \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static int copies, deletes;

static int copy_fn(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra;
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)val;
    (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

/* At MPI_Finalize, MPI_COMM_SELF's attributes go first, while the program's communicators still
 * exist: a library frees its own there. */
static MPI_Comm library_comm = MPI_COMM_NULL;
static int self_delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)val;
    (void)extra;
    if (MPI_Comm_free(&library_comm) != MPI_SUCCESS || library_comm != MPI_COMM_NULL) {
        fprintf(stderr, "comm_create: rank %d: MPI_Comm_free in MPI_Finalize failed\n", rank);
        abort();
    }
    return MPI_SUCCESS;
}

static int handled;
static void on_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handled++;
}

/* A ring inside comm: send my world rank right, receive the left one's, check it. */
static void ring(MPI_Comm comm, const int *world_of)
{
    int r, n, got = -1;

    CHECK(MPI_Comm_rank(comm, &r) == MPI_SUCCESS);
    CHECK(MPI_Comm_size(comm, &n) == MPI_SUCCESS);
    int right = (r + 1) % n, left = (r + n - 1) % n;
    MPI_Request req;

    CHECK(MPI_Irecv(&got, 1, MPI_INT, left, 7, comm, &req) == MPI_SUCCESS);
    CHECK(MPI_Send(&rank, 1, MPI_INT, right, 7, comm) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(got == world_of[left]);
}

int main(int argc, char **argv)
{
    MPI_Comm dup, dup2, sub, sub3, shared, none, created, cg, c;
    MPI_Group world_group, g;
    MPI_Errhandler eh, got_eh;
    int size, n, r, res, flag, keyval, members[1024], a = -1, b = -1;
    void *val;
    char name[MPI_MAX_OBJECT_NAME];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* ---- dup: same members, separate context */
    CHECK(MPI_Comm_create_keyval(copy_fn, delete_fn, &keyval, NULL) == MPI_SUCCESS);
    static char base[4];
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, base) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_errhandler(on_error, &eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(dup != MPI_COMM_WORLD && dup != MPI_COMM_NULL);
    CHECK(copies == 1);
    CHECK(MPI_Comm_get_attr(dup, keyval, &val, &flag) == MPI_SUCCESS && flag && val == base + 1);
    CHECK(MPI_Comm_rank(dup, &r) == MPI_SUCCESS && r == rank);
    CHECK(MPI_Comm_size(dup, &n) == MPI_SUCCESS && n == size);
    CHECK(MPI_Comm_get_name(dup, name, &n) == MPI_SUCCESS && n == 0);
    CHECK(MPI_Comm_compare(dup, MPI_COMM_WORLD, &res) == MPI_SUCCESS && res == MPI_CONGRUENT);
    CHECK(MPI_Comm_compare(dup, dup, &res) == MPI_SUCCESS && res == MPI_IDENT);
    /* error handler inherited: an error on dup calls on_error and returns */
    CHECK(MPI_Comm_get_errhandler(dup, &got_eh) == MPI_SUCCESS && got_eh == eh);
    MPI_Errhandler_free(&got_eh);
    CHECK(MPI_Send(&a, 1, MPI_INT, size, 0, dup) == MPI_ERR_RANK && handled == 1);
    MPI_Errhandler_free(&eh);

    /* Messages on dup do not match receives on MPI_COMM_WORLD with the same source and tag. */
    {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        int x = 100 + rank, y = 200 + rank;
        MPI_Request rq[2];

        CHECK(MPI_Irecv(&a, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &rq[0]) == MPI_SUCCESS);
        CHECK(MPI_Irecv(&b, 1, MPI_INT, left, 5, dup, &rq[1]) == MPI_SUCCESS);
        /* dup first: were contexts mixed, the world receive would get it */
        CHECK(MPI_Send(&y, 1, MPI_INT, right, 5, dup) == MPI_SUCCESS);
        CHECK(MPI_Send(&x, 1, MPI_INT, right, 5, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        CHECK(a == 100 + left && b == 200 + left);
    }

    /* dup of a dup, and on MPI_COMM_SELF */
    CHECK(MPI_Comm_dup(dup, &dup2) == MPI_SUCCESS && copies == 2);
    CHECK(MPI_Comm_get_attr(dup2, keyval, &val, &flag) == MPI_SUCCESS && flag && val == base + 2);
    CHECK(MPI_Comm_compare(dup, dup2, &res) == MPI_SUCCESS && res == MPI_CONGRUENT);
    CHECK(MPI_Comm_dup(MPI_COMM_SELF, &c) == MPI_SUCCESS);
    CHECK(MPI_Comm_size(c, &n) == MPI_SUCCESS && n == 1);
    CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 3, &a, 1, MPI_INT, 0, 3, c, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS &&
          a == rank);
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS && c == MPI_COMM_NULL);

    /* ---- split: odd / even, in world order */
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub) == MPI_SUCCESS);
    CHECK(MPI_Comm_rank(sub, &r) == MPI_SUCCESS && r == rank / 2);
    CHECK(MPI_Comm_size(sub, &n) == MPI_SUCCESS && n == (rank % 2 ? size / 2 : (size + 1) / 2));
    for (int i = 0; i < n; i++)
        members[i] = 2 * i + rank % 2;
    ring(sub, members);
    CHECK(MPI_Comm_compare(sub, MPI_COMM_WORLD, &res) == MPI_SUCCESS &&
          res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL));

    /* ---- split by rank % 3, keys reversing the order */
    CHECK(MPI_Comm_split(dup, rank % 3, size - rank, &sub3) == MPI_SUCCESS);
    {
        int count = 0;
        for (int w = size - 1; w >= 0; w--)
            if (w % 3 == rank % 3)
                members[count++] = w;
        CHECK(MPI_Comm_size(sub3, &n) == MPI_SUCCESS && n == count);
        for (int i = 0; i < count; i++)
            if (members[i] == rank)
                CHECK(MPI_Comm_rank(sub3, &r) == MPI_SUCCESS && r == i);
        ring(sub3, members);
    }
    /* same keys: ties go by parent rank; MPI_UNDEFINED gives MPI_COMM_NULL */
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &c) == MPI_SUCCESS);
    if (rank == 0) {
        CHECK(c == MPI_COMM_NULL);
    } else {
        CHECK(MPI_Comm_rank(c, &r) == MPI_SUCCESS && r == rank - 1);
        CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
    }
    /* a split of a split, back in world order: the same members, in another order */
    CHECK(MPI_Comm_split(sub3, 0, rank, &c) == MPI_SUCCESS);
    CHECK(MPI_Comm_compare(c, sub3, &res) == MPI_SUCCESS &&
          res == (n == 1 ? MPI_CONGRUENT : MPI_SIMILAR));
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);

    /* ---- split_type: one communicator of everyone */
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared) ==
          MPI_SUCCESS);
    CHECK(MPI_Comm_compare(shared, MPI_COMM_WORLD, &res) == MPI_SUCCESS && res == MPI_CONGRUENT);
    for (int i = 0; i < size; i++)
        members[i] = i;
    ring(shared, members);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &none) ==
              MPI_SUCCESS &&
          none == MPI_COMM_NULL);

    /* ---- create: the even ranks in reverse order; create_group: the odd ranks */
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world_group) == MPI_SUCCESS);
    {
        int count = 0;
        for (int w = (size - 1) / 2 * 2; w >= 0; w -= 2)
            members[count++] = w;
        CHECK(MPI_Group_incl(world_group, count, members, &g) == MPI_SUCCESS);
        CHECK(MPI_Comm_create(dup, g, &created) == MPI_SUCCESS);
        if (rank % 2) {
            CHECK(created == MPI_COMM_NULL);
        } else {
            CHECK(MPI_Comm_rank(created, &r) == MPI_SUCCESS && r == (members[0] - rank) / 2);
            CHECK(MPI_Comm_size(created, &n) == MPI_SUCCESS && n == count);
            ring(created, members);
            CHECK(MPI_Comm_free(&created) == MPI_SUCCESS);
        }
        MPI_Group_free(&g);
        /* the whole group: congruent to the parent */
        CHECK(MPI_Comm_create(MPI_COMM_WORLD, world_group, &created) == MPI_SUCCESS);
        CHECK(MPI_Comm_compare(created, MPI_COMM_WORLD, &res) == MPI_SUCCESS &&
              res == MPI_CONGRUENT);
        CHECK(MPI_Comm_free(&created) == MPI_SUCCESS);
        CHECK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &created) == MPI_SUCCESS &&
              created == MPI_COMM_NULL);

        /* disjoint groups, one per rank % 3 in decreasing order (MPI-2.2), except for ranks
         * % 3 == 2, which pass the empty group: each group is a communicator of its own */
        int mine[1024], nmine = 0, sum = 0, got = -1;
        for (int w = size - 1; w >= 0; w--)
            if (w % 3 == rank % 3) {
                if (w == rank)
                    r = nmine;
                mine[nmine++] = w;
                sum += w;
            }
        if (rank % 3 == 2)
            g = MPI_GROUP_EMPTY;
        else
            CHECK(MPI_Group_incl(world_group, nmine, mine, &g) == MPI_SUCCESS);
        CHECK(MPI_Comm_create(MPI_COMM_WORLD, g, &created) == MPI_SUCCESS);
        if (rank % 3 == 2) {
            CHECK(created == MPI_COMM_NULL);
        } else {
            int cr = -1;
            CHECK(MPI_Comm_rank(created, &cr) == MPI_SUCCESS && cr == r);
            CHECK(MPI_Comm_size(created, &n) == MPI_SUCCESS && n == nmine);
            CHECK(MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, created) == MPI_SUCCESS &&
                  got == sum);
            CHECK(MPI_Comm_free(&created) == MPI_SUCCESS);
            MPI_Group_free(&g);
        }

        /* odd ranks only call create_group */
        count = 0;
        for (int w = 1; w < size; w += 2)
            members[count++] = w;
        if (count > 0) {
            CHECK(MPI_Group_incl(world_group, count, members, &g) == MPI_SUCCESS);
            if (rank % 2) {
                CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 42, &cg) == MPI_SUCCESS);
                CHECK(MPI_Comm_rank(cg, &r) == MPI_SUCCESS && r == rank / 2);
                ring(cg, members);
                CHECK(MPI_Comm_compare(cg, sub, &res) == MPI_SUCCESS && res == MPI_CONGRUENT);
                CHECK(MPI_Comm_free(&cg) == MPI_SUCCESS);
            } else {
                /* not a member */
                CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 42, &cg) == MPI_ERR_GROUP);
            }
            MPI_Group_free(&g);
        }
    }

    /* ---- errors (MPI_COMM_WORLD returns them) */
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c) == MPI_ERR_ARG);
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_dup(MPI_COMM_NULL, &c) == MPI_ERR_COMM);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c) == MPI_ERR_ARG);
    CHECK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c) == MPI_ERR_GROUP);
    CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, world_group, -1, &c) == MPI_ERR_TAG);
    c = MPI_COMM_WORLD;
    CHECK(MPI_Comm_free(&c) == MPI_ERR_COMM && c == MPI_COMM_WORLD);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    c = MPI_COMM_SELF;
    CHECK(MPI_Comm_free(&c) == MPI_ERR_COMM);
    c = MPI_COMM_NULL;
    CHECK(MPI_Comm_free(&c) == MPI_ERR_COMM);
    CHECK(MPI_Comm_free(NULL) == MPI_ERR_ARG);
    if (size > 1) {
        /* a group that is not a subgroup of the parent */
        CHECK(MPI_Comm_create(MPI_COMM_SELF, world_group, &c) == MPI_ERR_GROUP);
    }
    MPI_Group_free(&world_group);

    /* ---- info */
    {
        MPI_Info info;
        CHECK(MPI_Comm_get_info(dup, &info) == MPI_SUCCESS);
        CHECK(MPI_Info_get_nkeys(info, &n) == MPI_SUCCESS && n == 0);
        CHECK(MPI_Comm_set_info(dup, info) == MPI_SUCCESS);
        CHECK(MPI_Comm_dup_with_info(dup, info, &c) == MPI_SUCCESS);
        CHECK(MPI_Comm_compare(c, dup, &res) == MPI_SUCCESS && res == MPI_CONGRUENT);
        CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
        CHECK(MPI_Comm_set_info(dup, MPI_INFO_NULL) == MPI_ERR_INFO);
        /* MPI_INFO_NULL is no hint at all, as MPICH and Open MPI take it */
        CHECK(MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &c) == MPI_SUCCESS);
        CHECK(MPI_Comm_compare(c, dup, &res) == MPI_SUCCESS && res == MPI_CONGRUENT);
        CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
        MPI_Info_free(&info);
    }

    /* ---- free: the attributes go with the communicator */
    deletes = 0;
    CHECK(MPI_Comm_free(&dup2) == MPI_SUCCESS && dup2 == MPI_COMM_NULL && deletes == 1);
    CHECK(MPI_Comm_rank(dup2, &r) == MPI_ERR_COMM);

    /* ---- many dups and frees: every communicator keeps its own context */
    for (int i = 0; i < 200; i++) {
        MPI_Comm d[3];
        int got[3];
        MPI_Request rq[3];

        for (int k = 0; k < 3; k++)
            CHECK(MPI_Comm_dup(k == 0 ? sub3 : d[k - 1], &d[k]) == MPI_SUCCESS);
        /* receive on three contexts with the same source and tag, sent in reverse order */
        for (int k = 0; k < 3; k++)
            CHECK(MPI_Irecv(&got[k], 1, MPI_INT, MPI_ANY_SOURCE, i, d[k], &rq[k]) == MPI_SUCCESS);
        int nsub;
        MPI_Comm_size(sub3, &nsub);
        MPI_Comm_rank(sub3, &r);
        for (int k = 2; k >= 0; k--) {
            int v = 1000 * k + r;
            CHECK(MPI_Send(&v, 1, MPI_INT, (r + 1) % nsub, i, d[k]) == MPI_SUCCESS);
        }
        CHECK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        for (int k = 0; k < 3; k++)
            CHECK(got[k] == 1000 * k + (r + nsub - 1) % nsub);
        for (int k = 2; k >= 0; k--)
            CHECK(MPI_Comm_free(&d[k]) == MPI_SUCCESS);
    }

    CHECK(MPI_Comm_free(&sub) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&sub3) == MPI_SUCCESS);
    /* dup and shared are left for MPI_Finalize to free (dup's attribute deleted there) */
    int self_keyval;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &library_comm) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete_fn, &self_keyval, NULL) ==
          MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL) == MPI_SUCCESS);
    deletes = 0;
    MPI_Comm_free_keyval(&keyval);
    if (errors)
        fprintf(stderr, "comm_create: rank %d: %d errors\n", rank, errors);
    else if (rank == 0)
        printf("comm_create: ok\n");
    MPI_Finalize();
    return errors != 0;
}
