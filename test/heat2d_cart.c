/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The heat2d solver of examples/heat2d.c written on MPI's Cartesian
 * topology instead of dmesh: MPI_Cart_create over the world, MPI_Cart_sub
 * for the row and column communicators, MPI_Cart_shift on those for the
 * neighbours, MPI_Cart_coords to place the gathered blocks. Same kernel
 * (examples/heat2d_kernel.c), same output; test/heat2d-compare.sh checks
 * that both print the same text, bit for bit.
 *
 *   mpiexec -n 4 ./heat2d_cart [GNX GNY ITERATIONS]
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "heat2d_kernel.h"

int main(int argc, char **argv)
{
    int size, rank, dims[2] = {0, 0}, periods[2] = {0, 0}, keep_x[2] = {1, 0}, keep_y[2] = {0, 1};
    int c[2], gnx, gny, iterations, x0, nx, y0, ny, up, down, left, right;
    double *u, *v, res, global;
    MPI_Comm cart, xc, yc;
    MPI_Datatype column;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gnx = argc > 1 ? atoi(argv[1]) : 96;
    gny = argc > 2 ? atoi(argv[2]) : 80;
    iterations = argc > 3 ? atoi(argv[3]) : 200;
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 2, c);
    MPI_Cart_sub(cart, keep_x, &xc);
    MPI_Cart_sub(cart, keep_y, &yc);
    MPI_Cart_shift(xc, 0, 1, &up, &down);
    MPI_Cart_shift(yc, 0, 1, &left, &right);
    heat2d_block(gnx, dims[0], c[0], &x0, &nx);
    heat2d_block(gny, dims[1], c[1], &y0, &ny);
    u = malloc((size_t)(nx + 2) * (ny + 2) * sizeof(double));
    v = malloc((size_t)(nx + 2) * (ny + 2) * sizeof(double));
    heat2d_init(gnx, gny, x0, nx, y0, ny, u);
    heat2d_init(gnx, gny, x0, nx, y0, ny, v);
    MPI_Type_vector(nx, 1, ny + 2, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    if (rank == 0)
        heat2d_print_problem(gnx, gny, iterations);
    for (int it = 1; it <= iterations; it++) {
        double *t = u;
        MPI_Sendrecv(&u[nx * (ny + 2) + 1], ny, MPI_DOUBLE, down, 0, &u[1], ny, MPI_DOUBLE, up, 0,
                     xc, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1 * (ny + 2) + 1], ny, MPI_DOUBLE, up, 1, &u[(nx + 1) * (ny + 2) + 1], ny,
                     MPI_DOUBLE, down, 1, xc, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1 * (ny + 2) + ny], 1, column, right, 2, &u[1 * (ny + 2)], 1, column, left,
                     2, yc, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1 * (ny + 2) + 1], 1, column, left, 3, &u[1 * (ny + 2) + ny + 1], 1, column,
                     right, 3, yc, MPI_STATUS_IGNORE);
        res = heat2d_step(gnx, gny, x0, nx, y0, ny, u, v);
        u = v;
        v = t;
        MPI_Allreduce(&res, &global, 1, MPI_DOUBLE, MPI_MAX, cart);
        if ((it % 50 == 0 || it == iterations) && rank == 0)
            heat2d_print_residual(it, global);
    }
    /* gather on cart rank 0, each block placed by its sender's coordinate */
    double *mine = malloc((size_t)nx * ny * sizeof(double));
    heat2d_pack(nx, ny, u, mine);
    if (rank != 0) {
        MPI_Send(mine, nx * ny, MPI_DOUBLE, 0, 9, cart);
    } else {
        double *field = malloc((size_t)gnx * gny * sizeof(double));
        double *blk = malloc((size_t)(gnx / dims[0] + 1) * (gny / dims[1] + 1) * sizeof(double));
        for (int k = 0; k < size; k++) {
            int kc[2], kx0, knx, ky0, kny;
            MPI_Cart_coords(cart, k, 2, kc);
            heat2d_block(gnx, dims[0], kc[0], &kx0, &knx);
            heat2d_block(gny, dims[1], kc[1], &ky0, &kny);
            if (k != 0)
                MPI_Recv(blk, knx * kny, MPI_DOUBLE, k, 9, cart, MPI_STATUS_IGNORE);
            heat2d_place(gnx, gny, kx0, knx, ky0, kny, k == 0 ? mine : blk, field);
        }
        heat2d_print_field(gnx, gny, field);
        free(blk);
        free(field);
    }
    free(mine);
    MPI_Type_free(&column);
    MPI_Comm_free(&xc);
    MPI_Comm_free(&yc);
    MPI_Comm_free(&cart);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
