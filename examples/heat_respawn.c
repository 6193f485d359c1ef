/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * heat_respawn: the 2-D heat equation of heat2d on an (x, y) mesh that
 * comes back whole after a process dies (fault tolerance: run under
 * mpiexec --with-ft ulfm, Open MPI 5 or 6).
 *
 *  - every CKPT steps each member stores its block in the mesh's copies
 *    in memory (dmesh_copies_store: here and at a partner member, all or
 *    nothing);
 *  - every step's outcome is agreed (dmesh_agree_step: a process whose
 *    step failed revokes first, so that every process meets the failure):
 *    every process stores, or every process repairs;
 *  - the repair (dmesh_repair) starts one new process per dead one, at its
 *    rank and coordinate, opens the survivors' copies on the new mesh and
 *    restores them; the new process starts as a first launch does
 *    (dmesh_start, which joins the survivors, then its copies opened and
 *    restored): it gets its predecessor's block, everyone goes back to the
 *    newest version all can get back, and on.
 * The final field (its hash, printed to every bit) equals the one of a run
 * without a failure: test/heat-respawn.sh compares them.
 *
 *   mpiexec --with-ft ulfm -n 8 ./heat_respawn [GNX GNY ITERATIONS [SPARES]]
 *   (default 96 80 200 0; SPARES processes stay outside the mesh)
 *   DMESH_EXAMPLE_KILLS="R:S,R:S,...": the process at rank R dies at the
 *   start of step S, one kill after the other (kill k only once k - 1
 *   recoveries are behind: a rank killed again is the process that replaced
 *   it; a spare when R is past the mesh).
 *   DMESH_EXAMPLE_KILL_RANK=R DMESH_EXAMPLE_KILL_STEP=S: the same as
 *   DMESH_EXAMPLE_KILLS="R:S".
 *   DMESH_EXAMPLE_KILL_COMMAND=CMD: the process of a kill runs CMD (sh -c)
 *   instead of dying, and goes on: a command that kills other processes,
 *   e.g. every process of a host (test/hosts/hosts.sh's kill-host).
 *   DMESH_EXAMPLE_HYBRID=P: the mesh of dmesh_init_hybrid, x across the
 *   nodes and y inside each, of P ranks (no spares); after the start and every
 *   recovery the corner prints each rank's host, whether y is still
 *   inside one node, and whether every member's copies are held on other
 *   hosts (dmesh_copies_get_partners).
 *   DMESH_RESPAWN_HOSTS=h3 (the library's): the replacements start on h3
 *   (several hosts: a comma list; the processes of one lost node go
 *   together to one host).
 *   DMESH_EXAMPLE_CHECKPOINT=DIR: every store also writes each block to a
 *   file of DIR (the step and the block's coordinates in its name, the
 *   two newest steps kept), and a run started anew (not a new process of
 *   a respawn) goes on from the newest step every block has there: the
 *   way back when the copies in memory go with the job (a node lost where
 *   the launcher then ends the job, a job without fault tolerance). The
 *   same number of processes must restart it. At the end the corner
 *   writes DIR/done.
 * Every process sets MPI_ERRORS_RETURN on MPI_COMM_WORLD before
 * dmesh_start: the communicator and mesh it gets carry that handler, and a
 * failure must come back as an error code here, not end the job. A
 * failure during the repair is repaired again; a process that dies with every holder of its copy
 * (DMESH_ERR_DATA_LOST), or a respawn that cannot start processes
 * (DMESH_ERR_SPAWN), ends the run with a failing status on every process. Free the mesh
 * and the communicator before MPI_Finalize: they hold processes of two
 * launches. After a repair, dmesh bounds MPI_Finalize (DMESH_FINALIZE_BOUND,
 * default 60 s): Open MPI 5.0.7's may not return after a process of the
 * launch died.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#include <dmesh.h>

#include "heat2d_kernel.h"

#define CKPT 10

typedef struct {
    MPI_Comm comm; /* the program's communicator: MPI_COMM_WORLD's copy, then the repaired one */
    dmesh_t mesh, flat;
    dmesh_copies_t copies; /* this process's block, in memory here and at a partner */
    int gnx, gny, x0, nx, y0, ny, member, n;
    double *u, *v;
    int stored;     /* the newest version stored or restored (a step), -1: none */
    int recoveries; /* repairs so far (agreed in restore) */
    MPI_Datatype column;
} state_t;

static int failed(int rc)
{
    return rc != MPI_SUCCESS;
}

/* Whether the step failed on any process: the same answer on every one
 * (a process whose step failed revokes first, so that one still blocked
 * in the step returns and agrees too). */
static int failed_anywhere(state_t *s, int bad)
{
    int ok = !bad;

    dmesh_agree_step(s->mesh, &ok);
    return !ok;
}

static int halo(state_t *s)
{
    int up, down, left, right, ny = s->ny, nx = s->nx, rc = 0;
    MPI_Comm xc, yc;
    double *u = s->u;

    dmesh_get_comm(s->mesh, 0, &xc);
    dmesh_get_comm(s->mesh, 1, &yc);
    dmesh_shift(s->mesh, 0, 1, 0, &up, &down);
    dmesh_shift(s->mesh, 1, 1, 0, &left, &right);
    rc |= failed(MPI_Sendrecv(&u[nx * (ny + 2) + 1], ny, MPI_DOUBLE, down, 0, &u[1], ny, MPI_DOUBLE,
                              up, 0, xc, MPI_STATUS_IGNORE));
    rc |= failed(MPI_Sendrecv(&u[1 * (ny + 2) + 1], ny, MPI_DOUBLE, up, 1,
                              &u[(nx + 1) * (ny + 2) + 1], ny, MPI_DOUBLE, down, 1, xc,
                              MPI_STATUS_IGNORE));
    rc |= failed(MPI_Sendrecv(&u[1 * (ny + 2) + ny], 1, s->column, right, 2, &u[1 * (ny + 2)], 1,
                              s->column, left, 2, yc, MPI_STATUS_IGNORE));
    rc |=
        failed(MPI_Sendrecv(&u[1 * (ny + 2) + 1], 1, s->column, left, 3, &u[1 * (ny + 2) + ny + 1],
                            1, s->column, right, 3, yc, MPI_STATUS_IGNORE));
    return rc;
}

static size_t block_len(const state_t *s)
{
    return (size_t)(s->nx + 2) * (size_t)(s->ny + 2);
}

/* This process's block from the mesh (after a creation or a join):
 * coordinates, arrays, the column type. No collective call: a new process
 * opens and restores its copies next, where the survivors' repair does. */
static void setup(state_t *s)
{
    int shape[2], c[2];

    dmesh_get_shape(s->mesh, 2, shape);
    dmesh_get_size(s->mesh, &s->n);
    dmesh_get_coordinate(s->mesh, 2, c, &s->member);
    if (!s->member)
        return;
    heat2d_block(s->gnx, shape[0], c[0], &s->x0, &s->nx);
    heat2d_block(s->gny, shape[1], c[1], &s->y0, &s->ny);
    s->u = malloc(block_len(s) * sizeof(double));
    s->v = malloc(block_len(s) * sizeof(double));
    s->stored = -1;
    heat2d_init(s->gnx, s->gny, s->x0, s->nx, s->y0, s->ny, s->u);
    heat2d_init(s->gnx, s->gny, s->x0, s->nx, s->y0, s->ny, s->v);
    MPI_Type_vector(s->nx, 1, s->ny + 2, MPI_DOUBLE, &s->column);
    MPI_Type_commit(&s->column);
}

static void teardown(state_t *s)
{
    dmesh_copies_free(&s->copies);
    if (s->member) {
        MPI_Type_free(&s->column);
        free(s->u);
        free(s->v);
    }
    dmesh_free(&s->flat);
    dmesh_free(&s->mesh);
}

/* DMESH_EXAMPLE_CHECKPOINT's directory, NULL when not set (or empty). */
static const char *ckpt_dir(void)
{
    const char *dir = getenv("DMESH_EXAMPLE_CHECKPOINT");

    return dir != NULL && dir[0] != '\0' ? dir : NULL;
}

/* DMESH_EXAMPLE_CHECKPOINT: the file of this block at a step. */
static void ckpt_path(const state_t *s, const char *dir, int step, char *path, size_t len)
{
    snprintf(path, len, "%s/heat-%dx%d-step%d-%d.%d-%dx%d", dir, s->gnx, s->gny, step, s->x0, s->y0,
             s->nx, s->ny);
}

/* After a store: the block to DIR too (a new file renamed over, so that a
 * file is whole or absent), and this block's file two stores back
 * removed. A failed write leaves the older files: the restart goes back
 * further. */
static void ckpt_write(const state_t *s, int step)
{
    const char *dir = ckpt_dir();
    char path[4096], tmp[4200];
    FILE *f;
    int ok;

    if (dir == NULL || !s->member)
        return;
    ckpt_path(s, dir, step, path, sizeof(path));
    snprintf(tmp, sizeof(tmp), "%s.new", path);
    f = fopen(tmp, "wb");
    if (f == NULL)
        return;
    ok = fwrite(s->u, sizeof(double), block_len(s), f) == block_len(s);
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        fprintf(stderr, "heat_respawn: checkpoint %s: %s\n", path, strerror(errno));
        remove(tmp);
        return;
    }
    ckpt_path(s, dir, step - 2 * CKPT, path, sizeof(path));
    remove(path);
}

/* A member's newest step on disk (-1: none), of the two a block keeps. */
static int ckpt_newest(const state_t *s, const char *dir, int iterations)
{
    char path[4096];
    int step;

    for (step = iterations / CKPT * CKPT; step >= 0; step -= CKPT) {
        ckpt_path(s, dir, step, path, sizeof(path));
        if (access(path, R_OK) == 0)
            return step;
    }
    return -1;
}

/* A run started anew with DMESH_EXAMPLE_CHECKPOINT: the newest step that
 * every block has on disk (a process may have died before writing the
 * newest store's file: then every block goes back one store, which every
 * block kept), read into the blocks. Returns that step, 0 for none; every
 * process alike. */
static int ckpt_read(state_t *s, int iterations)
{
    const char *dir = ckpt_dir();
    char path[4096];
    int mine = INT_MAX, step = -1, bad = 0;
    FILE *f;

    if (dir == NULL)
        return 0;
    if (s->member)
        mine = ckpt_newest(s, dir, iterations);
    MPI_Allreduce(&mine, &step, 1, MPI_INT, MPI_MIN, s->comm);
    if (step <= 0)
        return 0;
    if (s->member) {
        ckpt_path(s, dir, step, path, sizeof(path));
        f = fopen(path, "rb");
        bad = f == NULL || fread(s->u, sizeof(double), block_len(s), f) != block_len(s);
        if (f != NULL)
            fclose(f);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, s->comm);
    if (bad) {
        if (s->member)
            heat2d_init(s->gnx, s->gny, s->x0, s->nx, s->y0, s->ny, s->u);
        return 0;
    }
    if (s->member && s->x0 == 0 && s->y0 == 0)
        printf("heat_respawn: restarted from the checkpoint of step %d\n", step);
    return step;
}

/* DMESH_EXAMPLE_CHECKPOINT: DIR/done, once the run's lines are out. */
static void ckpt_done(void)
{
    const char *dir = ckpt_dir();
    char path[4096];
    FILE *f;

    if (dir == NULL)
        return;
    fflush(stdout);
    snprintf(path, sizeof(path), "%s/done", dir);
    f = fopen(path, "w");
    if (f != NULL)
        fclose(f);
}

/* The block is u, which moves between u and v every step: registered
 * again before each store and restore (the same id replaces it). */
static int store(state_t *s, int it)
{
    dmesh_copies_add(s->copies, 0, s->u, (MPI_Count)block_len(s), MPI_DOUBLE);
    if (dmesh_copies_store(s->copies, it) != DMESH_SUCCESS)
        return 1;
    s->stored = it;
    ckpt_write(s, it);
    return 0;
}

/* The end of a run that cannot go on: a block lost with every copy of it
 * (DMESH_ERR_DATA_LOST), no process could be started (DMESH_ERR_SPAWN).
 * Every process gets here alike (those calls are collective: every
 * survivor returns the same class) and exits with a failing status,
 * without MPI_Finalize: under mpiexec --with-ft ulfm the launcher then
 * exits with that status. MPI_Abort would not do: Open MPI 5.0.7 under
 * --with-ft ulfm ends only the caller when no process has failed
 * (measured: the others went on, and the launcher waited for them). */
static void end_run(const char *what, int rc)
{
    fprintf(stderr, "heat_respawn: %s: %s (%s)\n", what, dmesh_error_string(rc),
            dmesh_last_error());
    fflush(NULL);
    exit(1);
}

/* The copies on this mesh opened, the block registered, the newest
 * version every member can get back restored (*v): a first launch and a
 * new process alike. */
static int open_copies(state_t *s, int *v)
{
    int rc = dmesh_copies_open(s->mesh, "heat", MPI_INFO_NULL, &s->copies);

    if (rc == DMESH_SUCCESS && s->member)
        dmesh_copies_add(s->copies, 0, s->u, (MPI_Count)block_len(s), MPI_DOUBLE);
    return rc == DMESH_SUCCESS ? dmesh_copies_restore(s->copies, v) : rc;
}

/* After a start (rc, *v: open_copies's) or a failure (rc
 * DMESH_ERR_PROC_FAILED): the repair, again while processes die in it (a
 * new process whose own open failed opens after it); then every process,
 * spares too, back at the newest version's step (none stored: the start),
 * learnt over the program's communicator. A block lost with every copy of
 * it (DMESH_ERR_DATA_LOST) or no process started (DMESH_ERR_SPAWN) ends
 * the run. Returns the step. */
static int resume(state_t *s, int rc, int v)
{
    int step = -1, mine, ok = 0;

    while (!ok) {
        while (rc == DMESH_ERR_PROC_FAILED) {
            if (s->member && s->copies != DMESH_COPIES_NULL) /* where the block is now */
                dmesh_copies_add(s->copies, 0, s->u, (MPI_Count)block_len(s), MPI_DOUBLE);
            rc = dmesh_repair(&s->mesh, &s->comm, MPI_INFO_NULL, &v);
            s->recoveries++;
            if (rc == DMESH_SUCCESS && s->copies == DMESH_COPIES_NULL)
                rc = open_copies(s, &v);
        }
        if (rc != DMESH_SUCCESS)
            end_run("the repair", rc);
        mine = s->member ? v : -1;
        ok = !failed(MPI_Allreduce(&mine, &step, 1, MPI_INT, MPI_MAX, s->comm)) &&
             !failed(MPI_Allreduce(MPI_IN_PLACE, &s->recoveries, 1, MPI_INT, MPI_MAX, s->comm));
        ok = !failed_anywhere(s, !ok);
        rc = DMESH_ERR_PROC_FAILED; /* when not ok: repair again */
    }
    s->stored = step;
    if (s->member && step < 0)
        heat2d_init(s->gnx, s->gny, s->x0, s->nx, s->y0, s->ny, s->u);
    return step < 0 ? 0 : step;
}

/* DMESH_EXAMPLE_HYBRID: where the processes are, whether y (inside a
 * node at the start) is still inside one node, and whether every member's
 * copies are held on other hosts; printed by the corner. Collective over
 * the program's communicator; a new process need not have the variable
 * (a launcher may not pass it to the processes a spawn starts). */
static void report_hosts(state_t *s)
{
    char me[MPI_MAX_PROCESSOR_NAME] = "", *all;
    int size, len = 0, kind = 0, other = 1, npart = 0, most = 0, partners[16], k, c[2] = {1, 1};
    int want = getenv("DMESH_EXAMPLE_HYBRID") != NULL;

    MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT, MPI_MAX, s->comm);
    if (!want)
        return;
    MPI_Comm_size(s->comm, &size);
    MPI_Get_processor_name(me, &len);
    all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  s->comm);
    dmesh_get_dim_locality(s->mesh, 1, &kind);
    if (s->member && dmesh_copies_get_partners(s->copies, 16, partners, &npart) == DMESH_SUCCESS)
        for (k = 0; k < npart && k < 16; k++)
            other &= strcmp(all + (size_t)partners[k] * MPI_MAX_PROCESSOR_NAME, me) != 0;
    other &= npart > 0 || !s->member;
    MPI_Allreduce(MPI_IN_PLACE, &other, 1, MPI_INT, MPI_MIN, s->comm);
    MPI_Allreduce(&npart, &most, 1, MPI_INT, MPI_MAX, s->comm);
    dmesh_get_coordinate(s->mesh, 2, c, &k);
    if (k && c[0] == 0 && c[1] == 0) {
        printf("heat_respawn: after %d recoveries: hosts", s->recoveries);
        for (k = 0; k < size; k++)
            printf(" %s", all + (size_t)k * MPI_MAX_PROCESSOR_NAME);
        printf("; y inside one node: %s; copies held on other hosts: %s (%d partner(s))\n",
               kind == DMESH_LOCALITY_NODE ? "yes" : "no", other ? "yes" : "no", most);
        fflush(stdout);
    }
    free(all);
}

/* The process of a kill dies, or runs DMESH_EXAMPLE_KILL_COMMAND (which
 * kills others) and goes on. */
static void kill_now(void)
{
    const char *cmd = getenv("DMESH_EXAMPLE_KILL_COMMAND");

    if (cmd == NULL || cmd[0] == '\0')
        raise(SIGKILL);
    if (system(cmd) != 0)
        fprintf(stderr, "heat_respawn: \"%s\" failed\n", cmd);
}

/* The step at which this process dies (-1: none): the kill of
 * DMESH_EXAMPLE_KILLS (or DMESH_EXAMPLE_KILL_RANK and _STEP) for its rank
 * that comes after the repairs behind. */
static int kill_step_of(int rank, int recoveries)
{
    const char *p = getenv("DMESH_EXAMPLE_KILLS");
    char one[32];
    int k = 0, r, step;

    if (p == NULL && getenv("DMESH_EXAMPLE_KILL_RANK") && getenv("DMESH_EXAMPLE_KILL_STEP")) {
        snprintf(one, sizeof(one), "%s:%s", getenv("DMESH_EXAMPLE_KILL_RANK"),
                 getenv("DMESH_EXAMPLE_KILL_STEP"));
        p = one;
    }
    while (p != NULL && sscanf(p, "%d:%d", &r, &step) == 2) {
        if (k == recoveries)
            return r == rank ? step : -1;
        k++;
        p = strchr(p, ',');
        p = p != NULL ? p + 1 : NULL;
    }
    return -1;
}

int main(int argc, char **argv)
{
    const char *names[2] = {"x", "y"};
    int size, dims[2] = {0, 0}, iterations, spares, rank = 0, rc, v = DMESH_COPIES_NONE;
    int it = 0, corner, c[2], first;
    double res, global;
    MPI_Comm parent;
    state_t s;

    MPI_Init(&argc, &argv);
    /* failures come back as codes (the communicator and the mesh of
     * dmesh_start carry this handler, a new process's too) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    memset(&s, 0, sizeof(s));
    s.gnx = argc > 1 ? atoi(argv[1]) : 96;
    s.gny = argc > 2 ? atoi(argv[2]) : 80;
    iterations = argc > 3 ? atoi(argv[3]) : 200;
    spares = argc > 4 ? atoi(argv[4]) : 0;
    MPI_Comm_get_parent(&parent);
    first = parent == MPI_COMM_NULL;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size - spares, 2, dims);
    if (first && getenv("DMESH_EXAMPLE_HYBRID") != NULL) {
        /* x across the nodes, y inside each, of P ranks */
        const int in_node[2] = {1, atoi(getenv("DMESH_EXAMPLE_HYBRID"))}, across[2] = {0, 1};
        MPI_Comm_dup(MPI_COMM_WORLD, &s.comm);
        if (spares != 0 || dmesh_init_hybrid(s.comm, "cpu", 2, in_node, across, names,
                                             MPI_INFO_NULL, &s.mesh) != DMESH_SUCCESS) {
            fprintf(stderr, "heat_respawn: a hybrid mesh (no spares): %s\n",
                    spares != 0 ? "spares given" : dmesh_last_error());
            MPI_Abort(s.comm, 1);
        }
    } else if (dmesh_start(MPI_COMM_WORLD, "cpu", 2, dims, names, MPI_INFO_NULL, &s.comm,
                           &s.mesh) != DMESH_SUCCESS) { /* a first launch's, or a join */
        fprintf(stderr, "heat_respawn: dmesh_start: %s\n", dmesh_last_error());
        MPI_Finalize();
        return 1;
    }
    setup(&s);
    corner = first && s.member && s.x0 == 0 && s.y0 == 0;
    if (corner)
        heat2d_print_problem(s.gnx, s.gny, iterations);
    rc = open_copies(&s, &v); /* the first launch: nothing stored yet */
    it = resume(&s, rc, v);
    if (first && it == 0) /* DMESH_EXAMPLE_CHECKPOINT: a state on disk */
        it = ckpt_read(&s, iterations);
    report_hosts(&s);
    MPI_Comm_rank(s.comm, &rank);
    while (it < iterations) {
        int bad = 0;
        if (it + 1 == kill_step_of(rank, s.recoveries))
            kill_now();
        if (s.member && it % CKPT == 0 && it > s.stored)
            bad |= store(&s, it);
        if (s.member && !bad)
            bad |= halo(&s);
        res = 0;
        if (s.member && !bad) {
            double *t = s.u;
            res = heat2d_step(s.gnx, s.gny, s.x0, s.nx, s.y0, s.ny, s.u, s.v);
            s.u = s.v;
            s.v = t;
        }
        /* the residual over the program's communicator (spares give 0):
         * every process, members or not, meets a failure here */
        if (!bad)
            bad |= failed(MPI_Allreduce(&res, &global, 1, MPI_DOUBLE, MPI_MAX, s.comm));
        bad = failed_anywhere(&s, bad); /* every process stores, or every one repairs */
        if (!bad) {
            it++;
            continue;
        }
        /* a process died: come back whole, go back to the last copy */
        it = resume(&s, DMESH_ERR_PROC_FAILED, v);
        report_hosts(&s);
        MPI_Comm_rank(s.comm, &rank);
    }
    dmesh_flatten(s.mesh, NULL, MPI_INFO_NULL, &s.flat); /* for the gather */
    dmesh_get_coordinate(s.mesh, 2, c, &s.member);
    corner = s.member && c[0] == 0 && c[1] == 0;
    if (corner)
        heat2d_print_residual(iterations, global);
    {
        /* the field, gathered as heat2d does, printed by the corner */
        MPI_Comm fc = MPI_COMM_NULL;
        double *mine = NULL, *field = NULL, *blk = NULL;
        int n = 0, k, cc[2], member, shape[2], x0, nx, y0, ny, me = -1, *ranks = NULL;
        dmesh_get_comm(s.flat, 0, &fc);
        if (fc != MPI_COMM_NULL) {
            MPI_Comm_rank(fc, &me);
            mine = malloc((size_t)s.nx * s.ny * sizeof(double));
            heat2d_pack(s.nx, s.ny, s.u, mine);
        }
        if (me > 0)
            MPI_Send(mine, s.nx * s.ny, MPI_DOUBLE, 0, 9, fc);
        if (me == 0) {
            dmesh_get_shape(s.mesh, 2, shape);
            ranks = malloc((size_t)s.n * sizeof(int));
            dmesh_get_group_ranks(s.flat, 0, s.n, ranks, &n);
            field = malloc((size_t)s.gnx * s.gny * sizeof(double));
            blk = malloc((size_t)(s.gnx / shape[0] + 1) * (s.gny / shape[1] + 1) * sizeof(double));
            for (k = 0; k < n; k++) {
                dmesh_get_coordinate_of(s.mesh, ranks[k], 2, cc, &member);
                heat2d_block(s.gnx, shape[0], cc[0], &x0, &nx);
                heat2d_block(s.gny, shape[1], cc[1], &y0, &ny);
                if (k != 0)
                    MPI_Recv(blk, nx * ny, MPI_DOUBLE, k, 9, fc, MPI_STATUS_IGNORE);
                heat2d_place(s.gnx, s.gny, x0, nx, y0, ny, k == 0 ? mine : blk, field);
            }
            heat2d_print_field(s.gnx, s.gny, field);
            printf("heat_respawn: %d recoveries\n", s.recoveries);
            ckpt_done();
        }
        free(blk);
        free(field);
        free(ranks);
        free(mine);
    }
    teardown(&s);
    MPI_Comm_free(&s.comm);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
