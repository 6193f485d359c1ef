/* SPDX-License-Identifier: BSD-3-Clause */
/* Creation benchmark: the same per-dimension groups made by dmesh_init, by
 * one raw MPI_Comm_split per dimension (baseline A, the floor), and by one
 * MPI_Comm_create over the whole communicator for every group of every
 * dimension (baseline B, what a loop of new_group calls costs). Cases run
 * round-robin within each rep, the order rotating from rep to rep, so that
 * drift on a shared machine hits every case alike. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "node.h"
#include "options.h"

int bench_cuda_double; /* set by dmesh-bench-double's CUDA double */

typedef struct {
    const bench_args_t *a;
    MPI_Comm comm;        /* benchmark communicator (a duplicate of WORLD) */
    MPI_Group comm_group; /* its group, for baseline B's MPI_Group_incl */
    int rank, size, n;
    const char *const *names;
    MPI_Info nocheck, group, split;        /* dmesh_check=false; dmesh_comm_create=group, =split */
    MPI_Info shared, cpu_mpi, cuda_shared; /* dmesh_node=shared; dmesh_backend=mpi, both */
    int colour[DMESH_MAX_DIMS], key[DMESH_MAX_DIMS]; /* baseline A's split arguments */
    int *members[DMESH_MAX_DIMS]; /* baseline B: groups of dim d, one after another */
    int ngroups[DMESH_MAX_DIMS];
    int prof;     /* case to profile during the timed region, or -1 */
    int nodes[2]; /* found under dmesh_node auto, shared; 0: uneven nodes (no hybrid mesh) */
} ctx_t;

typedef double (*case_fn)(ctx_t *c);

/* ---- timing frame ---- */

static double timed_begin(ctx_t *c)
{
    MPI_Barrier(c->comm);
    bench_prof_case = c->prof;
    return MPI_Wtime();
}

static double timed_end(double t0)
{
    double t = MPI_Wtime() - t0;

    bench_prof_case = -1;
    return t;
}

static void free_comms(int n, MPI_Comm comms[])
{
    int d;

    for (d = 0; d < n; d++)
        if (comms[d] != MPI_COMM_NULL)
            MPI_Comm_free(&comms[d]);
}

/* ---- baselines ---- */

static void split_all(ctx_t *c, MPI_Comm out[])
{
    int d;

    for (d = 0; d < c->a->ndims; d++)
        MPI_Comm_split(c->comm, c->colour[d], c->key[d], &out[d]);
}

static void create_all(ctx_t *c, MPI_Comm out[])
{
    MPI_Group g;
    MPI_Comm tmp;
    int d, k, gs;

    for (d = 0; d < c->a->ndims; d++) {
        out[d] = MPI_COMM_NULL;
        gs = c->a->shape[d];
        for (k = 0; k < c->ngroups[d]; k++) {
            MPI_Group_incl(c->comm_group, gs, &c->members[d][(size_t)k * gs], &g);
            MPI_Comm_create(c->comm, g, &tmp);
            MPI_Group_free(&g);
            if (tmp != MPI_COMM_NULL)
                out[d] = tmp;
        }
    }
}

static double case_split(ctx_t *c)
{
    MPI_Comm out[DMESH_MAX_DIMS];
    double t = timed_begin(c);

    split_all(c, out);
    t = timed_end(t);
    free_comms(c->a->ndims, out);
    return t;
}

static double case_create(ctx_t *c)
{
    MPI_Comm out[DMESH_MAX_DIMS];
    double t = timed_begin(c);

    create_all(c, out);
    t = timed_end(t);
    free_comms(c->a->ndims, out);
    return t;
}

/* ---- dmesh ---- */

static void init_or_die(ctx_t *c, MPI_Comm comm, MPI_Info info, dmesh_t *m)
{
    int err = dmesh_init(comm, "cpu", c->a->ndims, c->a->shape, c->names, info, m);

    if (err != DMESH_SUCCESS)
        bench_die("dmesh_init", err);
}

static double time_init(ctx_t *c, MPI_Comm comm, MPI_Info info)
{
    dmesh_t m = DMESH_NULL;
    double t = timed_begin(c);

    init_or_die(c, comm, info, &m);
    t = timed_end(t);
    dmesh_free(&m);
    return t;
}

/* The first mesh on a communicator also makes dmesh's private duplicate. */
static double time_first(ctx_t *c, MPI_Info info)
{
    MPI_Comm fresh;
    double t;

    MPI_Comm_dup(c->comm, &fresh);
    t = time_init(c, fresh, info);
    MPI_Comm_free(&fresh);
    return t;
}

static double case_init_nocheck(ctx_t *c)
{
    return time_init(c, c->comm, c->nocheck);
}

static double case_init_check(ctx_t *c)
{
    return time_init(c, c->comm, MPI_INFO_NULL);
}

static double case_init_group(ctx_t *c)
{
    return time_init(c, c->comm, c->group);
}

static double case_init_split(ctx_t *c)
{
    return time_init(c, c->comm, c->split);
}

static double case_first_check(ctx_t *c)
{
    return time_first(c, MPI_INFO_NULL);
}

static double case_first_nocheck(ctx_t *c)
{
    return time_first(c, c->nocheck);
}

/* ---- node finding (dmesh_node): auto against the MPI's split alone ---- */

/* The number of nodes of comm as rule finds them; 0 when they hold
 * different numbers of ranks (no hybrid mesh covers them) or cannot be
 * found. Collective over comm. */
static int count_nodes(MPI_Comm comm, int rule)
{
    int *lows = NULL, *count, size, nodes = 0, per = -1;

    MPI_Comm_size(comm, &size);
    if (dmesh_node_lows(comm, rule, NULL, &lows, NULL) != DMESH_SUCCESS)
        return 0;
    if ((count = calloc((size_t)size, sizeof(int))) == NULL)
        bench_die("node counts", DMESH_ERR_NOMEM);
    for (int r = 0; r < size; r++)
        count[lows[r]]++;
    for (int r = 0; r < size; r++)
        if (count[r] > 0) {
            nodes++;
            per = per == -1 || per == count[r] ? count[r] : 0;
        }
    free(count);
    free(lows);
    return per > 0 ? nodes : 0;
}

/* Seconds of one creation on a fresh duplicate of the communicator (made
 * and freed outside the timed region): its nodes are found anew, as at the
 * first creation on a communicator (later ones take them from the private
 * duplicate). hybrid: a 1-D dmesh_init_hybrid across the nodes found
 * (in_node 0: the ranks per node, across: the nodes, one or several), NAN
 * (not measured) on uneven nodes; else a "cuda" dmesh_init with info
 * (device binding), under the CUDA double of dmesh-bench-double only (NAN
 * elsewhere). */
static double time_nodes(ctx_t *c, int hybrid, MPI_Info info, int nodes)
{
    int in_node[1] = {0}, across[1] = {nodes}, rc;
    const bench_args_t *a = c->a;
    dmesh_t m = DMESH_NULL;
    MPI_Comm fresh;
    double t;

    if ((hybrid && nodes == 0) || (!hybrid && !bench_cuda_double))
        return NAN;
    MPI_Comm_dup(c->comm, &fresh);
    t = timed_begin(c);
    rc = hybrid ? dmesh_init_hybrid(fresh, "cpu", 1, in_node, across, c->names, info, &m)
                : dmesh_init(fresh, "cuda", a->ndims, a->shape, c->names, info, &m);
    t = timed_end(t);
    if (rc != DMESH_SUCCESS)
        bench_die(hybrid ? "dmesh_init_hybrid across the nodes found"
                         : "dmesh_init of a cuda mesh (CUDA double)",
                  rc);
    dmesh_free(&m);
    MPI_Comm_free(&fresh);
    return t;
}

static double case_hybrid(ctx_t *c)
{
    return time_nodes(c, 1, MPI_INFO_NULL, c->nodes[0]);
}

static double case_hybrid_shared(ctx_t *c)
{
    return time_nodes(c, 1, c->shared, c->nodes[1]);
}

static double case_cuda(ctx_t *c)
{
    return time_nodes(c, 0, c->cpu_mpi, 0);
}

static double case_cuda_shared(ctx_t *c)
{
    return time_nodes(c, 0, c->cuda_shared, 0);
}

/* ---- components of dmesh_init, timed alone ---- */

static double case_dup(ctx_t *c)
{
    MPI_Comm d;
    double t = timed_begin(c);

    MPI_Comm_dup(c->comm, &d);
    t = timed_end(t);
    MPI_Comm_free(&d);
    return t;
}

/* What the agreement check adds: one allreduce of 3 x 64 bits (dmesh_agree). */
static double case_agree(ctx_t *c)
{
    int64_t in[3] = {1, 2, 3}, out[3];
    double t = timed_begin(c);

    MPI_Allreduce(in, out, 3, MPI_INT64_T, MPI_MIN, c->comm);
    return timed_end(t);
}

static const struct {
    const char *key, *label;
    case_fn fn;
} cases[] = {
    {"A", "A: MPI_Comm_split per dim (floor)", case_split},
    {"B", "B: MPI_Comm_create per group (new_group loop)", case_create},
    {"init", "dmesh_init, checks off (repeated)", case_init_nocheck},
    {"init_check", "dmesh_init, checks on (repeated)", case_init_check},
    {"init_group", "dmesh_init, comm_create=group (repeated)", case_init_group},
    {"init_split", "dmesh_init, comm_create=split (repeated)", case_init_split},
    {"first", "dmesh_init, first mesh on a new comm", case_first_check},
    {"first_nocheck", "dmesh_init, first mesh, checks off", case_first_nocheck},
    {"hybrid", "dmesh_init_hybrid, new comm, dmesh_node=auto", case_hybrid},
    {"hybrid_shared", "dmesh_init_hybrid, new comm, dmesh_node=shared", case_hybrid_shared},
    {"cuda", "\"cuda\" dmesh_init (double), new comm, auto", case_cuda},
    {"cuda_shared", "\"cuda\" dmesh_init (double), new comm, shared", case_cuda_shared},
    {"dup", "component: MPI_Comm_dup", case_dup},
    {"agree", "component: MPI_Allreduce 2 x uint64", case_agree},
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

/* ---- setup ---- */

static void make_groups(ctx_t *c, int d)
{
    int i, colour, key, gs = c->a->shape[d];

    c->ngroups[d] = c->n / gs;
    if ((c->members[d] = malloc((size_t)c->n * sizeof(int))) == NULL)
        bench_die("baseline B group lists", DMESH_ERR_NOMEM);
    for (i = 0; i < c->n; i++) {
        bench_reference_split(c->a->ndims, c->a->shape, i, d, &colour, &key);
        c->members[d][(size_t)colour * gs + key] = i;
    }
}

/* An info object with key set to value. */
static MPI_Info info_of(const char *key, const char *value)
{
    MPI_Info info;

    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    return info;
}

static void ctx_init(ctx_t *c, const bench_args_t *a, MPI_Comm comm)
{
    int d;

    memset(c, 0, sizeof(*c));
    c->a = a;
    c->comm = comm;
    c->prof = -1;
    c->names = bench_names(a->ndims);
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->size);
    MPI_Comm_group(comm, &c->comm_group);
    for (c->n = 1, d = 0; d < a->ndims; d++)
        c->n *= a->shape[d];
    for (d = 0; d < a->ndims; d++) {
        c->colour[d] = MPI_UNDEFINED;
        if (c->rank < c->n)
            bench_reference_split(a->ndims, a->shape, c->rank, d, &c->colour[d], &c->key[d]);
        make_groups(c, d);
    }
    c->nocheck = info_of("dmesh_check", "false");
    c->group = info_of("dmesh_comm_create", "group");
    c->split = info_of("dmesh_comm_create", "split");
    c->shared = info_of("dmesh_node", "shared");
    c->cpu_mpi = info_of("dmesh_backend", "mpi");
    c->cuda_shared = info_of("dmesh_backend", "mpi");
    MPI_Info_set(c->cuda_shared, "dmesh_node", "shared");
    c->nodes[0] = count_nodes(comm, DMESH_NODE_AUTO);
    c->nodes[1] = count_nodes(comm, DMESH_NODE_SHARED);
}

static void ctx_free(ctx_t *c)
{
    int d;

    for (d = 0; d < c->a->ndims; d++)
        free(c->members[d]);
    MPI_Info_free(&c->nocheck);
    MPI_Info_free(&c->shared);
    MPI_Info_free(&c->cpu_mpi);
    MPI_Info_free(&c->cuda_shared);
    MPI_Info_free(&c->group);
    MPI_Info_free(&c->split);
    MPI_Group_free(&c->comm_group);
}

/* 0 when a and b are both MPI_COMM_NULL or have the same members in the
 * same order. */
static int differ(MPI_Comm a, MPI_Comm b)
{
    int result;

    if (a == MPI_COMM_NULL || b == MPI_COMM_NULL)
        return a != b;
    MPI_Comm_compare(a, b, &result);
    return result != MPI_CONGRUENT;
}

/* The three constructions must make the same communicators. */
static void verify(ctx_t *c, bench_report_t *r)
{
    MPI_Comm sa[DMESH_MAX_DIMS], cb[DMESH_MAX_DIMS], dm;
    dmesh_t m = DMESH_NULL, g = DMESH_NULL;
    int d, bad = 0, any;

    split_all(c, sa);
    create_all(c, cb);
    init_or_die(c, c->comm, c->split, &m);
    init_or_die(c, c->comm, c->group, &g);
    for (d = 0; d < c->a->ndims; d++) {
        dmesh_get_comm(m, d, &dm);
        bad |= differ(dm, sa[d]) | differ(cb[d], sa[d]);
        dmesh_get_comm(g, d, &dm);
        bad |= differ(dm, sa[d]);
    }
    dmesh_free(&g);
    dmesh_free(&m);
    free_comms(c->a->ndims, cb);
    free_comms(c->a->ndims, sa);
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, c->comm);
    if (any)
        bench_die("dmesh, baseline A and baseline B made different communicators",
                  DMESH_ERR_INTERNAL);
    bench_note(r, "verified once per run: dmesh_init (split and group), baseline A and baseline B "
                  "give congruent communicators on every dim (MPI_Comm_compare)");
}

/* ---- runs and statistics ---- */

static void summarise(ctx_t *c, double *samples, double *total, bench_report_t *r)
{
    double mine[PROF_N + 1], worst[PROF_N + 1], sum;
    int j, f, reps = c->a->reps;

    for (j = 0; j < NCASES; j++) {
        bench_case_t *bc = &r->cases[r->ncases++];
        memset(bc, 0, sizeof(*bc));
        bc->key = cases[j].key;
        bc->label = cases[j].label;
        bc->med = bench_median(&samples[j * reps], reps); /* sorts: [0] is the min */
        bc->min = samples[j * reps];
        if (!c->a->profile)
            continue;
        for (sum = 0, f = 0; f < PROF_N; f++)
            sum += mine[f] = bench_prof_time[j][f] / reps;
        mine[PROF_N] = total[j] / reps - sum;
        MPI_Reduce(mine, worst, PROF_N + 1, MPI_DOUBLE, MPI_MAX, 0, c->comm);
        memcpy(bc->prof, worst, sizeof(bc->prof));
        bc->prof_other = worst[PROF_N];
        bc->profiled = 1;
    }
}

static void run(ctx_t *c, bench_report_t *r)
{
    int reps = c->a->reps, w, rep, jj, j;
    double *samples = malloc(sizeof(double) * NCASES * (size_t)reps);
    double local[NCASES], global[NCASES], total[NCASES] = {0};

    if (samples == NULL)
        bench_die("samples", DMESH_ERR_NOMEM);
    for (w = 0; w < c->a->warmup; w++)
        for (j = 0; j < NCASES; j++)
            cases[j].fn(c);
    memset(bench_prof_time, 0, sizeof(bench_prof_time));
    for (rep = 0; rep < reps; rep++) {
        for (jj = 0; jj < NCASES; jj++) {
            j = (jj + rep) % NCASES;
            c->prof = c->a->profile ? j : -1;
            total[j] += local[j] = cases[j].fn(c);
        }
        c->prof = -1;
        MPI_Allreduce(local, global, NCASES, MPI_DOUBLE, MPI_MAX, c->comm);
        for (j = 0; j < NCASES; j++)
            samples[j * reps + rep] = global[j];
    }
    summarise(c, samples, total, r);
    free(samples);
}

void bench_create(const bench_args_t *a, MPI_Comm comm, bench_report_t *r)
{
    ctx_t c;

    ctx_init(&c, a, comm);
    r->nodes = c.nodes[0];
    verify(&c, r);
    run(&c, r);
    if (c.nodes[0] == 0 || c.nodes[1] == 0)
        bench_note(r, "dmesh_init_hybrid over the nodes: not measured (n/a, null in --json): the "
                      "nodes hold different numbers of ranks, so no hybrid mesh covers them");
    if (!bench_cuda_double)
        bench_note(r, "\"cuda\" dmesh_init: not measured (n/a, null in --json): only "
                      "dmesh-bench-double (a CUDA double of 8 GPUs) makes \"cuda\" meshes");
    ctx_free(&c);
}
