/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * heat2d: a 2-D heat equation (Jacobi iterations) on a (px, py) mesh — the
 * shape of a simulation code on dmesh.
 *
 *  - the mesh: dmesh_init with names "x" and "y"; rows of the grid are cut
 *    along x, columns along y;
 *  - halo exchange: dmesh_shift gives, like MPI_Cart_shift, the neighbours
 *    in the communicator of a dimension, which MPI_Sendrecv uses directly;
 *  - the global residual: an allreduce over the flattened mesh "xy";
 *  - output: rank 0 gathers the blocks over the flattened mesh, placing
 *    each by the sender's coordinate (dmesh_get_coordinate_of).
 *
 * test/heat2d_cart.c is the same solver written on MPI_Cart_create,
 * MPI_Cart_shift and MPI_Cart_sub; make check compares the two outputs bit
 * for bit (test/heat2d-compare-np*.mpi). The numbers come from heat2d_kernel.c.
 *
 *   mpiexec -n 8 ./heat2d [GNX GNY ITERATIONS]     (default 96 80 200)
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <dmesh.h>

#include "heat2d_kernel.h"

/* No CHECK around the dmesh calls: as with MPI's own calls, a failure goes
 * to the error handler of MPI_COMM_WORLD, fatal by default, which ends the
 * job after dmesh has written what went wrong to stderr. */

/* The local block of the grid and the mesh it lives on. */
typedef struct {
    dmesh_t mesh, flat;
    int gnx, gny, x0, nx, y0, ny;
    double *u, *v;
    MPI_Datatype column;
} block_t;

/* Exchange the ghost layers with the neighbours along both dimensions. */
static void halo(block_t *b)
{
    int up, down, left, right, ny = b->ny, nx = b->nx;
    MPI_Comm xc, yc;
    double *u = b->u;

    dmesh_get_comm(b->mesh, 0, &xc);
    dmesh_get_comm(b->mesh, 1, &yc);
    dmesh_shift(b->mesh, 0, 1, 0, &up, &down); /* MPI_PROC_NULL at the edges */
    dmesh_shift(b->mesh, 1, 1, 0, &left, &right);
    MPI_Sendrecv(&u[nx * (ny + 2) + 1], ny, MPI_DOUBLE, down, 0, &u[1], ny, MPI_DOUBLE, up, 0, xc,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1 * (ny + 2) + 1], ny, MPI_DOUBLE, up, 1, &u[(nx + 1) * (ny + 2) + 1], ny,
                 MPI_DOUBLE, down, 1, xc, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1 * (ny + 2) + ny], 1, b->column, right, 2, &u[1 * (ny + 2)], 1, b->column,
                 left, 2, yc, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1 * (ny + 2) + 1], 1, b->column, left, 3, &u[1 * (ny + 2) + ny + 1], 1,
                 b->column, right, 3, yc, MPI_STATUS_IGNORE);
}

/* Rank 0 of the flattened mesh receives every block and places it by the
 * coordinate of its sender; the others send theirs. */
static void gather(block_t *b)
{
    int size, n, me, c[2], member, px, py, shape[2], x0, nx, y0, ny, *ranks;
    double *mine = malloc((size_t)b->nx * b->ny * sizeof(double)), *field, *blk;
    MPI_Comm fc;

    dmesh_get_comm(b->flat, 0, &fc);
    MPI_Comm_rank(fc, &me);
    heat2d_pack(b->nx, b->ny, b->u, mine);
    if (me != 0) {
        MPI_Send(mine, b->nx * b->ny, MPI_DOUBLE, 0, 9, fc);
        free(mine);
        return;
    }
    dmesh_get_size(b->flat, &size);
    dmesh_get_shape(b->mesh, 2, shape);
    px = shape[0];
    py = shape[1];
    ranks = malloc((size_t)size * sizeof(int));
    dmesh_get_group_ranks(b->flat, 0, size, ranks, &n); /* flat rank k is root rank ranks[k] */
    field = malloc((size_t)b->gnx * b->gny * sizeof(double));
    blk = malloc((size_t)(b->gnx / px + 1) * (b->gny / py + 1) * sizeof(double));
    for (int k = 0; k < n; k++) {
        dmesh_get_coordinate_of(b->mesh, ranks[k], 2, c, &member);
        heat2d_block(b->gnx, px, c[0], &x0, &nx);
        heat2d_block(b->gny, py, c[1], &y0, &ny);
        if (k == 0)
            heat2d_place(b->gnx, b->gny, x0, nx, y0, ny, mine, field);
        else {
            MPI_Recv(blk, nx * ny, MPI_DOUBLE, k, 9, fc, MPI_STATUS_IGNORE);
            heat2d_place(b->gnx, b->gny, x0, nx, y0, ny, blk, field);
        }
    }
    heat2d_print_field(b->gnx, b->gny, field);
    free(blk);
    free(field);
    free(ranks);
    free(mine);
}

int main(int argc, char **argv)
{
    const char *names[2] = {"x", "y"};
    int size, dims[2] = {0, 0}, c[2], member, iterations;
    double res, global;
    block_t b;
    MPI_Comm fc;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    b.gnx = argc > 1 ? atoi(argv[1]) : 96;
    b.gny = argc > 2 ? atoi(argv[2]) : 80;
    iterations = argc > 3 ? atoi(argv[3]) : 200;
    MPI_Dims_create(size, 2, dims);
    dmesh_init(MPI_COMM_WORLD, "cpu", 2, dims, names, MPI_INFO_NULL, &b.mesh);
    dmesh_flatten(b.mesh, NULL, MPI_INFO_NULL, &b.flat);
    dmesh_get_coordinate(b.mesh, 2, c, &member);
    heat2d_block(b.gnx, dims[0], c[0], &b.x0, &b.nx);
    heat2d_block(b.gny, dims[1], c[1], &b.y0, &b.ny);
    b.u = malloc((size_t)(b.nx + 2) * (b.ny + 2) * sizeof(double));
    b.v = malloc((size_t)(b.nx + 2) * (b.ny + 2) * sizeof(double));
    heat2d_init(b.gnx, b.gny, b.x0, b.nx, b.y0, b.ny, b.u);
    heat2d_init(b.gnx, b.gny, b.x0, b.nx, b.y0, b.ny, b.v);
    MPI_Type_vector(b.nx, 1, b.ny + 2, MPI_DOUBLE, &b.column);
    MPI_Type_commit(&b.column);
    dmesh_get_comm(b.flat, 0, &fc);
    if (c[0] == 0 && c[1] == 0)
        heat2d_print_problem(b.gnx, b.gny, iterations);
    for (int it = 1; it <= iterations; it++) {
        double *t = b.u;
        halo(&b);
        res = heat2d_step(b.gnx, b.gny, b.x0, b.nx, b.y0, b.ny, b.u, b.v);
        b.u = b.v;
        b.v = t;
        MPI_Allreduce(&res, &global, 1, MPI_DOUBLE, MPI_MAX, fc);
        if ((it % 50 == 0 || it == iterations) && c[0] == 0 && c[1] == 0)
            heat2d_print_residual(it, global);
    }
    gather(&b);
    MPI_Type_free(&b.column);
    free(b.u);
    free(b.v);
    dmesh_free(&b.flat);
    dmesh_free(&b.mesh);
    MPI_Finalize();
    return 0;
}
