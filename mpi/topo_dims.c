/*
 * MPI_Dims_create: splits nnodes ranks into a grid of ndims dimensions "as close to each other
 * as possible" (MPI 3.1, 7.5.2), keeping the dimensions the caller fixed.
 *
 * The free dimensions get the factorisation of the nodes left into non-increasing factors whose
 * largest minus smallest is least (ties: the smallest largest factor), found by a depth-first
 * search over divisors. Handing out prime factors greedily, largest first, is not always
 * optimal (it splits 72 as 12 x 6, not 9 x 8); the search is, and costs little for the sizes
 * of real grids.
 */
#include "config.h"

#include <stdlib.h>

#include "mpi_impl.h"

/* The least s with s * s >= n. */
static int tm_mpi_dims_sqrt_ceil(int n)
{
    int s = 0;

    while ((long long)s * s < n)
        s++;
    return s;
}

typedef struct tm_mpi_dims_search {
    int k;         /* factors to find */
    int *divisors; /* of the nodes to split, ascending */
    int ndivisors;
    int *cur;   /* the factors chosen so far, non-increasing */
    int *best;  /* the best factorisation found */
    int spread; /* its largest minus smallest factor; -1 before the first */
} tm_mpi_dims_search_t;

/* Whether d^e >= n, without overflow. */
static int tm_mpi_dims_pow_ge(int d, int e, int n)
{
    long long p = 1;

    for (int i = 0; i < e; i++) {
        p *= d;
        if (p >= n)
            return 1;
    }
    return p >= n;
}

/* Chooses factor `depth` (at most maxf) of what is left, n. */
static void tm_mpi_dims_search(tm_mpi_dims_search_t *s, int depth, int n, int maxf)
{
    int left = s->k - depth;

    if (left == 1) {
        if (n <= maxf && (s->spread < 0 || s->cur[0] - n < s->spread)) {
            s->cur[depth] = n;
            s->spread = s->cur[0] - n;
            for (int i = 0; i < s->k; i++)
                s->best[i] = s->cur[i];
        }
        return;
    }
    for (int i = 0; i < s->ndivisors && s->divisors[i] <= maxf && s->spread != 0; i++) {
        int d = s->divisors[i];

        /* The remaining factors are at most d: d^left must reach n. */
        if (n % d != 0 || !tm_mpi_dims_pow_ge(d, left, n))
            continue;
        s->cur[depth] = d;
        tm_mpi_dims_search(s, depth + 1, n / d, d);
    }
}

/* The divisors of n, ascending, in divisors (room for 2 sqrt(n) + 2); returns how many. */
static int tm_mpi_dims_divisors(int n, int *divisors)
{
    int count = 0, high = 0, d;

    for (d = 1; (long long)d * d <= n; d++)
        if (n % d == 0)
            divisors[count++] = d;
    /* The co-divisors n / d, ascending, mirror the ones found. */
    high = count;
    for (int i = high - 1; i >= 0; i--)
        if (n / divisors[i] != divisors[i])
            divisors[count++] = n / divisors[i];
    return count;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char call[] = "MPI_Dims_create";
    TM_MPI_RANK(r, call);
    tm_mpi_dims_search_t s = {.k = 0, .spread = -1};
    int fixed = 1, k = 0;

    if (nnodes < 1)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "nnodes = %d is not positive",
                                  nnodes);
    if (ndims < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_DIMS, "ndims = %d is negative", ndims);
    if (ndims > 0 && dims == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "dims is NULL");
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_DIMS, "dims[%d] = %d is negative",
                                      i, dims[i]);
        if (dims[i] == 0) {
            k++;
            continue;
        }
        if (nnodes % dims[i] != 0 || (nnodes / dims[i]) % fixed != 0)
            return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_DIMS,
                                      "the fixed dimensions do not divide nnodes = %d", nnodes);
        fixed *= dims[i];
    }
    if (k == 0) {
        if (fixed != nnodes)
            return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_DIMS,
                                      "the dimensions make %d nodes, not nnodes = %d", fixed,
                                      nnodes);
        return MPI_SUCCESS;
    }
    {
        int n = nnodes / fixed, *space;
        /* n has fewer than 2 sqrt(n) divisors. */
        size_t ndiv = 2 * (size_t)tm_mpi_dims_sqrt_ceil(n) + 2;

        space = malloc((ndiv + 2 * (size_t)k) * sizeof(*space));
        if (space == NULL)
            return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
        s.k = k;
        s.divisors = space;
        s.ndivisors = tm_mpi_dims_divisors(n, space);
        s.cur = space + ndiv;
        s.best = space + ndiv + k;
        tm_mpi_dims_search(&s, 0, n, n);
        for (int i = 0, j = 0; i < ndims; i++)
            if (dims[i] == 0)
                dims[i] = s.best[j++];
        free(space);
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Dims_create = PMPI_Dims_create
