/* SPDX-License-Identifier: BSD-3-Clause */
/* Local operations on a 4-D mesh of the whole communicator, in ns per call,
 * and the memory a live mesh holds. Every rank times its own calls in
 * batches short against a scheduler time slice and keeps its best batch, so
 * that an oversubscribed run still measures the call rather than the
 * preemption; the report gives the median of those over ranks. */
#include "config.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "mesh.h"

#define BATCH 100     /* calls per batch */
#define BATCHES 200   /* batches per operation */
#define COLLECTIVE 50 /* calls of a collective operation */
#define KEPT 64       /* sliced handles measured together */

typedef struct {
    MPI_Comm comm;
    dmesh_t mesh; /* 4-D, named d0..d3 */
    dmesh_t sub;  /* slice (d2, d3), already flattened once */
    MPI_Info nocheck;
    dmesh_t out[BATCH];
    volatile int sink;
} lctx_t;

typedef void (*op_fn)(lctx_t *c, int i);

static const char *const slice_names[2] = {"d1", "d3"};

static void check(int err, const char *what)
{
    if (err != DMESH_SUCCESS)
        bench_die(what, err);
}

static void op_slice(lctx_t *c, int i)
{
    check(dmesh_slice(c->mesh, 2, slice_names, &c->out[i]), "dmesh_slice");
}

static void op_flatten(lctx_t *c, int i)
{
    check(dmesh_flatten(c->sub, NULL, c->nocheck, &c->out[i]), "dmesh_flatten");
}

static void op_coordinate(lctx_t *c, int i)
{
    int coords[DMESH_MAX_DIMS], member;

    (void)i;
    check(dmesh_get_coordinate(c->mesh, DMESH_MAX_DIMS, coords, &member), "dmesh_get_coordinate");
    c->sink = coords[0];
}

static void op_comm(lctx_t *c, int i)
{
    MPI_Comm comm;

    check(dmesh_get_comm(c->mesh, i & 3, &comm), "dmesh_get_comm");
    c->sink = comm != MPI_COMM_NULL;
}

static void op_local_rank(lctx_t *c, int i)
{
    int lr;

    check(dmesh_get_local_rank(c->mesh, i & 3, &lr), "dmesh_get_local_rank");
    c->sink = lr;
}

/* Frees the handles a batch of slice/flatten left; with *t, times it. */
static void free_out(lctx_t *c, double *t)
{
    double t0 = bench_now();
    int i;

    for (i = 0; i < BATCH; i++)
        dmesh_free(&c->out[i]);
    if (t != NULL)
        *t = bench_now() - t0;
}

/* Best ns per call over BATCHES batches on this rank (batch 0 warms up).
 * With kept, a batch keeps the BATCH handles the op makes and frees them
 * afterwards (timed into *free_ns); otherwise every call is followed by
 * dmesh_free of its handle, timed with it: the steady state in which malloc
 * hands the same memory back each time. */
static double time_op(lctx_t *c, op_fn op, int kept, double *free_ns)
{
    double best = 1e30, best_free = 1e30, t, tf = 0;
    int b, i;

    for (b = 0; b <= BATCHES; b++) {
        t = bench_now();
        for (i = 0; i < BATCH; i++) {
            op(c, kept ? i : 0);
            if (!kept)
                dmesh_free(&c->out[0]);
        }
        t = bench_now() - t;
        free_out(c, &tf);
        if (b > 0 && t < best)
            best = t;
        if (b > 0 && tf < best_free)
            best_free = tf;
    }
    if (free_ns != NULL)
        *free_ns = best_free * 1e9 / BATCH;
    return best * 1e9 / BATCH;
}

/* Median over ranks (on rank 0) of each rank's value. */
static double median_over_ranks(MPI_Comm comm, double v)
{
    int size, rank;
    double *all = NULL, m = 0;

    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (rank == 0 && (all = malloc((size_t)size * sizeof(double))) == NULL)
        bench_die("median over ranks", DMESH_ERR_NOMEM);
    MPI_Gather(&v, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, comm);
    if (rank == 0)
        m = bench_median(all, size);
    free(all);
    return m;
}

/* flatten with the agreement check on: one allreduce per call, collective. */
static double time_flatten_checked(lctx_t *c)
{
    double t, worst;
    int i;

    MPI_Barrier(c->comm);
    t = MPI_Wtime();
    for (i = 0; i < COLLECTIVE; i++) {
        check(dmesh_flatten(c->sub, NULL, MPI_INFO_NULL, &c->out[0]), "dmesh_flatten");
        dmesh_free(&c->out[0]);
    }
    t = (MPI_Wtime() - t) * 1e9 / COLLECTIVE;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    return worst;
}

static void local_ops(lctx_t *c, bench_report_t *r)
{
    double free_ns, v;

    v = median_over_ranks(c->comm, time_op(c, op_slice, 0, NULL));
    bench_item(r, "local", "slice", "dmesh_slice + dmesh_free, 2 names of a 4-D mesh", v, "ns");
    v = median_over_ranks(c->comm, time_op(c, op_slice, 1, &free_ns));
    bench_item(r, "local", "slice_kept", "dmesh_slice, 100 handles kept (fresh heap pages)", v,
               "ns");
    v = median_over_ranks(c->comm, free_ns);
    bench_item(r, "local", "free_kept", "dmesh_free of those 100 sliced meshes", v, "ns");
    v = median_over_ranks(c->comm, time_op(c, op_flatten, 0, NULL));
    bench_item(r, "local", "flatten_hit", "dmesh_flatten + dmesh_free, cache hit, checks off", v,
               "ns");
    v = median_over_ranks(c->comm, time_op(c, op_flatten, 1, NULL));
    bench_item(r, "local", "flatten_hit_kept", "dmesh_flatten, cache hit, 100 handles kept", v,
               "ns");
    v = median_over_ranks(c->comm, time_op(c, op_coordinate, 1, NULL));
    bench_item(r, "local", "get_coordinate", "dmesh_get_coordinate (4-D)", v, "ns");
    v = median_over_ranks(c->comm, time_op(c, op_comm, 1, NULL));
    bench_item(r, "local", "get_comm", "dmesh_get_comm", v, "ns");
    v = median_over_ranks(c->comm, time_op(c, op_local_rank, 1, NULL));
    bench_item(r, "local", "get_local_rank", "dmesh_get_local_rank", v, "ns");
    v = time_flatten_checked(c);
    bench_item(r, "local", "flatten_hit_checked",
               "dmesh_flatten + free, cache hit, checks on (collective; max)", v, "ns");
}

static size_t heap_used(void)
{
    return mallinfo2().uordblks;
}

/* Heap growth (mallinfo2) of a repeated dmesh_init and of the same splits
 * done raw: the difference is what dmesh itself keeps. */
static void memory_live(lctx_t *c, const bench_args_t *a, bench_report_t *r)
{
    MPI_Comm comms[DMESH_MAX_DIMS];
    dmesh_t m = DMESH_NULL, s[KEPT];
    size_t h0, h1, h2;
    int d, rank, colour, key;

    MPI_Comm_rank(c->comm, &rank);
    h0 = heap_used();
    check(dmesh_init(c->comm, "cpu", a->ndims, a->shape, bench_names(a->ndims), MPI_INFO_NULL, &m),
          "dmesh_init");
    h1 = heap_used();
    for (d = 0; d < KEPT; d++) /* many: malloc's per-thread cache may hold a few chunks */
        check(dmesh_slice(m, 1, bench_names(1), &s[d]), "dmesh_slice");
    h2 = heap_used();
    bench_item(r, "memory", "live_handle_sizeof",
               "mesh handle: header sizeof(struct dmesh_mesh), + sizeof(dmesh_dim_t) per dim",
               (double)sizeof(struct dmesh_mesh), "B");
    bench_item(r, "memory", "live_dim_sizeof", "mesh handle: one dim record, sizeof(dmesh_dim_t)",
               (double)sizeof(dmesh_dim_t), "B");
    bench_item(r, "memory", "live_slice_heap",
               "dmesh_slice (1 dim): heap growth per handle, 64 kept (mallinfo2)",
               (double)(h2 - h1) / KEPT, "B");
    bench_item(r, "memory", "live_universe", "universe: struct + cache + rank map (sizeof sums)",
               (double)dmesh_universe_bytes(dmesh_handle_mesh(m)->u), "B");
    bench_item(r, "memory", "live_init_heap", "dmesh_init: heap growth incl. MPI's communicators",
               (double)(h1 - h0), "B");
    for (d = 0; d < KEPT; d++)
        dmesh_free(&s[d]);
    dmesh_free(&m);
    h0 = heap_used();
    for (d = 0; d < a->ndims; d++) {
        colour = MPI_UNDEFINED;
        key = 0;
        if (rank < r->n)
            bench_reference_split(a->ndims, a->shape, rank, d, &colour, &key);
        MPI_Comm_split(c->comm, colour, key, &comms[d]);
    }
    h1 = heap_used();
    bench_item(r, "memory", "live_split_heap",
               "baseline A splits: heap growth (MPI's communicators)", (double)(h1 - h0), "B");
    for (d = 0; d < a->ndims; d++)
        if (comms[d] != MPI_COMM_NULL)
            MPI_Comm_free(&comms[d]);
}

void bench_local(const bench_args_t *a, MPI_Comm comm, bench_report_t *r)
{
    lctx_t c;
    int size, shape[4];
    const char *const sub_names[2] = {"d2", "d3"};

    memset(&c, 0, sizeof(c));
    c.comm = comm;
    MPI_Comm_size(comm, &size);
    bench_factor(size, 4, shape);
    MPI_Info_create(&c.nocheck);
    MPI_Info_set(c.nocheck, "dmesh_check", "false");
    check(dmesh_init(comm, "cpu", 4, shape, bench_names(4), MPI_INFO_NULL, &c.mesh), "dmesh_init");
    check(dmesh_slice(c.mesh, 2, sub_names, &c.sub), "dmesh_slice");
    check(dmesh_flatten(c.sub, NULL, MPI_INFO_NULL, &c.out[0]), "dmesh_flatten"); /* the miss */
    dmesh_free(&c.out[0]);
    local_ops(&c, r);
    dmesh_free(&c.sub);
    dmesh_free(&c.mesh);
    MPI_Info_free(&c.nocheck);
    memory_live(&c, a, r);
}
