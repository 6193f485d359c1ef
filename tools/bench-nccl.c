/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh-bench --nccl: the NCCL creation strategies (dmesh_nccl_create)
 * side by side on one "cuda" mesh: per strategy, what one rank spent on
 * NCCL (bootstraps, splits, scalable inits, MPI calls and bytes of unique
 * ids, from the universe's counters), the creation time (median over reps
 * of the slowest rank), and the bootstraps after a later flatten of the
 * whole mesh. Then the mesh made by init (all dims in one group) against
 * its slowest single dimension: the ratio whose target is 1.3x (doc/gpu.md).
 * Built twice: dmesh-bench against the real NCCL (needs a GPU), and
 * dmesh-bench-double against the NCCL and CUDA test doubles, whose counts
 * are exact and whose times are the double's, not a GPU's. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_nccl.h"
#include "bench.h"
#include "mesh.h"
#include "universe_comms.h"

typedef struct {
    dmesh_nccl_stats_t made, after_flatten;
    double med;
} nccl_row_t;

/* Seconds of one dmesh_init, the slowest rank's; row (when not NULL):
 * this rank's counts, before and after flattening the whole mesh. */
static double create_once(const bench_args_t *a, MPI_Comm comm, MPI_Info info, nccl_row_t *row)
{
    dmesh_t m = DMESH_NULL, f = DMESH_NULL;
    double t, slowest;
    int err;

    MPI_Barrier(comm);
    t = MPI_Wtime();
    err = dmesh_init(comm, "cuda", a->ndims, a->shape, bench_names(a->ndims), info, &m);
    t = MPI_Wtime() - t;
    if (err != DMESH_SUCCESS)
        bench_die("dmesh_init of a cuda mesh", err);
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (row != NULL) {
        dmesh_backend_nccl_stats(
            dmesh_universe_backend_state(dmesh_handle_mesh(m)->u, &dmesh_backend_nccl), &row->made);
        if ((err = dmesh_flatten(m, "all", info, &f)) != DMESH_SUCCESS)
            bench_die("dmesh_flatten", err);
        dmesh_backend_nccl_stats(
            dmesh_universe_backend_state(dmesh_handle_mesh(m)->u, &dmesh_backend_nccl),
            &row->after_flatten);
        dmesh_free(&f);
    }
    dmesh_free(&m);
    return slowest;
}

/* Median over reps of create_once with info. */
static double create_median(const bench_args_t *a, MPI_Comm comm, MPI_Info info, nccl_row_t *row)
{
    double *t = malloc((size_t)a->reps * sizeof(*t)), med;

    if (t == NULL)
        bench_die("out of memory", DMESH_ERR_NOMEM);
    for (int i = 0; i < a->warmup; i++)
        create_once(a, comm, info, NULL);
    for (int i = 0; i < a->reps; i++)
        t[i] = create_once(a, comm, info, i == 0 ? row : NULL);
    med = bench_median(t, a->reps);
    free(t);
    return med;
}

static void print_row(const char *name, const nccl_row_t *r)
{
    char after[48];

    snprintf(after, sizeof(after), "%ld/%ld/%ld", r->after_flatten.bootstraps,
             r->after_flatten.splits, r->after_flatten.scalable);
    printf("%-9s %10ld %7ld %9ld %9ld %9ld %12.3f %16s\n", name, r->made.bootstraps, r->made.splits,
           r->made.scalable, r->made.id_calls, r->made.id_bytes, 1e3 * r->med, after);
}

/* init with only dim d on NCCL (the others on MPI): one dimension's cost. */
static double single_dim(const bench_args_t *a, MPI_Comm comm, int d)
{
    MPI_Info info;
    char key[32];
    double t;

    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_backend", "mpi");
    snprintf(key, sizeof(key), "dmesh_backend.%d", d);
    MPI_Info_set(info, key, "nccl");
    t = create_median(a, comm, info, NULL);
    MPI_Info_free(&info);
    return t;
}

void bench_nccl(const bench_args_t *a, MPI_Comm comm, int rank, const char *what)
{
    static const char *const names[3] = {"init", "split", "scalable"};
    nccl_row_t rows[3];
    double slowest = 0, mpi_only;
    MPI_Info info;

    memset(rows, 0, sizeof(rows));
    for (int s = 0; s < 3; s++) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "dmesh_nccl_create", names[s]);
        rows[s].med = create_median(a, comm, info, &rows[s]);
        MPI_Info_free(&info);
    }
    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_backend", "mpi");
    mpi_only = create_median(a, comm, info, NULL);
    MPI_Info_free(&info);
    for (int d = 0; d < a->ndims; d++) {
        double t = single_dim(a, comm, d);
        slowest = t > slowest ? t : slowest;
    }
    if (rank != 0)
        return;
    printf("dmesh-bench --nccl: shape");
    for (int d = 0; d < a->ndims; d++)
        printf("%s%d", d ? "x" : " ", a->shape[d]);
    printf(", %d reps (median of the slowest rank), %s\n", a->reps, what);
    printf("counts are rank 0's; ids: the MPI calls and bytes that moved NCCL unique ids\n\n");
    printf("strategy  bootstraps  splits  scalable  id-calls  id-bytes  create (ms)  "
           "after flatten b/s/sc\n");
    for (int s = 0; s < 3; s++)
        print_row(names[s], &rows[s]);
    printf("\nall dims on MPI (no NCCL): %.3f ms\n", 1e3 * mpi_only);
    printf("init, %d dims in one group: %.3f ms; slowest single dim (others on MPI): %.3f ms; "
           "ratio %.2f (target <= 1.3 on a GPU)\n",
           a->ndims, 1e3 * rows[0].med, 1e3 * slowest, slowest > 0 ? rows[0].med / slowest : 0);
}
