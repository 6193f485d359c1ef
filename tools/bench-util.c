/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers of dmesh-bench shared by its parts (bench.h): report items and
 * notes, failure, shapes and names, time, medians, and the reference split
 * (colour and key of one MPI_Comm_split per dimension). The parts
 * (bench-create.c, bench-layout.c, bench-local.c, bench-nccl.c) call these
 * and dmesh-bench.c calls the parts: nothing here calls back. */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

void bench_item(bench_report_t *r, const char *section, const char *key, const char *label,
                double value, const char *unit)
{
    bench_item_t *it;

    if (r->nitems == BENCH_MAX_ITEMS)
        bench_die("too many report items", DMESH_ERR_INTERNAL);
    it = &r->items[r->nitems++];
    it->section = section;
    it->key = key;
    it->label = label;
    it->value = value;
    it->unit = unit;
}

const bench_item_t *bench_find_item(const bench_report_t *r, const char *key)
{
    int i;

    for (i = 0; i < r->nitems; i++)
        if (strcmp(r->items[i].key, key) == 0)
            return &r->items[i];
    return NULL;
}

const bench_case_t *bench_find_case(const bench_report_t *r, const char *key)
{
    int i;

    for (i = 0; i < r->ncases; i++)
        if (strcmp(r->cases[i].key, key) == 0)
            return &r->cases[i];
    return NULL;
}

void bench_note(bench_report_t *r, const char *note)
{
    if (r->nnotes < (int)(sizeof(r->notes) / sizeof(r->notes[0])))
        r->notes[r->nnotes++] = note;
}

void bench_die(const char *what, int err)
{
    fprintf(stderr, "dmesh-bench: %s: %s (%s)\n", what, dmesh_error_string(err),
            dmesh_last_error());
    int up = 0, down = 0;

    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

void bench_factor(long long n, int ndims, int shape[])
{
    long long p, f[64];
    int nf = 0, i, j, small;

    for (p = 2; p * p <= n; p++)
        for (; n % p == 0; n /= p)
            f[nf++] = p;
    if (n > 1)
        f[nf++] = n;
    for (i = 0; i < ndims; i++)
        shape[i] = 1;
    for (i = nf - 1; i >= 0; i--) { /* largest prime to the smallest dim */
        for (small = 0, j = 1; j < ndims; j++)
            if (shape[j] < shape[small])
                small = j;
        shape[small] *= (int)f[i];
    }
    for (i = 1; i < ndims; i++) /* largest first */
        for (j = i; j > 0 && shape[j] > shape[j - 1]; j--) {
            int t = shape[j];
            shape[j] = shape[j - 1];
            shape[j - 1] = t;
        }
}

const char *const *bench_names(int ndims)
{
    static const char *const names[DMESH_MAX_DIMS] = {"d0",  "d1",  "d2",  "d3", "d4",  "d5",
                                                      "d6",  "d7",  "d8",  "d9", "d10", "d11",
                                                      "d12", "d13", "d14", "d15"};
    (void)ndims;
    return names;
}

double bench_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double bench_median(double v[], int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void bench_reference_split(int ndims, const int shape[], long long i, int d, int *colour, int *key)
{
    long long stride = 1;
    int k;

    for (k = d + 1; k < ndims; k++)
        stride *= shape[k];
    *key = (int)((i / stride) % shape[d]);
    *colour = (int)((i / (stride * shape[d])) * stride + i % stride);
}
