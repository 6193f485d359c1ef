/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies in memory (doc/user-guide.md, "Copies in memory"):
 *   test_copies plain   without failures: store and restore round trips of
 *       a contiguous and a strided buffer, versions, DMESH_COPIES_NONE,
 *       agreed errors (a version not greater, different versions,
 *       different registered buffers), partners against the coordinates,
 *       and for both schemes a member whose copies go (it frees them and
 *       opens the name anew, as a new process does): restored from its
 *       partner or rebuilt from its XOR set, redundancy whole again after
 *       (its owner's copies go next), and a member lost with its partner:
 *       DMESH_ERR_DATA_LOST on every process, buffers untouched; copies of
 *       6 MiB (memory from the spares) through versions, a failed store and
 *       a member whose copies go.
 *   test_copies hosts   on fake hosts (test/node-double.sh), an even count
 *       of processes per host: for 1-D and 2-D meshes (the node dimension
 *       outer and inner) and both schemes, no copy on its owner's host by
 *       default, and the processes of a whole host losing their copies at
 *       once get their own state back.
 *   test_copies respawn K S0 [S1]   under mpiexec --with-ft ulfm: a program
 *       that stores every 2 steps; rank K dies at step 5; the survivors
 *       respawn, every process opens and restores (version 4) and the run
 *       ends with the clean run's state bit for bit.
 *   test_copies again K S0 [S1]     the same, then the process whose copy
 *       K's replacement must hold again dies right after the restore.
 *   test_copies pair K S0 [S1]      K and the holder of its copy die
 *       together: DMESH_ERR_DATA_LOST on every process.
 *   test_copies sweep:CALL:WHO:STEP K S0 [S1]   (a build with
 *       --enable-fault-injection) a process dies at the STEP-th step of a
 *       store or a restore (DMESH_FAULT_KILL): CALL store or restore, WHO
 *       first (a process of the first launch: for store, K in the store of
 *       step 4; for restore, after K died at step 5, the process two ranks
 *       on from K in the restore of the repair) or new (K dies at step 5 and
 *       the process that replaced it dies in its restore, or in its first
 *       store). Every survivor must return the same class from that call,
 *       and the program must end with the clean run's state bit for bit
 *       (repairs and restores again as needed). Rank 0 prints "sweep
 *       CALL WHO step STEP: killed" or "nokill" (the call has fewer steps).
 *       sweep:CALL:WHO:STEP:SCHEME: the same with the copies opened with
 *       dmesh_copies_scheme SCHEME (partner, xor; default partner) and
 *       dmesh_copies_group 2.
 * The fault cases agree each step's outcome (MPIX_Comm_agree on the
 * program's communicator) before they choose between the next step, a
 * store and a repair: under fault tolerance an MPI_Allreduce may fail on
 * some processes and succeed on others (a process that died after its own
 * part), and the processes that went on into dmesh_copies_store would wait
 * in its agreement over the members for those that went to dmesh_respawn.
 * Prints "test_copies: CASE passed" on each process that passed. */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#if DMESH_HAVE_ULFM
#include <mpi-ext.h>
#endif

#include "dmesh.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "test_copies: %s:%d: ", __FILE__, __LINE__);                           \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define N 4099  /* doubles of state: not a multiple of anything */
#define NV 64   /* ints of the strided buffer (every other one registered) */
#define STEPS 8 /* of the fault cases */
#define NAME "state"

typedef struct {
    double a[N];
    int v[2 * NV];
} state_t;

static MPI_Datatype strided; /* NV ints, every other one */

/* One step of the computation, deterministic per rank. */
static void compute(state_t *s, int rank, int step)
{
    for (int i = 0; i < N; i++)
        s->a[i] = s->a[i] * 0.999 + (double)(rank * 7 + i % 13 + step);
    for (int i = 0; i < NV; i++)
        s->v[2 * i] += rank + step * i;
}

static void fill(state_t *s, int rank, int gen)
{
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < N; i++)
        s->a[i] = rank * 1000.0 + i + gen * 0.5;
    for (int i = 0; i < 2 * NV; i++)
        s->v[i] = rank * 100 + i + gen;
}

/* Whether the registered parts of two states are equal. */
static int same_state(const state_t *x, const state_t *y)
{
    for (int i = 0; i < NV; i++)
        if (x->v[2 * i] != y->v[2 * i])
            return 0;
    return memcmp(x->a, y->a, sizeof(x->a)) == 0;
}

static void add_state(dmesh_copies_t c, state_t *s)
{
    int rc = dmesh_copies_add(c, 0, s->a, N, MPI_DOUBLE);
    CHECK(rc == DMESH_SUCCESS, "add 0: %d (%s)", rc, dmesh_last_error());
    rc = dmesh_copies_add(c, 3, s->v, 1, strided);
    CHECK(rc == DMESH_SUCCESS, "add 3: %d (%s)", rc, dmesh_last_error());
}

static MPI_Info info_of(const char *k1, const char *v1, const char *k2, const char *v2)
{
    MPI_Info info;

    MPI_Info_create(&info);
    if (k1 != NULL)
        MPI_Info_set(info, k1, v1);
    if (k2 != NULL)
        MPI_Info_set(info, k2, v2);
    return info;
}

static int same_everywhere(MPI_Comm comm, int x)
{
    int lo, hi;

    MPI_Allreduce(&x, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&x, &hi, 1, MPI_INT, MPI_MAX, comm);
    return lo == hi;
}

/* ---- plain --------------------------------------------------------------- */

/* Round trips, versions and agreed errors on copies c. */
static void round_trips(MPI_Comm comm, dmesh_copies_t c, state_t *s, int rank)
{
    state_t v1, v2;
    int rc, ver = 99;

    fill(s, rank, 0);
    rc = dmesh_copies_restore(c, &ver);
    CHECK(rc == DMESH_SUCCESS && ver == DMESH_COPIES_NONE, "restore of nothing: %d, %d", rc, ver);
    fill(&v1, rank, 0);
    CHECK(memcmp(s, &v1, sizeof(v1)) == 0, "restore of nothing changed the buffers");
    rc = dmesh_copies_store(c, 1);
    CHECK(rc == DMESH_SUCCESS, "store 1: %d (%s)", rc, dmesh_last_error());
    compute(s, rank, 1);
    v2 = *s;
    rc = dmesh_copies_restore(c, &ver);
    CHECK(rc == DMESH_SUCCESS && ver == 1, "restore 1: %d, %d (%s)", rc, ver, dmesh_last_error());
    CHECK(memcmp(s->a, v1.a, sizeof(v1.a)) == 0, "restore 1: doubles differ");
    for (int i = 0; i < 2 * NV; i++) /* only the registered ints come back */
        CHECK(s->v[i] == (i % 2 ? v2.v[i] : v1.v[i]), "restore 1: int %d is %d", i, s->v[i]);
    rc = dmesh_copies_store(c, 1);
    CHECK(rc == DMESH_ERR_ARG, "store 1 again: %d", rc);
    if (same_everywhere(comm, 0) && !same_everywhere(comm, rank)) { /* two ranks at least */
        rc = dmesh_copies_store(c, rank == 0 ? 5 : 6);
        CHECK(rc == DMESH_ERR_MISMATCH, "store of different versions: %d", rc);
        CHECK(same_everywhere(comm, rc), "store of different versions: classes differ");
    }
    compute(s, rank, 2);
    v2 = *s;
    rc = dmesh_copies_store(c, 2);
    CHECK(rc == DMESH_SUCCESS, "store 2: %d (%s)", rc, dmesh_last_error());
    compute(s, rank, 3);
    rc = dmesh_copies_restore(c, &ver);
    CHECK(rc == DMESH_SUCCESS && ver == 2 && memcmp(s->a, v2.a, sizeof(v2.a)) == 0,
          "restore 2: %d, %d", rc, ver);
}

/* Member x's copies of name go (it frees them and opens anew with zeroed
 * buffers, as a new process would); every process opens the name again. */
static void lose_named(dmesh_t mesh, const char *name, MPI_Info info, dmesh_copies_t *c, state_t *s,
                       int me, int x)
{
    dmesh_copies_t old = *c;
    int rc;

    if (me == x) {
        dmesh_copies_free(c);
        memset(s, 0, sizeof(*s));
    }
    rc = dmesh_copies_open(mesh, name, info, c);
    CHECK(rc == DMESH_SUCCESS, "open again: %d (%s)", rc, dmesh_last_error());
    if (me == x)
        add_state(*c, s);
    else {
        int n = 0;
        CHECK(dmesh_copies_get_partners(old, 0, NULL, &n) == DMESH_ERR_ARG,
              "the old handle still works");
        dmesh_copies_free(&old);
    }
}

static void lose(dmesh_t mesh, MPI_Info info, dmesh_copies_t *c, state_t *s, int me, int x)
{
    lose_named(mesh, NAME, info, c, s, me, x);
}

static void losses(MPI_Comm comm, dmesh_t mesh, const char *scheme, int rank, int size)
{
    MPI_Info info = info_of("dmesh_copies_scheme", scheme, "dmesh_copies_group", "3");
    dmesh_copies_t c = DMESH_COPIES_NULL;
    state_t s, want;
    int rc, ver = 0, x = size > 2 ? 1 : 0, p[8], np = 0, holder;

    rc = dmesh_copies_open(mesh, NAME, info, &c);
    CHECK(rc == DMESH_SUCCESS, "open %s: %d (%s)", scheme, rc, dmesh_last_error());
    fill(&s, rank, 1);
    add_state(c, &s);
    rc = dmesh_copies_store(c, 7);
    CHECK(rc == DMESH_SUCCESS, "store %s: %d (%s)", scheme, rc, dmesh_last_error());
    fill(&want, rank, 1);
    dmesh_copies_get_partners(c, 8, p, &np);
    holder = np > 0 ? p[0] : -1; /* partner: the holder; xor: the lowest other member */
    MPI_Bcast(&holder, 1, MPI_INT, x, comm);
    lose(mesh, info, &c, &s, rank, x);
    rc = dmesh_copies_restore(c, &ver);
    CHECK(rc == DMESH_SUCCESS && ver == 7, "%s: restore after a loss: %d, %d (%s)", scheme, rc, ver,
          dmesh_last_error());
    CHECK(same_state(&s, &want), "%s: the lost member's state differs", scheme);
    if (strcmp(scheme, "partner") == 0 && size > 2) {
        /* x holds its owner's copy again: lose the owner, then x and its holder
         * (with a third process that holds the version) */
        int owner = (x - 1 + size) % size; /* flattened on one node: the previous */
        lose(mesh, info, &c, &s, rank, owner);
        rc = dmesh_copies_restore(c, &ver);
        CHECK(rc == DMESH_SUCCESS && ver == 7 && same_state(&s, &want),
              "partner: the owner's copy was not held again: %d, %d", rc, ver);
        lose(mesh, info, &c, &s, rank, rank == holder ? rank : x);
        memset(&want, 0, sizeof(want));
        rc = dmesh_copies_restore(c, &ver);
        CHECK(rc == DMESH_ERR_DATA_LOST, "partner: a member and its holder lost: %d", rc);
        if (rank == x || rank == holder)
            CHECK(memcmp(&s, &want, sizeof(s)) == 0, "data lost: buffers touched");
    }
    dmesh_copies_free(&c);
    MPI_Info_free(&info);
}

/* ---- placement by domain, owners, arguments agreed ----------------------- */

/* Each process's domain by info (block halves or alternating): every copy
 * and every other member of an XOR set in another domain, and the query
 * says the copies survive a domain. */
static void domains(dmesh_t mesh, int rank, int size, int cyclic, const char *scheme)
{
    char dom[16];
    MPI_Info info;
    dmesh_copies_t c = DMESH_COPIES_NULL;
    int rc, p[8], np = 0, kind = -1, mine = cyclic ? rank % 2 : rank < size / 2, shared = 0;

    snprintf(dom, sizeof(dom), "rack%d", mine);
    info = info_of("dmesh_copies_domain", dom, "dmesh_copies_scheme", scheme);
    rc = dmesh_copies_open(mesh, "domains", info, &c);
    CHECK(rc == DMESH_SUCCESS, "open with domains: %d (%s)", rc, dmesh_last_error());
    dmesh_copies_get_partners(c, 8, p, &np);
    CHECK(np >= 1, "%s: no partner", scheme);
    for (int i = 0; i < np; i++) /* the mesh's ranks are the communicator's here */
        shared |= (cyclic ? p[i] % 2 : p[i] < size / 2) == mine;
    /* with an even size no domain holds more than half of the members */
    CHECK(size % 2 == 1 || !shared, "%s, %s domains: rank %d's copy in its own domain", scheme,
          cyclic ? "cyclic" : "block", rank);
    rc = dmesh_copies_get_survival(c, &kind);
    CHECK(rc == DMESH_SUCCESS &&
              kind == (shared ? DMESH_COPIES_SURVIVES_PROCESS : DMESH_COPIES_SURVIVES_DOMAIN),
          "%s: survival %d with a holder in its domain %d", scheme, kind, shared);
    dmesh_copies_free(&c);
    MPI_Info_free(&info);
}

/* Copies stored with one scheme, opened again with another (or another
 * group): DMESH_ERR_MISMATCH on every process, naming both; opened again
 * with the one they were stored with, they restore. */
static void carried_scheme(MPI_Comm comm, dmesh_t mesh, int rank)
{
    MPI_Info part = info_of("dmesh_copies_scheme", "partner", NULL, NULL),
             xor3 = info_of("dmesh_copies_scheme", "xor", "dmesh_copies_group", "3"),
             xor2 = info_of("dmesh_copies_scheme", "xor", "dmesh_copies_group", "2");
    const MPI_Info stored[2] = {part, xor3}, other[2] = {xor3, xor2};
    static state_t s, want;

    for (int i = 0; i < 2; i++) {
        dmesh_copies_t c = DMESH_COPIES_NULL, d = DMESH_COPIES_NULL;
        int rc = dmesh_copies_open(mesh, "carried", stored[i], &c), ver = -1;
        fill(&s, rank, i);
        want = s;
        add_state(c, &s);
        rc = rc ? rc : dmesh_copies_store(c, 4);
        CHECK(rc == DMESH_SUCCESS, "carried %d: open and store: %d (%s)", i, rc,
              dmesh_last_error());
        rc = dmesh_copies_open(mesh, "carried", other[i], &d);
        CHECK(rc == DMESH_ERR_MISMATCH && d == DMESH_COPIES_NULL &&
                  strstr(dmesh_last_error(), "stored with scheme") != NULL,
              "carried %d: opened with another scheme or group: %d (%s)", i, rc,
              dmesh_last_error());
        CHECK(same_everywhere(comm, rc), "carried %d: classes differ", i);
        rc = dmesh_copies_open(mesh, "carried", stored[i], &d);
        CHECK(rc == DMESH_SUCCESS, "carried %d: opened again alike: %d (%s)", i, rc,
              dmesh_last_error());
        memset(&s, 0, sizeof(s));
        add_state(d, &s);
        rc = dmesh_copies_restore(d, &ver);
        CHECK(rc == DMESH_SUCCESS && ver == 4 && same_state(&s, &want),
              "carried %d: restore: %d, version %d (%s)", i, rc, ver, dmesh_last_error());
        dmesh_copies_free(&d);
        dmesh_copies_free(&c);
    }
    MPI_Info_free(&part);
    MPI_Info_free(&xor3);
    MPI_Info_free(&xor2);
}

/* Arguments that differ between processes: DMESH_ERR_MISMATCH on every
 * process (agreed before any communicator is made), no hang. */
static void mismatches(MPI_Comm comm, dmesh_t mesh, int rank)
{
    const char *keys[4] = {"dmesh_copies_scheme", "dmesh_copies_group", "dmesh_copies_dim",
                           "dmesh_copies_domain"};
    const char *vals[4] = {"xor", "3", "0", "rack"};

    for (int i = 0; i < 4; i++) {
        MPI_Info info = info_of(rank == 0 ? keys[i] : NULL, vals[i],
                                i == 1 ? "dmesh_copies_scheme" : NULL, "xor");
        dmesh_copies_t c = DMESH_COPIES_NULL;
        int rc = dmesh_copies_open(mesh, "mismatch", info, &c);
        CHECK(rc == DMESH_ERR_MISMATCH && c == DMESH_COPIES_NULL, "%s on rank 0 only: %d", keys[i],
              rc);
        CHECK(same_everywhere(comm, rc), "%s on rank 0 only: classes differ", keys[i]);
        MPI_Info_free(&info);
    }
}

/* Copies stored on the whole mesh, then restored on the mesh of all but
 * rank 0 (numbered anew, as dmesh_shrink numbers them), then rank 0 opens
 * with no copies on the whole mesh again: it gets nothing (no predecessor),
 * never another process's state; the others keep theirs. */
static void owners_after_shrink(MPI_Comm comm, dmesh_t mesh, int rank, int size)
{
    int ranks[64], rc, ver = -7, small = size - 1;
    dmesh_t sub = DMESH_NULL;
    dmesh_copies_t c = DMESH_COPIES_NULL, d = DMESH_COPIES_NULL;
    state_t s, want, zero;

    for (int i = 0; i < small; i++)
        ranks[i] = i + 1;
    rc = dmesh_create(comm, "cpu", 1, &small, ranks, NULL, MPI_INFO_NULL, &sub);
    CHECK(rc == DMESH_SUCCESS, "the mesh without rank 0: %d", rc);
    dmesh_copies_open(mesh, "owners", MPI_INFO_NULL, &c);
    fill(&s, rank, 3);
    want = s;
    add_state(c, &s);
    rc = dmesh_copies_store(c, 1);
    CHECK(rc == DMESH_SUCCESS, "owners: store %d", rc);
    rc = dmesh_copies_open(sub, "owners", MPI_INFO_NULL, &d);
    CHECK(rc == DMESH_SUCCESS, "owners: open on the smaller mesh %d (%s)", rc, dmesh_last_error());
    dmesh_copies_free(&c);
    memset(&s, 0, sizeof(s));
    rc = dmesh_copies_restore(d, &ver);
    CHECK(rc == DMESH_SUCCESS && (rank == 0 || (ver == 1 && same_state(&s, &want))),
          "owners: restore on the smaller mesh: %d, version %d, own state %d", rc, ver,
          same_state(&s, &want));
    if (rank == 0) { /* its copies go */
        dmesh_copies_free(&d);
        memset(&s, 0, sizeof(s));
    }
    rc = dmesh_copies_open(mesh, "owners", MPI_INFO_NULL, &c);
    CHECK(rc == DMESH_SUCCESS, "owners: open on the whole mesh %d (%s)", rc, dmesh_last_error());
    if (rank == 0)
        add_state(c, &s);
    else
        dmesh_copies_free(&d);
    memset(&zero, 0, sizeof(zero));
    ver = -7;
    rc = dmesh_copies_restore(c, &ver);
    CHECK(rc == DMESH_SUCCESS, "owners: restore on the whole mesh: %d (%s)", rc,
          dmesh_last_error());
    if (rank == 0)
        CHECK(ver == DMESH_COPIES_NONE && memcmp(&s, &zero, sizeof(s)) == 0,
              "owners: rank 0 got version %d and %s state", ver,
              memcmp(&s, &zero, sizeof(s)) == 0 ? "no" : "another's");
    else
        CHECK(ver == 1 && same_state(&s, &want), "owners: rank %d got version %d, own state %d",
              rank, ver, same_state(&s, &want));
    /* redundancy whole: rank 0 stores, loses its copies, gets its own back */
    fill(&s, rank, 4);
    want = s;
    rc = dmesh_copies_store(c, 2);
    CHECK(rc == DMESH_SUCCESS, "owners: store 2: %d", rc);
    lose_named(mesh, "owners", MPI_INFO_NULL, &c, &s, rank, 0);
    rc = dmesh_copies_restore(c, &ver);
    CHECK(rc == DMESH_SUCCESS && ver == 2 && same_state(&s, &want),
          "owners: rank 0's own state back: %d, %d", rc, ver);
    dmesh_copies_free(&c);
    dmesh_free(&sub);
}

/* Copies stored on a mesh of all but the last rank, opened on the whole
 * mesh (as after dmesh_grow): the new process gets nothing back, the
 * others their state; no DMESH_ERR_DATA_LOST. */
static void grown(MPI_Comm comm, dmesh_t mesh, int rank, int size)
{
    int ranks[64], rc, ver = -7, small = size - 1;
    dmesh_t sub = DMESH_NULL;
    dmesh_copies_t c = DMESH_COPIES_NULL, d = DMESH_COPIES_NULL;
    state_t s, want, zero;

    for (int i = 0; i < small; i++)
        ranks[i] = i;
    dmesh_create(comm, "cpu", 1, &small, ranks, NULL, MPI_INFO_NULL, &sub);
    dmesh_copies_open(sub, "grown", MPI_INFO_NULL, &d);
    fill(&s, rank, 5);
    want = s;
    memset(&zero, 0, sizeof(zero));
    if (rank == size - 1)
        memset(&s, 0, sizeof(s));
    add_state(d, &s);
    rc = dmesh_copies_store(d, 3);
    CHECK(rc == DMESH_SUCCESS, "grown: store %d", rc);
    rc = dmesh_copies_open(mesh, "grown", MPI_INFO_NULL, &c);
    CHECK(rc == DMESH_SUCCESS, "grown: open %d (%s)", rc, dmesh_last_error());
    dmesh_copies_free(&d);
    if (rank == size - 1)
        add_state(c, &s);
    rc = dmesh_copies_restore(c, &ver);
    CHECK(rc == DMESH_SUCCESS, "grown: restore %d (%s)", rc, dmesh_last_error());
    if (rank == size - 1)
        CHECK(ver == DMESH_COPIES_NONE && memcmp(&s, &zero, sizeof(s)) == 0,
              "grown: the new process got version %d", ver);
    else
        CHECK(ver == 3 && same_state(&s, &want), "grown: rank %d got %d", rank, ver);
    dmesh_copies_free(&c);
    dmesh_free(&sub);
}

/* ---- state whose size changes ---------------------------------------------- */

#define ROOM 1000

static MPI_Count particles_of(int rank, int ver)
{
    return (MPI_Count)((rank * 37 + ver * 101) % ROOM);
}

static void particles_fill(double *p, MPI_Count n, int rank, int ver)
{
    for (MPI_Count i = 0; i < ROOM; i++)
        p[i] = i < n ? rank * 1e4 + ver * 10.0 + (double)i : -1.0;
}

/* A buffer of particles whose count changes between versions, beside a
 * fixed one, in one version: a member whose copies go gets its count and
 * particles back; the survivors roll their counts back too; a count over
 * the room fails every store; a restore into too little room fails every
 * process, nothing restored. */
static void sized(MPI_Comm comm, dmesh_t mesh, int rank, int size)
{
    double p[ROOM], want[ROOM];
    MPI_Count n = 0, n2;
    int step = 0, rc, ver = -1, x = size - 1;
    dmesh_copies_t c = DMESH_COPIES_NULL, old;

    dmesh_copies_open(mesh, "sized", MPI_INFO_NULL, &c);
    rc = dmesh_copies_add_sized(c, 0, p, ROOM, &n, MPI_DOUBLE);
    CHECK(rc == DMESH_SUCCESS, "add_sized: %d (%s)", rc, dmesh_last_error());
    CHECK(dmesh_copies_add_sized(c, 2, p, ROOM, NULL, MPI_DOUBLE) == DMESH_ERR_ARG,
          "add_sized with a NULL count");
    dmesh_copies_add(c, 1, &step, 1, MPI_INT);
    for (int v = 1; v <= 2; v++) {
        n = particles_of(rank, v);
        particles_fill(p, n, rank, v);
        step = v * 10;
        rc = dmesh_copies_store(c, v);
        CHECK(rc == DMESH_SUCCESS, "sized: store %d: %d (%s)", v, rc, dmesh_last_error());
    }
    n2 = n;
    n = rank == 0 ? ROOM + 1 : n; /* a count past the room: every store fails */
    rc = dmesh_copies_store(c, 3);
    CHECK(rc == DMESH_ERR_ARG && same_everywhere(comm, rc), "sized: a count past the room: %d", rc);
    n = n2;
    memcpy(want, p, sizeof(p));
    old = c;
    if (rank == x) { /* its copies go: a new process, nothing in its buffers */
        dmesh_copies_free(&c);
        old = DMESH_COPIES_NULL;
    }
    n = 0;
    step = 0;
    memset(p, 0, sizeof(p));
    dmesh_copies_open(mesh, "sized", MPI_INFO_NULL, &c);
    if (old != DMESH_COPIES_NULL)
        dmesh_copies_free(&old);
    else {
        dmesh_copies_add_sized(c, 0, p, ROOM, &n, MPI_DOUBLE);
        dmesh_copies_add(c, 1, &step, 1, MPI_INT);
    }
    rc = dmesh_copies_restore(c, &ver);
    CHECK(rc == DMESH_SUCCESS && ver == 2, "sized: restore %d, %d (%s)", rc, ver,
          dmesh_last_error());
    CHECK(n == particles_of(rank, 2) && step == 20 &&
              memcmp(p, want, (size_t)n * sizeof(double)) == 0,
          "sized: rank %d got %lld particles (want %lld), step %d", rank, (long long)n,
          (long long)particles_of(rank, 2), step);
    /* too little room on the process with the most particles */
    {
        MPI_Count most = 0, mine = n;
        MPI_Allreduce(&mine, &most, 1, MPI_COUNT, MPI_MAX, comm);
        if (most > 0) {
            dmesh_copies_add_sized(c, 0, p, mine == most ? most - 1 : ROOM, &n, MPI_DOUBLE);
            p[0] = -7.0;
            rc = dmesh_copies_restore(c, &ver);
            CHECK(rc == DMESH_ERR_MISMATCH && same_everywhere(comm, rc) && p[0] == -7.0,
                  "sized: a restore into too little room: %d", rc);
        }
    }
    dmesh_copies_free(&c);
}

static void placement_and_owners(MPI_Comm comm, dmesh_t mesh, int rank, int size)
{
    mismatches(comm, mesh, rank);
    carried_scheme(comm, mesh, rank);
    sized(comm, mesh, rank, size);
    if (size < 4)
        return;
    for (int cyclic = 0; cyclic < 2; cyclic++) {
        domains(mesh, rank, size, cyclic, "partner");
        domains(mesh, rank, size, cyclic, "xor");
    }
    owners_after_shrink(comm, mesh, rank, size);
    grown(comm, mesh, rank, size);
}

/* Copies of 6 MiB, whose memory comes from the spares an older version
 * left (lib/copies_mem.c), in both schemes: versions stored one after
 * another, a store that fails after the copies were made, a member whose
 * copies go; every restore gives the version's bytes back. (Built with
 * 4 KiB messages, test_copies_chunk: copies of 1,536 messages, parity and
 * rebuilds in as many slices.) */
#define BIG ((size_t)(6 << 20) / sizeof(double))

static void big_fill(double *b, int rank, int ver)
{
    for (size_t i = 0; i < BIG; i++)
        b[i] = rank * 1e6 + ver * 1e3 + (double)(i % 997);
}

static int big_is(const double *b, int rank, int ver)
{
    for (size_t i = 0; i < BIG; i++)
        if (b[i] != rank * 1e6 + ver * 1e3 + (double)(i % 997))
            return 0;
    return 1;
}

static void big_open(dmesh_t mesh, MPI_Info info, dmesh_copies_t *c, double *b)
{
    int rc = dmesh_copies_open(mesh, "big", info, c);

    CHECK(rc == DMESH_SUCCESS, "open big: %d (%s)", rc, dmesh_last_error());
    rc = dmesh_copies_add(*c, 0, b, (MPI_Count)BIG, MPI_DOUBLE);
    CHECK(rc == DMESH_SUCCESS, "add big: %d (%s)", rc, dmesh_last_error());
}

static void big_copies(dmesh_t mesh, const char *scheme, int rank, int size)
{
    MPI_Info info = info_of("dmesh_copies_scheme", scheme, "dmesh_copies_group", "3");
    double *b = malloc(BIG * sizeof(double));
    dmesh_copies_t c = DMESH_COPIES_NULL, old;
    int rc, ver = 0;

    big_open(mesh, info, &c, b);
    for (int v = 1; v <= 4; v++) {
        big_fill(b, rank, v);
        rc = dmesh_copies_store(c, v);
        CHECK(rc == DMESH_SUCCESS, "big: store %d: %d (%s)", v, rc, dmesh_last_error());
    }
    if (size > 1) {
        rc = dmesh_copies_store(c, rank == 0 ? 5 : 6);
        CHECK(rc == DMESH_ERR_MISMATCH, "big: store of different versions: %d", rc);
    }
    big_fill(b, rank, 9);
    rc = dmesh_copies_restore(c, &ver);
    CHECK(rc == DMESH_SUCCESS && ver == 4 && big_is(b, rank, 4), "big: restore 4: %d, %d", rc, ver);
    old = c;
    if (size == 1) { /* nobody holds a copy for it */
        dmesh_copies_free(&c);
        free(b);
        MPI_Info_free(&info);
        return;
    }
    if (rank == 0) { /* its copies go, as a new process's */
        dmesh_copies_free(&c);
        memset(b, 0, BIG * sizeof(double));
    }
    big_open(mesh, info, &c, b);
    if (rank != 0)
        dmesh_copies_free(&old);
    rc = dmesh_copies_restore(c, &ver);
    CHECK(rc == DMESH_SUCCESS && ver == 4 && big_is(b, rank, 4), "big: restore of a member: %d, %d",
          rc, ver);
    big_fill(b, rank, 5);
    rc = dmesh_copies_store(c, 5);
    big_fill(b, rank, 9);
    CHECK(rc == DMESH_SUCCESS && dmesh_copies_restore(c, &ver) == DMESH_SUCCESS && ver == 5 &&
              big_is(b, rank, 5),
          "big: %s: store and restore 5: %d, %d", scheme, rc, ver);
    dmesh_copies_free(&c);
    free(b);
    MPI_Info_free(&info);
}

static int case_plain(MPI_Comm comm)
{
    int rank, size, shape[2], nd, rc, n = -1, p[4], coords[2], ranks[64], member;
    dmesh_t mesh;
    dmesh_copies_t c = DMESH_COPIES_NULL, d = DMESH_COPIES_NULL;
    MPI_Info info;
    state_t s;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    nd = size % 2 == 0 && size > 2 ? 2 : 1;
    shape[0] = nd == 2 ? size / 2 : size;
    shape[1] = 2;
    rc = dmesh_init(comm, "cpu", nd, shape, NULL, MPI_INFO_NULL, &mesh);
    CHECK(rc == DMESH_SUCCESS, "dmesh_init: %d", rc);
    rc = dmesh_copies_open(mesh, NAME, MPI_INFO_NULL, &c);
    CHECK(rc == DMESH_SUCCESS, "open: %d (%s)", rc, dmesh_last_error());
    add_state(c, &s);
    round_trips(comm, c, &s, rank);
    {
        /* a type that is not contiguous whose packed size would pass INT_MAX
         * (MPI_Pack counts in int): refused at the add, nothing registered */
        MPI_Datatype sparse;
        double one = 0;
        MPI_Type_create_resized(MPI_DOUBLE, 0, 16, &sparse);
        MPI_Type_commit(&sparse);
        rc = dmesh_copies_add(c, 7, &one, (MPI_Count)300000000, sparse);
        CHECK(rc == DMESH_ERR_ARG && strstr(dmesh_last_error(), "INT_MAX") != NULL,
              "a packed size past INT_MAX: %d (%s)", rc, dmesh_last_error());
        MPI_Type_free(&sparse);
    }
    /* partners: on one node the flattened mesh's next member */
    dmesh_get_ranks(mesh, 64, ranks, &n);
    rc = dmesh_copies_get_partners(c, 4, p, &n);
    CHECK(rc == DMESH_SUCCESS && n == (size > 1) && (size == 1 || p[0] == ranks[(rank + 1) % size]),
          "partners: %d, n %d, p %d", rc, n, p[0]);
    /* different buffers registered: agreed mismatch, buffers untouched */
    if (rank == size - 1)
        dmesh_copies_add(c, 9, &n, 1, MPI_INT);
    s.a[0] = -1.0;
    rc = dmesh_copies_restore(c, &n);
    CHECK(rc == DMESH_ERR_MISMATCH && s.a[0] == -1.0, "restore with another buffer: %d", rc);
    {
        dmesh_copies_t stale = c;
        dmesh_copies_free(&c);
        CHECK(c == DMESH_COPIES_NULL && dmesh_copies_store(stale, 10) == DMESH_ERR_ARG &&
                  strstr(dmesh_last_error(), "freed or invalid copies handle") != NULL,
              "a freed copies handle: %s", dmesh_last_error());
        CHECK(dmesh_copies_free(&c) == DMESH_SUCCESS, "freeing DMESH_COPIES_NULL");
    }
    /* along dim 0 by name: the next index of dim 0, same column */
    info = info_of("dmesh_copies_dim", "0", NULL, NULL);
    rc = dmesh_copies_open(mesh, "other", info, &d);
    CHECK(rc == DMESH_SUCCESS, "open along dim 0: %d (%s)", rc, dmesh_last_error());
    dmesh_get_coordinate(mesh, 2, coords, &member);
    coords[0] = (coords[0] + 1) % shape[0];
    rc = dmesh_copies_get_partners(d, 4, p, &n);
    CHECK(rc == DMESH_SUCCESS &&
              (shape[0] == 1 || p[0] == ranks[nd == 2 ? coords[0] * 2 + coords[1] : coords[0]]),
          "partners along dim 0: %d", p[0]);
    dmesh_copies_free(&d);
    MPI_Info_set(info, "dmesh_copies_dim", "nodim");
    rc = dmesh_copies_open(mesh, "bad", info, &d);
    CHECK(rc != DMESH_SUCCESS && d == DMESH_COPIES_NULL, "open with a bad dim: %d", rc);
    MPI_Info_free(&info);
    /* a scheme the table does not have: every scheme named */
    info = info_of("dmesh_copies_scheme", "raid6", NULL, NULL);
    rc = dmesh_copies_open(mesh, "bad", info, &d);
    CHECK(rc == DMESH_ERR_ARG && d == DMESH_COPIES_NULL &&
              strstr(dmesh_last_error(), "\"raid6\"") != NULL &&
              strstr(dmesh_last_error(), "\"partner\"") != NULL &&
              strstr(dmesh_last_error(), "\"xor\"") != NULL,
          "open with an unknown scheme: %d (%s)", rc, dmesh_last_error());
    MPI_Info_free(&info);
    if (size >= 2) {
        losses(comm, mesh, "partner", rank, size);
        losses(comm, mesh, "xor", rank, size);
        placement_and_owners(comm, mesh, rank, size);
    }
    big_copies(mesh, "partner", rank, size);
    big_copies(mesh, "xor", rank, size);
    dmesh_free(&mesh);
    return failures != 0;
}

/* ---- hosts (test/node-double.sh: fake hosts) ------------------------------ */

/* Whether ranks a and b of comm are on one host (names gathered). */
static int same_host(const char *names, int a, int b)
{
    return strcmp(names + (size_t)a * MPI_MAX_PROCESSOR_NAME,
                  names + (size_t)b * MPI_MAX_PROCESSOR_NAME) == 0;
}

/* One mesh shape and scheme with the default placement: no copy on its
 * owner's host, the query says so, and every process of the host of rank
 * 0 losing its copies at once (the host died and its processes were
 * replaced) gets its own state back. */
static void host_case(MPI_Comm comm, const char *names, int nd, int swap, const char *scheme)
{
    int rank, size, shape[2], rc, p[16], np = 0, kind = -1, ver = -1;
    MPI_Info info = info_of("dmesh_copies_scheme", scheme, NULL, NULL);
    dmesh_t mesh = DMESH_NULL;
    dmesh_copies_t c = DMESH_COPIES_NULL;
    state_t s, want;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    shape[0] = nd == 2 ? (swap ? 2 : size / 2) : size;
    shape[1] = nd == 2 ? (swap ? size / 2 : 2) : 1;
    rc = dmesh_init(comm, "cpu", nd, shape, NULL, MPI_INFO_NULL, &mesh);
    CHECK(rc == DMESH_SUCCESS, "hosts: dmesh_init %d", rc);
    rc = dmesh_copies_open(mesh, "hosts", info, &c);
    CHECK(rc == DMESH_SUCCESS, "hosts: open %d (%s)", rc, dmesh_last_error());
    dmesh_copies_get_partners(c, 16, p, &np);
    CHECK(np >= 1, "hosts: no partner");
    for (int i = 0; i < np; i++)
        CHECK(!same_host(names, rank, p[i]), "hosts: %d-D%s %s: rank %d's copy at %d, its host", nd,
              swap ? " swapped" : "", scheme, rank, p[i]);
    dmesh_copies_get_survival(c, &kind);
    CHECK(kind == DMESH_COPIES_SURVIVES_DOMAIN, "hosts: survival %d", kind);
    fill(&s, rank, 9);
    want = s;
    add_state(c, &s);
    rc = dmesh_copies_store(c, 4);
    CHECK(rc == DMESH_SUCCESS, "hosts: store %d", rc);
    if (same_host(names, rank, 0)) { /* the host of rank 0 goes */
        dmesh_copies_free(&c);
        memset(&s, 0, sizeof(s));
    }
    {
        dmesh_copies_t old = c;
        rc = dmesh_copies_open(mesh, "hosts", info, &c);
        CHECK(rc == DMESH_SUCCESS, "hosts: open again %d (%s)", rc, dmesh_last_error());
        if (old != DMESH_COPIES_NULL)
            dmesh_copies_free(&old);
        else
            add_state(c, &s);
    }
    rc = dmesh_copies_restore(c, &ver);
    CHECK(rc == DMESH_SUCCESS && ver == 4 && same_state(&s, &want),
          "hosts: %d-D%s %s: after a host's loss: %d, version %d, own state %d (%s)", nd,
          swap ? " swapped" : "", scheme, rc, ver, same_state(&s, &want), dmesh_last_error());
    dmesh_copies_free(&c);
    dmesh_free(&mesh);
    MPI_Info_free(&info);
}

static int case_hosts(MPI_Comm comm)
{
    char name[MPI_MAX_PROCESSOR_NAME], *names;
    int size, len = 0;

    MPI_Comm_size(comm, &size);
    memset(name, 0, sizeof(name));
    MPI_Get_processor_name(name, &len);
    names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  comm);
    for (int nd = 1; nd <= 2; nd++)
        for (int swap = 0; swap < nd; swap++) {
            host_case(comm, names, nd, swap, "partner");
            host_case(comm, names, nd, swap, "xor");
        }
    free(names);
    return failures != 0;
}

/* ---- with failures (ULFM) ------------------------------------------------ */

typedef struct {
    const char *mode; /* respawn, again, pair, sweep */
    int kill;         /* the rank that dies at step 5 */
    int ndims, shape[2];
    int original; /* a process of the first launch */
    int respawns; /* how many this process took part in */
    /* sweep: the call (store, restore), whose process (new: K's
     * replacement), the step of the call at which it dies (0: none, as in
     * the arguments of a later respawn) */
    char call[16], who[16];
    char scheme[16]; /* sweep: dmesh_copies_scheme ("": the default) */
    int step;
    int swept; /* the class the swept call returned here, -1: not met */
} run_t;

static char **sweep_argv; /* a later respawn's arguments: the same, step 0 */

static int parse(int argc, char **argv, run_t *r)
{
    memset(r, 0, sizeof(*r));
    r->mode = argv[1];
    r->kill = atoi(argv[2]);
    r->ndims = argc - 3 > 2 ? 2 : argc - 3;
    for (int d = 0; d < r->ndims; d++)
        r->shape[d] = atoi(argv[3 + d]);
    r->swept = -1;
    if (strncmp(r->mode, "sweep:", 6) == 0) {
        static char again[80];
        int n = sscanf(r->mode, "sweep:%15[a-z]:%15[a-z]:%d:%15[a-z]", r->call, r->who, &r->step,
                       r->scheme);
        if (n < 3)
            return 0;
        snprintf(again, sizeof(again), "sweep:%s:%s:0%s%s", r->call, r->who,
                 r->scheme[0] ? ":" : "", r->scheme);
        sweep_argv = calloc((size_t)argc, sizeof(char *));
        for (int i = 1; i < argc; i++)
            sweep_argv[i - 1] = i == 1 ? again : argv[i];
        r->mode = "sweep";
    }
    return r->ndims >= 1;
}

static int size_of(const run_t *r)
{
    return r->shape[0] * (r->ndims > 1 ? r->shape[1] : 1);
}

/* The sweep's kill: this process dies at the STEP-th step of the next
 * call (rank: of its MPI_COMM_WORLD, 0 in a process a respawn started);
 * off again after it. */
static void sweep_arm(const run_t *r, int on)
{
    char spec[32];
    int wr = 0;

    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    snprintf(spec, sizeof(spec), "%d:%d", wr, r->step);
    setenv("DMESH_FAULT_KILL", on && r->step > 0 ? spec : "", 1);
}

/* Whether this process is the sweep's victim in this call (call) now. */
static int sweep_victim(const run_t *r, const char *call, int rank)
{
    if (strcmp(r->mode, "sweep") != 0 || r->step <= 0 || strcmp(r->call, call) != 0)
        return 0;
    if (strcmp(r->who, "new") == 0)
        return !r->original && r->respawns == 1;
    if (strcmp(call, "store") == 0)
        return r->original && r->respawns == 0 && rank == r->kill;
    return r->original && r->respawns == 1 && rank == (r->kill + 2) % size_of(r);
}

/* The run's copies opened on mesh (the sweep's scheme, if it names one;
 * xor in sets of 2: the restore's sweep kills K and the process two ranks
 * on, which must be in different sets for the state to come back). */
static int open_run(const run_t *r, dmesh_t mesh, dmesh_copies_t *c)
{
    MPI_Info info = MPI_INFO_NULL;
    int rc;

    if (r->scheme[0] != '\0')
        info = info_of("dmesh_copies_scheme", r->scheme, "dmesh_copies_group", "2");
    rc = dmesh_copies_open(mesh, NAME, info, c);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    return rc;
}

/* Open, register, restore: what every process does after a (re)start. */
static int open_restore(run_t *r, dmesh_t mesh, dmesh_copies_t *c, state_t *s, int *ver)
{
    dmesh_copies_t old = *c;
    int rc = open_run(r, mesh, c), rank = 0, victim;

    if (rc != DMESH_SUCCESS)
        return rc;
    if (old != DMESH_COPIES_NULL)
        dmesh_copies_free(&old); /* after the open: the copies moved */
    else
        add_state(*c, s);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* the mesh's rank, in a first-launch process */
    victim = sweep_victim(r, "restore", rank);
    sweep_arm(r, victim);
    rc = dmesh_copies_restore(*c, ver);
    sweep_arm(r, 0);
    if (strcmp(r->mode, "sweep") == 0 && strcmp(r->call, "restore") == 0 && r->swept < 0 &&
        r->respawns == 1 && (r->original || r->step > 0))
        r->swept = rc; /* the swept restore: the first after the first repair */
    return rc;
}

/* The survivors' recovery: revoke, respawn, open, restore. */
static int recover(run_t *r, MPI_Comm *comm, dmesh_t *mesh, dmesh_copies_t *c, state_t *s, int *ver)
{
    MPI_Comm nc = MPI_COMM_NULL;
    dmesh_t nm = DMESH_NULL;
    int rc;

    dmesh_revoke(*mesh);
    for (;;) {
        do /* after the first repair, a sweep's new processes do not die */
            rc = dmesh_respawn(*mesh, NULL, r->respawns > 0 ? sweep_argv : NULL, MPI_INFO_NULL, &nc,
                               &nm);
        while (rc == DMESH_ERR_PROC_FAILED);
        if (rc != DMESH_SUCCESS)
            return rc;
        r->respawns++;
        dmesh_free(mesh);
        MPI_Comm_free(comm);
        *comm = nc;
        *mesh = nm;
        rc = open_restore(r, *mesh, c, s, ver);
        if (rc != DMESH_ERR_PROC_FAILED)
            return rc;
        dmesh_revoke(*mesh); /* a process died in the restore: repair again */
    }
}

/* The step's outcome (rc), the same on every process: agreed under fault
 * tolerance (program() runs the fault cases only), where one process may
 * see an error that another did not. A process whose step failed revokes
 * comm first, so that one still blocked in the step returns and agrees
 * too (as the user guide's loop does). */
static int step_outcome(MPI_Comm comm, int rc)
{
#if DMESH_HAVE_ULFM
    int flag = rc == MPI_SUCCESS;

    if (!flag)
        MPIX_Comm_revoke(comm);
    if (MPIX_Comm_agree(comm, &flag) != MPI_SUCCESS || !flag)
        return rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER;
    return MPI_SUCCESS;
#else
    (void)comm;
    return rc;
#endif
}

/* The program: STEPS steps, a store every 2, the state checked at the end
 * against a clean run computed here. Returns the class that ended it. */
static int program(run_t *r, MPI_Comm comm, dmesh_t mesh, dmesh_copies_t c, state_t *s, int from)
{
    int rank, rc = DMESH_SUCCESS, ver, step = from, holder = -1, n = 0, lo, hi, in[2];
    int sweep = strcmp(r->mode, "sweep") == 0, victim;
    double sum, all;

    MPI_Comm_rank(comm, &rank);
    while (step <= STEPS) {
        if (r->original && r->respawns == 0 && step == 5 &&
            !(sweep && strcmp(r->call, "store") == 0 && strcmp(r->who, "first") == 0)) {
            dmesh_copies_get_partners(c, 1, &holder, &n);
            MPI_Bcast(&holder, 1, MPI_INT, r->kill, comm);
            if (rank == r->kill || (strcmp(r->mode, "pair") == 0 && rank == holder))
                raise(SIGKILL);
        }
        compute(s, rank, step);
        sum = s->a[rank % N];
        rc = MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, comm);
        rc = step_outcome(comm, rc);
        if (rc == MPI_SUCCESS && step % 2 == 0) {
            /* the sweep's store: of step 4 (first), the new process's first */
            int swept = sweep && strcmp(r->call, "store") == 0 && r->swept < 0 &&
                        (strcmp(r->who, "first") == 0 ? step == 4 : r->respawns == 1);
            victim = swept && sweep_victim(r, "store", rank);
            sweep_arm(r, victim);
            rc = dmesh_copies_store(c, step);
            sweep_arm(r, 0);
            /* not a store of a process that came after the swept one */
            if (swept && (r->original || (r->step > 0 && strcmp(r->who, "new") == 0)))
                r->swept = rc;
            rc = rc == DMESH_SUCCESS ? MPI_SUCCESS : MPI_ERR_OTHER;
        }
        if (rc != MPI_SUCCESS) {
            rc = recover(r, &comm, &mesh, &c, s, &ver);
            if (rc != DMESH_SUCCESS)
                break;
            CHECK(sweep || ver == 4, "restored version %d, not 4", ver);
            if (strcmp(r->mode, "again") == 0 && r->original && r->respawns == 1 &&
                rank == (r->kill - 1 + r->shape[0] * (r->ndims > 1 ? r->shape[1] : 1)) %
                            (r->shape[0] * (r->ndims > 1 ? r->shape[1] : 1)))
                raise(SIGKILL); /* the owner of the replacement's partner copy, right away */
            step = ver + 1;
            continue;
        }
        step++;
    }
    if (rc == DMESH_SUCCESS) {
        state_t clean;
        fill(&clean, rank, 0);
        for (int t = 1; t <= STEPS; t++)
            compute(&clean, rank, t);
        CHECK(same_state(&clean, s), "rank %d: the state differs from a clean run", rank);
    }
    if (sweep && rc == DMESH_SUCCESS) {
        /* the swept call's class, alike on every process that met it; the
         * repairs so far (one more than the first: the victim died) */
        in[0] = r->swept >= 0 ? r->swept : INT_MAX;
        in[1] = r->swept >= 0 ? -r->swept : INT_MAX;
        MPI_Allreduce(in, &lo, 1, MPI_INT, MPI_MIN, comm);
        MPI_Allreduce(in + 1, &hi, 1, MPI_INT, MPI_MIN, comm);
        hi = -hi;
        n = r->respawns;
        MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_INT, MPI_MAX, comm);
        CHECK(lo == hi, "the swept %s returned %d on some processes, %d on others", r->call, lo,
              hi);
        if (rank == 0)
            printf("sweep %s %s step %d: %s, %s on every process that met it\n", r->call, r->who,
                   r->step,
                   n > (strcmp(r->who, "first") == 0 && strcmp(r->call, "store") == 0 ? 0 : 1)
                       ? "killed"
                       : "nokill",
                   lo == INT_MAX ? "none" : dmesh_error_string(lo));
    }
    dmesh_copies_free(&c);
    dmesh_free(&mesh);
    MPI_Comm_free(&comm);
    return rc;
}

static int case_fault(int argc, char **argv, MPI_Comm world, MPI_Comm parent)
{
    MPI_Comm comm = MPI_COMM_NULL;
    dmesh_t mesh = DMESH_NULL;
    dmesh_copies_t c = DMESH_COPIES_NULL;
    static state_t s;
    run_t r;
    int rc, rank, ver = DMESH_COPIES_NONE, nf = 0;

    if (!parse(argc, argv, &r))
        return 1;
    r.original = parent == MPI_COMM_NULL;
    if (r.original) {
        MPI_Comm_dup(world, &comm);
        rc = dmesh_init(comm, "cpu", r.ndims, r.shape, NULL, MPI_INFO_NULL, &mesh);
        CHECK(rc == DMESH_SUCCESS, "dmesh_init: %d", rc);
        if (dmesh_get_failed(mesh, 0, NULL, &nf) == DMESH_ERR_UNSUPPORTED)
            return 77;
        MPI_Comm_rank(comm, &rank);
        fill(&s, rank, 0);
        rc = open_run(&r, mesh, &c);
        CHECK(rc == DMESH_SUCCESS, "open: %d (%s)", rc, dmesh_last_error());
        add_state(c, &s);
        rc = dmesh_copies_restore(c, &ver);
        CHECK(rc == DMESH_SUCCESS && ver == DMESH_COPIES_NONE, "first restore: %d, %d", rc, ver);
    } else {
        rc = dmesh_join(MPI_INFO_NULL, NULL, &comm, &mesh);
        CHECK(rc == DMESH_SUCCESS, "dmesh_join: %d (%s)", rc, dmesh_last_error());
        if (rc != DMESH_SUCCESS)
            return 1;
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        memset(&s, 0, sizeof(s));
        r.respawns = 1;
        rc = open_restore(&r, mesh, &c, &s, &ver);
        if (rc == DMESH_ERR_PROC_FAILED) { /* a process died in the restore */
            dmesh_revoke(mesh);
            rc = recover(&r, &comm, &mesh, &c, &s, &ver);
        }
        if (rc == DMESH_SUCCESS)
            CHECK(strcmp(r.mode, "sweep") == 0 || ver == 4, "restored version %d, not 4", ver);
    }
    if (rc == DMESH_SUCCESS)
        rc = program(&r, comm, mesh, c, &s, ver == DMESH_COPIES_NONE ? 1 : ver + 1);
    else {
        dmesh_copies_free(&c);
        dmesh_free(&mesh);
        MPI_Comm_free(&comm);
    }
    if (strcmp(r.mode, "pair") == 0)
        CHECK(rc == DMESH_ERR_DATA_LOST, "a process and its holder lost: %d (%s)", rc,
              dmesh_last_error());
    else
        CHECK(rc == DMESH_SUCCESS, "the run ended with %d (%s)", rc, dmesh_last_error());
    return failures != 0;
}

/* Open MPI 5's MPI_Finalize may hang after a failure (test_respawn.c): 5 s. */
static void finalize_hung(int sig)
{
    static const char msg[] = "test_copies: MPI_Finalize did not return in 5 s: ended\n";
    ssize_t w = write(2, msg, sizeof(msg) - 1);

    (void)sig;
    (void)w;
    _exit(0);
}

int main(int argc, char **argv)
{
    MPI_Comm parent, world;
    int rc = 1, rank = 0, all = 0, fault;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_get_parent(&parent);
    MPI_Type_vector(NV, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
    MPI_Comm_rank(world, &rank);
    if (argc < 2) {
        fprintf(stderr, "usage: test_copies plain | hosts | respawn|again|pair K S0 [S1]\n");
        return 1;
    }
    fault = strcmp(argv[1], "plain") != 0 && strcmp(argv[1], "hosts") != 0;
    if (!fault) {
        rc = strcmp(argv[1], "plain") == 0 ? case_plain(world) : case_hosts(world);
        MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, world);
        rc = all;
    } else if (argc >= 4)
        rc = case_fault(argc, argv, world, parent);
    if (rc == 0)
        printf("test_copies: %s passed\n", argv[1]);
    fflush(stdout);
    MPI_Type_free(&strided);
    if (fault) {
        signal(SIGALRM, finalize_hung);
        alarm(5);
    }
    MPI_Comm_free(&world);
    MPI_Finalize();
    return rc;
}
