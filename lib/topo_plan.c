/* SPDX-License-Identifier: BSD-3-Clause */
/* The device binding plan of one node: which device each local rank gets.
 *
 * Ranks whose CPU bindings are local to the same set of devices are
 * interchangeable, so the plan groups them into classes and solves a small
 * min-cost flow: source -> class (its rank count) -> device -> sink. A
 * device takes q = nranks / ndev ranks at no cost and one more at a cost
 * larger than everything else, so the flow is balanced first; a class ->
 * device edge costs W_REMOTE when the device is not local to the class, so
 * locality comes second; the k-th rank of a class on one device costs k, so
 * each class spreads over its devices last. The classes' ranks then take the
 * flow's devices in CPU order. Sizes are small (ranks of one node, a handful
 * of classes), so Bellman-Ford paths (SPFA) are plenty. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "topo_plan.h"

typedef unsigned long long devmask_t;

#define UNREACHED LLONG_MAX

typedef struct {
    devmask_t mask; /* devices local to the class's binding */
    int bound;
    int count;
} plan_class_t;

typedef struct {
    int from, to, cap;
    long long cost;
} flow_edge_t;

typedef struct {
    int nnodes, nedges;
    flow_edge_t *e; /* edge i and i ^ 1 are a pair: forward, residual */
    int *first;     /* nnodes + 1: out-edges of v are adj[first[v] .. first[v + 1]) */
    int *adj;       /* edge indices by source node, in insertion order */
} flow_graph_t;

typedef struct {
    int ndev, nranks;
    const hwloc_const_cpuset_t *locality, *binding;
    devmask_t *mask; /* per rank */
    int *cls;        /* per rank */
    plan_class_t *classes;
    int ncls;
    int *flow; /* ncls x ndev: ranks of class c on device d */
} plan_t;

typedef struct {
    int cls, pu, rank;
} plan_order_t;

static devmask_t all_devices(int ndev)
{
    return ndev >= 64 ? ~0ULL : (1ULL << ndev) - 1;
}

/* ---- min-cost flow ------------------------------------------------------ */

static void flow_add(flow_graph_t *g, int u, int v, int cap, long long cost)
{
    g->e[g->nedges++] = (flow_edge_t){u, v, cap, cost};
    g->e[g->nedges++] = (flow_edge_t){v, u, 0, -cost};
}

/* Index the edges by source node (in insertion order, so that ties go to
 * lower device ordinals). */
static int flow_index(flow_graph_t *g)
{
    int *fill = calloc(g->nnodes, sizeof(int));

    g->first = calloc(g->nnodes + 1, sizeof(int));
    g->adj = malloc(g->nedges * sizeof(int));
    if (fill == NULL || g->first == NULL || g->adj == NULL) {
        free(fill);
        return dmesh_error_set(DMESH_ERR_NOMEM, "device plan: out of memory");
    }
    for (int i = 0; i < g->nedges; i++)
        g->first[g->e[i].from + 1]++;
    for (int v = 0; v < g->nnodes; v++)
        g->first[v + 1] += g->first[v];
    for (int i = 0; i < g->nedges; i++) {
        int u = g->e[i].from;
        g->adj[g->first[u] + fill[u]++] = i;
    }
    free(fill);
    return DMESH_SUCCESS;
}

/* Cheapest residual path s -> t (SPFA); prev[v] = edge into v. Residual
 * edges cost less than zero, so distances may be negative: UNREACHED marks
 * the nodes not reached. */
static int flow_path(const flow_graph_t *g, int s, int t, long long *dist, int *prev, int *queue,
                     char *inq)
{
    int head = 0, tail = 0, n = g->nnodes;

    for (int v = 0; v < n; v++) {
        dist[v] = UNREACHED;
        prev[v] = -1;
        inq[v] = 0;
    }
    dist[s] = 0;
    queue[tail++ % n] = s;
    inq[s] = 1;
    while (head != tail) {
        int u = queue[head++ % n];
        inq[u] = 0;
        for (int j = g->first[u]; j < g->first[u + 1]; j++) {
            int i = g->adj[j];
            const flow_edge_t *e = &g->e[i];
            if (e->cap == 0 || dist[e->to] <= dist[u] + e->cost)
                continue;
            dist[e->to] = dist[u] + e->cost;
            prev[e->to] = i;
            if (!inq[e->to]) {
                queue[tail++ % n] = e->to;
                inq[e->to] = 1;
            }
        }
    }
    return dist[t] != UNREACHED;
}

/* Push one unit along the path found by flow_path. */
static void flow_push(flow_graph_t *g, int s, int t, const int *prev)
{
    for (int v = t; v != s; v = g->e[prev[v]].from) {
        g->e[prev[v]].cap--;
        g->e[prev[v] ^ 1].cap++;
    }
}

/* Send need units from s to t at least cost. */
static int flow_run(flow_graph_t *g, int s, int t, int need)
{
    int n = g->nnodes, err = DMESH_SUCCESS;
    long long *dist = malloc(n * sizeof(*dist));
    int *prev = malloc(n * sizeof(*prev)), *queue = malloc(n * sizeof(*queue));
    char *inq = malloc(n);

    if (dist == NULL || prev == NULL || queue == NULL || inq == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "device plan: out of memory");
    else
        err = flow_index(g);
    for (int k = 0; k < need && err == DMESH_SUCCESS; k++) {
        if (!flow_path(g, s, t, dist, prev, queue, inq))
            err = dmesh_error_set(DMESH_ERR_INTERNAL, "device plan: no path for rank %d", k);
        else
            flow_push(g, s, t, prev);
    }
    free(inq);
    free(queue);
    free(prev);
    free(dist);
    return err;
}

/* ---- the plan ------------------------------------------------------------ */

/* Local rank modulo device count, when there is nothing to weigh. */
static void plan_modulo(int ndev, int nranks, const char *why, dmesh_topo_choice_t choice[])
{
    for (int r = 0; r < nranks; r++) {
        choice[r].device = r % ndev;
        choice[r].why = DMESH_TOPO_WHY_MODULO;
        choice[r].shared = nranks / ndev + (r % ndev < nranks % ndev);
        snprintf(choice[r].reason, sizeof(choice[r].reason), "local rank %d mod %d devices (%s)", r,
                 ndev, why);
    }
}

/* Devices local to each rank; returns why the plan cannot weigh locality,
 * or NULL when it can. */
static const char *plan_masks(plan_t *p)
{
    int any_bound = 0, any_known = 0;

    for (int d = 0; d < p->ndev; d++)
        any_known |= p->locality[d] != NULL;
    for (int r = 0; r < p->nranks; r++) {
        hwloc_const_cpuset_t b = p->binding[r];
        p->mask[r] = b == NULL ? all_devices(p->ndev) : 0;
        any_bound |= b != NULL;
        for (int d = 0; d < p->ndev && b != NULL; d++)
            if (p->locality[d] != NULL && hwloc_bitmap_intersects(b, p->locality[d]))
                p->mask[r] |= 1ULL << d;
    }
    if (!any_bound)
        return "no rank of the node is bound to CPUs";
    return any_known ? NULL : "the devices' CPU localities are unknown";
}

/* Group ranks with the same local devices (and boundness) into classes. */
static void plan_classes(plan_t *p)
{
    p->ncls = 0;
    for (int r = 0; r < p->nranks; r++) {
        int bound = p->binding[r] != NULL, c = 0;
        while (c < p->ncls && (p->classes[c].mask != p->mask[r] || p->classes[c].bound != bound))
            c++;
        if (c == p->ncls)
            p->classes[p->ncls++] = (plan_class_t){p->mask[r], bound, 0};
        p->classes[c].count++;
        p->cls[r] = c;
    }
}

/* Class -> device edges: the k-th rank of a class on one device costs k,
 * plus remote when the device is not local to the class. */
static void plan_class_edges(const plan_t *p, flow_graph_t *g, int q, long long remote)
{
    for (int c = 0; c < p->ncls; c++) {
        int slots = p->classes[c].count < q + 1 ? p->classes[c].count : q + 1;
        for (int d = 0; d < p->ndev; d++) {
            long long base = (p->classes[c].mask >> d) & 1 ? 0 : remote;
            for (int k = 0; k < slots; k++)
                flow_add(g, 1 + c, 1 + p->ncls + d, 1, base + k);
        }
    }
}

/* Build and solve the flow; p->flow[c * ndev + d] receives the counts. */
static int plan_flow(plan_t *p)
{
    int q = p->nranks / p->ndev, extra = p->nranks % p->ndev, sink = 1 + p->ncls + p->ndev;
    long long remote = (long long)p->nranks * (q + 1) + 1, surplus = (p->nranks + 1LL) * remote;
    int max_edges = 2 * (p->ncls + p->ncls * p->ndev * (q + 1) + 2 * p->ndev);
    flow_graph_t g = {sink + 1, 0, calloc(max_edges, sizeof(flow_edge_t)), NULL, NULL};

    if (g.e == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "device plan: out of memory (%d edges)", max_edges);
    for (int c = 0; c < p->ncls; c++)
        flow_add(&g, 0, 1 + c, p->classes[c].count, 0);
    plan_class_edges(p, &g, q, remote);
    for (int d = 0; d < p->ndev; d++) {
        if (q > 0)
            flow_add(&g, 1 + p->ncls + d, sink, q, 0);
        if (extra > 0)
            flow_add(&g, 1 + p->ncls + d, sink, 1, surplus);
    }
    int err = flow_run(&g, 0, sink, p->nranks);
    for (int i = 0; err == DMESH_SUCCESS && i < g.nedges; i += 2)
        if (g.e[i].from >= 1 && g.e[i].from <= p->ncls && g.e[i].to < sink)
            p->flow[(g.e[i].from - 1) * p->ndev + g.e[i].to - 1 - p->ncls] += g.e[i + 1].cap;
    free(g.adj);
    free(g.first);
    free(g.e);
    return err;
}

static int order_compare(const void *a, const void *b)
{
    const plan_order_t *x = a, *y = b;

    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    if (x->pu != y->pu)
        return x->pu < y->pu ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Hand each class's devices (ascending) to its ranks in CPU order. */
static int plan_assign(plan_t *p, dmesh_topo_choice_t choice[])
{
    plan_order_t *order = malloc(p->nranks * sizeof(*order));
    int d = 0;

    if (order == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "device plan: out of memory");
    for (int r = 0; r < p->nranks; r++)
        order[r] =
            (plan_order_t){p->cls[r], p->binding[r] ? hwloc_bitmap_first(p->binding[r]) : -1, r};
    qsort(order, p->nranks, sizeof(*order), order_compare);
    for (int i = 0; i < p->nranks; i++) {
        int *row = &p->flow[order[i].cls * p->ndev];
        if (i == 0 || order[i].cls != order[i - 1].cls)
            d = 0;
        while (row[d] == 0)
            d++;
        row[d]--;
        choice[order[i].rank].device = d;
    }
    free(order);
    return DMESH_SUCCESS;
}

/* Text of a device mask ("0-3,6") or of a binding, for the reasons. */
static void mask_text(devmask_t mask, char *buf, size_t len)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();

    for (int d = 0; d < 64 && set != NULL; d++)
        if ((mask >> d) & 1)
            hwloc_bitmap_set(set, d);
    if (set == NULL || hwloc_bitmap_list_snprintf(buf, len, set) < 0)
        snprintf(buf, len, "%#llx", mask);
    hwloc_bitmap_free(set);
}

static void set_text(hwloc_const_cpuset_t set, char *buf, size_t len)
{
    if (hwloc_bitmap_list_snprintf(buf, len, set) < 0)
        snprintf(buf, len, "?");
}

/* ch->reason from a format; a reason too long for it (a long CPU list)
 * ends in "..." rather than stopping mid-word unmarked. */
static void reason_set(dmesh_topo_choice_t *ch, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void reason_set(dmesh_topo_choice_t *ch, const char *fmt, ...)
{
    size_t len = sizeof(ch->reason);
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(ch->reason, len, fmt, ap);
    va_end(ap);
    if (n >= (int)len)
        memcpy(ch->reason + len - 4, "...", 4);
}

/* Why rank r got its device. */
static void plan_reason(const plan_t *p, int r, dmesh_topo_choice_t *ch)
{
    char cpus[96] = "", devs[96], share[32] = "";
    devmask_t mask = p->mask[r];

    if (ch->shared > 1)
        snprintf(share, sizeof(share), "; shared by %d ranks", ch->shared);
    if (p->binding[r] != NULL)
        set_text(p->binding[r], cpus, sizeof(cpus));
    mask_text(mask, devs, sizeof(devs));
    if (p->binding[r] == NULL) {
        ch->why = DMESH_TOPO_WHY_UNBOUND;
        reason_set(ch, "not bound to CPUs; balances the node%s", share);
    } else if ((mask >> ch->device) & 1) {
        ch->why = DMESH_TOPO_WHY_LOCAL;
        reason_set(ch, "local to its CPU binding (PUs %s)%s", cpus, share);
    } else if (mask != 0) {
        ch->why = DMESH_TOPO_WHY_TAKEN;
        reason_set(ch,
                   "the devices local to its CPU binding (PUs %s), %s, are taken by other "
                   "ranks; balances the node%s",
                   cpus, devs, share);
    } else {
        ch->why = DMESH_TOPO_WHY_NO_LOCAL;
        reason_set(ch, "no device is local to its CPU binding (PUs %s); balances the node%s", cpus,
                   share);
    }
}

static void plan_reasons(const plan_t *p, dmesh_topo_choice_t choice[])
{
    int load[DMESH_TOPO_MAX_DEVICES] = {0};

    for (int r = 0; r < p->nranks; r++)
        load[choice[r].device]++;
    for (int r = 0; r < p->nranks; r++) {
        choice[r].shared = load[choice[r].device];
        plan_reason(p, r, &choice[r]);
    }
}

static int plan_alloc(plan_t *p)
{
    p->mask = calloc(p->nranks, sizeof(*p->mask));
    p->cls = calloc(p->nranks, sizeof(*p->cls));
    p->classes = calloc(p->nranks, sizeof(*p->classes));
    p->flow = calloc((size_t)p->nranks * p->ndev, sizeof(*p->flow));
    if (p->mask && p->cls && p->classes && p->flow)
        return DMESH_SUCCESS;
    return dmesh_error_set(DMESH_ERR_NOMEM, "device plan: out of memory (%d ranks)", p->nranks);
}

static void plan_free(plan_t *p)
{
    free(p->flow);
    free(p->classes);
    free(p->cls);
    free(p->mask);
}

int dmesh_topo_plan(int ndevices, const hwloc_const_cpuset_t locality[], int nranks,
                    const hwloc_const_cpuset_t binding[], dmesh_topo_choice_t choice[])
{
    plan_t p = {ndevices, nranks, locality, binding, NULL, NULL, NULL, 0, NULL};
    const char *no_weights;
    int err;

    if (ndevices < 1)
        return dmesh_error_set(DMESH_ERR_NO_DEVICE, "device plan: no device on the node");
    if (nranks < 1 || locality == NULL || binding == NULL || choice == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "device plan: %d ranks, or a NULL array", nranks);
    if (ndevices > DMESH_TOPO_MAX_DEVICES) {
        plan_modulo(ndevices, nranks, "more devices than the plan weighs", choice);
        return DMESH_SUCCESS;
    }
    err = plan_alloc(&p);
    if (err == DMESH_SUCCESS && (no_weights = plan_masks(&p)) != NULL) {
        plan_modulo(ndevices, nranks, no_weights, choice);
    } else if (err == DMESH_SUCCESS) {
        plan_classes(&p);
        err = plan_flow(&p);
        if (err == DMESH_SUCCESS)
            err = plan_assign(&p, choice);
        if (err == DMESH_SUCCESS)
            plan_reasons(&p, choice);
    }
    plan_free(&p);
    return err;
}
