/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The numerical kernel of the heat2d example, shared by examples/heat2d.c
 * (on a dmesh), examples/heat2d.f90 (the same in Fortran) and
 * test/heat2d_cart.c (the same solver on MPI_Cart_*), so that all of them do
 * the same floating-point operations in the same order.
 *
 * Problem: steady heat on a GNX x GNY grid of interior points, Jacobi
 * iterations u' = (u_N + u_S + u_W + u_E + f) / 4, fixed boundary values
 * (1 on the top edge, 0 elsewhere) and a fixed source f. Global row i and
 * column j (1-based interior, 0 and GNX+1 / GNY+1 the boundary) decide every
 * value, so any decomposition computes the same numbers. A block holds nx x
 * ny interior points with one ghost layer: element (i, j), 0 <= i <= nx+1,
 * 0 <= j <= ny+1, at u[i * (ny + 2) + j].
 *
 * The residual is max |u' - u| over the grid, reduced with MPI_MAX: the
 * maximum is exact whatever the order of the reduction, so the residual
 * printed by every solver is bit for bit the same too.
 */
#ifndef HEAT2D_KERNEL_H
#define HEAT2D_KERNEL_H

/* Start (0-based) and size of block c of p along a dimension of n points
 * (the first n % p blocks get one more). */
void heat2d_block(int n, int p, int c, int *start, int *size);

/* A block at global interior offset (x0, y0): boundary values in the ghost
 * cells on the global boundary, 0 elsewhere. */
void heat2d_init(int gnx, int gny, int x0, int nx, int y0, int ny, double *u);

/* One Jacobi step from u into v (interior only; the ghosts of v keep their
 * boundary values); returns max |v - u| over the block. */
double heat2d_step(int gnx, int gny, int x0, int nx, int y0, int ny, const double *u, double *v);

/* Copy the block's interior, row after row, into out (nx * ny values). */
void heat2d_pack(int nx, int ny, const double *u, double *out);

/* Place a packed block at (x0, y0) of the global field (gnx * gny, row-major). */
void heat2d_place(int gnx, int gny, int x0, int nx, int y0, int ny, const double *block,
                  double *field);

/* Output of rank 0, the same text in every solver: the problem, the residual
 * of an iteration (as a hexadecimal float, all bits), and a 64-bit FNV-1a
 * hash of the global field's bytes with its extreme values. */
void heat2d_print_problem(int gnx, int gny, int iterations);
void heat2d_print_residual(int iteration, double residual);
void heat2d_print_field(int gnx, int gny, const double *field);

#endif /* HEAT2D_KERNEL_H */
