/* SPDX-License-Identifier: BSD-3-Clause */
/* The numerical kernel of the heat2d example (see heat2d_kernel.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "heat2d_kernel.h"

#define AT(i, j) ((i) * (ny + 2) + (j))

void heat2d_block(int n, int p, int c, int *start, int *size)
{
    *start = c * (n / p) + (c < n % p ? c : n % p);
    *size = n / p + (c < n % p);
}

/* Boundary value at global (i, j), 0 <= i <= gnx+1, 0 <= j <= gny+1. */
static double boundary(int gnx, int gny, int i, int j)
{
    (void)gnx;
    (void)gny;
    (void)j;
    return i == 0 ? 1.0 : 0.0;
}

/* The source at global interior point (i, j): small rationals, no libm. */
static double source(int i, int j)
{
    return (double)((7 * i + 13 * j) % 17) / 17.0 * 1e-3;
}

void heat2d_init(int gnx, int gny, int x0, int nx, int y0, int ny, double *u)
{
    for (int i = 0; i <= nx + 1; i++)
        for (int j = 0; j <= ny + 1; j++) {
            int gi = x0 + i, gj = y0 + j;
            int edge = gi == 0 || gi == gnx + 1 || gj == 0 || gj == gny + 1;
            u[AT(i, j)] = edge ? boundary(gnx, gny, gi, gj) : 0.0;
        }
}

double heat2d_step(int gnx, int gny, int x0, int nx, int y0, int ny, const double *u, double *v)
{
    double res = 0.0;

    (void)gnx;
    (void)gny;
    for (int i = 1; i <= nx; i++)
        for (int j = 1; j <= ny; j++) {
            double nv = (u[AT(i - 1, j)] + u[AT(i + 1, j)] + u[AT(i, j - 1)] + u[AT(i, j + 1)] +
                         source(x0 + i, y0 + j)) *
                        0.25;
            double d = nv > u[AT(i, j)] ? nv - u[AT(i, j)] : u[AT(i, j)] - nv;
            v[AT(i, j)] = nv;
            res = d > res ? d : res;
        }
    return res;
}

void heat2d_pack(int nx, int ny, const double *u, double *out)
{
    for (int i = 1; i <= nx; i++)
        memcpy(out + (size_t)(i - 1) * ny, &u[AT(i, 1)], (size_t)ny * sizeof(double));
}

void heat2d_place(int gnx, int gny, int x0, int nx, int y0, int ny, const double *block,
                  double *field)
{
    (void)gnx;
    for (int i = 0; i < nx; i++)
        memcpy(field + (size_t)(x0 + i) * gny + y0, block + (size_t)i * ny,
               (size_t)ny * sizeof(double));
}

void heat2d_print_problem(int gnx, int gny, int iterations)
{
    printf("heat2d: %d x %d points, %d Jacobi iterations\n", gnx, gny, iterations);
    fflush(stdout);
}

void heat2d_print_residual(int iteration, double residual)
{
    printf("iteration %d: residual %a\n", iteration, residual);
    fflush(stdout);
}

void heat2d_print_field(int gnx, int gny, const double *field)
{
    const unsigned char *b = (const unsigned char *)field;
    uint64_t h = 1469598103934665603ULL;
    double lo = field[0], hi = field[0];

    for (size_t k = 0; k < (size_t)gnx * gny * sizeof(double); k++)
        h = (h ^ b[k]) * 1099511628211ULL;
    for (size_t k = 0; k < (size_t)gnx * gny; k++) {
        lo = field[k] < lo ? field[k] : lo;
        hi = field[k] > hi ? field[k] : hi;
    }
    printf("field: FNV-1a %016llx, min %a, max %a\n", (unsigned long long)h, lo, hi);
    fflush(stdout);
}
