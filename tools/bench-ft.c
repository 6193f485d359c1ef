/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh-bench --ft: what fault tolerance costs, measured in one run under
 * an MPI that has it (mpiexec --with-ft ulfm), as ratios:
 *   1. dmesh_init with the failure-aware agreement against dmesh_init with
 *      the plain one, both making communicators with MPI_Comm_split as the
 *      fault-tolerant path does, and the fault-tolerant path as a whole
 *      against the default (MPI_Comm_create_group), alternating rep by rep
 *      on one communicator;
 *   2. dmesh_shrink of a mesh with no failed process (revoke, shrink,
 *      agreement on the failed set, the new mesh on the survivors) against
 *      dmesh_init of the same mesh on a fresh duplicate of the survivors'
 *      communicator (the first mesh on it: both pay a private duplicate);
 *   3. coming back whole: in each rep a process of the first launch dies
 *      (SIGKILL) and the survivors time, alternately, dmesh_respawn against the ULFM
 *      tutorial's replace written here (revoke, shrink, spawn, merge, split
 *      into the old order) followed by dmesh_init on its result; the new
 *      process (this program, started with BENCH_CHILD) joins and goes on
 *      with the reps. Also the time per process started;
 *   4. once, at the end: the last rank dies (SIGKILL) and the survivors time
 *      dmesh_shrink of dim 0 against dmesh_init of the shrunk mesh on the
 *      survivors' communicator. One sample each: the run cannot repeat it.
 * Times are the slowest rank's, medians over reps. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static double init_with(const bench_args_t *a, MPI_Comm comm, const int shape[], MPI_Info info)
{
    dmesh_t m = DMESH_NULL;
    double t;
    int err;

    MPI_Barrier(comm);
    t = MPI_Wtime();
    err = dmesh_init(comm, "cpu", a->ndims, shape, bench_names(a->ndims), info, &m);
    t = slowest(t, comm);
    if (err != DMESH_SUCCESS)
        bench_die("dmesh_init", err);
    dmesh_free(&m);
    return t;
}

static double init_once(const bench_args_t *a, MPI_Comm comm, const int shape[])
{
    return init_with(a, comm, shape, MPI_INFO_NULL);
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

/* 1: the failure-aware agreement's cost in dmesh_init. With fault
 * tolerance on, the universes make their communicators with MPI_Comm_split
 * (MPI_Comm_create_group over a group with a dead member hangs in Open MPI
 * 5.0.7: lib/ft/shrink.c), so the agreement alone is measured against the
 * plain one with MPI_Comm_split too (dmesh_comm_create=split), and the
 * whole fault-tolerant path against the default creation. */
static void agreement_cost(const bench_args_t *a, MPI_Comm comm, int rank)
{
    double *on = malloc((size_t)a->reps * sizeof(*on)),
           *off = malloc((size_t)a->reps * sizeof(*off)),
           *split = malloc((size_t)a->reps * sizeof(*split));
    MPI_Info info;

    if (on == NULL || off == NULL || split == NULL)
        bench_die("out of memory", DMESH_ERR_NOMEM);
    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_comm_create", "split");
    for (int i = 0; i < a->warmup; i++)
        init_once(a, comm, a->shape);
    for (int i = 0; i < a->reps; i++) { /* alternating, so that drift hits all three */
        dmesh_ulfm_set_enabled(0);
        off[i] = init_once(a, comm, a->shape);
        split[i] = init_with(a, comm, a->shape, info);
        dmesh_ulfm_set_enabled(1);
        on[i] = init_once(a, comm, a->shape);
    }
    if (rank == 0) {
        double mon = bench_median(on, a->reps), moff = bench_median(off, a->reps),
               msplit = bench_median(split, a->reps);
        printf("dmesh_init, plain agreement          %10.3f ms\n", 1e3 * moff);
        printf("dmesh_init, plain, MPI_Comm_split    %10.3f ms\n", 1e3 * msplit);
        printf(
            "dmesh_init, failure-aware agreement  %10.3f ms   ratio %.2f (against the plain one, "
            "MPI_Comm_split both)\n",
            1e3 * mon, mon / msplit);
        printf("  the fault-tolerant path as a whole             ratio %.2f (against the default "
               "creation, MPI_Comm_create_group)\n",
               mon / moff);
        fflush(stdout);
    }
    MPI_Info_free(&info);
    free(on);
    free(off);
    free(split);
}

/* What a program writes instead of dmesh_shrink: MPIX_Comm_shrink, then
 * dmesh_init on its result; the slowest rank's time. */
static double shrink_by_hand(const bench_args_t *a, MPI_Comm comm)
{
    MPI_Comm shr = MPI_COMM_NULL;
    dmesh_t m = DMESH_NULL;
    double t, t0;
    int err;

    MPI_Barrier(comm);
    t0 = MPI_Wtime();
    dmesh_ulfm_shrink(comm, &shr);
    err = dmesh_init(shr, "cpu", a->ndims, a->shape, bench_names(a->ndims), MPI_INFO_NULL, &m);
    t = slowest(t0, shr);
    if (err != DMESH_SUCCESS)
        bench_die("dmesh_init after MPIX_Comm_shrink", err);
    dmesh_free(&m);
    MPI_Comm_free(&shr);
    return t;
}

/* 2: dmesh_shrink with nothing failed, chained (each shrink revokes the
 * mesh it shrinks), against the first dmesh_init on the survivors, and,
 * alternating, against what a program writes instead (MPIX_Comm_shrink
 * and dmesh_init on its result). */
static void shrink_cost(const bench_args_t *a, MPI_Comm comm, int rank)
{
    double *ts = malloc((size_t)a->reps * sizeof(*ts)), *ti = malloc((size_t)a->reps * sizeof(*ti));
    double *th = malloc((size_t)a->reps * sizeof(*th));
    dmesh_t m = DMESH_NULL, next = DMESH_NULL;
    MPI_Comm survivors = MPI_COMM_NULL;
    double t;
    int err;

    if (ts == NULL || ti == NULL || th == NULL)
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
        th[i] = shrink_by_hand(a, survivors);
        MPI_Comm_free(&survivors);
    }
    dmesh_free(&m);
    if (rank == 0) {
        double ms = bench_median(ts, a->reps), mi = bench_median(ti, a->reps);
        double mh = bench_median(th, a->reps);
        printf("dmesh_init on the survivors (fresh)  %10.3f ms\n", 1e3 * mi);
        printf("dmesh_shrink, no process failed      %10.3f ms   ratio %.2f\n", 1e3 * ms, ms / mi);
        printf("MPIX_Comm_shrink + dmesh_init        %10.3f ms\n", 1e3 * mh);
        printf("dmesh_shrink against it              %10.3f ms   ratio %.2f\n", 1e3 * ms, ms / mh);
    }
    free(ts);
    free(ti);
    free(th);
}

/* 4: a real failure, once: the last rank dies between two calls. */
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

/* Every part is bounded: a process still in one BENCH_FT_BOUND seconds
 * after it began says so and ends, so that a run always ends (Open MPI
 * 5.0.7 can leave processes inside MPI after a failure: user guide). */
#define BENCH_FT_BOUND 300
static void part_stuck(int sig)
{
    static const char msg[] = "dmesh-bench --ft: a part did not end within 300 s: ended\n";
    ssize_t w = write(2, msg, sizeof(msg) - 1);

    (void)sig;
    (void)w;
    _exit(3);
}

static void part_bound(void)
{
    signal(SIGALRM, part_stuck);
    alarm(BENCH_FT_BOUND);
}

/* The arguments of a process started in rep `rep` by `variant` (0:
 * dmesh_respawn, 1: the tutorial's replace): BENCH_CHILD, variant, rep,
 * reps, ndims, shape... (static storage). */
static char **child_argv(const bench_args_t *a, int variant, int rep)
{
    static char text[4 + DMESH_MAX_DIMS][16];
    static char *argv[6 + DMESH_MAX_DIMS];
    int k = 0, d;

    argv[k++] = BENCH_CHILD;
    snprintf(text[0], sizeof(text[0]), "%d", variant);
    snprintf(text[1], sizeof(text[1]), "%d", rep);
    snprintf(text[2], sizeof(text[2]), "%d", a->reps);
    snprintf(text[3], sizeof(text[3]), "%d", a->ndims);
    for (d = 0; d < 4; d++)
        argv[k++] = text[d];
    for (d = 0; d < a->ndims; d++) {
        snprintf(text[4 + d], sizeof(text[4 + d]), "%d", a->shape[d]);
        argv[k++] = text[4 + d];
    }
    argv[k] = NULL;
    return argv;
}

/* The ULFM tutorial's replace, parents' side: revoke, shrink, spawn one
 * process per failed one, send each its old rank, merge, split into the
 * old order. */
static void tutorial_replace(MPI_Comm comm, char **argv, MPI_Comm *out)
{
    MPI_Comm shr, ic = MPI_COMM_NULL, merged;
    MPI_Group g_old, g_shr;
    int size, nshr, r, rank, *in, *at, k = 0, rc, flag;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

    exe[n > 0 ? n : 0] = '\0';
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    dmesh_ulfm_revoke(comm);
    /* as the tutorial's MPIX_Comm_replace: the spawn's outcome is agreed
     * over the survivors, and a spawn that failed somewhere is done again
     * on a new shrink, so that no survivor goes on alone */
    for (;;) {
        dmesh_ulfm_shrink(comm, &shr);
        MPI_Comm_size(shr, &nshr);
        rc =
            MPI_Comm_spawn(exe, argv, size - nshr, MPI_INFO_NULL, 0, shr, &ic, MPI_ERRCODES_IGNORE);
        flag = rc == MPI_SUCCESS;
        dmesh_ulfm_agree(shr, &flag);
        if (flag)
            break;
        if (rc == MPI_SUCCESS)
            MPI_Comm_free(&ic);
        MPI_Comm_free(&shr);
    }
    in = malloc(2 * (size_t)size * sizeof(int));
    at = in + size;
    for (r = 0; r < size; r++)
        in[r] = r;
    MPI_Comm_group(comm, &g_old);
    MPI_Comm_group(shr, &g_shr);
    MPI_Group_translate_ranks(g_old, size, in, g_shr, at);
    MPI_Comm_rank(shr, &r);
    for (int i = 0; r == 0 && i < size; i++)
        if (at[i] == MPI_UNDEFINED)
            MPI_Send(&i, 1, MPI_INT, k++, 0, ic);
    MPI_Group_free(&g_old);
    MPI_Group_free(&g_shr);
    free(in);
    MPI_Intercomm_merge(ic, 0, &merged);
    MPI_Comm_split(merged, 0, rank, out);
    MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&shr);
}

/* Its new processes' side. */
static void tutorial_join(MPI_Comm parent, MPI_Comm *out)
{
    MPI_Comm merged;
    int rank = 0;

    MPI_Recv(&rank, 1, MPI_INT, 0, 0, parent, MPI_STATUS_IGNORE);
    MPI_Intercomm_merge(parent, 1, &merged);
    MPI_Comm_split(merged, 0, rank, out);
    MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&parent);
}

/* Reps rep0.. of part 3 on *comm and *mesh (replaced by the repaired ones).
 * The survivors' times go to t[variant][rep / 2]; new processes add 0. */
static void respawn_reps(const bench_args_t *a, MPI_Comm *comm, dmesh_t *mesh, int rep0,
                         double t[2][64])
{
    int one = 1, sum, rank, size, err, victim;

    for (int i = rep0; i < 2 * a->reps && i / 2 < 64; i++) {
        MPI_Comm back = MPI_COMM_NULL;
        dmesh_t again = DMESH_NULL;
        double t0;
        MPI_Comm_rank(*comm, &rank);
        MPI_Comm_size(*comm, &size);
        /* the highest rank of the first launch dies: rep i kills rank
         * size - 1 - i, worked out alike by every process (an allreduce
         * here, whose failure a process could take for "none left", once
         * sent a started process on to the next part alone) */
        victim = size - 1 - i;
        if (victim <= 0)
            break; /* every process but rank 0 was replaced */
        if (rank == victim)
            raise(SIGKILL);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, *comm); /* may fail: it died */
        t0 = MPI_Wtime();
        if (i % 2 == 0) {
            err = dmesh_respawn(*mesh, NULL, child_argv(a, 0, i + 1), MPI_INFO_NULL, &back, &again);
            if (err != DMESH_SUCCESS)
                bench_die("dmesh_respawn", err);
        } else {
            tutorial_replace(*comm, child_argv(a, 1, i + 1), &back);
            err = dmesh_init(back, "cpu", a->ndims, a->shape, bench_names(a->ndims), MPI_INFO_NULL,
                             &again);
            if (err != DMESH_SUCCESS)
                bench_die("dmesh_init after the tutorial's replace", err);
        }
        t[i % 2][i / 2] = slowest(t0, back);
        dmesh_free(mesh);
        MPI_Comm_free(comm);
        *comm = back;
        *mesh = again;
    }
}

/* 3: dmesh_respawn against the tutorial's replace and dmesh_init; *comm is
 * replaced by the repaired communicator. */
static void respawn_cost(const bench_args_t *a, MPI_Comm *comm)
{
    double t[2][64];
    dmesh_t mesh = DMESH_NULL;
    int err, rank, n = a->reps < 64 ? a->reps : 64;

    if ((err = dmesh_init(*comm, "cpu", a->ndims, a->shape, bench_names(a->ndims), MPI_INFO_NULL,
                          &mesh)) != DMESH_SUCCESS)
        bench_die("dmesh_init", err);
    int size;
    MPI_Comm_size(*comm, &size);
    n = n < (size - 1) / 2 ? n : (size - 1) / 2; /* two processes of the first launch a rep */
    for (int i = 0; i < 2 * n; i++)
        t[i % 2][i / 2] = 0;
    bench_args_t b = *a; /* the new processes get these reps too */
    b.reps = n;
    respawn_reps(&b, comm, &mesh, 0, t);
    dmesh_free(&mesh);
    MPI_Comm_rank(*comm, &rank);
    if (rank == 0 && n > 0) {
        double mr = bench_median(t[0], n), mt = bench_median(t[1], n);
        printf("coming back whole (%d reps of each; a process of the first launch killed in "
               "each, one started):\n",
               n);
        printf("tutorial's replace + dmesh_init      %10.3f ms\n", 1e3 * mt);
        printf("dmesh_respawn                        %10.3f ms   ratio %.2f\n", 1e3 * mr, mr / mt);
        printf("dmesh_respawn per process started    %10.3f ms\n", 1e3 * mr);
        fflush(stdout);
    }
}

int bench_ft_child(int argc, char **argv)
{
    bench_args_t a;
    MPI_Comm parent, comm = MPI_COMM_NULL;
    dmesh_t mesh = DMESH_NULL;
    double t[2][64], zero = 0, max;
    int variant, rep, d, err, rank, size;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    signal(SIGPIPE, SIG_IGN);
    part_bound();
    memset(&a, 0, sizeof(a));
    if (argc < 6)
        return 2;
    variant = atoi(argv[2]);
    rep = atoi(argv[3]);
    a.reps = atoi(argv[4]);
    a.ndims = atoi(argv[5]);
    for (d = 0; d < a.ndims && 6 + d < argc; d++)
        a.shape[d] = atoi(argv[6 + d]);
    MPI_Comm_get_parent(&parent);
    if (variant == 0) {
        if ((err = dmesh_join(MPI_INFO_NULL, NULL, &comm, &mesh)) != DMESH_SUCCESS)
            bench_die("dmesh_join", err);
    } else {
        tutorial_join(parent, &comm);
        if ((err = dmesh_init(comm, "cpu", a.ndims, a.shape, bench_names(a.ndims), MPI_INFO_NULL,
                              &mesh)) != DMESH_SUCCESS)
            bench_die("dmesh_init", err);
    }
    MPI_Allreduce(&zero, &max, 1, MPI_DOUBLE, MPI_MAX, comm); /* the survivors' clock */
    respawn_reps(&a, &comm, &mesh, rep, t);
    dmesh_free(&mesh);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    (void)rank;
    (void)size;
    return bench_ft_after_respawn(&a, comm);
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
    /* a write to a dead peer's socket must not end a survivor */
    signal(SIGPIPE, SIG_IGN);
    part_bound();
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
    part_bound();
    /* dmesh_shrink revokes the private duplicate of the communicator the
     * mesh was made from: each part shrinks meshes of a duplicate of its own */
    {
        MPI_Comm dup;
        MPI_Comm_dup(comm, &dup);
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
        shrink_cost(a, dup, rank);
        MPI_Comm_free(&dup);
    }
    part_bound();
    if (size > 1 && a->shape[0] > 1) {
        MPI_Comm whole;
        MPI_Comm_dup(comm, &whole);
        MPI_Comm_set_errhandler(whole, MPI_ERRORS_RETURN);
        respawn_cost(a, &whole);
        return bench_ft_after_respawn(a, whole);
    }
    return 0;
}

int bench_ft_after_respawn(const bench_args_t *a, MPI_Comm comm)
{
    int rank, size;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    part_bound();
    shrink_after_failure(a, comm, rank, size);
    MPI_Comm_free(&comm);
    return 0;
}
