/* A task graph over MPI: the tiled right-looking Cholesky factorisation A = L L^T of a symmetric
 * positive definite matrix of T x T tiles of B x B doubles, distributed 2D block-cyclically over
 * a P x Q grid of ranks (tile (i,j) on rank (i mod P) Q + j mod Q), run three ways that differ
 * only in how a tile produced on one rank reaches the ranks that need it:
 *   p2p      the owner sends it to each of them with one MPI_Isend each;
 *   bcast    its owner and its readers build a communicator for it (MPI_Comm_create_group, each
 *            computing the same group from the static distribution), MPI_Bcast, free it;
 *   dynamic  the owner calls MPIX_Ibcast_dynamic with the list of its readers (a ThreadMPI
 *            extension: the data travels down a tree whose inner nodes forward it by themselves).
 * In p2p and dynamic, each rank posts at the start one MPI_Irecv per tile it needs, from its
 * owner; readers do not know about each other, nor whether a broadcast is under way.
 *
 * Tasks, for step k = 0 .. T-1 (the kernels are plain C loops):
 *   POTRF(k)      L(k,k) = chol(A(k,k))                      read by the TRSMs of column k
 *   TRSM(i,k)     L(i,k) = A(i,k) L(k,k)^-T, i > k            read by the updates of row i and
 *                                                             column i
 *   UPDATE(i,j,k) A(i,j) -= L(i,k) L(j,k)^T, i >= j > k       (SYRK when i = j, else GEMM)
 * Each rank runs the tasks of the tiles it owns as soon as their inputs are there: a task whose
 * inputs (and the previous update of its tile) are all there joins a heap of ready tasks, taken in
 * a fixed priority order (step, then POTRF, TRSM, the updates of the next panel, the others).
 * After each task, the receives of the tiles needed soonest (the first 16 still in flight) are
 * tested; only when no task is ready does the rank block, in MPI_Waitsome on all of them. Ranks
 * never synchronise globally. The updates of a tile always run in the order of k, so the three
 * modes do the same arithmetic in the same order and give the same L bit for bit.
 *
 * In bcast mode, the communicators are created in one global order (step by step, L(k,k) then
 * L(k+1,k), L(k+2,k)...), so that ranks in several groups agree on the order: the owner joins as
 * soon as its tile is computed and the earlier groups it is in are done, a reader when it has no
 * task ready to run. MPI_Comm_create_group and MPI_Bcast block until the whole group is there:
 * that wait, and the creation itself, are what the other modes save.
 *
 * The matrix: A(r,c) = A(c,r) is a hash of (r, c) in [-0.5, 0.5) off the diagonal and n = T B on
 * it; strictly diagonally dominant, hence positive definite, and each rank builds its own tiles.
 * The check: rank 0 gathers L and computes ||A - L L^T||_F / ||A||_F, which must be below 1e-12;
 * every later run must give the same L bit for bit. The program exits with 1 if not.
 *
 *   mpicc -O2 -o task_dag task_dag.c -lm
 *   mpcrun -n 16 ./task_dag [-t TILES] [-b TILE_SIZE] [-m p2p|bcast|dynamic|all] [-r REPEATS]
 *
 * Defaults: 32 x 32 tiles of 48 x 48, all modes, 3 runs of each (the modes take turns). Prints per
 * mode the median and the best time of the factorisation (the largest over the ranks, from a
 * barrier before the first task to a barrier after the rank's last task and send), then how the
 * dynamic broadcasts compare with the two others. MPIX_Ibcast_dynamic is ThreadMPI's: with
 * another MPI, the dynamic mode is skipped. */
#include <mpi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef THREADMPI_BCAST_DYNAMIC
#define HAVE_DYNAMIC 1
#else
#define HAVE_DYNAMIC 0
#endif

enum mode { MODE_P2P, MODE_BCAST, MODE_DYNAMIC, NMODES };
static const char *const mode_names[NMODES] = {"p2p", "bcast", "dynamic"};

enum kind { POTRF, TRSM, UPDATE };

struct task {
    int kind, i, j, k; /* UPDATE(i,j,k); POTRF and TRSM of tile (i,j) have k = j */
};

struct dag {
    int T, B, n, rank, size, P, Q, ntiles;
    MPI_Comm comm;
    MPI_Group group;
    enum mode mode;
    double **tile;      /* [ntiles] this rank's tiles, NULL for the others' */
    double **copy;      /* [ntiles] buffers for the others' tiles that this rank reads */
    double **ref;       /* [ntiles] this rank's tiles as the first run left them */
    int *rd_off, *rd;   /* ranks that read tile t: rd[rd_off[t] .. rd_off[t+1]) */
    int *wt_off, *wt;   /* this rank's tasks that read tile t: wt[wt_off[t] .. wt_off[t+1]) */
    int *order;         /* [ntiles] the tiles of L in the order they are produced */
    struct task *tasks; /* [ntasks] this rank's tasks in priority order */
    int *next;          /* [ntasks] the next task on the same tile, -1 after the last */
    int *deps0, *deps;  /* [ntasks] inputs and predecessor: all, those not there yet */
    int *heap, nheap;   /* the tasks ready to run, a binary heap on their priority */
    int ntasks, ndone;
    MPI_Request *rreq; /* receives (p2p, dynamic), in the order the tiles are produced */
    int *rtile, nrreq, rfirst, *idx; /* their tiles; the first one not complete */
    MPI_Request *sreq;               /* sends in flight */
    int nsreq;
    char *avail;          /* [ntiles] tile of L final here (own tile) or received (copy) */
    int *bseq, nb, bnext; /* bcast: the tiles whose group this rank is in, in global order */
    int *gbuf;            /* bcast: owner then readers of a tile */
    long messages;        /* tile transfers of a run (readers summed over tiles) */
};

static int tid(int i, int j)
{
    return i * (i + 1) / 2 + j;
}

static int owner(const struct dag *d, int i, int j)
{
    return (i % d->P) * d->Q + j % d->Q;
}

/* The row and column of tile number t. */
static void tile_at(int t, int *i_p, int *j_p)
{
    int i = 0;
    while (tid(i + 1, 0) <= t)
        i++;
    *i_p = i;
    *j_p = t - tid(i, 0);
}

/* ------------------------------------------------------------------ the matrix and the kernels */

/* A(r, c) off the diagonal: a hash of the unordered pair, in [-0.5, 0.5). */
static double matrix_entry(int r, int c, int n)
{
    if (r == c)
        return n;
    uint64_t x = r < c ? (uint64_t)r << 32 | (uint64_t)c : (uint64_t)c << 32 | (uint64_t)r;
    x += 0x9e3779b97f4a7c15u; /* splitmix64's finaliser */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    x ^= x >> 31;
    return (double)(x >> 11) / 9007199254740992.0 - 0.5;
}

static void matrix_tile(double *a, int i, int j, int B, int n)
{
    for (int r = 0; r < B; r++)
        for (int c = 0; c < B; c++)
            a[r * B + c] = matrix_entry(i * B + r, j * B + c, n);
}

/* a := its lower Cholesky factor, the upper part zeroed; -1 if a is not positive definite. */
static int kernel_potrf(double *a, int B)
{
    for (int j = 0; j < B; j++) {
        double s = a[j * B + j];
        for (int p = 0; p < j; p++)
            s -= a[j * B + p] * a[j * B + p];
        if (!(s > 0))
            return -1;
        double djj = sqrt(s);
        a[j * B + j] = djj;
        for (int i = j + 1; i < B; i++) {
            s = a[i * B + j];
            for (int p = 0; p < j; p++)
                s -= a[i * B + p] * a[j * B + p];
            a[i * B + j] = s / djj;
        }
        for (int c = j + 1; c < B; c++)
            a[j * B + c] = 0;
    }
    return 0;
}

/* a := a l^-T, l lower triangular: each row x of the result solves l x^T = a-row^T. */
static void kernel_trsm(double *a, const double *l, int B)
{
    for (int r = 0; r < B; r++) {
        double *x = a + r * B;
        for (int c = 0; c < B; c++) {
            double s = x[c];
            for (int p = 0; p < c; p++)
                s -= x[p] * l[c * B + p];
            x[c] = s / l[c * B + c];
        }
    }
}

/* c -= a b^T; only the lower triangle when a == b (SYRK). */
static void kernel_update(double *c, const double *a, const double *b, int B)
{
    for (int r = 0; r < B; r++) {
        int last = a == b ? r + 1 : B;
        for (int s = 0; s < last; s++) {
            double sum = 0;
            for (int p = 0; p < B; p++)
                sum += a[r * B + p] * b[s * B + p];
            c[r * B + s] -= sum;
        }
    }
}

/* ------------------------------------------------------------------ the static structure */

static void *xcalloc(size_t count, size_t bytes)
{
    void *p = calloc(count ? count : 1, bytes);
    if (!p) {
        fprintf(stderr, "task_dag: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* The ranks other than its owner that read tile (i,k) of L, the first reader first: the owners
 * of row i from column k+1 to i, then of column i below the diagonal. Returns their number. */
static int readers(const struct dag *d, int i, int k, int *out, char *seen)
{
    int own = owner(d, i, k), n = 0;
#define ADD(r)                                                                                     \
    do {                                                                                           \
        int r_ = (r);                                                                              \
        if (r_ != own && !seen[r_]) {                                                              \
            seen[r_] = 1;                                                                          \
            out[n++] = r_;                                                                         \
        }                                                                                          \
    } while (0)
    if (i == k) {
        for (int m = k + 1; m < d->T; m++)
            ADD(owner(d, m, k));
    } else {
        for (int j = k + 1; j <= i; j++)
            ADD(owner(d, i, j));
        for (int m = i + 1; m < d->T; m++)
            ADD(owner(d, m, i));
    }
#undef ADD
    for (int r = 0; r < n; r++)
        seen[out[r]] = 0;
    return n;
}

/* Priority: step, then POTRF, TRSM, the updates of the next panel (column k+1), the others. */
static void task_key(const struct task *t, int key[4])
{
    int step = t->kind == UPDATE ? t->k : t->j;
    int cls = t->kind == POTRF ? 0 : t->kind == TRSM ? 1 : t->j == t->k + 1 ? 2 : 3;
    key[0] = step;
    key[1] = cls;
    key[2] = t->j;
    key[3] = t->i;
}

static int task_cmp(const void *a, const void *b)
{
    int ka[4], kb[4];
    task_key(a, ka);
    task_key(b, kb);
    for (int x = 0; x < 4; x++)
        if (ka[x] != kb[x])
            return ka[x] < kb[x] ? -1 : 1;
    return 0;
}

/* The tiles that task x reads, other than the one it writes: returns their number (0 to 2). */
static int task_inputs(const struct task *t, int in[2])
{
    switch (t->kind) {
    case POTRF:
        return 0;
    case TRSM:
        in[0] = tid(t->j, t->j);
        return 1;
    default:
        in[0] = tid(t->i, t->k);
        in[1] = tid(t->j, t->k);
        return t->i == t->j ? 1 : 2;
    }
}

static void dag_setup(struct dag *d)
{
    int T = d->T, bb = d->B * d->B, in[2];
    d->n = T * d->B;
    d->ntiles = T * (T + 1) / 2;
    for (d->P = 1; (d->P + 1) * (d->P + 1) <= d->size; d->P++)
        ;
    while (d->size % d->P)
        d->P--;
    d->Q = d->size / d->P;
    MPI_Comm_dup(MPI_COMM_WORLD, &d->comm);
    MPI_Comm_group(d->comm, &d->group);

    d->tile = xcalloc(d->ntiles, sizeof *d->tile);
    d->copy = xcalloc(d->ntiles, sizeof *d->copy);
    d->ref = xcalloc(d->ntiles, sizeof *d->ref);
    d->avail = xcalloc(d->ntiles, 1);
    d->order = xcalloc(d->ntiles, sizeof *d->order);
    d->rd_off = xcalloc(d->ntiles + 1, sizeof *d->rd_off);
    d->wt_off = xcalloc(d->ntiles + 1, sizeof *d->wt_off);
    d->gbuf = xcalloc(d->size, sizeof *d->gbuf);
    char *seen = xcalloc(d->size, 1);

    /* The readers of every tile: bcast needs those of the groups this rank is in. */
    int total = 0, o = 0;
    for (int k = 0; k < T; k++)
        for (int i = k; i < T; i++) {
            d->order[o++] = tid(i, k);
            total += d->rd_off[tid(i, k) + 1] = readers(d, i, k, d->gbuf, seen);
        }
    for (int t = 0; t < d->ntiles; t++)
        d->rd_off[t + 1] += d->rd_off[t];
    d->rd = xcalloc(total, sizeof *d->rd);
    d->messages = total;
    for (int t = 0; t < d->ntiles; t++) {
        int i, k;
        tile_at(t, &i, &k);
        readers(d, i, k, d->rd + d->rd_off[t], seen);
    }

    /* This rank's tasks, in priority order, each with its successor on the same tile. */
    d->ntasks = 0;
    for (int i = 0; i < T; i++)
        for (int j = 0; j <= i; j++)
            if (owner(d, i, j) == d->rank)
                d->ntasks += j + 1;
    d->tasks = xcalloc(d->ntasks, sizeof *d->tasks);
    int nt = 0;
    for (int i = 0; i < T; i++)
        for (int j = 0; j <= i; j++) {
            if (owner(d, i, j) != d->rank)
                continue;
            d->tile[tid(i, j)] = xcalloc(bb, sizeof(double));
            d->ref[tid(i, j)] = xcalloc(bb, sizeof(double));
            for (int k = 0; k < j; k++)
                d->tasks[nt++] = (struct task){UPDATE, i, j, k};
            d->tasks[nt++] = (struct task){i == j ? POTRF : TRSM, i, j, j};
        }
    qsort(d->tasks, d->ntasks, sizeof *d->tasks, task_cmp);
    d->next = xcalloc(d->ntasks, sizeof *d->next);
    d->deps0 = xcalloc(d->ntasks, sizeof *d->deps0);
    d->deps = xcalloc(d->ntasks, sizeof *d->deps);
    d->heap = xcalloc(d->ntasks, sizeof *d->heap);
    int *last = xcalloc(d->ntiles, sizeof *last); /* the latest task seen on each tile */
    for (int t = 0; t < d->ntiles; t++)
        last[t] = -1;
    for (int x = 0; x < d->ntasks; x++) { /* the tasks of a tile come in the order of k */
        int me = tid(d->tasks[x].i, d->tasks[x].j), n = task_inputs(&d->tasks[x], in);
        d->next[x] = -1;
        d->deps0[x] = n + (last[me] >= 0);
        if (last[me] >= 0)
            d->next[last[me]] = x;
        last[me] = x;
        for (int y = 0; y < n; y++)
            d->wt_off[in[y] + 1]++;
    }
    for (int t = 0; t < d->ntiles; t++)
        d->wt_off[t + 1] += d->wt_off[t];
    d->wt = xcalloc(d->wt_off[d->ntiles], sizeof *d->wt);
    for (int t = 0; t < d->ntiles; t++)
        last[t] = d->wt_off[t];
    for (int x = 0; x < d->ntasks; x++)
        for (int y = 0, n = task_inputs(&d->tasks[x], in); y < n; y++)
            d->wt[last[in[y]]++] = x;
    free(last);

    /* The ranks listed as a tile's readers must be exactly those with a task that reads it. */
    int nrecv = 0, nsend = 0;
    for (int t = 0; t < d->ntiles; t++) {
        int listed = 0, reads = !d->tile[t] && d->wt_off[t + 1] > d->wt_off[t];
        for (int x = d->rd_off[t]; x < d->rd_off[t + 1]; x++)
            listed |= d->rd[x] == d->rank;
        if (listed != reads) {
            fprintf(stderr, "task_dag: rank %d: tile %d: reader list and tasks disagree\n", d->rank,
                    t);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (reads) {
            d->copy[t] = xcalloc(bb, sizeof(double));
            nrecv++;
        }
        if (d->tile[t])
            nsend += d->rd_off[t + 1] - d->rd_off[t];
    }
    d->rreq = xcalloc(nrecv, sizeof *d->rreq);
    d->rtile = xcalloc(nrecv, sizeof *d->rtile);
    d->idx = xcalloc(nrecv, sizeof *d->idx);
    d->sreq = xcalloc(nsend, sizeof *d->sreq);
    d->bseq = xcalloc(d->ntiles, sizeof *d->bseq);
    free(seen);
}

/* ------------------------------------------------------------------ ready tasks */

/* A binary min-heap of task numbers: the smallest number is the task of highest priority. */
/* Frees what dag_setup made. */
static void dag_free(struct dag *d)
{
    for (int t = 0; t < d->ntiles; t++) {
        free(d->tile[t]);
        free(d->copy[t]);
        free(d->ref[t]);
    }
    free(d->tile);
    free(d->copy);
    free(d->ref);
    free(d->avail);
    free(d->order);
    free(d->rd_off);
    free(d->rd);
    free(d->wt_off);
    free(d->wt);
    free(d->gbuf);
    free(d->tasks);
    free(d->next);
    free(d->deps0);
    free(d->deps);
    free(d->heap);
    free(d->rreq);
    free(d->rtile);
    free(d->idx);
    free(d->sreq);
    free(d->bseq);
}

static void heap_push(struct dag *d, int x)
{
    int c = d->nheap++;
    while (c > 0 && d->heap[(c - 1) / 2] > x) {
        d->heap[c] = d->heap[(c - 1) / 2];
        c = (c - 1) / 2;
    }
    d->heap[c] = x;
}

static int heap_pop(struct dag *d)
{
    int top = d->heap[0], x = d->heap[--d->nheap], c = 0;
    for (;;) {
        int s = 2 * c + 1;
        if (s >= d->nheap)
            break;
        if (s + 1 < d->nheap && d->heap[s + 1] < d->heap[s])
            s++;
        if (d->heap[s] >= x)
            break;
        d->heap[c] = d->heap[s];
        c = s;
    }
    d->heap[c] = x;
    return top;
}

static void task_dep_met(struct dag *d, int x)
{
    if (--d->deps[x] == 0)
        heap_push(d, x);
}

/* Tile t of L is final here (computed, or received): the tasks that read it may be ready. */
static void tile_final(struct dag *d, int t)
{
    d->avail[t] = 1;
    for (int y = d->wt_off[t]; y < d->wt_off[t + 1]; y++)
        task_dep_met(d, d->wt[y]);
}

/* ------------------------------------------------------------------ communication per mode */

static int nreaders(const struct dag *d, int t)
{
    return d->rd_off[t + 1] - d->rd_off[t];
}

/* Tile t of this rank is final: it goes to its readers (bcast: when its group's turn comes). */
static void publish(struct dag *d, int t)
{
    int nr = nreaders(d, t), bb = d->B * d->B;
    const int *r = d->rd + d->rd_off[t];
    if (nr == 0)
        return;
    switch (d->mode) {
    case MODE_P2P:
        for (int x = 0; x < nr; x++)
            MPI_Isend(d->tile[t], bb, MPI_DOUBLE, r[x], t, d->comm, &d->sreq[d->nsreq++]);
        break;
    case MODE_DYNAMIC:
#if HAVE_DYNAMIC
        MPIX_Ibcast_dynamic(d->tile[t], bb, MPI_DOUBLE, r, nr, t, d->comm, &d->sreq[d->nsreq++]);
#endif
        break;
    case MODE_BCAST:
    case NMODES:
        break;
    }
}

/* bcast: the group of tile t (its owner first, then its readers) builds its communicator,
 * broadcasts and frees it. */
static void bcast_group(struct dag *d, int t, int i, int k)
{
    int nr = nreaders(d, t);
    MPI_Group g;
    MPI_Comm c;
    d->gbuf[0] = owner(d, i, k);
    memcpy(d->gbuf + 1, d->rd + d->rd_off[t], nr * sizeof *d->gbuf);
    MPI_Group_incl(d->group, nr + 1, d->gbuf, &g);
    MPI_Comm_create_group(d->comm, g, t, &c);
    MPI_Bcast(d->gbuf[0] == d->rank ? d->tile[t] : d->copy[t], d->B * d->B, MPI_DOUBLE, 0, c);
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    if (d->gbuf[0] != d->rank)
        tile_final(d, t);
}

/* bcast: joins the next groups in the global order while this rank may: as their owner once the
 * tile is final, as a reader only when `idle` (no task ready). Returns the number joined. */
static int bcast_advance(struct dag *d, int idle)
{
    int joined = 0;
    while (d->bnext < d->nb) {
        int t = d->bseq[d->bnext], i, k;
        tile_at(t, &i, &k);
        if (owner(d, i, k) == d->rank ? !d->avail[t] : !idle)
            break;
        bcast_group(d, t, i, k);
        d->bnext++;
        joined++;
    }
    return joined;
}

/* p2p, dynamic: takes in the receives that are complete among the first RECV_WINDOW still in
 * flight (block == 0: the tiles needed soonest, at little cost), or waits for at least one among
 * all (block == 1). Returns how many completed. */
enum { RECV_WINDOW = 16 };
static int receive(struct dag *d, int block)
{
    int got = 0, n = d->nrreq - d->rfirst;
    if (n == 0)
        return 0;
    if (block)
        MPI_Waitsome(n, d->rreq + d->rfirst, &got, d->idx, MPI_STATUSES_IGNORE);
    else
        MPI_Testsome(n < RECV_WINDOW ? n : RECV_WINDOW, d->rreq + d->rfirst, &got, d->idx,
                     MPI_STATUSES_IGNORE);
    if (got == MPI_UNDEFINED || got <= 0)
        return 0;
    for (int x = 0; x < got; x++)
        tile_final(d, d->rtile[d->rfirst + d->idx[x]]);
    while (d->rfirst < d->nrreq && d->rreq[d->rfirst] == MPI_REQUEST_NULL)
        d->rfirst++;
    return got;
}

/* ------------------------------------------------------------------ the task loop */

static const double *input(const struct dag *d, int t)
{
    return d->tile[t] ? d->tile[t] : d->copy[t];
}

static void task_run(struct dag *d, int x)
{
    const struct task *t = &d->tasks[x];
    int me = tid(t->i, t->j);
    switch (t->kind) {
    case POTRF:
        if (kernel_potrf(d->tile[me], d->B) < 0) {
            fprintf(stderr, "task_dag: rank %d: tile (%d,%d) is not positive definite\n", d->rank,
                    t->i, t->j);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        break;
    case TRSM:
        kernel_trsm(d->tile[me], input(d, tid(t->j, t->j)), d->B);
        break;
    default:
        kernel_update(d->tile[me], input(d, tid(t->i, t->k)), input(d, tid(t->j, t->k)), d->B);
        task_dep_met(d, d->next[x]);
        return;
    }
    publish(d, me);
    tile_final(d, me);
}

static void deadlock(const struct dag *d)
{
    fprintf(stderr, "task_dag: rank %d (%s): %d tasks left and nothing to wait for\n", d->rank,
            mode_names[d->mode], d->ntasks - d->ndone);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One factorisation in mode d->mode; returns this rank's time for it. */
static double factorise(struct dag *d)
{
    int bb = d->B * d->B;
    for (int i = 0; i < d->T; i++)
        for (int j = 0; j <= i; j++) {
            int t = tid(i, j);
            d->avail[t] = 0;
            if (d->tile[t])
                matrix_tile(d->tile[t], i, j, d->B, d->n);
            else if (d->copy[t])
                memset(d->copy[t], 0, bb * sizeof(double));
        }
    d->nheap = d->ndone = 0;
    for (int x = 0; x < d->ntasks; x++)
        if ((d->deps[x] = d->deps0[x]) == 0)
            heap_push(d, x);
    d->nsreq = d->nrreq = d->rfirst = d->nb = d->bnext = 0;
    MPI_Barrier(d->comm);
    double t0 = MPI_Wtime();

    for (int o = 0; o < d->ntiles; o++) {
        int t = d->order[o], i, k;
        if (d->mode == MODE_BCAST && ((d->tile[t] && nreaders(d, t) > 0) || d->copy[t])) {
            d->bseq[d->nb++] = t;
        } else if (d->mode != MODE_BCAST && d->copy[t]) {
            tile_at(t, &i, &k);
            d->rtile[d->nrreq] = t;
            MPI_Irecv(d->copy[t], bb, MPI_DOUBLE, owner(d, i, k), t, d->comm, &d->rreq[d->nrreq++]);
        }
    }
    while (d->ndone < d->ntasks) {
        if (d->nheap > 0) {
            task_run(d, heap_pop(d));
            d->ndone++;
            if (d->mode == MODE_BCAST)
                bcast_advance(d, 0);
            else
                receive(d, 0);
        } else if (d->mode == MODE_BCAST ? bcast_advance(d, 1) == 0 : receive(d, 1) == 0) {
            deadlock(d);
        }
    }
    /* bcast: what is left are groups of which this rank is the owner, its tiles all final. */
    if (d->mode == MODE_BCAST) {
        bcast_advance(d, 1);
        if (d->bnext < d->nb)
            deadlock(d);
    }
    MPI_Waitall(d->nsreq, d->sreq, MPI_STATUSES_IGNORE);
    MPI_Barrier(d->comm);
    return MPI_Wtime() - t0;
}

/* ------------------------------------------------------------------ the checks */

/* Rank 0 gathers L and returns ||A - L L^T||_F / ||A||_F (other ranks: 0). */
static double residual(struct dag *d)
{
    int T = d->T, B = d->B, bb = B * B;
    double **L = NULL;
    if (d->rank == 0) {
        L = xcalloc(d->ntiles, sizeof *L);
        for (int t = 0; t < d->ntiles; t++)
            L[t] = xcalloc(bb, sizeof(double));
    }
    for (int i = 0; i < T; i++)
        for (int j = 0; j <= i; j++) {
            int t = tid(i, j), own = owner(d, i, j);
            if (d->rank == 0 && own == 0)
                memcpy(L[t], d->tile[t], bb * sizeof(double));
            else if (d->rank == 0)
                MPI_Recv(L[t], bb, MPI_DOUBLE, own, t, d->comm, MPI_STATUS_IGNORE);
            else if (own == d->rank)
                MPI_Send(d->tile[t], bb, MPI_DOUBLE, 0, t, d->comm);
        }
    if (d->rank != 0)
        return 0;
    double num = 0, den = 0, *r = xcalloc(bb, sizeof(double));
    for (int i = 0; i < T; i++)
        for (int j = 0; j <= i; j++) {
            matrix_tile(r, i, j, B, d->n);
            for (int x = 0; x < bb; x++)
                den += (i == j ? 1 : 2) * r[x] * r[x];
            for (int k = 0; k <= j; k++) /* full products: the diagonal tiles' upper part too */
                for (int a = 0; a < B; a++)
                    for (int c = 0; c < B; c++) {
                        double s = 0;
                        for (int p = 0; p < B; p++)
                            s += L[tid(i, k)][a * B + p] * L[tid(j, k)][c * B + p];
                        r[a * B + c] -= s;
                    }
            for (int x = 0; x < bb; x++)
                num += (i == j ? 1 : 2) * r[x] * r[x];
        }
    for (int t = 0; t < d->ntiles; t++)
        free(L[t]);
    free(L);
    free(r);
    return sqrt(num / den);
}

/* Compares this rank's tiles with the first run's (first == 1: keeps them as the reference);
 * returns the number of tiles that differ over all ranks. */
static int compare(struct dag *d, int first)
{
    int bad = 0, all = 0;
    for (int t = 0; t < d->ntiles; t++) {
        if (!d->tile[t])
            continue;
        if (first)
            memcpy(d->ref[t], d->tile[t], d->B * d->B * sizeof(double));
        else
            bad += memcmp(d->ref[t], d->tile[t], d->B * d->B * sizeof(double)) != 0;
    }
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, d->comm);
    return all;
}

/* ------------------------------------------------------------------ main */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void usage(int rank)
{
    if (rank == 0)
        fprintf(stderr, "usage: task_dag [-t TILES] [-b TILE_SIZE] [-m p2p|bcast|dynamic|all] "
                        "[-r REPEATS]\n");
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv)
{
    struct dag d = {.T = 32, .B = 48};
    int repeats = 3, want[NMODES] = {1, 1, 1};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d.size);
    for (int a = 1; a < argc; a++) {
        if (a + 1 >= argc || argv[a][0] != '-' || strlen(argv[a]) != 2)
            usage(d.rank);
        const char *v = argv[++a];
        switch (argv[a - 1][1]) {
        case 't':
            d.T = atoi(v);
            break;
        case 'b':
            d.B = atoi(v);
            break;
        case 'r':
            repeats = atoi(v);
            break;
        case 'm':
            for (int m = 0; m < NMODES; m++)
                want[m] = strcmp(v, "all") == 0 || strcmp(v, mode_names[m]) == 0;
            if (!want[MODE_P2P] && !want[MODE_BCAST] && !want[MODE_DYNAMIC])
                usage(d.rank);
            break;
        default:
            usage(d.rank);
        }
    }
    /* Tags are tile numbers: T (T+1) / 2 must stay within the smallest MPI_TAG_UB allowed. */
    if (d.T < 1 || d.T > 255 || d.B < 1 || d.B > 1024 || repeats < 1)
        usage(d.rank);
    dag_setup(&d);

    int run_modes[NMODES], nmodes = 0;
    for (int m = 0; m < NMODES; m++)
        if (want[m] && (m != MODE_DYNAMIC || HAVE_DYNAMIC))
            run_modes[nmodes++] = m;
    if (d.rank == 0) {
        printf("# task_dag: Cholesky of a %d x %d matrix, %d x %d tiles of %d x %d, %d ranks on a "
               "%d x %d grid\n",
               d.n, d.n, d.T, d.T, d.B, d.B, d.size, d.P, d.Q);
        printf("# %d tiles of L, %ld tile transfers per run (%.1f readers per tile), %d runs per "
               "mode, time: the largest over the ranks\n",
               d.ntiles, d.messages, (double)d.messages / d.ntiles, repeats);
        if (want[MODE_DYNAMIC] && !HAVE_DYNAMIC)
            printf("dynamic: skipped (this MPI has no MPIX_Ibcast_dynamic)\n");
        fflush(stdout);
    }

    double *times = xcalloc((size_t)NMODES * repeats, sizeof(double));
    double res = 0;
    int diff = 0, first = 1;
    /* The modes take turns, so that a change in the machine's load touches them alike. */
    for (int r = 0; r < repeats; r++)
        for (int x = 0; x < nmodes; x++) {
            d.mode = run_modes[x];
            double t = factorise(&d), tmax;
            MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, d.comm);
            times[d.mode * repeats + r] = tmax;
            if (first)
                res = residual(&d);
            diff += compare(&d, first);
            first = 0;
        }

    int ok = 1;
    if (d.rank == 0) {
        double med[NMODES];
        for (int x = 0; x < nmodes; x++) {
            int m = run_modes[x];
            double *tm = times + m * repeats;
            qsort(tm, repeats, sizeof *tm, cmp_double);
            med[m] = tm[(repeats - 1) / 2];
            printf("%-8s %10.3f ms  (median of %d; best %.3f ms)\n", mode_names[m], med[m] * 1e3,
                   repeats, tm[0] * 1e3);
        }
        if (want[MODE_DYNAMIC] && HAVE_DYNAMIC)
            for (int m = MODE_P2P; m <= MODE_BCAST; m++)
                if (want[m]) {
                    double saved = 100 * (med[m] - med[MODE_DYNAMIC]) / med[m];
                    printf("dynamic vs %-5s: time %s / dynamic = %.2f, dynamic %.1f%% %s\n",
                           mode_names[m], mode_names[m], med[m] / med[MODE_DYNAMIC],
                           saved < 0 ? -saved : saved, saved < 0 ? "slower" : "faster");
                }
        ok = res < 1e-12 && diff == 0;
        printf("check: ||A - L L^T||_F / ||A||_F = %.2e (limit 1e-12): %s\n", res,
               res < 1e-12 ? "ok" : "WRONG");
        printf("check: L the same bit for bit in all %d runs: %s (%d tiles differ)\n",
               repeats * nmodes, diff == 0 ? "ok" : "WRONG", diff);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, d.comm);
    free(times);
    dag_free(&d);
    MPI_Group_free(&d.group);
    MPI_Comm_free(&d.comm);
    MPI_Finalize();
    return ok ? 0 : 1;
}
