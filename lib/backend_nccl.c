/* SPDX-License-Identifier: BSD-3-Clause */
/* The nccl backend (backend.h): an NCCL communicator paired with the MPI
 * communicator of each dimension, made by comm_nccl.c (or failing with
 * DMESH_ERR_BACKEND where dmesh was built without NCCL).
 *
 * Keys: nccl_<field>[.<dim>] (ncclConfig_t fields, part of the cache key),
 * dmesh_nccl_init (eager / lazy), dmesh_nccl_create (init / split /
 * scalable; DMESH_NCCL_CREATE) and nccl_scalable_roots. With split, the
 * universe keeps one NCCL communicator over the whole mesh, bootstrapped
 * once, and every other one is split from it (doc/gpu.md). */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "backend_nccl.h"
#include "cache.h"
#include "comm_nccl.h"
#include "error.h"
#include "option_value.h"
#include "scan.h"

/* The call's options, in its backend bytes. */
typedef struct {
    int create; /* enum dmesh_nccl_create */
    int roots;  /* ids per scalable init; 0: one per 128 ranks */
    int lazy;   /* create at the first dmesh_get_nccl_comm */
} nccl_call_t;

/* The universe's state, in its backend bytes. */
typedef struct {
    dmesh_comm_entry_t *root; /* split: the entry over the whole mesh, parent of the rest */
    dmesh_nccl_stats_t stats; /* what creation cost this rank (dmesh_get_cache_info) */
} nccl_state_t;

_Static_assert(sizeof(dmesh_nccl_options_t) <= sizeof(dmesh_backend_axis_t),
               "NCCL axis options do not fit the backend bytes");
_Static_assert(sizeof(nccl_call_t) <= sizeof(dmesh_backend_call_t),
               "NCCL call options do not fit the backend bytes");
_Static_assert(sizeof(nccl_state_t) <= sizeof(dmesh_backend_state_t),
               "NCCL state does not fit the backend bytes");

/* The bytes are copied in and out (never cast), so that the compiler's
 * aliasing rules hold whatever the layout. */
static dmesh_nccl_options_t axis_get(const dmesh_backend_axis_t *a)
{
    dmesh_nccl_options_t o;

    memcpy(&o, a->bytes, sizeof(o));
    return o;
}

static void axis_put(dmesh_backend_axis_t *a, const dmesh_nccl_options_t *o)
{
    memcpy(a->bytes, o, sizeof(*o));
}

/* ---- options ------------------------------------------------------------ */

static const char *const create_names[] = {"init", "split", "scalable"};

static int parse_create(const char *key, const char *val, int *out)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(val, create_names[i]) == 0) {
            *out = i;
            return DMESH_SUCCESS;
        }
    return dmesh_error_set(DMESH_ERR_ARG,
                           "option %s: value \"%s\" is not \"init\", \"split\" or \"scalable\"",
                           key, val);
}

static void call_defaults(dmesh_backend_call_t *call)
{
    nccl_call_t c = {DMESH_NCCL_CREATE_SPLIT, 0, 0}; /* one bootstrap per universe: doc/gpu.md */

    memcpy(call->bytes, &c, sizeof(c));
}

static int call_option(const char *key, const char *val, dmesh_backend_call_t *call, int *known)
{
    nccl_call_t c;
    int err = DMESH_SUCCESS;

    memcpy(&c, call->bytes, sizeof(c));
    *known = 1;
    if (strcmp(key, "dmesh_nccl_create") == 0 || strcmp(key, "DMESH_NCCL_CREATE") == 0)
        err = parse_create(key, val, &c.create);
    else if (strcmp(key, "nccl_scalable_roots") == 0)
        err = dmesh_option_int(key, val, 0, INT_MAX, &c.roots);
    else if (strcmp(key, "dmesh_nccl_init") == 0)
        err = dmesh_option_choice(key, val, "eager", "lazy", &c.lazy);
    else
        *known = 0;
    if (err == DMESH_SUCCESS && *known)
        memcpy(call->bytes, &c, sizeof(c));
    return err;
}

static int axis_option(const char *key, const char *field, const char *val,
                       dmesh_backend_axis_t *axis, int *known)
{
    static const struct {
        const char *name;
        unsigned bit;
        size_t off;
    } ints[] = {
        {"blocking", DMESH_NCCL_OPT_BLOCKING, offsetof(dmesh_nccl_options_t, blocking)},
        {"cga_cluster_size", DMESH_NCCL_OPT_CGA_CLUSTER_SIZE,
         offsetof(dmesh_nccl_options_t, cga_cluster_size)},
        {"min_ctas", DMESH_NCCL_OPT_MIN_CTAS, offsetof(dmesh_nccl_options_t, min_ctas)},
        {"max_ctas", DMESH_NCCL_OPT_MAX_CTAS, offsetof(dmesh_nccl_options_t, max_ctas)},
        {"split_share", DMESH_NCCL_OPT_SPLIT_SHARE, offsetof(dmesh_nccl_options_t, split_share)},
    };
    dmesh_nccl_options_t o = axis_get(axis);

    *known = 1;
    if (strcmp(field, "net_name") == 0) {
        if (val[0] == '\0' || strlen(val) >= sizeof(o.net_name))
            return dmesh_error_set(DMESH_ERR_ARG, "option %s: bad network name \"%s\"", key, val);
        strcpy(o.net_name, val);
        o.set_mask |= DMESH_NCCL_OPT_NET_NAME;
        axis_put(axis, &o);
        return DMESH_SUCCESS;
    }
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        if (strcmp(field, ints[i].name) == 0) {
            DMESH_TRY(dmesh_option_int(key, val, 0, INT_MAX, (int *)((char *)&o + ints[i].off)));
            o.set_mask |= ints[i].bit;
            axis_put(axis, &o);
            return DMESH_SUCCESS;
        }
    }
    *known = 0; /* nccl_* keys dmesh does not know are NCCL's, not errors */
    return DMESH_SUCCESS;
}

/* What NCCL's parseCommConfig refuses, refused here with the dmesh key:
 * blocking and splitShare other than 0 or 1, and minCTAs above maxCTAs,
 * which NCCL compares before it applies its defaults, so that nccl_min_ctas
 * without nccl_max_ctas fails there too. */
static int check(int d, const dmesh_nccl_options_t *n)
{
    unsigned m = n->set_mask;

    if ((m & DMESH_NCCL_OPT_BLOCKING) && n->blocking > 1)
        return dmesh_error_set(DMESH_ERR_ARG, "option nccl_blocking (dim %d): %d is not 0 or 1", d,
                               n->blocking);
    if ((m & DMESH_NCCL_OPT_SPLIT_SHARE) && n->split_share > 1)
        return dmesh_error_set(DMESH_ERR_ARG, "option nccl_split_share (dim %d): %d is not 0 or 1",
                               d, n->split_share);
    if (((m & DMESH_NCCL_OPT_MIN_CTAS) && n->min_ctas < 1) ||
        ((m & DMESH_NCCL_OPT_MAX_CTAS) && n->max_ctas < 1))
        return dmesh_error_set(DMESH_ERR_ARG,
                               "options nccl_min_ctas/nccl_max_ctas (dim %d) must "
                               "be at least 1",
                               d);
    if ((m & DMESH_NCCL_OPT_MIN_CTAS) && !(m & DMESH_NCCL_OPT_MAX_CTAS))
        return dmesh_error_set(DMESH_ERR_ARG,
                               "option nccl_min_ctas (dim %d) needs nccl_max_ctas "
                               "(NCCL refuses a minimum without a maximum)",
                               d);
    if ((m & DMESH_NCCL_OPT_MIN_CTAS) && n->min_ctas > n->max_ctas)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "options nccl_min_ctas=%d > nccl_max_ctas=%d (dim %d)", n->min_ctas,
                               n->max_ctas, d);
    return DMESH_SUCCESS;
}

static int axis_finish(int dim, const char *label, double timeout, dmesh_backend_axis_t *axis)
{
    dmesh_nccl_options_t o = axis_get(axis);

    DMESH_TRY(check(dim, &o));
    snprintf(o.comm_name, sizeof(o.comm_name), "%s", label);
    o.timeout = timeout; /* the creation of the dim's communicator waits so long */
    axis_put(axis, &o);
    return DMESH_SUCCESS;
}

static void axis_key(const dmesh_backend_axis_t *axis, char *buf, size_t len)
{
    dmesh_nccl_options_t n = axis_get(axis);

    snprintf(buf, len, "m%x b%d c%d n%d x%d s%d %s", n.set_mask,
             n.set_mask & DMESH_NCCL_OPT_BLOCKING ? n.blocking : -1,
             n.set_mask & DMESH_NCCL_OPT_CGA_CLUSTER_SIZE ? n.cga_cluster_size : -1,
             n.set_mask & DMESH_NCCL_OPT_MIN_CTAS ? n.min_ctas : -1,
             n.set_mask & DMESH_NCCL_OPT_MAX_CTAS ? n.max_ctas : -1,
             n.set_mask & DMESH_NCCL_OPT_SPLIT_SHARE ? n.split_share : -1,
             n.set_mask & DMESH_NCCL_OPT_NET_NAME ? n.net_name : "-");
}

/* Saved form: MASK BLOCKING CGA MIN_CTAS MAX_CTAS SPLIT_SHARE "NET". */
static void axis_print(dmesh_text_t *t, const dmesh_backend_axis_t *axis)
{
    dmesh_nccl_options_t n = axis_get(axis);

    dmesh_text_put(t, " %u %d %d %d %d %d", n.set_mask, n.blocking, n.cga_cluster_size, n.min_ctas,
                   n.max_ctas, n.split_share);
    dmesh_text_put_quoted(t, n.net_name);
}

static int axis_scan(dmesh_scan_t *s, dmesh_backend_axis_t *axis)
{
    dmesh_nccl_options_t n;
    int mask = 0;

    memset(&n, 0, sizeof(n));
    DMESH_TRY(dmesh_scan_int(s, 0, 63, "nccl option mask", &mask));
    n.set_mask = (unsigned)mask;
    DMESH_TRY(dmesh_scan_int(s, INT_MIN, INT_MAX, "nccl_blocking", &n.blocking));
    DMESH_TRY(dmesh_scan_int(s, INT_MIN, INT_MAX, "nccl_cga_cluster_size", &n.cga_cluster_size));
    DMESH_TRY(dmesh_scan_int(s, INT_MIN, INT_MAX, "nccl_min_ctas", &n.min_ctas));
    DMESH_TRY(dmesh_scan_int(s, INT_MIN, INT_MAX, "nccl_max_ctas", &n.max_ctas));
    DMESH_TRY(dmesh_scan_int(s, INT_MIN, INT_MAX, "nccl_split_share", &n.split_share));
    DMESH_TRY(dmesh_scan_name(s, n.net_name, DMESH_SCAN_NAME_EMPTY_OK));
    axis_put(axis, &n);
    return DMESH_SUCCESS;
}

/* ---- communicators ------------------------------------------------------- */

static nccl_state_t state_get(const dmesh_backend_state_t *s)
{
    nccl_state_t st;

    memcpy(&st, s->bytes, sizeof(st));
    return st;
}

static void state_put(dmesh_backend_state_t *s, const nccl_state_t *st)
{
    memcpy(s->bytes, st, sizeof(*st));
}

static void stats_add(dmesh_nccl_stats_t *to, const dmesh_nccl_stats_t *st)
{
    to->bootstraps += st->bootstraps;
    to->splits += st->splits;
    to->scalable += st->scalable;
    to->id_calls += st->id_calls;
    to->id_bytes += st->id_bytes;
    to->shrinks += st->shrinks;
}

#define NCCL_BATCH DMESH_MAX_DIMS /* the dims of one mesh at most: no allocation */

/* Whether e is this backend's and has no NCCL communicator yet; with
 * reserved_only, also one the call reserved. An eager creation makes those
 * only: their state is the same on every rank (agreed), while an entry
 * found in the cache may have been made lazily in some of its groups and
 * not in others, and every rank of all must make the same requests. */
static int pending(const dmesh_backend_ctx_t *ctx, const dmesh_comm_entry_t *e, int reserved_only)
{
    return e->paired_pending && e->backend == ctx->self && (e->reserved || !reserved_only);
}

/* Collective over all: the pending NCCL communicators among e[0..n), n <=
 * NCCL_BATCH, made together (dmesh_nccl_comms_create), counted, and timed
 * under DMESH_DEBUG. */
static int batch(const dmesh_backend_ctx_t *ctx, MPI_Comm all, int how, int roots,
                 int reserved_only, int n, dmesh_comm_entry_t *const e[])
{
    dmesh_nccl_request_t req[NCCL_BATCH];
    dmesh_nccl_options_t opts[NCCL_BATCH];
    dmesh_comm_entry_t *todo[NCCL_BATCH];
    nccl_state_t st = state_get(ctx->state);
    dmesh_nccl_stats_t made;
    void *parent = NULL;
    double t;
    int k = 0, err;

    /* each entry once: within the batch by dmesh_cache_listed_before, across batches
     * by pending (cleared below) */
    for (int i = 0; i < n; i++) {
        if (!pending(ctx, e[i], reserved_only) || dmesh_cache_listed_before(e, i))
            continue;
        opts[k] = axis_get(&e[i]->backend_options);
        memset(&req[k], 0, sizeof(req[k]));
        req[k].comm = e[i]->comm;
        req[k].opts = &opts[k];
        req[k].color = e[i]->group;
        req[k].key = e[i]->position;
        todo[k++] = e[i];
    }
    if (k == 0)
        return DMESH_SUCCESS;
    if (how == DMESH_NCCL_CREATE_SPLIT && st.root != NULL)
        parent = st.root->paired; /* NULL outside the mesh */
    memset(&made, 0, sizeof(made));
    t = MPI_Wtime();
    err = dmesh_nccl_comms_create(all, how, parent, roots, ctx->device, k, req, &made);
    t = MPI_Wtime() - t;
    if (err != DMESH_SUCCESS)
        return err;
    for (int i = 0; i < k; i++)
        ctx->pair_done(todo[i], req[i].nccl);
    stats_add(&st.stats, &made);
    state_put(ctx->state, &st);
    ctx->debug(ctx->u,
               "NCCL %s: %d communicator(s) together, %ld bootstraps, %ld splits, "
               "%ld scalable inits, %ld MPI calls and %ld bytes of ids, %.6f s",
               create_names[how], k, made.bootstraps, made.splits, made.scalable, made.id_calls,
               made.id_bytes, t);
    return DMESH_SUCCESS;
}

/* batch over e[0..n) in batches (dmesh_deserialize may make more entries
 * than a mesh has dims); the same batches on every rank. */
static int batches(const dmesh_backend_ctx_t *ctx, MPI_Comm all, int how, int roots,
                   int reserved_only, int n, dmesh_comm_entry_t *const e[])
{
    for (int i = 0; i < n; i += NCCL_BATCH)
        DMESH_TRY(batch(ctx, all, how, roots, reserved_only,
                        n - i < NCCL_BATCH ? n - i : NCCL_BATCH, e + i));
    return DMESH_SUCCESS;
}

/* A universe made by dmesh_shrink (ctx->origin): its root made by
 * ncclCommShrink of the old universe's root, which dmesh_revoke kept
 * (ncclCommRevoke), on every member of the new root (collective over
 * them, agreed over all); *done = 0 on every rank when one member cannot
 * (no root there, an NCCL without shrink or revoke): the root is then
 * bootstrapped as in any universe. */
static int shrink_root(const dmesh_backend_ctx_t *ctx, dmesh_comm_entry_t *root,
                       const dmesh_nccl_options_t *no, int *done)
{
    nccl_state_t old = state_get(ctx->origin.state), st;
    void *parent = old.root != NULL ? old.root->paired : NULL, *c = NULL;
    int member = root->comm != MPI_COMM_NULL, err = DMESH_SUCCESS;
    dmesh_nccl_stats_t made;
    double t;

    *done = 0;
    if (member && (parent == NULL || !dmesh_nccl_can_shrink()))
        err = dmesh_error_set(DMESH_ERR_BACKEND, "no revoked NCCL root to shrink here");
    err = ctx->agree(ctx->u, 0, err, "NCCL shrink or bootstrap");
    if (err == DMESH_ERR_BACKEND) {
        ctx->debug(ctx->u, "NCCL root: a new bootstrap (%s)", dmesh_last_error_impl());
        return DMESH_SUCCESS;
    }
    DMESH_TRY(err);
    memset(&made, 0, sizeof(made));
    t = MPI_Wtime();
    if (member)
        err = dmesh_nccl_comm_shrink(parent, ctx->origin.nexclude, ctx->origin.exclude,
                                     ctx->origin.failed, no, ctx->device, &c, &made);
    t = MPI_Wtime() - t;
    err = ctx->agree(ctx->u, 0, err, "ncclCommShrink of the NCCL root");
    if (err != DMESH_SUCCESS) {
        if (c != NULL)
            (void)dmesh_nccl_comm_abort_all(1, &c, ctx->device);
        return err;
    }
    ctx->pair_done(root, c); /* NULL outside the new mesh */
    st = state_get(ctx->state);
    stats_add(&st.stats, &made);
    state_put(ctx->state, &st);
    ctx->debug(ctx->u, "NCCL root: ncclCommShrink of the old root, %d rank(s) left out, %.6f s",
               ctx->origin.nexclude, t);
    *done = 1;
    return DMESH_SUCCESS;
}

/* split: the universe's NCCL communicator over the whole mesh (with the
 * options of first, the call's first pending dim), bootstrapped once by
 * init (or shrunk from the old root in a universe made by dmesh_shrink)
 * and kept in the cache; every later split of the universe starts from
 * it. */
static int make_root(const dmesh_backend_ctx_t *ctx, const dmesh_comm_entry_t *first)
{
    dmesh_axis_options_t ro;
    dmesh_nccl_options_t no;
    dmesh_comm_entry_t *root = NULL;
    nccl_state_t st;
    int err, shrunk = 0;

    memset(&ro, 0, sizeof(ro));
    ro.backend = first->backend;
    no = axis_get(&first->backend_options);
    snprintf(no.comm_name, sizeof(no.comm_name), "dmesh/root");
    axis_put(&ro.opts, &no);
    DMESH_TRY(ctx->whole_entry(ctx->u, &ro, &root));
    if (root->paired_pending && ctx->origin.state != NULL)
        DMESH_TRY(shrink_root(ctx, root, &no, &shrunk));
    /* collective over its members (nothing where it is made already: a
     * lazy mesh may have made it on the members only), agreed over all */
    err = shrunk ? DMESH_SUCCESS : ctx->pair_entry(ctx->u, root);
    DMESH_TRY(ctx->agree(ctx->u, 0, err, "root NCCL communicator"));
    st = state_get(ctx->state);
    st.root = root;
    state_put(ctx->state, &st);
    return DMESH_SUCCESS;
}

static int make(const dmesh_backend_ctx_t *ctx, MPI_Comm all, const dmesh_backend_call_t *call,
                int n, dmesh_comm_entry_t *const e[])
{
    nccl_call_t c = {DMESH_NCCL_CREATE_INIT, 0, 0};
    int i;

    if (call != NULL)
        memcpy(&c, call->bytes, sizeof(c));
    if (c.lazy)
        return DMESH_SUCCESS;
    if (c.create == DMESH_NCCL_CREATE_SPLIT && state_get(ctx->state).root == NULL) {
        for (i = 0; i < n && !pending(ctx, e[i], 1); i++)
            ;
        if (i == n) /* nothing new to split: the same on every rank (agreed) */
            c.create = DMESH_NCCL_CREATE_INIT;
        else
            DMESH_TRY(make_root(ctx, e[i]));
    }
    return batches(ctx, all, c.create, c.roots, call != NULL, n, e);
}

static void forget(dmesh_backend_state_t *state, const dmesh_comm_entry_t *e)
{
    nccl_state_t st = state_get(state);

    if (st.root == e) {
        st.root = NULL; /* made by a call that failed: the next one makes it again */
        state_put(state, &st);
    }
}

static void fill_info(const dmesh_backend_state_t *state, int paired, dmesh_cache_info_t *info)
{
    nccl_state_t st = state_get(state);

    info->comms_nccl = paired;
    info->nccl_bootstraps = st.stats.bootstraps;
    info->nccl_splits = st.stats.splits;
    info->nccl_scalable_inits = st.stats.scalable;
}

void dmesh_backend_nccl_stats(const dmesh_backend_state_t *state, dmesh_nccl_stats_t *stats)
{
    *stats = state_get(state).stats;
}

static const char *const names[] = {"dmesh_nccl_create", "dmesh_nccl_init", "DMESH_NCCL_CREATE",
                                    "DMESH_NCCL_LIBRARY", NULL};

const dmesh_backend_t dmesh_backend_nccl = {
    .name = "nccl",
    .library = "NCCL",
    .needs_cuda = 1,
    .available = dmesh_nccl_available,
    .names = names,
    .axis_prefix = "nccl_",
    .call_defaults = call_defaults,
    .call_option = call_option,
    .axis_option = axis_option,
    .axis_finish = axis_finish,
    .axis_key = axis_key,
    .axis_print = axis_print,
    .axis_scan = axis_scan,
    .make = make,
    .destroy = dmesh_nccl_comm_destroy,
    .abort_all = dmesh_nccl_comm_abort_all,
    .revoke_all = dmesh_nccl_comm_revoke_all,
    .forget = forget,
    .info = fill_info,
};
