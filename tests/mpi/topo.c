/* Process topologies on every rank: a periodic Cartesian ring and a 2-D grid (shifts with and
 * without periods, coordinates <-> ranks round trips, MPI_Cart_sub rows and columns with a ring
 * in each), MPI_Topo_test, MPI_Comm_dup copying the topology, graphs and distributed graphs,
 * and argument errors.
 * Usage: topo */
#include <mpi.h>
#include <stdio.h>

static int errors;
static int rank;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "topo: rank %d: line %d: %s\n", rank, __LINE__, #cond);                \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Comm ring, grid, row, col, dup, graph, dist, c;
    int size, r, n, st, src, dst, got, dims[2] = {0, 0}, periods[2], coords[2], cc[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    CHECK(MPI_Topo_test(MPI_COMM_WORLD, &st) == MPI_SUCCESS && st == MPI_UNDEFINED);

    /* ---- a periodic ring: shifts wrap, and a message goes round */
    int one = size, yes = 1;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &one, &yes, 1, &ring) == MPI_SUCCESS);
    CHECK(MPI_Topo_test(ring, &st) == MPI_SUCCESS && st == MPI_CART);
    CHECK(MPI_Comm_rank(ring, &r) == MPI_SUCCESS && r == rank);
    CHECK(MPI_Cart_shift(ring, 0, 1, &src, &dst) == MPI_SUCCESS);
    CHECK(src == (rank + size - 1) % size && dst == (rank + 1) % size);
    CHECK(MPI_Cart_shift(ring, 0, -3, &src, &dst) == MPI_SUCCESS);
    CHECK(src == (rank + 3) % size && dst == ((rank - 3) % size + size) % size);
    CHECK(MPI_Cart_shift(ring, 0, 1, &src, &dst) == MPI_SUCCESS);
    CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, dst, 1, &got, 1, MPI_INT, src, 1, ring,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS &&
          got == src);
    coords[0] = -1;
    CHECK(MPI_Cart_rank(ring, coords, &r) == MPI_SUCCESS && r == size - 1);
    /* dup copies the topology */
    CHECK(MPI_Comm_dup(ring, &dup) == MPI_SUCCESS);
    CHECK(MPI_Topo_test(dup, &st) == MPI_SUCCESS && st == MPI_CART);
    CHECK(MPI_Cartdim_get(dup, &n) == MPI_SUCCESS && n == 1);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);

    /* ---- a 2-D grid, not periodic in the first dimension */
    CHECK(MPI_Dims_create(size, 2, dims) == MPI_SUCCESS);
    periods[0] = 0;
    periods[1] = 1;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid) == MPI_SUCCESS);
    CHECK(MPI_Cartdim_get(grid, &n) == MPI_SUCCESS && n == 2);
    {
        int d[2], p[2];
        CHECK(MPI_Cart_get(grid, 2, d, p, coords) == MPI_SUCCESS);
        CHECK(d[0] == dims[0] && d[1] == dims[1] && p[0] == 0 && p[1] == 1);
        CHECK(coords[0] == rank / dims[1] && coords[1] == rank % dims[1]);
    }
    for (int k = 0; k < size; k++) {
        CHECK(MPI_Cart_coords(grid, k, 2, cc) == MPI_SUCCESS);
        CHECK(MPI_Cart_rank(grid, cc, &r) == MPI_SUCCESS && r == k);
    }
    CHECK(MPI_Cart_shift(grid, 0, 1, &src, &dst) == MPI_SUCCESS);
    CHECK(src == (coords[0] == 0 ? MPI_PROC_NULL : rank - dims[1]));
    CHECK(dst == (coords[0] == dims[0] - 1 ? MPI_PROC_NULL : rank + dims[1]));
    CHECK(MPI_Cart_shift(grid, 1, 1, &src, &dst) == MPI_SUCCESS);
    CHECK(dst == coords[0] * dims[1] + (coords[1] + 1) % dims[1]);
    CHECK(src == coords[0] * dims[1] + (coords[1] + dims[1] - 1) % dims[1]);
    cc[0] = dims[0];
    cc[1] = 0;
    CHECK(MPI_Cart_rank(grid, cc, &r) == MPI_ERR_ARG);

    /* rows: keep dimension 1; columns: keep dimension 0 */
    int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
    CHECK(MPI_Cart_sub(grid, keep_row, &row) == MPI_SUCCESS);
    CHECK(MPI_Comm_size(row, &n) == MPI_SUCCESS && n == dims[1]);
    CHECK(MPI_Comm_rank(row, &r) == MPI_SUCCESS && r == coords[1]);
    CHECK(MPI_Cartdim_get(row, &n) == MPI_SUCCESS && n == 1);
    CHECK(MPI_Cart_shift(row, 0, 1, &src, &dst) == MPI_SUCCESS);
    CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, dst, 2, &got, 1, MPI_INT, src, 2, row,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS &&
          got == coords[0] * dims[1] + (coords[1] + dims[1] - 1) % dims[1]);
    CHECK(MPI_Cart_sub(grid, keep_col, &col) == MPI_SUCCESS);
    CHECK(MPI_Comm_size(col, &n) == MPI_SUCCESS && n == dims[0]);
    CHECK(MPI_Comm_rank(col, &r) == MPI_SUCCESS && r == coords[0]);
    CHECK(MPI_Cart_shift(col, 0, 1, &src, &dst) == MPI_SUCCESS);
    CHECK(src == (coords[0] ? coords[0] - 1 : MPI_PROC_NULL));
    {
        int p;
        CHECK(MPI_Cart_get(col, 1, &n, &p, cc) == MPI_SUCCESS && n == dims[0] && p == 0 &&
              cc[0] == coords[0]);
    }

    /* a grid smaller than the communicator: the ranks left out get MPI_COMM_NULL */
    int half = (size + 1) / 2;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &half, &yes, 0, &c) == MPI_SUCCESS);
    CHECK(rank < half ? c != MPI_COMM_NULL : c == MPI_COMM_NULL);
    if (c != MPI_COMM_NULL)
        CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);

    /* ---- a graph: a bidirectional ring */
    {
        int index[1024], edges[2048], nb[4], ne;
        for (int k = 0; k < size; k++) {
            edges[2 * k] = (k + size - 1) % size;
            edges[2 * k + 1] = (k + 1) % size;
            index[k] = 2 * (k + 1);
        }
        CHECK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph) == MPI_SUCCESS);
        CHECK(MPI_Topo_test(graph, &st) == MPI_SUCCESS && st == MPI_GRAPH);
        CHECK(MPI_Graphdims_get(graph, &n, &ne) == MPI_SUCCESS && n == size && ne == 2 * size);
        CHECK(MPI_Graph_neighbors_count(graph, rank, &n) == MPI_SUCCESS && n == 2);
        CHECK(MPI_Graph_neighbors(graph, rank, 4, nb) == MPI_SUCCESS);
        CHECK(nb[0] == (rank + size - 1) % size && nb[1] == (rank + 1) % size);
        CHECK(MPI_Graph_get(graph, 1, 2, index, edges) == MPI_SUCCESS);
        CHECK(index[0] == 2 && edges[0] == size - 1 && edges[1] == 1 % size);
        CHECK(MPI_Cart_shift(graph, 0, 1, &src, &dst) == MPI_ERR_TOPOLOGY);
        CHECK(MPI_Graph_neighbors_count(graph, size, &n) == MPI_ERR_RANK);
        CHECK(MPI_Comm_free(&graph) == MPI_SUCCESS);
    }

    /* ---- a distributed graph: in from the left, out to the right, weighted */
    {
        int in = (rank + size - 1) % size, out = (rank + 1) % size, w_in = 10 + in,
            w_out = 10 + rank, indeg, outdeg, weighted, s, sw, d, dw;
        CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &in, &w_in, 1, &out, &w_out,
                                             MPI_INFO_NULL, 0, &dist) == MPI_SUCCESS);
        CHECK(MPI_Topo_test(dist, &st) == MPI_SUCCESS && st == MPI_DIST_GRAPH);
        CHECK(MPI_Dist_graph_neighbors_count(dist, &indeg, &outdeg, &weighted) == MPI_SUCCESS);
        CHECK(indeg == 1 && outdeg == 1 && weighted);
        CHECK(MPI_Dist_graph_neighbors(dist, 1, &s, &sw, 1, &d, &dw) == MPI_SUCCESS);
        CHECK(s == in && sw == w_in && d == out && dw == w_out);
        CHECK(MPI_Sendrecv(&w_out, 1, MPI_INT, d, 3, &got, 1, MPI_INT, s, 3, dist,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS &&
              got == w_in);
        CHECK(MPI_Comm_free(&dist) == MPI_SUCCESS);
        CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 1, &out,
                                             MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                             &dist) == MPI_SUCCESS);
        CHECK(MPI_Dist_graph_neighbors_count(dist, &indeg, &outdeg, &weighted) == MPI_SUCCESS);
        CHECK(indeg == 0 && outdeg == 1 && !weighted);
        CHECK(MPI_Comm_free(&dist) == MPI_SUCCESS);
        int bad = size;
        CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, MPI_UNWEIGHTED, 0, NULL,
                                             MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                             &dist) == MPI_ERR_RANK);
    }

    /* ---- errors */
    CHECK(MPI_Cartdim_get(MPI_COMM_WORLD, &n) == MPI_ERR_TOPOLOGY);
    {
        int big = size + 1, zero = 0;
        CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &big, &yes, 0, &c) == MPI_ERR_TOPOLOGY);
        CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &zero, &yes, 0, &c) == MPI_ERR_DIMS);
        CHECK(MPI_Cart_create(MPI_COMM_WORLD, -1, &one, &yes, 0, &c) == MPI_ERR_DIMS);
        CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &one, &yes, 0, NULL) == MPI_ERR_ARG);
    }
    MPI_Comm_set_errhandler(grid, MPI_ERRORS_RETURN);
    CHECK(MPI_Cart_shift(grid, 2, 1, &src, &dst) == MPI_ERR_ARG);
    CHECK(MPI_Cart_coords(grid, size, 2, cc) == MPI_ERR_RANK);
    CHECK(MPI_Cart_coords(grid, 0, 1, cc) == MPI_ERR_ARG);

    CHECK(MPI_Comm_free(&row) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&col) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&ring) == MPI_SUCCESS);
    /* grid is left for MPI_Finalize */
    if (errors)
        fprintf(stderr, "topo: rank %d: %d errors\n", rank, errors);
    else if (rank == 0)
        printf("topo: ok\n");
    MPI_Finalize();
    return errors != 0;
}
