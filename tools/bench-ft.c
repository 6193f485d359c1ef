/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh-bench --ft: what fault tolerance costs, measured in one run under
 * an MPI that has it (mpiexec --with-ft ulfm), as ratios:
 *   1. dmesh_init with the failure-aware agreement (MPIX_Comm_agree after
 *      every agreement's allreduce) against dmesh_init with the plain one,
 *      the two alternating rep by rep on one communicator;
 *   2. dmesh_shrink of a mesh with no failed process (revoke, shrink,
 *      agreement on the failed set, the new mesh on the survivors) against
 *      dmesh_init of the same mesh on a fresh duplicate of the survivors'
 *      communicator (the first mesh on it: both pay a private duplicate);
 *   3. once, at the end: the last rank dies (SIGKILL) and the survivors time
 *      dmesh_shrink of dim 0 against dmesh_init of the shrunk mesh on the
 *      survivors' communicator. One sample each: the run cannot repeat it.
 * Times are the slowest rank's, medians over reps. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"
#include "ulfm.h"

/* The slowest rank's seconds since t0, over comm. */
static double slowest(double t0, MPI_Comm comm)
{
    double t = MPI_Wtime() - t0, max = t;

    MPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, comm);
    return max;
}

static double init_once(const bench_args_t *a, MPI_Comm comm, const int shape[])
{
    dmesh_t m = DMESH_NULL;
    double t;
    int err;

    MPI_Barrier(comm);
    t = MPI_Wtime();
    err = dmesh_init(comm, "cpu", a->ndims, shape, bench_names(a->ndims), MPI_INFO_NULL, &m);
    t = slowest(t, comm);
    if (err != DMESH_SUCCESS)
        bench_die("dmesh_init", err);
    dmesh_free(&m);
    return t;
}

/* The first mesh on a new duplicate of comm (as dmesh_shrink's is). */
static double init_fresh(const bench_args_t *a, MPI_Comm comm, const int shape[])
{
    MPI_Comm dup;
    double t;

    MPI_Comm_dup(comm, &dup);
    t = init_once(a, dup, shape);
    MPI_Comm_free(&dup);
    return t;
}

/* 1: the failure-aware agreement's cost in dmesh_init. */
static void agreement_cost(const bench_args_t *a, MPI_Comm comm, int rank)
{
    double *on = malloc((size_t)a->reps * sizeof(*on)),
           *off = malloc((size_t)a->reps * sizeof(*off));

    if (on == NULL || off == NULL)
        bench_die("out of memory", DMESH_ERR_NOMEM);
    for (int i = 0; i < a->warmup; i++)
        init_once(a, comm, a->shape);
    for (int i = 0; i < a->reps; i++) { /* alternating, so that drift hits both */
        dmesh_ulfm_set_enabled(0);
        off[i] = init_once(a, comm, a->shape);
        dmesh_ulfm_set_enabled(1);
        on[i] = init_once(a, comm, a->shape);
    }
    if (rank == 0) {
        double mon = bench_median(on, a->reps), moff = bench_median(off, a->reps);
        printf("dmesh_init, plain agreement          %10.3f ms\n", 1e3 * moff);
        printf("dmesh_init, failure-aware agreement  %10.3f ms   ratio %.2f\n", 1e3 * mon,
               mon / moff);
        fflush(stdout);
    }
    free(on);
    free(off);
}

/* 2: dmesh_shrink with nothing failed, chained (each shrink revokes the
 * mesh it shrinks), against the first dmesh_init on the survivors. */
static void shrink_cost(const bench_args_t *a, MPI_Comm comm, int rank)
{
    double *ts = malloc((size_t)a->reps * sizeof(*ts)), *ti = malloc((size_t)a->reps * sizeof(*ti));
    dmesh_t m = DMESH_NULL, next = DMESH_NULL;
    MPI_Comm survivors = MPI_COMM_NULL;
    double t;
    int err;

    if (ts == NULL || ti == NULL)
        bench_die("out of memory", DMESH_ERR_NOMEM);
    if ((err = dmesh_init(comm, "cpu", a->ndims, a->shape, bench_names(a->ndims), MPI_INFO_NULL,
                          &m)) != DMESH_SUCCESS)
        bench_die("dmesh_init", err);
    for (int i = 0; i < a->reps; i++) {
        MPI_Barrier(comm);
        t = MPI_Wtime();
        err = dmesh_shrink(m, 0, MPI_INFO_NULL, &survivors, &next);
        ts[i] = slowest(t, comm);
        if (err != DMESH_SUCCESS)
            bench_die("dmesh_shrink", err);
        dmesh_free(&m);
        m = next;
        ti[i] = init_fresh(a, survivors, a->shape);
        MPI_Comm_free(&survivors);
    }
    dmesh_free(&m);
    if (rank == 0) {
        double ms = bench_median(ts, a->reps), mi = bench_median(ti, a->reps);
        printf("dmesh_init on the survivors (fresh)  %10.3f ms\n", 1e3 * mi);
        printf("dmesh_shrink, no process failed      %10.3f ms   ratio %.2f\n", 1e3 * ms, ms / mi);
    }
    free(ts);
    free(ti);
}

/* 3: a real failure, once: the last rank dies between two calls. */
static void shrink_after_failure(const bench_args_t *a, MPI_Comm comm, int rank, int size)
{
    dmesh_t m = DMESH_NULL, next = DMESH_NULL;
    MPI_Comm survivors = MPI_COMM_NULL;
    int err, shape[DMESH_MAX_DIMS], nd = 0, one = 1, sum = 0;
    double t, ts, ti;

    if ((err = dmesh_init(comm, "cpu", a->ndims, a->shape, bench_names(a->ndims), MPI_INFO_NULL,
                          &m)) != DMESH_SUCCESS)
        bench_die("dmesh_init", err);
    MPI_Barrier(comm);
    if (rank == size - 1)
        raise(SIGKILL);
    /* the survivors notice it in a collective of their own, as a program
     * would, then recover: the clock starts at the recovery */
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
    t = MPI_Wtime();
    err = dmesh_shrink(m, 0, MPI_INFO_NULL, &survivors, &next);
    if (err != DMESH_SUCCESS)
        bench_die("dmesh_shrink after a failure", err);
    ts = slowest(t, survivors);
    dmesh_get_ndims(next, &nd);
    dmesh_get_shape(next, DMESH_MAX_DIMS, shape);
    ti = init_fresh(a, survivors, shape);
    if (rank == 0) {
        printf("after a failure (rank %d killed, %d survivors, dim 0 %d -> %d):\n", size - 1,
               size - 1, a->shape[0], shape[0]);
        printf("dmesh_init of the shrunk mesh        %10.3f ms\n", 1e3 * ti);
        printf("dmesh_shrink (revoke, shrink, mesh)  %10.3f ms   ratio %.2f (one sample)\n",
               1e3 * ts, ts / ti);
    }
    dmesh_free(&next);
    dmesh_free(&m);
    MPI_Comm_free(&survivors);
}

static void finalize_stuck(int sig)
{
    (void)sig;
    _exit(0);
}

void bench_ft_finalize(void)
{
    /* Open MPI 5.0.7 may hang in MPI_Finalize after a process died: the
     * figures are printed by then, so it is bounded */
    fflush(stdout);
    signal(SIGALRM, finalize_stuck);
    alarm(10);
    MPI_Finalize();
    alarm(0);
}

int bench_ft(const bench_args_t *a, MPI_Comm comm, int rank, int size)
{
    if (!dmesh_ulfm_enabled(comm)) {
        if (rank == 0)
            printf("dmesh-bench --ft: fault tolerance is off: %s\n", dmesh_ulfm_how());
        return 1;
    }
    if (rank == 0)
        printf("fault tolerance, %d ranks, shape %d", size, a->shape[0]);
    for (int d = 1; rank == 0 && d < a->ndims; d++)
        printf("x%d", a->shape[d]);
    if (rank == 0)
        printf(", medians of %d reps, slowest rank\n", a->reps);
    fflush(stdout);
    agreement_cost(a, comm, rank);
    /* dmesh_shrink revokes the private duplicate of the communicator the
     * mesh was made from: each part shrinks meshes of a duplicate of its own */
    for (int part = 0; part < 2; part++) {
        MPI_Comm dup;
        MPI_Comm_dup(comm, &dup);
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
        if (part == 0)
            shrink_cost(a, dup, rank);
        else if (size > 1 && a->shape[0] > 1)
            shrink_after_failure(a, dup, rank, size);
        MPI_Comm_free(&dup);
    }
    return 0;
}
