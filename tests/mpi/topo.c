/* Process topologies on every rank: a periodic Cartesian ring and a 2-D grid (shifts with and
 * without periods, coordinates <-> ranks round trips, MPI_Cart_sub rows and columns with a ring
 * in each), MPI_Topo_test, MPI_Comm_dup copying the topology, graphs and distributed graphs
 * (adjacent, and general with each rank naming edges of other ranks), MPI_Cart_map and
 * MPI_Graph_map, and argument errors.
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

    /* ---- MPI_Dist_graph_create: a ring where rank r names the edge (r + 1) -> (r + 2), weighted
     * by its source, and the edge of nobody (a source with no destinations) */
    {
        int srcs[2] = {(rank + 1) % size, rank}, degs[2] = {1, 0}, dest = (rank + 2) % size,
            w = 1000 + srcs[0], in = (rank + size - 1) % size, out = (rank + 1) % size;
        int indeg, outdeg, weighted, s[2] = {-1, -1}, sw[2] = {-1, -1}, d[2] = {-1, -1},
                                     dw[2] = {-1, -1};
        CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, srcs, degs, &dest, &w, MPI_INFO_NULL, 0,
                                    &dist) == MPI_SUCCESS);
        CHECK(MPI_Topo_test(dist, &st) == MPI_SUCCESS && st == MPI_DIST_GRAPH);
        CHECK(MPI_Comm_rank(dist, &r) == MPI_SUCCESS && r == rank);
        CHECK(MPI_Dist_graph_neighbors_count(dist, &indeg, &outdeg, &weighted) == MPI_SUCCESS);
        CHECK(indeg == 1 && outdeg == 1 && weighted);
        CHECK(MPI_Dist_graph_neighbors(dist, 2, s, sw, 2, d, dw) == MPI_SUCCESS);
        CHECK(s[0] == in && sw[0] == 1000 + in && d[0] == out && dw[0] == 1000 + rank);
        CHECK(s[1] == -1 && d[1] == -1);
        CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, d[0], 4, &got, 1, MPI_INT, s[0], 4, dist,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS &&
              got == in);
        /* a dup keeps the neighbours */
        CHECK(MPI_Comm_dup(dist, &dup) == MPI_SUCCESS);
        CHECK(MPI_Dist_graph_neighbors(dup, 1, s, MPI_UNWEIGHTED, 1, d, MPI_UNWEIGHTED) ==
                  MPI_SUCCESS &&
              s[0] == in && d[0] == out);
        CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
        CHECK(MPI_Comm_free(&dist) == MPI_SUCCESS);

        /* unweighted: rank 0 names every edge of the ring (both ways), the others none */
        int all_src[1024], all_deg[1024], all_dst[2048];
        for (int k = 0; k < size; k++) {
            all_src[k] = k;
            all_deg[k] = 2;
            all_dst[2 * k] = (k + 1) % size;
            all_dst[2 * k + 1] = (k + size - 1) % size;
        }
        CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? size : 0, all_src, all_deg, all_dst,
                                    MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &dist) == MPI_SUCCESS);
        CHECK(MPI_Dist_graph_neighbors_count(dist, &indeg, &outdeg, &weighted) == MPI_SUCCESS);
        CHECK(indeg == 2 && outdeg == 2 && !weighted);
        CHECK(MPI_Dist_graph_neighbors(dist, 2, s, MPI_UNWEIGHTED, 2, d, MPI_UNWEIGHTED) ==
              MPI_SUCCESS);
        CHECK(d[0] == out && d[1] == in);
        CHECK((s[0] == in && s[1] == out) || (s[0] == out && s[1] == in));
        CHECK(MPI_Comm_free(&dist) == MPI_SUCCESS);

        /* weighted, and ranks that name nothing say MPI_WEIGHTS_EMPTY */
        int ring_w[2048];
        for (int k = 0; k < 2 * size; k++)
            ring_w[k] = k;
        CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, rank == size - 1 ? size : 0, all_src, all_deg,
                                    all_dst, rank == size - 1 ? ring_w : MPI_WEIGHTS_EMPTY,
                                    MPI_INFO_NULL, 0, &dist) == MPI_SUCCESS);
        CHECK(MPI_Dist_graph_neighbors_count(dist, &indeg, &outdeg, &weighted) == MPI_SUCCESS);
        CHECK(indeg == 2 && outdeg == 2 && weighted);
        CHECK(MPI_Dist_graph_neighbors(dist, 2, s, sw, 2, d, dw) == MPI_SUCCESS);
        CHECK(dw[0] == 2 * rank && dw[1] == 2 * rank + 1);
        /* from in over in -> in + 1 (weight 2 in), from out over out -> out - 1 (2 out + 1),
         * in some order (in and out are one rank on 1 and 2 ranks) */
        CHECK((sw[0] == 2 * in && sw[1] == 2 * out + 1) ||
              (sw[1] == 2 * in && sw[0] == 2 * out + 1));
        CHECK(s[0] == sw[0] / 2 && s[1] == sw[1] / 2);
        CHECK(MPI_Comm_free(&dist) == MPI_SUCCESS);

        /* nobody names an edge */
        CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_WEIGHTS_EMPTY,
                                    MPI_INFO_NULL, 0, &dist) == MPI_SUCCESS);
        CHECK(MPI_Dist_graph_neighbors_count(dist, &indeg, &outdeg, &weighted) == MPI_SUCCESS);
        CHECK(indeg == 0 && outdeg == 0 && weighted);
        CHECK(MPI_Comm_free(&dist) == MPI_SUCCESS);

        /* errors found by every rank at once (a collective failure) */
        dist = MPI_COMM_WORLD;
        CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, srcs, degs, &dest,
                                    rank == 0 ? MPI_UNWEIGHTED : &w, MPI_INFO_NULL, 0,
                                    &dist) == (size > 1 ? MPI_ERR_ARG : MPI_SUCCESS));
        if (size > 1)
            CHECK(dist == MPI_COMM_NULL);
        else
            CHECK(MPI_Comm_free(&dist) == MPI_SUCCESS);
        /* errors found locally (no rank goes on into the exchange) */
        int bad = size, neg = -1;
        CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, srcs, degs, &bad, &w, MPI_INFO_NULL, 0,
                                    &dist) == MPI_ERR_RANK);
        CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &bad, degs, &dest, &w, MPI_INFO_NULL, 0,
                                    &dist) == MPI_ERR_RANK);
        CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, srcs, &neg, &dest, &w, MPI_INFO_NULL, 0,
                                    &dist) == MPI_ERR_ARG);
        CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, -1, srcs, degs, &dest, &w, MPI_INFO_NULL, 0,
                                    &dist) == MPI_ERR_ARG);
        CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, srcs, degs, &dest, &neg, MPI_INFO_NULL, 0,
                                    &dist) == MPI_ERR_ARG);
        CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, srcs, degs, &dest, MPI_WEIGHTS_EMPTY,
                                    MPI_INFO_NULL, 0, &dist) == MPI_ERR_ARG);
        CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, srcs, degs, NULL, &w, MPI_INFO_NULL, 0,
                                    &dist) == MPI_ERR_ARG);
        CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, srcs, degs, &dest, &w, MPI_INFO_NULL, 0,
                                    NULL) == MPI_ERR_ARG);
        CHECK(MPI_Dist_graph_create(MPI_COMM_NULL, 1, srcs, degs, &dest, &w, MPI_INFO_NULL, 0,
                                    &dist) == MPI_ERR_COMM);
    }

    /* ---- MPI_Cart_map and MPI_Graph_map: no reordering */
    {
        int d2[2] = {1, (size + 1) / 2}, p2[2] = {0, 1}, index[1] = {0}, edges[1] = {0}, nr = -2;
        CHECK(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &nr) == MPI_SUCCESS && nr == rank);
        CHECK(MPI_Cart_map(MPI_COMM_WORLD, 2, d2, p2, &nr) == MPI_SUCCESS);
        CHECK(nr == (rank < (size + 1) / 2 ? rank : MPI_UNDEFINED));
        CHECK(MPI_Cart_map(MPI_COMM_WORLD, 0, NULL, NULL, &nr) == MPI_SUCCESS);
        CHECK(nr == (rank == 0 ? 0 : MPI_UNDEFINED));
        CHECK(MPI_Graph_map(MPI_COMM_WORLD, 1, index, edges, &nr) == MPI_SUCCESS);
        CHECK(nr == (rank == 0 ? 0 : MPI_UNDEFINED));
        int gi[1024], ge[2048];
        for (int k = 0; k < size; k++) {
            ge[k] = (k + 1) % size;
            gi[k] = k + 1;
        }
        CHECK(MPI_Graph_map(MPI_COMM_WORLD, size, gi, ge, &nr) == MPI_SUCCESS && nr == rank);
        int big = size + 1, zero = 0;
        CHECK(MPI_Cart_map(MPI_COMM_WORLD, 1, &big, &yes, &nr) == MPI_ERR_TOPOLOGY);
        CHECK(MPI_Cart_map(MPI_COMM_WORLD, 1, &zero, &yes, &nr) == MPI_ERR_DIMS);
        CHECK(MPI_Cart_map(MPI_COMM_WORLD, -1, &one, &yes, &nr) == MPI_ERR_DIMS);
        CHECK(MPI_Cart_map(MPI_COMM_WORLD, 1, &one, &yes, NULL) == MPI_ERR_ARG);
        CHECK(MPI_Graph_map(MPI_COMM_WORLD, size + 1, gi, ge, &nr) == MPI_ERR_ARG);
        ge[0] = size;
        CHECK(MPI_Graph_map(MPI_COMM_WORLD, size, gi, ge, &nr) == MPI_ERR_ARG);
        CHECK(MPI_Graph_map(MPI_COMM_WORLD, 1, index, edges, NULL) == MPI_ERR_ARG);
        CHECK(MPI_Graph_map(MPI_COMM_NULL, 1, index, edges, &nr) == MPI_ERR_COMM);
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
