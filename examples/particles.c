/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * particles: particles that move across a periodic unit square cut into
 * the cells of an (x, y) mesh; each process keeps the particles of its
 * cell, so its number of particles changes every step as they migrate to
 * the neighbouring cells. The state survives a lost process (fault
 * tolerance: run under mpiexec --with-ft ulfm, Open MPI 5 or 6):
 *
 *  - the particles are registered once with dmesh_copies_add_sized(): room
 *    for ROOM of them, the count in use read by every store and set by a
 *    restore, so that a process that replaces a dead one learns how many
 *    particles its predecessor had without any bookkeeping of its own;
 *  - every CKPT steps each member stores them (dmesh_copies_store);
 *  - every step's outcome is agreed (dmesh_agree_step); after a failure
 *    every process calls dmesh_repair, which starts a new process in the
 *    dead one's place and restores the newest version all can get back;
 *    the new process starts as a first launch does (dmesh_start, then the
 *    copies opened and restored), and every process goes on from there.
 *
 * The result does not depend on the number of processes nor on failures:
 * each particle moves by itself, and the checksum is a sum of integers
 * (order-free). test/particles.sh compares runs with one process, with
 * several, and with processes killed.
 *
 *   mpiexec [--with-ft ulfm] -n 4 ./particles [PER_PROCESS STEPS]
 *   (default 300 particles per process of a 4-process run, 120 steps: the
 *   problem is the same whatever the number of processes)
 *   DMESH_EXAMPLE_KILLS="R:S,...": the process at rank R dies at the start
 *   of step S, one kill after the other (kill k only once k - 1 recoveries
 *   are behind).
 * Prints "particles: step S: N particles, checksum H" (rank 0) and
 * "particles: R recoveries".
 */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <dmesh.h>

#define CKPT 10
#define ROOM 4096 /* the most particles a process holds */
#define DT (1.0 / 64)

typedef struct {
    double id, x, y, vx, vy;
} particle_t;

typedef struct {
    MPI_Comm comm; /* the program's communicator: MPI_COMM_WORLD's copy, then the repaired one */
    dmesh_t mesh;
    dmesh_copies_t copies;
    particle_t *p;      /* ROOM particles, n in use */
    MPI_Count n;        /* kept by the copies: read by a store, set by a restore */
    int step;           /* the step the particles are at, kept with them */
    int stored;         /* the newest version stored or restored, -1: none */
    int cx, cy, px, py; /* this cell, the mesh's shape */
    int recoveries;
    MPI_Datatype type;
} state_t;

static int failed(int rc)
{
    return rc != MPI_SUCCESS;
}

/* The particles at the start, total of them: particle i of each process of
 * a run of 4 at the same place whatever the run's size. */
static void start(state_t *s, long total)
{
    s->n = 0;
    for (long i = 0; i < total; i++) {
        uint64_t h = (uint64_t)i * 0x9e3779b97f4a7c15ull + 12345;
        double x, y;
        h ^= h >> 29;
        x = (double)(h % 1000003) / 1000003.0;
        y = (double)((h >> 20) % 999983) / 999983.0;
        if ((int)(x * s->px) != s->cx || (int)(y * s->py) != s->cy)
            continue;
        s->p[s->n++] = (particle_t){(double)i, x, y, ((double)(h % 7) - 3.0) * 0.11,
                                    ((double)((h >> 8) % 5) - 2.0) * 0.13};
    }
}

static double wrap(double v)
{
    return v - floor(v);
}

/* Particles leaving this cell along dim (0: x, 1: y) go to the neighbour:
 * counts first, then the particles, both ways. */
static int migrate(state_t *s, int dim)
{
    particle_t out[2][ROOM / 2];
    int nout[2] = {0, 0}, nin[2] = {0, 0}, lo, hi, rc = 0, keep = 0, cells = dim ? s->py : s->px;
    int mine = dim ? s->cy : s->cx;
    MPI_Comm comm;

    dmesh_get_comm(s->mesh, dim, &comm);
    dmesh_shift(s->mesh, dim, 1, 1, &lo, &hi);
    for (MPI_Count i = 0; i < s->n; i++) {
        int c = (int)((dim ? s->p[i].y : s->p[i].x) * cells), d = c == mine ? -1 : 0;
        if (d < 0) {
            s->p[keep++] = s->p[i];
            continue;
        }
        d = (c - mine + cells) % cells == 1 ? 1 : 0; /* up: to hi */
        if (nout[d] == ROOM / 2)
            return -1;
        out[d][nout[d]++] = s->p[i];
    }
    s->n = keep;
    rc |= failed(MPI_Sendrecv(&nout[1], 1, MPI_INT, hi, 0, &nin[0], 1, MPI_INT, lo, 0, comm,
                              MPI_STATUS_IGNORE));
    rc |= failed(MPI_Sendrecv(&nout[0], 1, MPI_INT, lo, 1, &nin[1], 1, MPI_INT, hi, 1, comm,
                              MPI_STATUS_IGNORE));
    if (rc)
        return 1;
    if (s->n + nin[0] + nin[1] > ROOM)
        return -1;
    rc |= failed(MPI_Sendrecv(out[1], nout[1], s->type, hi, 2, s->p + s->n, nin[0], s->type, lo, 2,
                              comm, MPI_STATUS_IGNORE));
    s->n += nin[0];
    rc |= failed(MPI_Sendrecv(out[0], nout[0], s->type, lo, 3, s->p + s->n, nin[1], s->type, hi, 3,
                              comm, MPI_STATUS_IGNORE));
    s->n += nin[1];
    return rc;
}

/* One step: 0, 1 after a failure, -1 when a cell would hold more than
 * ROOM particles. */
static int advance(state_t *s)
{
    int rc;

    for (MPI_Count i = 0; i < s->n; i++) {
        s->p[i].x = wrap(s->p[i].x + s->p[i].vx * DT);
        s->p[i].y = wrap(s->p[i].y + s->p[i].vy * DT);
    }
    rc = migrate(s, 0);
    return rc != 0 ? rc : migrate(s, 1);
}

/* Order-free: a sum of integers over the particles (wrapping). */
static uint64_t checksum(const state_t *s)
{
    uint64_t h = 0;

    for (MPI_Count i = 0; i < s->n; i++) {
        uint64_t k = (uint64_t)s->p[i].id * 0xff51afd7ed558ccdull;
        k ^= (uint64_t)llround(s->p[i].x * 1e12) * 0xc4ceb9fe1a85ec53ull;
        k ^= (uint64_t)llround(s->p[i].y * 1e12) * 0x9e3779b97f4a7c15ull;
        h += k ^ (k >> 31);
    }
    return h;
}

/* This process's cell from the mesh (after a creation or a join). */
static void setup(state_t *s)
{
    int shape[2], c[2], member;

    dmesh_get_shape(s->mesh, 2, shape);
    dmesh_get_coordinate(s->mesh, 2, c, &member);
    s->px = shape[0];
    s->py = shape[1];
    s->cx = c[0];
    s->cy = c[1];
    s->p = calloc(ROOM, sizeof(particle_t));
    MPI_Type_contiguous(5, MPI_DOUBLE, &s->type);
    MPI_Type_commit(&s->type);
}

/* Ends the run with a failing status. */
static void give_up(state_t *s, const char *what)
{
    fprintf(stderr, "particles: %s: %s\n", what, dmesh_last_error());
    MPI_Abort(s->comm, 1);
}

/* The copies opened on the mesh, the particles and their count
 * registered, the newest version every process can get back restored:
 * a first launch and a new process alike. */
static int open_copies(state_t *s, int *v)
{
    int rc = dmesh_copies_open(s->mesh, "particles", MPI_INFO_NULL, &s->copies);

    if (rc != DMESH_SUCCESS)
        return rc;
    dmesh_copies_add_sized(s->copies, 0, s->p, ROOM, &s->n, s->type);
    dmesh_copies_add(s->copies, 1, &s->step, 1, MPI_INT);
    return dmesh_copies_restore(s->copies, v);
}

/* After a failure (rc DMESH_ERR_PROC_FAILED) the repair, again while
 * processes die; a new process whose own open failed opens after it.
 * Then the step to go on from (the start when nothing was stored). */
static int resume(state_t *s, int rc, int v, long total)
{
    while (rc == DMESH_ERR_PROC_FAILED) {
        rc = dmesh_repair(&s->mesh, &s->comm, MPI_INFO_NULL, &v);
        s->recoveries++;
        if (rc == DMESH_SUCCESS && s->copies == DMESH_COPIES_NULL)
            rc = open_copies(s, &v);
    }
    if (rc != DMESH_SUCCESS) /* DMESH_ERR_SPAWN, DMESH_ERR_DATA_LOST */
        give_up(s, "the repair");
    MPI_Allreduce(MPI_IN_PLACE, &s->recoveries, 1, MPI_INT, MPI_MAX, s->comm);
    if (v == DMESH_COPIES_NONE) { /* nothing stored: the start */
        start(s, total);
        s->step = 0;
    }
    s->stored = v;
    return s->step;
}

static int kill_step_of(int rank, int recoveries)
{
    const char *p = getenv("DMESH_EXAMPLE_KILLS");
    int k = 0, r, step;

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
    int dims[2] = {0, 0}, steps, size, rank, it, v = DMESH_COPIES_NONE, rc;
    long per, total;
    uint64_t sum = 0, mine;
    MPI_Count n = 0;
    state_t s;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* failures as codes */
    memset(&s, 0, sizeof(s));
    per = argc > 1 ? atol(argv[1]) : 300;
    steps = argc > 2 ? atoi(argv[2]) : 120;
    total = 4 * per;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    /* a first launch's mesh, or, in a process a repair started, the mesh it joins */
    if (dmesh_start(MPI_COMM_WORLD, "cpu", 2, dims, names, MPI_INFO_NULL, &s.comm, &s.mesh) !=
        DMESH_SUCCESS) {
        fprintf(stderr, "particles: dmesh_start: %s\n", dmesh_last_error());
        MPI_Finalize();
        return 1;
    }
    setup(&s);
    rc = open_copies(&s, &v);
    it = resume(&s, rc, v, total);
    MPI_Comm_rank(s.comm, &rank);
    while (it < steps) {
        int ok = 1, full = 0, anyfull = 0;
        if (it + 1 == kill_step_of(rank, s.recoveries))
            raise(SIGKILL);
        if (it % CKPT == 0 && it > s.stored) {
            s.step = it;
            ok = dmesh_copies_store(s.copies, it) == DMESH_SUCCESS; /* the same on all */
            s.stored = ok ? it : s.stored;
        }
        if (ok) {
            int r = advance(&s);
            ok = r == 0;
            full = r < 0;
        }
        ok &= !failed(MPI_Allreduce(&full, &anyfull, 1, MPI_INT, MPI_MAX, s.comm));
        dmesh_agree_step(s.mesh, &ok); /* every process goes on, or every one repairs */
        if (ok && anyfull)
            give_up(&s, "a cell would hold more particles than its room");
        if (ok)
            it++;
        else
            it = resume(&s, DMESH_ERR_PROC_FAILED, v, total);
        MPI_Comm_rank(s.comm, &rank);
    }
    mine = checksum(&s);
    MPI_Reduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, 0, s.comm);
    MPI_Allreduce(&s.n, &n, 1, MPI_COUNT, MPI_SUM, s.comm);
    if (rank == 0) {
        printf("particles: step %d: %lld particles, checksum %016llx\n", it, (long long)n,
               (unsigned long long)sum);
        printf("particles: %d recoveries\n", s.recoveries);
    }
    fflush(stdout);
    dmesh_copies_free(&s.copies);
    dmesh_free(&s.mesh);
    MPI_Type_free(&s.type);
    free(s.p);
    MPI_Comm_free(&s.comm);
    MPI_Finalize();
    return n == total ? 0 : 1;
}
