/* SPDX-License-Identifier: BSD-3-Clause */
/* Meshes that come back whole (doc/user-guide.md, "Coming back whole" and
 * "Growing a mesh"): dmesh_grow, dmesh_respawn and dmesh_join, checked
 * against what the mesh must be, computed here independently:
 *   - every process's coordinate: a respawned mesh's is the one its rank
 *     had before (row-major in the shape); a grown mesh keeps the old
 *     processes' coordinates, and the new processes, ranks size, size + 1,
 *     ..., take the new coordinates in row-major order;
 *   - every dimension's communicator: its size is the dimension's, and an
 *     allreduce of the ranks of the new communicator over it gives the sum
 *     of the ranks the expected group holds;
 *   - an allreduce over the whole new communicator (its size).
 * Every process (parents and new ones) checks itself; one allreduce of the
 * outcome over the new communicator tells every parent, which asserts it.
 *
 *   test_respawn grow DIM N S0 [S1 ...]   dmesh_grow on a mesh of shape S
 *   test_respawn respawn KILL S0 [S1 ...]  KILL: ranks (comma-separated) that
 *       die after the mesh is made; the survivors meet the failure in a
 *       barrier; a dmesh_respawn with both host and dmesh_respawn_hosts in
 *       its info is DMESH_ERR_ARG on every survivor; then dmesh_respawn (the
 *       program itself, from MPI_INFO_ENV) with dmesh_respawn_hosts naming
 *       this host (MPI_Comm_spawn_multiple, one command per host), then
 *       check; and a respawn of the respawned mesh with nothing failed (no
 *       hosts named: MPI_Comm_spawn)
 *   test_respawn growkill DIM N S0 [S1 ...]   as grow; then the last process
 *       (a grown one) dies and every survivor, old or grown, respawns the
 *       grown mesh, checked (the launcher's status may be 137: Open MPI 5.0.7
 *       reports a started process's death so, test/trixie/spawn-kill.c)
 *   test_respawn growname DIM N S0 S1   as grow, on a mesh whose dimensions
 *       are called "1" and "0" (each the other's index): dmesh_grow of DIM,
 *       then dmesh_grow_by_name of its name; both grown meshes verified,
 *       their dimensions found by name, and the same mesh (shape, names,
 *       coordinates, groups)
 *   test_respawn foreign   a plain MPI_Comm_spawn's child calls dmesh_join:
 *       DMESH_ERR_TIMEOUT after dmesh_timeout (2 s) while the parent sends
 *       nothing, then DMESH_ERR_ARG once it sent a message of its own; no hang
 *   test_respawn plain     without a parent: dmesh_join is DMESH_ERR_ARG;
 *       without fault tolerance dmesh_respawn is DMESH_ERR_UNSUPPORTED;
 *       bad arguments of dmesh_grow are DMESH_ERR_ARG on every rank
 * The new processes run the same program with the same arguments and see
 * their parent. Prints "test_respawn: CASE passed" on rank 0 of the result. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "dmesh.h"
#include "mesh_compare.h"

static int failures;

/* Open MPI 5.0.7's MPI_Finalize, after a process of the launch died, may
 * never return (its first step, a PMIx fence over every process of the
 * launch, dead ones included, did not complete in about one run in eight
 * at 8 ranks, with or without dmesh; a run that only shrinks meets it too).
 * After a respawn the survivors bound it: 5 s, then they say so on stderr
 * and end; test/respawn.sh counts those lines and reports them. */
static void finalize_hung(int sig)
{
    static const char msg[] = "test_respawn: MPI_Finalize did not return in 5 s: ended\n";
    ssize_t w = write(2, msg, sizeof(msg) - 1);

    (void)sig;
    (void)w;
    _exit(0);
}

static void finalize_bounded(int bound)
{
    if (bound) {
        signal(SIGALRM, finalize_hung);
        alarm(5);
    }
    MPI_Finalize();
    alarm(0);
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "test_respawn: check failed (%s:%d): ", __FILE__, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* MPI_Comm_free of a communicator that a failed call left MPI_COMM_NULL. */
static void comm_free(MPI_Comm *comm)
{
    if (*comm != MPI_COMM_NULL)
        MPI_Comm_free(comm);
}

typedef struct {
    int ndims, shape[DMESH_MAX_DIMS], old[DMESH_MAX_DIMS], dim, n, size;
} expect_t;

/* Row-major index of c in shape. */
static int index_of(int ndims, const int shape[], const int c[])
{
    int i, p = 0;

    for (i = 0; i < ndims; i++)
        p = p * shape[i] + c[i];
    return p;
}

static void coords_of(int ndims, const int shape[], int p, int c[])
{
    int i;

    for (i = ndims - 1; i >= 0; i--) {
        c[i] = p % shape[i];
        p /= shape[i];
    }
}

/* The rank at each position of the expected mesh (malloc'd): a grow's old
 * positions keep their ranks (the old mesh's map is the identity), the new
 * ones take size, size + 1, ... in order. */
static int *expected_map(const expect_t *e, int *n)
{
    int total = 1, q, d, next = e->size, c[DMESH_MAX_DIMS], *map;

    for (d = 0; d < e->ndims; d++)
        total *= e->shape[d];
    map = malloc((size_t)total * sizeof(int));
    for (q = 0; map != NULL && q < total; q++) {
        int fresh = 0;
        coords_of(e->ndims, e->shape, q, c);
        for (d = 0; d < e->ndims; d++)
            fresh |= c[d] >= e->old[d];
        map[q] = fresh ? next++ : index_of(e->ndims, e->old, c);
    }
    *n = total;
    return map;
}

/* Check mesh on comm against e; returns 1 when every process passed. */
static int verify(MPI_Comm comm, dmesh_t mesh, const expect_t *e)
{
    int rank, size, n = 0, *map = expected_map(e, &n), q, d, at = -1, nd = 0, sum, want;
    int shape[DMESH_MAX_DIMS], c[DMESH_MAX_DIMS], got[DMESH_MAX_DIMS], member = 0, ok;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    CHECK(map != NULL, "out of memory");
    for (q = 0; map != NULL && q < n; q++)
        if (map[q] == rank)
            at = q;
    CHECK(dmesh_get_ndims(mesh, &nd) == DMESH_SUCCESS && nd == e->ndims, "ndims %d", nd);
    CHECK(dmesh_get_shape(mesh, DMESH_MAX_DIMS, shape) == DMESH_SUCCESS, "shape");
    for (d = 0; d < e->ndims; d++)
        CHECK(shape[d] == e->shape[d], "shape[%d] %d, want %d", d, shape[d], e->shape[d]);
    CHECK(dmesh_get_coordinate(mesh, DMESH_MAX_DIMS, got, &member) == DMESH_SUCCESS, "coordinate");
    CHECK(member == (at >= 0), "rank %d: member %d", rank, member);
    if (at >= 0) {
        coords_of(e->ndims, e->shape, at, c);
        for (d = 0; d < e->ndims; d++)
            CHECK(got[d] == c[d], "rank %d: coordinate[%d] %d, want %d", rank, d, got[d], c[d]);
    }
    for (d = 0; d < e->ndims; d++) {
        MPI_Comm dc = MPI_COMM_NULL;
        int dsize = 0, k;
        CHECK(dmesh_get_comm(mesh, d, &dc) == DMESH_SUCCESS, "dmesh_get_comm(%d)", d);
        if (at < 0 || dc == MPI_COMM_NULL) {
            CHECK(at < 0 && dc == MPI_COMM_NULL, "rank %d: dim %d communicator", rank, d);
            continue;
        }
        MPI_Comm_size(dc, &dsize);
        CHECK(dsize == e->shape[d], "dim %d: %d processes, want %d", d, dsize, e->shape[d]);
        sum = 0;
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dc);
        want = 0;
        coords_of(e->ndims, e->shape, at, c);
        for (k = 0; k < e->shape[d]; k++) {
            c[d] = k;
            want += map[index_of(e->ndims, e->shape, c)];
        }
        CHECK(sum == want, "dim %d: the ranks add up to %d, want %d", d, sum, want);
    }
    {
        /* a derived mesh of the new one: its flattening holds every member */
        dmesh_t flat = DMESH_NULL;
        MPI_Comm fc = MPI_COMM_NULL;
        int fsize = 0, total = 0, fsum = 0;
        CHECK(dmesh_flatten(mesh, "all", MPI_INFO_NULL, &flat) == DMESH_SUCCESS,
              "dmesh_flatten: %s", dmesh_last_error());
        dmesh_get_comm(flat, 0, &fc);
        for (q = 0; q < n; q++)
            total += map[q];
        if (at >= 0 && fc != MPI_COMM_NULL) {
            MPI_Comm_size(fc, &fsize);
            MPI_Allreduce(&rank, &fsum, 1, MPI_INT, MPI_SUM, fc);
            CHECK(fsize == n && fsum == total,
                  "flattened: %d processes, ranks add up to %d; want %d, %d", fsize, fsum, n,
                  total);
        }
        dmesh_free(&flat);
    }
    free(map);
    sum = 0;
    n = 1;
    MPI_Allreduce(&n, &sum, 1, MPI_INT, MPI_SUM, comm);
    CHECK(sum == size, "allreduce over the new communicator: %d, want %d", sum, size);
    n = failures == 0;
    ok = 0;
    MPI_Allreduce(&n, &ok, 1, MPI_INT, MPI_MIN, comm);
    return ok;
}

static void parse_shape(int argc, char **argv, int first, expect_t *e)
{
    int d;

    e->ndims = argc - first;
    for (d = 0; d < e->ndims; d++)
        e->shape[d] = e->old[d] = atoi(argv[first + d]);
    e->dim = -1;
}

static int finalize_bound;

/* Process victim of comm dies, once every other process has told it that
 * its checks are over (an empty message each): a process that died right
 * after its own checks could take with it a message of the checks' last
 * allreduce that another process still waited for. */
static void die_after_all(MPI_Comm comm, int victim)
{
    int rank, size, k;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank != victim) {
        MPI_Send(NULL, 0, MPI_BYTE, victim, 99, comm);
        return;
    }
    for (k = 1; k < size; k++)
        MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, 99, comm, MPI_STATUS_IGNORE);
    raise(SIGKILL);
}

/* The file of this process's outcome, for the cases whose launcher may
 * end before it passes the output on: DMESH_TEST_OUTCOME.RANK, where the
 * harness names a prefix of its own (test/respawn.sh: one per rank count,
 * since make -j runs test/respawn-np4 and -np8 at once in one directory),
 * test/respawn-CASE.RANK otherwise. NULL where it cannot be opened. */
static FILE *outcome_file(const char *name, int rank)
{
    const char *prefix = getenv("DMESH_TEST_OUTCOME");
    char path[4096];

    if (prefix != NULL && prefix[0] != '\0')
        snprintf(path, sizeof(path), "%s.%d", prefix, rank);
    else
        snprintf(path, sizeof(path), "test/respawn-%s.%d", name, rank);
    return fopen(path, "w");
}

/* The second round of "again": the process of rank KILL (a started one
 * now) dies, and every survivor, started or not, respawns again. Whatever
 * the MPI does, every survivor must return, with one class: each prints
 * it, test/respawn.sh compares them. Returns 0. */
static int again_round(MPI_Comm comm, dmesh_t mesh, const expect_t *e, int argc, char **argv)
{
    MPI_Comm back = MPI_COMM_NULL, dc = MPI_COMM_NULL;
    dmesh_t m2 = DMESH_NULL;
    char *args[DMESH_MAX_DIMS + 4];
    int rank, rc, k;

    MPI_Comm_rank(comm, &rank);
    if (atoi(argv[2]) < 0) { /* started by the second respawn: done */
        dmesh_free(&mesh);
        MPI_Comm_free(&comm);
        return 0;
    }
    for (k = 1; k < argc && k < DMESH_MAX_DIMS + 3; k++)
        args[k - 1] = k == 2 ? "-1" : argv[k]; /* the next ones do not die */
    args[k - 1] = NULL;
    die_after_all(comm, atoi(argv[2]));
    dmesh_get_comm(mesh, 0, &dc);
    if (dc != MPI_COMM_NULL)
        MPI_Barrier(dc); /* may fail: a process died */
    rc = dmesh_respawn(mesh, NULL, args, MPI_INFO_NULL, &back, &m2);
    {
        /* each survivor's outcome in a file of its own: the launcher, which
         * may never exit here, may not pass its output on */
        FILE *f = outcome_file("again", rank);
        if (f != NULL) {
            fprintf(f, "test_respawn: again: second dmesh_respawn on rank %d: %s\n", rank,
                    rc == DMESH_SUCCESS ? "DMESH_SUCCESS" : dmesh_error_string(rc));
            if (rc == DMESH_SUCCESS)
                fprintf(f, "test_respawn: again: second respawn checked: %s\n",
                        verify(back, m2, e) ? "ok" : "wrong");
            fclose(f);
        }
    }
    dmesh_free(&m2);
    dmesh_free(&mesh);
    comm_free(&back);
    MPI_Comm_free(&comm);
    return 0;
}

/* The second part of growkill, on every process of the grown mesh: the
 * last one (a grown process) dies, the others meet it in a barrier of dim 0
 * and respawn the grown mesh, which must check out. Frees mesh and comm;
 * returns 1 on a failed check. */
static int growkill_round(MPI_Comm comm, dmesh_t mesh, const expect_t *e)
{
    MPI_Comm back = MPI_COMM_NULL, dc = MPI_COMM_NULL;
    dmesh_t m2 = DMESH_NULL;
    int rank, size, rc;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    die_after_all(comm, size - 1);
    finalize_bound = 1;
    dmesh_get_comm(mesh, 0, &dc);
    if (dc != MPI_COMM_NULL)
        MPI_Barrier(dc); /* may fail: a process died */
    rc = dmesh_respawn(mesh, NULL, NULL, MPI_INFO_NULL, &back, &m2);
    CHECK(rc == DMESH_SUCCESS, "dmesh_respawn of the grown mesh on rank %d: %d (%s)", rank, rc,
          dmesh_last_error());
    if (rc == DMESH_SUCCESS)
        CHECK(verify(back, m2, e), "a process found the respawned grown mesh wrong");
    dmesh_free(&m2);
    dmesh_free(&mesh);
    comm_free(&back);
    MPI_Comm_free(&comm);
    return failures != 0;
}

/* The names of growname's mesh: each dimension is called like the other's
 * index ("1" is dimension 0), so that a name read as an index would grow
 * the other dimension. */
static const char *const SWAPPED[] = {"1", "0"};

/* Each dimension of mesh, asked by its name in SWAPPED, has e's size. */
static void sizes_by_name(dmesh_t mesh, const expect_t *e)
{
    int d, size;

    for (d = 0; d < e->ndims; d++) {
        size = -1;
        CHECK(dmesh_get_dim_size_by_name(mesh, SWAPPED[d], &size) == DMESH_SUCCESS &&
                  size == e->shape[d],
              "dimension \"%s\": size %d, want %d", SWAPPED[d], size, e->shape[d]);
    }
}

/* A new process: join, check, free. */
static int child(int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Info info;
    dmesh_t mesh = DMESH_NULL;
    expect_t e;
    int reason = 0, rc, ok;

    memset(&e, 0, sizeof(e));
    if (strcmp(argv[1], "foreign") == 0) {
        MPI_Comm parent;
        MPI_Info_create(&info);
        MPI_Info_set(info, "dmesh_timeout", "2");
        /* a parent that sends nothing: it cannot be told from dmesh's
         * parents that are late, DMESH_ERR_TIMEOUT */
        rc = dmesh_join(info, &reason, &comm, &mesh);
        CHECK(rc == DMESH_ERR_TIMEOUT && comm == MPI_COMM_NULL && mesh == DMESH_NULL,
              "dmesh_join under a silent foreign parent: %d (%s)", rc, dmesh_last_error());
        /* one that sends a message of its own: not dmesh's, DMESH_ERR_ARG */
        MPI_Comm_get_parent(&parent);
        MPI_Send(&failures, 1, MPI_INT, 0, 2, parent);
        rc = dmesh_join(info, &reason, &comm, &mesh);
        MPI_Info_free(&info);
        CHECK(rc == DMESH_ERR_ARG && comm == MPI_COMM_NULL && mesh == DMESH_NULL,
              "dmesh_join under a foreign parent: %d (%s)", rc, dmesh_last_error());
        {
            long theirs = 0;
            MPI_Recv(&theirs, 1, MPI_LONG, 0, 5, parent, MPI_STATUS_IGNORE);
        }
        MPI_Send(&failures, 1, MPI_INT, 0, 1, parent);
        MPI_Comm_disconnect(&parent);
        return failures != 0;
    }
    rc = dmesh_join(MPI_INFO_NULL, &reason, &comm, &mesh);
    CHECK(rc == DMESH_SUCCESS, "dmesh_join: %d (%s)", rc, dmesh_last_error());
    if (rc != DMESH_SUCCESS)
        return 1;
    MPI_Comm_size(comm, &e.size);
    if (strcmp(argv[1], "grow") == 0 || strcmp(argv[1], "growkill") == 0 ||
        strcmp(argv[1], "growname") == 0) {
        parse_shape(argc, argv, 4, &e);
        e.dim = atoi(argv[2]);
        e.n = atoi(argv[3]);
        e.shape[e.dim] += e.n;
        {
            int d, others = 1; /* the parents' communicator had the others */
            for (d = 0; d < e.ndims; d++)
                if (d != e.dim)
                    others *= e.shape[d];
            e.size -= others * e.n;
        }
        CHECK(reason == DMESH_JOIN_GROW || strcmp(argv[1], "growkill") == 0, "reason %d", reason);
        if (strcmp(argv[1], "growname") == 0)
            sizes_by_name(mesh, &e);
    } else {
        parse_shape(argc, argv, 3, &e);
        CHECK(reason == DMESH_JOIN_RESPAWN, "reason %d", reason);
    }
    if (strcmp(argv[1], "again") == 0)
        finalize_bound = 1;
    ok = verify(comm, mesh, &e);
    (void)ok;
    if (strcmp(argv[1], "again") == 0)
        return again_round(comm, mesh, &e, argc, argv);
    if (strcmp(argv[1], "growkill") == 0 && reason == DMESH_JOIN_GROW)
        return growkill_round(comm, mesh, &e);
    if (strcmp(argv[1], "growkill") == 0)
        finalize_bound = 1; /* a replacement, after a failure */
    if (strcmp(argv[1], "respawn") == 0) {
        /* the survivors respawn the respawned mesh with nothing failed */
        MPI_Comm again = MPI_COMM_NULL;
        dmesh_t m2 = DMESH_NULL;
        rc = dmesh_respawn(mesh, NULL, NULL, MPI_INFO_NULL, &again, &m2);
        CHECK(rc == DMESH_SUCCESS, "second dmesh_respawn: %d (%s)", rc, dmesh_last_error());
        if (rc == DMESH_SUCCESS)
            verify(again, m2, &e);
        dmesh_free(&m2);
        comm_free(&again);
    }
    dmesh_free(&mesh);
    MPI_Comm_free(&comm);
    return failures != 0;
}

/* The start of grow, growkill and growname (DIM N S0 [S1 ...]): e, and the
 * mesh of shape S on world, named SWAPPED when named. */
static int grow_start(MPI_Comm world, int argc, char **argv, int named, expect_t *e, dmesh_t *mesh)
{
    int rc;

    memset(e, 0, sizeof(*e));
    parse_shape(argc, argv, 4, e);
    e->dim = atoi(argv[2]);
    e->n = atoi(argv[3]);
    MPI_Comm_size(world, &e->size);
    rc = dmesh_init(world, "cpu", e->ndims, e->shape, named ? SWAPPED : NULL, MPI_INFO_NULL, mesh);
    CHECK(rc == DMESH_SUCCESS, "dmesh_init: %d (%s)", rc, dmesh_last_error());
    return rc;
}

/* dmesh_grow of e's dim, or (name not NULL) dmesh_grow_by_name of name, by
 * e->n; a grown mesh is verified against e (its grown shape).
 * DMESH_ERR_SPAWN is returned unchecked: this MPI or launcher starts no
 * processes. */
static int grow_verified(dmesh_t mesh, const char *name, const expect_t *e, MPI_Comm *comm,
                         dmesh_t *grown)
{
    int rc;

    if (name == NULL)
        rc = dmesh_grow(mesh, e->dim, e->n, NULL, NULL, MPI_INFO_NULL, comm, grown);
    else
        rc = dmesh_grow_by_name(mesh, name, e->n, NULL, NULL, MPI_INFO_NULL, comm, grown);
    if (rc == DMESH_ERR_SPAWN)
        return rc;
    CHECK(rc == DMESH_SUCCESS, "%s: %d (%s)", name == NULL ? "dmesh_grow" : "dmesh_grow_by_name",
          rc, dmesh_last_error());
    if (rc == DMESH_SUCCESS)
        CHECK(verify(*comm, *grown, e), "a process found the grown mesh wrong");
    return rc;
}

static int case_grow(MPI_Comm world, int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_NULL;
    dmesh_t mesh = DMESH_NULL, grown = DMESH_NULL;
    expect_t e;
    int rc;

    if (grow_start(world, argc, argv, 0, &e, &mesh) != DMESH_SUCCESS)
        return 1;
    if (strcmp(argv[1], "growkill") == 0 &&
        dmesh_get_failed(mesh, 0, NULL, &rc) == DMESH_ERR_UNSUPPORTED) {
        dmesh_free(&mesh);
        return 77; /* no fault tolerance in this run */
    }
    e.shape[e.dim] += e.n;
    rc = grow_verified(mesh, NULL, &e, &comm, &grown);
    if (rc == DMESH_ERR_SPAWN) { /* this MPI or launcher starts no processes */
        printf("test_respawn: grow skipped: %s\n", dmesh_last_error());
        dmesh_free(&mesh);
        return 77;
    }
    if (rc == DMESH_SUCCESS && strcmp(argv[1], "growkill") == 0) {
        dmesh_free(&mesh);
        return growkill_round(comm, grown, &e);
    }
    dmesh_free(&grown);
    dmesh_free(&mesh);
    comm_free(&comm);
    return failures != 0;
}

/* growname DIM N S0 S1: the mesh named SWAPPED grows by index (DIM) and by
 * name (SWAPPED[DIM], which reads as the other index); each grown mesh is
 * verified as grow's, keeps the names, and both are the same mesh. */
static int case_grow_by_name(MPI_Comm world, int argc, char **argv)
{
    MPI_Comm ca = MPI_COMM_NULL, cb = MPI_COMM_NULL;
    dmesh_t mesh = DMESH_NULL, a = DMESH_NULL, b = DMESH_NULL;
    expect_t e;
    char why[256] = "";
    int rc;

    if (argc != 6 || grow_start(world, argc, argv, 1, &e, &mesh) != DMESH_SUCCESS)
        return 1;
    e.shape[e.dim] += e.n;
    rc = grow_verified(mesh, NULL, &e, &ca, &a);
    if (rc == DMESH_SUCCESS)
        rc = grow_verified(mesh, SWAPPED[e.dim], &e, &cb, &b);
    if (rc == DMESH_ERR_SPAWN)
        printf("test_respawn: growname skipped: %s\n", dmesh_last_error());
    if (rc == DMESH_SUCCESS) {
        sizes_by_name(a, &e);
        sizes_by_name(b, &e);
        CHECK(mesh_compare(a, b, why, sizeof(why)) == 0, "by name against by index: %s", why);
    }
    dmesh_free(&b);
    dmesh_free(&a);
    dmesh_free(&mesh);
    comm_free(&cb);
    comm_free(&ca);
    return rc == DMESH_ERR_SPAWN ? 77 : failures != 0;
}

static int is_listed(const char *list, int r)
{
    char buf[256], *w;

    snprintf(buf, sizeof(buf), "%s", list);
    for (w = strtok(buf, ","); w != NULL; w = strtok(NULL, ","))
        if (atoi(w) == r)
            return 1;
    return 0;
}

/* The start of respawn and again: the mesh of shape S on world, with
 * fault tolerance (77 without), then the processes listed in KILL die and
 * the others meet it in a barrier of dim 0 (it may fail). */
static int mesh_then_kill(MPI_Comm world, int argc, char **argv, expect_t *e, dmesh_t *mesh)
{
    MPI_Comm dc = MPI_COMM_NULL;
    int rc, rank, nf = 0;

    memset(e, 0, sizeof(*e));
    parse_shape(argc, argv, 3, e);
    MPI_Comm_size(world, &e->size);
    MPI_Comm_rank(world, &rank);
    rc = dmesh_init(world, "cpu", e->ndims, e->shape, NULL, MPI_INFO_NULL, mesh);
    CHECK(rc == DMESH_SUCCESS, "dmesh_init: %d (%s)", rc, dmesh_last_error());
    if (rc != DMESH_SUCCESS)
        return 1;
    if (dmesh_get_failed(*mesh, 0, NULL, &nf) == DMESH_ERR_UNSUPPORTED) {
        dmesh_free(mesh);
        return 77; /* no fault tolerance in this run */
    }
    if (is_listed(argv[2], rank))
        raise(SIGKILL);
    dmesh_get_comm(*mesh, 0, &dc);
    if (dc != MPI_COMM_NULL)
        MPI_Barrier(dc); /* may fail: a process died */
    return 0;
}

/* dmesh_respawn with dmesh_respawn_hosts naming this host (every process
 * of the test runs on one); first with MPI's host key too, which is
 * DMESH_ERR_ARG on every survivor, before anything starts. */
static int respawn_on_this_host(dmesh_t mesh, MPI_Comm *comm, dmesh_t *back)
{
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Info info;
    int len = 0, rc;

    MPI_Get_processor_name(host, &len);
    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_respawn_hosts", host);
    MPI_Info_set(info, "host", host);
    rc = dmesh_respawn(mesh, NULL, NULL, info, comm, back);
    CHECK(rc == DMESH_ERR_ARG && *comm == MPI_COMM_NULL && *back == DMESH_NULL &&
              strstr(dmesh_last_error(), "give one") != NULL,
          "dmesh_respawn with host and dmesh_respawn_hosts: %d (%s)", rc, dmesh_last_error());
    MPI_Info_delete(info, "host");
    rc = dmesh_respawn(mesh, NULL, NULL, info, comm, back);
    MPI_Info_free(&info);
    return rc;
}

static int case_respawn(MPI_Comm world, int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_NULL, again = MPI_COMM_NULL;
    dmesh_t mesh = DMESH_NULL, back = DMESH_NULL, m2 = DMESH_NULL;
    expect_t e;
    int rc = mesh_then_kill(world, argc, argv, &e, &mesh);

    if (rc != 0)
        return rc;
    rc = respawn_on_this_host(mesh, &comm, &back);
    CHECK(rc == DMESH_SUCCESS, "dmesh_respawn: %d (%s)", rc, dmesh_last_error());
    if (rc == DMESH_SUCCESS) {
        CHECK(verify(comm, back, &e), "a process found the respawned mesh wrong");
        rc = dmesh_respawn(back, NULL, NULL, MPI_INFO_NULL, &again, &m2);
        CHECK(rc == DMESH_SUCCESS, "second dmesh_respawn: %d (%s)", rc, dmesh_last_error());
        if (rc == DMESH_SUCCESS)
            CHECK(verify(again, m2, &e), "a process found the second respawn wrong");
    }
    dmesh_free(&m2);
    dmesh_free(&back);
    dmesh_free(&mesh);
    comm_free(&again);
    comm_free(&comm);
    return failures != 0;
}

/* again KILL S...: rank KILL dies, the survivors respawn; then the process
 * that replaced it dies too (again_round). */
static int case_again(MPI_Comm world, int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_NULL;
    dmesh_t mesh = DMESH_NULL, back = DMESH_NULL;
    expect_t e;
    int rc = mesh_then_kill(world, argc, argv, &e, &mesh);

    if (rc != 0)
        return rc;
    rc = dmesh_respawn(mesh, NULL, NULL, MPI_INFO_NULL, &comm, &back);
    CHECK(rc == DMESH_SUCCESS, "dmesh_respawn: %d (%s)", rc, dmesh_last_error());
    dmesh_free(&mesh);
    if (rc != DMESH_SUCCESS)
        return 1;
    CHECK(verify(comm, back, &e), "a process found the respawned mesh wrong");
    finalize_bound = 1;
    return again_round(comm, back, &e, argc, argv) || failures != 0;
}

static int case_foreign(MPI_Comm world, const char *cmd)
{
    MPI_Comm ic = MPI_COMM_NULL;
    char *args[] = {"foreign", NULL};
    int rank, got = -1, rc;

    MPI_Comm_rank(world, &rank);
    rc = MPI_Comm_spawn(cmd, args, 1, MPI_INFO_NULL, 0, world, &ic, MPI_ERRCODES_IGNORE);
    if (rc != MPI_SUCCESS)
        return 77; /* this MPI does not spawn here: test_respawn plain covers the rest */
    if (rank == 0) {
        long mine = 42;
        MPI_Recv(&got, 1, MPI_INT, 0, 2, ic, MPI_STATUS_IGNORE); /* its first join is over */
        MPI_Send(&mine, 1, MPI_LONG, 0, 5, ic);
        MPI_Recv(&got, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE);
        CHECK(got == 0, "the foreign child's checks failed (%d)", got);
    }
    MPI_Comm_disconnect(&ic);
    return failures != 0;
}

static int case_plain(MPI_Comm world)
{
    MPI_Comm comm = (MPI_Comm)0;
    dmesh_t mesh = DMESH_NULL, out = (dmesh_t)1;
    int shape[1], rc, size, rank, nf = 0;

    MPI_Comm_size(world, &size);
    MPI_Comm_rank(world, &rank);
    shape[0] = size;
    rc = dmesh_join(MPI_INFO_NULL, NULL, &comm, &out);
    CHECK(rc == DMESH_ERR_ARG && comm == MPI_COMM_NULL && out == DMESH_NULL,
          "dmesh_join without a parent: %d", rc);
    rc = dmesh_init(world, "cpu", 1, shape, NULL, MPI_INFO_NULL, &mesh);
    CHECK(rc == DMESH_SUCCESS, "dmesh_init: %d", rc);
    if (dmesh_get_failed(mesh, 0, NULL, &nf) == DMESH_ERR_UNSUPPORTED) {
        out = (dmesh_t)1;
        rc = dmesh_respawn(mesh, NULL, NULL, MPI_INFO_NULL, &comm, &out);
        CHECK(rc == DMESH_ERR_UNSUPPORTED && out == DMESH_NULL, "dmesh_respawn: %d", rc);
    }
    rc = dmesh_grow(mesh, 1, 1, NULL, NULL, MPI_INFO_NULL, &comm, &out);
    CHECK(rc == DMESH_ERR_ARG && out == DMESH_NULL, "dmesh_grow dim 1 of 1: %d", rc);
    /* one rank alone passes a bad n: every rank returns its class */
    rc = dmesh_grow(mesh, 0, rank == size - 1 ? 0 : 1, NULL, NULL, MPI_INFO_NULL, &comm, &out);
    CHECK(rc == DMESH_ERR_ARG && out == DMESH_NULL && comm == MPI_COMM_NULL,
          "dmesh_grow with n 0 on rank %d: %d", size - 1, rc);
    rc = dmesh_grow(mesh, 0, 1, NULL, NULL, MPI_INFO_NULL, NULL, &out);
    CHECK(rc == DMESH_ERR_ARG, "dmesh_grow without newcomm: %d", rc);
    CHECK(strcmp(dmesh_error_string(DMESH_ERR_SPAWN), dmesh_error_string(DMESH_ERR_INTERNAL)) != 0,
          "DMESH_ERR_SPAWN has no string of its own");
    dmesh_free(&mesh);
    return failures != 0;
}

int main(int argc, char **argv)
{
    MPI_Comm parent, world;
    int rc = 1, rank = 0, all = 0;

    MPI_Init(&argc, &argv);
    /* dmesh_join raises on MPI_COMM_SELF: the checks read the classes */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_get_parent(&parent);
    if (argc < 2) {
        fprintf(stderr, "usage: test_respawn grow|respawn|foreign|plain ...\n");
        MPI_Finalize();
        return 1;
    }
    if (parent != MPI_COMM_NULL) {
        rc = child(argc, argv);
        finalize_bounded(finalize_bound);
        return rc;
    }
    /* the program's duplicate with MPI_ERRORS_RETURN, as a ULFM program keeps it */
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
    MPI_Comm_rank(world, &rank);
    if ((strcmp(argv[1], "grow") == 0 || strcmp(argv[1], "growkill") == 0) && argc >= 5)
        rc = case_grow(world, argc, argv);
    else if (strcmp(argv[1], "growname") == 0)
        rc = case_grow_by_name(world, argc, argv);
    else if (strcmp(argv[1], "respawn") == 0 && argc >= 4)
        rc = case_respawn(world, argc, argv);
    else if (strcmp(argv[1], "again") == 0 && argc >= 4)
        rc = case_again(world, argc, argv);
    else if (strcmp(argv[1], "foreign") == 0)
        rc = case_foreign(world, argv[0]);
    else if (strcmp(argv[1], "plain") == 0)
        rc = case_plain(world);
    else
        fprintf(stderr, "test_respawn: unknown case %s\n", argv[1]);
    if (strcmp(argv[1], "respawn") != 0 && strcmp(argv[1], "again") != 0) {
        MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, world);
        rc = all;
    }
    if (rc == 0)
        printf("test_respawn: %s passed on rank %d\n", argv[1], rank);
    fflush(stdout);
    if (strcmp(argv[1], "growkill") == 0) {
        /* the outcome in a file too: Open MPI 5.0.7's launcher, after a
         * started process died, may end before it passes this output on */
        FILE *f = outcome_file("growkill", rank);
        if (f != NULL) {
            fprintf(f, "test_respawn: growkill %s on rank %d\n",
                    rc == 0    ? "passed"
                    : rc == 77 ? "skipped"
                               : "FAILED",
                    rank);
            fclose(f);
        }
    }
    MPI_Comm_free(&world);
    finalize_bounded(strcmp(argv[1], "respawn") == 0 || finalize_bound);
    return rc;
}
