/* SPDX-License-Identifier: BSD-3-Clause */
/* Where the copies go (copies.h): who holds whose copy, the XOR sets, what
 * a member's copies survive, and the owners' identities. Pure: no MPI
 * call, so that a plain unit test covers every shape and placement.
 *
 * The default placement follows SCR's redundancy schemes: the members are
 * ordered by failure domain (a node, or a site's own grouping), and a copy
 * goes to a member of another domain. A partner ring that hands each copy
 * to the next member of the mesh keeps it on its owner's node whenever a
 * node holds several members in a row, which block placement always
 * does; ordering by domain and shifting by the largest domain's count
 * moves every copy out of its owner's domain whenever no domain holds
 * more than half of the members (a shift is one-to-one, so every member
 * still holds exactly one copy). XOR sets are dealt over the same order,
 * one member per set in turn, so that a set never has two members of one
 * domain while every domain has at most as many members as there are
 * sets. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "copies_place.h"
#include "copies_scheme.h"
#include "error.h"
#include "hash.h"

/* ---- along a dimension, or the flattened mesh ---------------------------- */

/* The length of r's line along the plan's dimension, r's place on it, and
 * the distance between neighbours on it in flat indices. */
static void line_of(const dmesh_copies_plan_t *p, int r, int *len, int *at, int *stride)
{
    int s = 1;

    if (p->dim < 0) {
        *len = p->n;
        *at = r;
        *stride = 1;
        return;
    }
    for (int d = p->ndims - 1; d > p->dim; d--)
        s *= p->shape[d];
    *len = p->shape[p->dim];
    *at = (r / s) % *len;
    *stride = s;
}

int dmesh_copies_line_moved(const dmesh_copies_plan_t *p, int r, int by)
{
    int len, at, stride;

    line_of(p, r, &len, &at, &stride);
    return r + (((at + by) % len + len) % len - at) * stride;
}

void dmesh_copies_line_set(const dmesh_copies_plan_t *p, int r, int *first, int *m, int *pos,
                           int *stride)
{
    int len, at, k = p->k < 2 ? 2 : p->k, nsets, set, lo;

    line_of(p, r, &len, &at, stride);
    nsets = len / k;
    if (nsets == 0 || len % k >= 2)
        nsets++;
    set = at / k < nsets - 1 ? at / k : nsets - 1;
    lo = set * k;
    *m = set == nsets - 1 ? len - lo : k;
    *pos = at - lo;
    *first = r - *pos * *stride;
}

/* ---- by failure domain --------------------------------------------------- */

typedef struct {
    uint64_t domain;
    int r;
} member_t;

static int by_domain(const void *a, const void *b)
{
    const member_t *x = a, *y = b;

    if (x->domain != y->domain)
        return x->domain < y->domain ? -1 : 1;
    return (x->r > y->r) - (x->r < y->r);
}

static int by_first(const void *a, const void *b)
{
    const int *x = a, *y = b; /* (first member, start in the sorted list, count) */

    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The members in domain order (domains by their lowest member, members
 * ascending within each): order[n]; *ndomains, *largest. */
static int domain_order(int n, const uint64_t domain[], int order[], int *ndomains, int *largest)
{
    member_t *m = malloc((size_t)n * sizeof(*m));
    int *runs = malloc(3 * (size_t)n * sizeof(int)), nd = 0, at = 0;

    if (m == NULL || runs == NULL) {
        free(m);
        free(runs);
        return dmesh_error_set(DMESH_ERR_NOMEM, "copies: no memory to place %d members", n);
    }
    for (int r = 0; r < n; r++)
        m[r] = (member_t){domain[r], r};
    qsort(m, (size_t)n, sizeof(*m), by_domain);
    *largest = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || m[i].domain != m[i - 1].domain) {
            runs[3 * nd] = m[i].r;
            runs[3 * nd + 1] = i;
            runs[3 * nd + 2] = 0;
            nd++;
        }
        runs[3 * (nd - 1) + 2]++;
        if (runs[3 * (nd - 1) + 2] > *largest)
            *largest = runs[3 * (nd - 1) + 2];
    }
    qsort(runs, (size_t)nd, 3 * sizeof(int), by_first);
    for (int d = 0; d < nd; d++)
        for (int i = 0; i < runs[3 * d + 2]; i++)
            order[at++] = m[runs[3 * d + 1] + i].r;
    *ndomains = nd;
    free(m);
    free(runs);
    return DMESH_SUCCESS;
}

/* ---- the plan ------------------------------------------------------------ */

int dmesh_copies_pick_dim(int n, const uint64_t domain[])
{
    for (int r = 1; domain != NULL && r < n; r++)
        if (domain[r] != domain[0])
            return DMESH_COPIES_DIM_DOMAINS;
    return DMESH_COPIES_DIM_FLAT;
}

void dmesh_copies_plan_free(dmesh_copies_plan_t *p)
{
    free(p->holder); /* one allocation for every table */
    p->holder = p->owner = p->set_first = p->set_size = p->set_pos = p->sets = NULL;
}

int dmesh_copies_plan_make(dmesh_copies_plan_t *p, const uint64_t domain[])
{
    /* zeroed: a scheme fills its own tables only, and plans are compared whole */
    int n = p->n, *t = calloc(6 * (size_t)(n > 0 ? n : 1), sizeof(int)), *order, nd = 1, largest;
    int err = DMESH_SUCCESS;

    if (t == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "copies: no memory to place %d members", n);
    p->holder = t;
    p->owner = t + n;
    p->set_first = t + 2 * n;
    p->set_size = t + 3 * n;
    p->set_pos = t + 4 * n;
    p->sets = t + 5 * n;
    if (p->dim != DMESH_COPIES_DIM_DOMAINS || domain == NULL) {
        if (p->dim == DMESH_COPIES_DIM_DOMAINS)
            p->dim = DMESH_COPIES_DIM_FLAT;
        p->scheme->place_line(p);
        return DMESH_SUCCESS;
    }
    if ((order = malloc((size_t)n * sizeof(int))) == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "copies: no memory to place %d members", n);
    if (!err)
        err = domain_order(n, domain, order, &nd, &largest);
    if (!err && nd < 2) {
        p->dim = DMESH_COPIES_DIM_FLAT;
        p->scheme->place_line(p);
    } else if (!err) {
        p->scheme->place_domains(p, order, largest);
    }
    free(order);
    if (err)
        dmesh_copies_plan_free(p);
    return err;
}

void dmesh_copies_set(const dmesh_copies_plan_t *p, int r, const int **members, int *m, int *pos)
{
    *members = p->sets + p->set_first[r];
    *m = p->set_size[r];
    *pos = p->set_pos[r];
}

int dmesh_copies_survives(const dmesh_copies_plan_t *p, const uint64_t domain[], int r)
{
    int kind = DMESH_COPIES_SURVIVES_NOTHING, x;

    for (int i = 0; (x = p->scheme->partner(p, r, i)) >= 0; i++) {
        if (domain == NULL || domain[x] == domain[r])
            return DMESH_COPIES_SURVIVES_PROCESS;
        kind = DMESH_COPIES_SURVIVES_DOMAIN;
    }
    return kind;
}

/* ---- owners -------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

int dmesh_copies_adopt(int n, uint64_t ids[], const uint64_t drawn[], const uint64_t *table,
                       const uint64_t *nothing, int tn, int born[])
{
    uint64_t *live = malloc((size_t)(n > 0 ? n : 1) * sizeof(*live));
    int nlive = 0;

    if (live == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "copies: no memory for %d identities", n);
    for (int r = 0; r < n; r++)
        if (ids[r] != 0)
            live[nlive++] = ids[r];
    qsort(live, (size_t)nlive, sizeof(*live), cmp_u64);
    for (int r = 0; r < n; r++) {
        uint64_t was = table != NULL && r < tn ? table[r] : 0;
        if (ids[r] != 0)
            continue;
        if (was != 0 && bsearch(&was, live, (size_t)nlive, sizeof(*live), cmp_u64) == NULL) {
            ids[r] = was; /* its predecessor's: that process is gone */
            born[r] = nothing != NULL && nothing[r] != 0; /* ... with nothing stored */
        } else {
            ids[r] = drawn[r];
            born[r] = 1;
        }
    }
    free(live);
    return DMESH_SUCCESS;
}

uint64_t dmesh_copies_set_sign(const dmesh_copies_plan_t *p, const uint64_t ids[], int r)
{
    const int *members;
    int m, pos;
    uint64_t h = DMESH_HASH_INIT;

    dmesh_copies_set(p, r, &members, &m, &pos);
    for (int i = 0; i < m; i++)
        h = dmesh_hash(h, &ids[members[i]], sizeof(uint64_t));
    return h | 1; /* never 0: no parity */
}
