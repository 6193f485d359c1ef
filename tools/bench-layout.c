/* SPDX-License-Identifier: BSD-3-Clause */
/* Layout-only scale: no MPI at all. Every rank of a 4-D mesh of --world
 * ranks decomposes its own (colour, key) on each dimension, which is what
 * dmesh_init does on each rank before its splits; the figure is the cost per
 * rank. A sample of ranks is checked against groups() and against plain
 * row-major arithmetic. Then the memory a mesh holds at 2^10 and 2^20 ranks,
 * measured with mallinfo2 around the library's own allocation calls. */
#include "config.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "mesh.h"
#include "universe_comms.h"

#define TIMED_MAX (1LL << 24)  /* ranks decomposed per pass at most (strided beyond) */
#define GROUPS_MAX (1LL << 24) /* largest world checked against groups() */
#define SAMPLES 4096           /* ranks checked */

typedef struct {
    long long n;
    int shape[4];
    dmesh_layout_t l;
    dmesh_prepared_axis_t p[4]; /* what each cache entry keeps */
} world_t;

static void world_init(world_t *w, long long n)
{
    int err, d;

    w->n = n;
    bench_factor(n, 4, w->shape);
    if ((err = dmesh_layout_row_major(4, w->shape, &w->l)) != DMESH_SUCCESS)
        bench_die("dmesh_layout_row_major", err);
    for (d = 0; d < 4; d++)
        if ((err = dmesh_axis_prepare(&w->l.axes[d], (int)n, &w->p[d])) != DMESH_SUCCESS)
            bench_die("dmesh_axis_prepare", err);
}

/* One pass over the ranks (every step-th), prepared axes or not: seconds. */
static double decompose_pass(const world_t *w, int prepared, long long step, long long *count,
                             long *sink)
{
    double t = bench_now();
    int d, g, p;
    long long i;

    *count = 0;
    for (i = 0; i < w->n; i += step, ++*count)
        for (d = 0; d < 4; d++) {
            if (prepared)
                dmesh_prepared_axis_decompose(&w->p[d], (int)i, &g, &p);
            else
                dmesh_axis_decompose(&w->l.axes[d], (int)w->n, (int)i, &g, &p);
            *sink += g ^ p;
        }
    return bench_now() - t;
}

/* Best of passes, seconds per rank; the two ways alternate, so that drift
 * on a shared machine hits both alike. */
static void best_passes(const world_t *w, int passes, long long *count, double best[2],
                        bench_report_t *r)
{
    long long step = w->n > TIMED_MAX ? w->n / TIMED_MAX : 1;
    double t;
    long sink = 0;
    int k, prepared;

    best[0] = best[1] = 1e30;
    for (k = 0; k < passes; k++)
        for (prepared = 1; prepared >= 0; prepared--)
            if ((t = decompose_pass(w, prepared, step, count, &sink)) < best[prepared])
                best[prepared] = t;
    if (sink == 42) /* keeps the loop's results alive */
        bench_note(r, "");
}

/* The cost of preparing the 4 axes (once per cache entry), nanoseconds:
 * the best of 10 batches of 100. */
static double prepare_cost(const world_t *w)
{
    dmesh_prepared_axis_t p;
    double t, best = 1e30;
    int b, k, d;

    for (b = 0; b < 10; b++) {
        t = bench_now();
        for (k = 0; k < 100; k++)
            for (d = 0; d < 4; d++)
                dmesh_axis_prepare(&w->l.axes[d], (int)w->n, &p);
        if ((t = bench_now() - t) < best)
            best = t;
    }
    return best * 1e9 / 100;
}

static void time_decompose(const world_t *w, int passes, bench_report_t *r)
{
    long long count = 0;
    double best[2];

    best_passes(w, passes, &count, best, r);
    bench_item(r, "layout", "decompose_ranks", "ranks decomposed per pass", (double)count, "");
    bench_item(r, "layout", "decompose_per_rank", "decompose, all 4 dims of one rank (prepared)",
               best[1] * 1e9 / (double)count, "ns");
    bench_item(r, "layout", "decompose_per_call", "dmesh_prepared_axis_decompose, one dim",
               best[1] * 1e9 / (double)count / 4, "ns");
    bench_item(r, "layout", "decompose_unprepared_per_rank",
               "dmesh_axis_decompose, 4 dims (complement each call)", best[0] * 1e9 / (double)count,
               "ns");
    bench_item(r, "layout", "decompose_speedup", "unprepared / prepared", best[0] / best[1], "x");
    bench_item(r, "layout", "prepare_4_axes", "dmesh_axis_prepare, 4 axes (once per entry)",
               prepare_cost(w), "ns");
}

/* groups() of every dim (NULL beyond GROUPS_MAX); seconds in *t. */
static int *all_groups(const world_t *w, int d, double *t)
{
    int *g, ng, gs, err;

    if (w->n > GROUPS_MAX)
        return NULL;
    if ((g = malloc((size_t)w->n * sizeof(int))) == NULL)
        bench_die("groups()", DMESH_ERR_NOMEM);
    *t -= bench_now();
    err = dmesh_axis_groups(&w->l.axes[d], (int)w->n, NULL, (int)w->n, g, &ng, &gs);
    *t += bench_now();
    if (err != DMESH_SUCCESS)
        bench_die("dmesh_axis_groups", err);
    return g;
}

/* Mismatches of rank i on dim d against groups() and the reference. */
static int check_rank(const world_t *w, const int *groups, int d, long long i)
{
    int g, p, rc, rk, bad = 0;

    if (dmesh_axis_decompose(&w->l.axes[d], (int)w->n, (int)i, &g, &p) != DMESH_SUCCESS)
        return 1;
    bench_reference_split(4, w->shape, i, d, &rc, &rk);
    bad += g != rc || p != rk;
    if (dmesh_prepared_axis_decompose(&w->p[d], (int)i, &g, &p) != DMESH_SUCCESS)
        return 1;
    bad += g != rc || p != rk;
    if (groups != NULL)
        bad += groups[(size_t)g * w->shape[d] + p] != i;
    return bad;
}

static int check_sample(const world_t *w, bench_report_t *r)
{
    long long k, i, samples = w->n < SAMPLES ? w->n : SAMPLES;
    double tg = 0;
    int d, bad = 0, *groups;

    for (d = 0; d < 4; d++) {
        groups = all_groups(w, d, &tg);
        for (k = 0; k < samples; k++) {
            i = k == samples - 1 ? w->n - 1 : (k * 2654435761LL) % w->n;
            bad += check_rank(w, groups, d, i);
        }
        free(groups);
    }
    bench_item(r, "layout", "checked_ranks", "ranks checked (x 4 dims)", (double)samples, "");
    bench_item(r, "layout", "check_mismatches", "mismatches vs groups() and row-major (both ways)",
               bad, "");
    if (w->n <= GROUPS_MAX)
        bench_item(r, "layout", "groups_per_rank", "dmesh_axis_groups, 4 dims, per rank",
                   tg * 1e9 / (double)w->n, "ns");
    return bad;
}

/* ---- memory ---- */

static size_t heap_used(void)
{
    return mallinfo2().uordblks;
}

/* A universe as dmesh_universe_create and dmesh_init leave it, minus MPI
 * (dmesh_universe_new without a communicator): the struct, its cache with
 * one entry per axis, the root's names. */
static dmesh_universe_t *fake_universe(const world_t *w)
{
    dmesh_root_desc_t root = {.n = (int)w->n, .layout = &w->l, .names = bench_names(4)};
    dmesh_axis_options_t o;
    dmesh_comm_entry_t *e;
    dmesh_universe_t *u;
    int d;

    memset(&o, 0, sizeof(o));
    o.backend = DMESH_BACKEND_MPI;
    if (dmesh_universe_new(NULL, 0, &root, &u) != DMESH_SUCCESS)
        bench_die("universe", DMESH_ERR_NOMEM);
    for (d = 0; d < 4; d++)
        if (dmesh_universe_reserve(u, &w->l.axes[d], &o, DMESH_COMM_CREATE_SPLIT, &e) !=
            DMESH_SUCCESS)
            bench_die("cache entry", DMESH_ERR_NOMEM);
    return u;
}

/* The root handle as dmesh_init makes it (dmesh_mesh_new). */
static dmesh_t fake_root(dmesh_universe_t *u)
{
    dmesh_dim_t dim[4];
    dmesh_t m;
    int d;

    for (d = 0; d < 4; d++) {
        dim[d].entry = dmesh_universe_entry_at(u, d);
        dim[d].name = dmesh_universe_root_name(u, d);
    }
    if (dmesh_mesh_new(u, 4, 1, 1, dim, "dmesh_init", &m) != DMESH_SUCCESS)
        bench_die("dmesh_mesh_new", DMESH_ERR_NOMEM);
    return m;
}

/* The objects of one world size, alive until both sizes are measured, so
 * that the second measurement cannot reuse the first one's freed chunks
 * (glibc's tcache counts them as in use, which would hide the growth). */
typedef struct {
    dmesh_universe_t *u;
    dmesh_t m, s, warm;
} held_t;

static const struct {
    long long n;
    const char *key[5], *label[5];
} sizes[2] = {
    {1LL << 10,
     {"universe_1024", "universe_heap_1024", "handle_1024", "handle_heap_1024", "slice_heap_1024"},
     {"2^10: universe, accounted (sizeof + cache + rank map + names)",
      "2^10: universe, heap growth", "2^10: mesh handle, accounted (header + 4 dim records)",
      "2^10: mesh handle, heap growth", "2^10: dmesh_slice (2 of 4 dims), heap growth"}},
    {1LL << 20,
     {"universe_1048576", "universe_heap_1048576", "handle_1048576", "handle_heap_1048576",
      "slice_heap_1048576"},
     {"2^20: universe, accounted (sizeof + cache + rank map + names)",
      "2^20: universe, heap growth", "2^20: mesh handle, accounted (header + 4 dim records)",
      "2^20: mesh handle, heap growth", "2^20: dmesh_slice (2 of 4 dims), heap growth"}},
};

static void memory_at(int k, held_t *h, bench_report_t *r)
{
    static const char *const two[2] = {"d1", "d3"};
    world_t w;
    size_t h0, h1, hw, h2, h3;

    world_init(&w, sizes[k].n);
    h0 = heap_used();
    h->u = fake_universe(&w);
    h1 = heap_used();
    h->warm = fake_root(h->u); /* the handle table's chunk comes with the first handle only */
    hw = heap_used();
    h->m = fake_root(h->u);
    h2 = heap_used();
    if (dmesh_slice(h->m, 2, two, &h->s) != DMESH_SUCCESS)
        bench_die("dmesh_slice", DMESH_ERR_INTERNAL);
    h3 = heap_used();
    bench_item(r, "memory", sizes[k].key[0], sizes[k].label[0], (double)dmesh_universe_bytes(h->u),
               "B");
    bench_item(r, "memory", sizes[k].key[1], sizes[k].label[1], (double)(h1 - h0), "B");
    bench_item(r, "memory", sizes[k].key[2], sizes[k].label[2],
               (double)(sizeof(struct dmesh_mesh) + 4 * sizeof(dmesh_dim_t)), "B");
    bench_item(r, "memory", sizes[k].key[3], sizes[k].label[3], (double)(h2 - hw), "B");
    bench_item(r, "memory", sizes[k].key[4], sizes[k].label[4], (double)(h3 - h2), "B");
}

static void held_free(held_t *h)
{
    dmesh_free(&h->s);
    dmesh_free(&h->m);
    dmesh_free(&h->warm);
    dmesh_universe_release(h->u); /* no communicator to free */
}

static void memory(bench_report_t *r)
{
    held_t h[2];
    void *volatile first = malloc(64); /* the first malloc sets up glibc's tcache (656 B) */

    free(first);
    memory_at(0, &h[0], r);
    memory_at(1, &h[1], r);
    held_free(&h[1]);
    held_free(&h[0]);
    bench_item(r, "memory", "entry_sizeof", "one cache entry per distinct axis layout (sizeof)",
               (double)sizeof(dmesh_comm_entry_t), "B");
    bench_item(r, "memory", "rank_map_1048576",
               "2^20: dmesh_create's rank map (4 B/rank, only "
               "with explicit ranks)",
               (double)(4LL << 20), "B");
    bench_note(r, "memory: accounted = sizeof + the heap a structure points to (lib/mesh.h, "
                  "lib/universe.h, lib/cache.h); heap growth = mallinfo2 uordblks (with malloc's "
                  "chunk headers) around dmesh_cache_init/_entry_new/_add (universe), "
                  "dmesh_mesh_new (handle) and dmesh_slice, on a universe built without MPI; "
                  "MPI's communicator objects are not included");
}

int bench_layout(const bench_args_t *a, bench_report_t *r)
{
    world_t w;
    int passes = a->reps < 3 ? a->reps : 3;

    world_init(&w, a->world);
    r->n = (int)w.n;
    r->ndims = 4;
    memcpy(r->shape, w.shape, sizeof(w.shape));
    memory(r); /* first, before other code frees small chunks */
    time_decompose(&w, passes < 1 ? 1 : passes, r);
    return check_sample(&w, r);
}
