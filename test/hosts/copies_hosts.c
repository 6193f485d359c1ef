/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * copies_hosts: the loss of a whole host, for the copies in memory, on a
 * mesh of any shape (test/hosts/copies-host-loss.sh runs it on namespace
 * hosts, under mpiexec --with-ft ulfm, placed block or cyclic).
 *
 *   copies_hosts SHAPE ORDER SCHEME STEPS KILL
 *   SHAPE  8, 2x4, 4x2, ...: the mesh
 *   ORDER  block: the mesh in rank order (dmesh_init), as the launcher
 *          placed the ranks; cyclic: the mesh's row-major positions go
 *          round the hosts (dmesh_create: the first rank of each host in
 *          turn, then the second, ...), as a launch with cyclic placement
 *          gives (launched with --rank-by node, Open MPI 5.0.7's agreement
 *          across hosts did not complete once a host was lost:
 *          test/hosts/copies-host-loss.sh)
 *   SCHEME partner or xor (info dmesh_copies_scheme; a replacement gets the
 *          same arguments: dmesh_respawn starts the program with its own)
 *   STEPS  steps; a store every CKPT steps
 *   KILL   at the start of this step rank 0 runs $COPIES_HOSTS_KILL (sh -c,
 *          test/hosts/hosts.sh's kill-host: every process of a host) once
 *   DIM    (optional) info dmesh_copies_dim=DIM: the copies along that
 *          dimension, wherever its members are (the script's control: copies
 *          inside a host, lost with it: DMESH_ERR_DATA_LOST)
 *
 * Each process's state is STATE words, each step a function of the
 * state, the process's rank and the step: a state lost or restored from
 * another process changes the final checksum, which the script compares
 * with a run without a kill. Each restore also checks, on every process,
 * that the state it got back is its own and of the version restored (its
 * first word is the rank, its second the step). The survivors repair with
 * dmesh_respawn (DMESH_RESPAWN_HOSTS: where the replacements start), the
 * replacements with dmesh_join; every step's outcome is agreed
 * (MPIX_Comm_agree) so that every process stores or every one repairs.
 * Rank 0 prints, at the start and after each repair, the host of each
 * position of the mesh (row-major) and
 * whether every copy is held on another host than its owner's, and at the
 * end the recoveries, the restores that gave a process another's state,
 * and the checksum.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <mpi-ext.h>
#include <dmesh.h>

#define CKPT 5
#define STATE 8192
#define MAXD 4

typedef struct {
    MPI_Comm comm;
    dmesh_t mesh;
    dmesh_copies_t copies;
    const char *scheme, *dim;
    uint64_t *u;
    int rank, stored, recoveries, foreign;
} state_t;

static void revoke_all(state_t *s)
{
    dmesh_revoke(s->mesh);
    MPIX_Comm_revoke(s->comm);
}

/* The step's outcome, the same on every process (see examples/heat_respawn.c). */
static int failed_anywhere(state_t *s, int bad)
{
    int flag;

    if (bad)
        revoke_all(s);
    flag = !bad;
    if (MPIX_Comm_agree(s->comm, &flag) != MPI_SUCCESS)
        return 1;
    return !flag;
}

static void fresh_state(state_t *s)
{
    for (int i = 0; i < STATE; i++)
        s->u[i] = (uint64_t)s->rank * 1000003u + (uint64_t)i;
    s->u[0] = (uint64_t)s->rank;
    s->u[1] = 0;
}

/* One step: every word but the rank moves with the rank and the step. */
static void advance(state_t *s, int step)
{
    s->u[1] = (uint64_t)step + 1;
    for (int i = 2; i < STATE; i++)
        s->u[i] = s->u[i] * 6364136223846793005u + (uint64_t)s->rank * 31u + (uint64_t)step + 1u;
}

static uint64_t checksum(const state_t *s)
{
    uint64_t h = 1469598103934665603u;
    for (int i = 0; i < STATE; i++)
        h = (h ^ s->u[i]) * 1099511628211u;
    return h;
}

/* Rank 0 prints where the processes are and whether every member's copies
 * are held on other hosts only. */
static int report(state_t *s)
{
    char me[MPI_MAX_PROCESSOR_NAME] = "", *all;
    int size, len = 0, np = 0, partners[16], other = 1, kind = -1, most;

    MPI_Comm_size(s->comm, &size);
    MPI_Get_processor_name(me, &len);
    all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    if (all == NULL || MPI_Allgather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all,
                                     MPI_MAX_PROCESSOR_NAME, MPI_CHAR, s->comm) != MPI_SUCCESS) {
        free(all);
        return 1;
    }
    if (dmesh_copies_get_partners(s->copies, 16, partners, &np) != DMESH_SUCCESS || np < 1)
        other = 0;
    for (int k = 0; k < np && k < 16; k++)
        other &= strcmp(all + (size_t)partners[k] * MPI_MAX_PROCESSOR_NAME, me) != 0;
    if (dmesh_copies_get_survival(s->copies, &kind) != DMESH_SUCCESS ||
        kind != DMESH_COPIES_SURVIVES_DOMAIN)
        other = 0;
    most = other;
    if (MPI_Allreduce(&other, &most, 1, MPI_INT, MPI_MIN, s->comm) != MPI_SUCCESS) {
        free(all);
        return 1;
    }
    if (s->rank == 0) { /* the hosts in the mesh's row-major order */
        int *ranks = malloc((size_t)size * sizeof(int)), n = 0;
        if (ranks == NULL || dmesh_get_ranks(s->mesh, size, ranks, &n) != DMESH_SUCCESS)
            n = 0;
        printf("copies_hosts: after %d recoveries: hosts", s->recoveries);
        for (int k = 0; k < n; k++)
            printf(" %s", all + (size_t)ranks[k] * MPI_MAX_PROCESSOR_NAME);
        free(ranks);
        printf("; copies held on other hosts: %s\n", most ? "yes" : "no");
        fflush(stdout);
    }
    free(all);
    return 0;
}

static void end_run(const char *what, int rc)
{
    fprintf(stderr, "copies_hosts: %s: %s (%s)\n", what, dmesh_error_string(rc),
            dmesh_last_error());
    fflush(NULL);
    exit(1);
}

/* Open the copies on this mesh and restore them; *step: the version every
 * process went back to (0: none stored). 1: a process died, repair again. */
static int restore(state_t *s, int *step)
{
    dmesh_copies_t fresh = DMESH_COPIES_NULL;
    MPI_Info info;
    int v = DMESH_COPIES_NONE, rc, in[3], out[3] = {1, 0, 0};

    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_copies_scheme", s->scheme);
    if (s->dim != NULL)
        MPI_Info_set(info, "dmesh_copies_dim", s->dim);
    rc = dmesh_copies_open(s->mesh, "state", info, &fresh);
    MPI_Info_free(&info);
    dmesh_copies_free(&s->copies);
    s->copies = fresh;
    if (rc == DMESH_SUCCESS)
        rc = dmesh_copies_add(s->copies, 0, s->u, STATE, MPI_UINT64_T);
    if (rc == DMESH_SUCCESS)
        rc = dmesh_copies_restore(s->copies, &v);
    in[0] = rc == DMESH_ERR_PROC_FAILED ? 1 : rc != DMESH_SUCCESS ? 2 : 0;
    in[1] = rc;
    /* another process's state, or a version other than the one restored */
    in[2] = rc == DMESH_SUCCESS && v != DMESH_COPIES_NONE &&
            (s->u[0] != (uint64_t)s->rank || s->u[1] != (uint64_t)v);
    if (failed_anywhere(s, MPI_Allreduce(in, out, 3, MPI_INT, MPI_MAX, s->comm) != MPI_SUCCESS))
        return 1;
    if (out[0] == 2)
        end_run("the copies", rc != DMESH_SUCCESS ? rc : out[1]);
    if (out[0] == 1)
        return 1;
    s->foreign += out[2];
    if (failed_anywhere(s, MPI_Allreduce(&v, step, 1, MPI_INT, MPI_MAX, s->comm) != MPI_SUCCESS ||
                               MPI_Allreduce(MPI_IN_PLACE, &s->recoveries, 1, MPI_INT, MPI_MAX,
                                             s->comm) != MPI_SUCCESS))
        return 1;
    if (*step < 0)
        fresh_state(s);
    *step = *step < 0 ? 0 : *step;
    s->stored = *step;
    return 0;
}

/* The replacements unbound (info bind_to, Open MPI 5): the hosts of
 * test/hosts/hosts.sh have more slots than the machine's cores. */
static int repair(state_t *s)
{
    int rc, step = 0;
    MPI_Info info;

    MPI_Info_create(&info);
    MPI_Info_set(info, "bind_to", "none");
    do {
        MPI_Comm back = MPI_COMM_NULL;
        dmesh_t again = DMESH_NULL;
        revoke_all(s);
        do
            rc = dmesh_respawn(s->mesh, NULL, NULL, info, &back, &again);
        while (rc == DMESH_ERR_PROC_FAILED);
        if (rc != DMESH_SUCCESS)
            end_run("dmesh_respawn", rc);
        dmesh_free(&s->mesh);
        MPI_Comm_free(&s->comm);
        s->comm = back;
        s->mesh = again;
        s->recoveries++;
    } while (restore(s, &step) != 0);
    MPI_Info_free(&info);
    return step;
}

/* ORDER cyclic: ranks[] of dmesh_create, the hosts taken in turn (the
 * hosts in the order of their lowest rank; a host with fewer ranks drops
 * out of the turn). Collective over comm. */
static int *cyclic_ranks(MPI_Comm comm, int size)
{
    char me[MPI_MAX_PROCESSOR_NAME] = "", *all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    int len = 0, *host = malloc((size_t)size * sizeof(int)),
        *nth = calloc((size_t)size, sizeof(int));
    int *ranks = malloc((size_t)size * sizeof(int)), n = 0;

    MPI_Get_processor_name(me, &len);
    MPI_Allgather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  comm);
    for (int r = 0; r < size;
         r++) { /* host[r]: the lowest rank of r's host; nth[r]: r's place there */
        host[r] = r;
        for (int q = 0; q < r; q++)
            if (strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME,
                       all + (size_t)r * MPI_MAX_PROCESSOR_NAME) == 0) {
                host[r] = host[q];
                nth[r] = nth[q] + 1;
            }
    }
    for (int k = 0; n < size; k++)
        for (int r = 0; r < size; r++)
            if (host[r] == r) /* the hosts in turn: r's host's k-th rank */
                for (int q = r; q < size; q++)
                    if (host[q] == r && nth[q] == k)
                        ranks[n++] = q;
    free(all);
    free(host);
    free(nth);
    return ranks;
}

static int parse_shape(const char *text, int shape[MAXD])
{
    int n = 0;
    const char *p = text;

    while (n < MAXD && *p != '\0') {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1)
            return 0;
        shape[n++] = (int)v;
        p = *end == 'x' ? end + 1 : end;
        if (*end != 'x' && *end != '\0')
            return 0;
    }
    return *p == '\0' ? n : 0;
}

int main(int argc, char **argv)
{
    const char *names[MAXD] = {"a", "b", "c", "d"};
    int shape[MAXD], ndims, steps, kill_step, it = 0, size, bad, total = 1;
    uint64_t h, all;
    MPI_Comm parent;
    state_t s;

    MPI_Init(&argc, &argv);
    signal(SIGPIPE, SIG_IGN);
    memset(&s, 0, sizeof(s));
    ndims = argc == 6 || argc == 7 ? parse_shape(argv[1], shape) : 0;
    if (ndims == 0 || (strcmp(argv[2], "block") != 0 && strcmp(argv[2], "cyclic") != 0) ||
        (strcmp(argv[3], "partner") != 0 && strcmp(argv[3], "xor") != 0)) {
        fprintf(
            stderr,
            "usage: copies_hosts SHAPE(8, 2x4, ...) block|cyclic partner|xor STEPS KILL [DIM]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    s.scheme = argv[3];
    steps = atoi(argv[4]);
    kill_step = atoi(argv[5]);
    s.dim = argc == 7 ? argv[6] : NULL;
    s.u = malloc(STATE * sizeof(uint64_t));
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        MPI_Comm_dup(MPI_COMM_WORLD, &s.comm);
        MPI_Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN);
        MPI_Comm_size(s.comm, &size);
        for (int d = 0; d < ndims; d++)
            total *= shape[d];
        if (total != size) {
            fprintf(stderr, "copies_hosts: shape %s is not %d processes\n", argv[1], size);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (strcmp(argv[2], "cyclic") == 0) {
            int *ranks = cyclic_ranks(s.comm, size);
            if (dmesh_create(s.comm, "cpu", ndims, shape, ranks, names, MPI_INFO_NULL, &s.mesh) !=
                DMESH_SUCCESS)
                end_run("dmesh_create", DMESH_ERR_ARG);
            free(ranks);
        } else if (dmesh_init(s.comm, "cpu", ndims, shape, names, MPI_INFO_NULL, &s.mesh) !=
                   DMESH_SUCCESS) {
            end_run("dmesh_init", DMESH_ERR_ARG);
        }
    } else {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        if (dmesh_join(MPI_INFO_NULL, NULL, &s.comm, &s.mesh) != DMESH_SUCCESS)
            end_run("dmesh_join", DMESH_ERR_ARG);
    }
    MPI_Comm_rank(s.comm, &s.rank);
    fresh_state(&s);
    if (restore(&s, &it) != 0)
        it = repair(&s);
    while (failed_anywhere(&s, report(&s) != 0))
        it = repair(&s);
    while (it < steps) {
        bad = 0;
        if (it == kill_step && s.rank == 0 && s.recoveries == 0 && getenv("COPIES_HOSTS_KILL")) {
            if (system(getenv("COPIES_HOSTS_KILL")) != 0)
                fprintf(stderr, "copies_hosts: the kill command failed\n");
        }
        if (it % CKPT == 0 && it > s.stored) {
            bad = dmesh_copies_store(s.copies, it) != DMESH_SUCCESS;
            if (!bad)
                s.stored = it;
        }
        advance(&s, it);
        h = checksum(&s);
        if (!bad)
            bad = MPI_Allreduce(&h, &all, 1, MPI_UINT64_T, MPI_BXOR, s.comm) != MPI_SUCCESS;
        if (!failed_anywhere(&s, bad)) {
            it++;
            continue;
        }
        do
            it = repair(&s);
        while (failed_anywhere(&s, report(&s) != 0));
    }
    if (s.rank == 0) {
        printf("copies_hosts: %s %s %s: %d recoveries, %d restores gave another's state, checksum "
               "%016llx\n",
               argv[1], argv[2], s.scheme, s.recoveries, s.foreign, (unsigned long long)all);
        fflush(stdout);
    }
    dmesh_copies_free(&s.copies);
    dmesh_free(&s.mesh);
    MPI_Comm_free(&s.comm);
    free(s.u);
    MPI_Finalize();
    return 0;
}
