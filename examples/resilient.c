/* SPDX-License-Identifier: BSD-3-Clause */
/* resilient: a (dp, tp) iteration that survives a lost process.
 *
 * Each step sums the world ranks of the mesh: an allreduce over tp, then
 * one over dp. A step ends with a collective dmesh call, which every
 * survivor leaves with the same class, so that all of them learn of a
 * failure at the same step. On DMESH_ERR_PROC_FAILED the survivors revoke
 * the mesh, shrink it (dp loses the rows that lost a process; with
 * "spares" the spare processes take the dead ones' places and the shape
 * stays), take the state of the last step that completed and redo the
 * step. The result is checked against the sum of the world ranks of the
 * mesh of each step.
 *
 *   mpiexec --with-ft ulfm -n 8 ./resilient [spares]
 *
 * DMESH_EXAMPLE_KILL_RANK (a world rank, not 0) and DMESH_EXAMPLE_KILL_STEP
 * make that process die (SIGKILL) in the middle of that step. Without
 * fault tolerance it runs without a failure. Exit status 1 when a result
 * is wrong. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "dmesh.h"

#define STEPS 6
#define MAXR 256

static int me; /* world rank */

/* Open MPI 5 sometimes hangs in MPI_Finalize after a process died (every
 * survivor waiting in it, without dmesh too). The result line is printed
 * and flushed before it, and a finalize that takes over 3 s ends the
 * process with the run's status instead of hanging the launch. */
static volatile sig_atomic_t exit_status;

static void finalize_hung(int sig)
{
    (void)sig;
    _exit(exit_status);
}

static int finalize_bounded(int status)
{
    exit_status = status;
    signal(SIGALRM, finalize_hung);
    alarm(3);
    MPI_Finalize();
    alarm(0);
    return status;
}

/* The sum of the world ranks of the mesh's members (from its mesh tensor,
 * ranks of comm): what every step must find. */
static long expected_sum(dmesh_t mesh, MPI_Comm comm)
{
    int ranks[MAXR], world[MAXR], n = 0, i;
    long sum = 0;
    MPI_Group g, w;

    dmesh_get_ranks(mesh, MAXR, ranks, &n);
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_translate_ranks(g, n, ranks, w, world);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    for (i = 0; i < n; i++)
        sum += world[i];
    return sum;
}

/* One step on the members: 0, or an MPI error code (a failure). */
static int step_work(dmesh_t mesh, int step, long *sum, int *member)
{
    MPI_Comm tp, dp;
    long mine = me, part = 0;
    int rc;

    dmesh_get_comm(mesh, 1, &tp);
    dmesh_get_comm(mesh, 0, &dp);
    *member = tp != MPI_COMM_NULL;
    if (!*member)
        return MPI_SUCCESS; /* a spare: nothing to compute */
    if ((rc = MPI_Allreduce(&mine, &part, 1, MPI_LONG, MPI_SUM, tp)) != MPI_SUCCESS)
        return rc;
    if (getenv("DMESH_EXAMPLE_KILL_STEP") && atoi(getenv("DMESH_EXAMPLE_KILL_STEP")) == step &&
        getenv("DMESH_EXAMPLE_KILL_RANK") && atoi(getenv("DMESH_EXAMPLE_KILL_RANK")) == me)
        raise(SIGKILL); /* dies between the two allreduces of the step */
    return MPI_Allreduce(&part, sum, 1, MPI_LONG, MPI_SUM, dp);
}

/* The end of a step: a collective dmesh call (here flatten, made once and
 * then found in the cache) returns the same class on every survivor. */
static int step_end(dmesh_t mesh)
{
    dmesh_t all = DMESH_NULL;
    int rc = dmesh_flatten(mesh, "all", MPI_INFO_NULL, &all);

    dmesh_free(&all);
    return rc;
}

int main(int argc, char **argv)
{
    const char *names[2] = {"dp", "tp"};
    int spares = argc > 1 && strcmp(argv[1], "spares") == 0, np, step = 0, rc, bad = 0;
    int shape[2], recoveries = 0;
    long total = 0, sum = 0;
    dmesh_t mesh = DMESH_NULL, smaller;
    MPI_Comm comm = MPI_COMM_WORLD, survivors;
    MPI_Info info;

    MPI_Init(&argc, &argv);
    /* errors come back as codes: a failed process is an error to recover from */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    shape[0] = spares ? (np - 2) / 2 : np / 2; /* "spares" keeps 2 processes aside */
    shape[1] = 2;
    if (np < 4 || np % 2 || np > MAXR ||
        dmesh_init(comm, "cpu", 2, shape, names, MPI_INFO_NULL, &mesh) != DMESH_SUCCESS) {
        if (me == 0)
            fprintf(stderr, "resilient: needs an even number of ranks from 4 (%s)\n",
                    dmesh_last_error());
        MPI_Finalize();
        return 1;
    }
    while (step < STEPS) {
        int member = 0, work = step_work(mesh, step, &sum, &member);
        if (work != MPI_SUCCESS)
            dmesh_revoke(mesh); /* the others, blocked or not, learn it at step_end */
        rc = step_end(mesh);
        if (rc == DMESH_SUCCESS) { /* the step completed on every survivor */
            long want = expected_sum(mesh, comm);
            if (member && sum != want) {
                fprintf(stderr, "resilient: rank %d step %d: sum %ld, want %ld\n", me, step, sum,
                        want);
                bad = 1;
            }
            total += want;
            step++;
            sum = 0;
            continue;
        }
        if (rc != DMESH_ERR_PROC_FAILED) {
            fprintf(stderr, "resilient: rank %d: %s\n", me, dmesh_last_error());
            bad = 1;
            break;
        }
        /* Recover: revoke, shrink, go on from the last completed step
         * (every survivor has the same: the step ends agreed on it). */
        dmesh_revoke(mesh);
        MPI_Info_create(&info);
        if (spares)
            MPI_Info_set(info, "dmesh_spares", "true");
        smaller = DMESH_NULL;
        rc = dmesh_shrink(mesh, spares ? DMESH_KEEP_SHAPE : 0, info, &survivors, &smaller);
        MPI_Info_free(&info);
        if (rc != DMESH_SUCCESS) {
            fprintf(stderr, "resilient: rank %d: shrink: %s\n", me, dmesh_last_error());
            bad = 1;
            break;
        }
        dmesh_free(&mesh);
        if (comm != MPI_COMM_WORLD)
            MPI_Comm_free(&comm);
        mesh = smaller;
        comm = survivors;
        recoveries++;
        /* a spare that took a place gets the state from survivor 0 */
        MPI_Bcast(&total, 1, MPI_LONG, 0, comm);
        dmesh_get_shape(mesh, 2, shape);
        if (me == 0)
            printf("resilient: step %d: a process failed; shrunk to %d x %d, redoing the step\n",
                   step, shape[0], shape[1]);
    }
    if (step == STEPS && me == 0)
        printf("resilient: %d steps, %d recoveries, total %ld (%s)\n", STEPS, recoveries, total,
               bad ? "WRONG" : "every step checked");
    fflush(stdout);
    dmesh_free(&mesh);
    if (comm != MPI_COMM_WORLD)
        MPI_Comm_free(&comm);
    return finalize_bounded(bad || step != STEPS);
}
