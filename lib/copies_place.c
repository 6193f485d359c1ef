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

/* ---- the placement of an open --------------------------------------------- */

/* p placed as t asks (its shape, scheme, group and the dimension asked)
 * for the members in domains dom[] (NULL: not known). */
static int plan_for(const dmesh_copies_plan_t *t, const uint64_t dom[], dmesh_copies_plan_t *p)
{
    *p = *t;
    p->holder = p->owner = p->set_first = p->set_size = p->set_pos = p->sets = NULL;
    if (t->dim == DMESH_COPIES_DIM_DEFAULT)
        p->dim = dmesh_copies_pick_dim(t->n, dom);
    return dmesh_copies_plan_make(p, dom);
}

/* Whether x and y place alike: the same sets, in the same order, for every
 * member (a scheme of sets), or the same holders. */
static int same_placement(const dmesh_copies_plan_t *x, const dmesh_copies_plan_t *y)
{
    if (!x->scheme->grouped)
        return memcmp(x->holder, y->holder, 2 * (size_t)x->n * sizeof(int)) == 0;
    for (int r = 0; r < x->n; r++) {
        const int *a, *b;
        int ma, mb, pa, pb;
        dmesh_copies_set(x, r, &a, &ma, &pa);
        dmesh_copies_set(y, r, &b, &mb, &pb);
        if (ma != mb || pa != pb || memcmp(a, b, (size_t)ma * sizeof(int)) != 0)
            return 0;
    }
    return 1;
}

void dmesh_copies_table_rows(const dmesh_copies_plan_t *p, const uint64_t ids[],
                             const uint64_t placed[], uint64_t *table)
{
    size_t n = (size_t)p->n;

    memcpy(table, ids, n * sizeof(uint64_t));
    for (size_t r = 0; r < n; r++) {
        table[n + r] = placed != NULL ? placed[r] : 0;
        table[3 * n + r] = p->scheme->grouped ? dmesh_copies_set_sign(p, ids, (int)r) : 0;
        table[4 * n + r] = p->scheme->grouped ? (uint64_t)p->set_pos[r] : 0;
    }
}

void dmesh_copies_table_signs(const dmesh_copies_plan_t *p, const uint64_t ids[],
                              const uint64_t held_for[], uint64_t *table)
{
    size_t n = (size_t)p->n;

    if (!p->scheme->grouped)
        return;
    for (int r = 0; r < p->n; r++) {
        const int *m;
        int sz, pos, made = 0;
        uint64_t sign = dmesh_copies_set_sign(p, ids, r);
        dmesh_copies_set(p, r, &m, &sz, &pos);
        for (int i = 0; i < sz && !made; i++)
            made = held_for[m[i]] == sign;
        table[3 * n + (size_t)r] = made || sz < 2 ? sign : 0;
    }
}

typedef struct {
    uint64_t sign, pos;
    int r;
} placed_t;

static int by_id(const void *a, const void *b)
{
    const placed_t *x = a, *y = b;

    return (x->sign > y->sign) - (x->sign < y->sign);
}

static int by_set(const void *a, const void *b)
{
    const placed_t *x = a, *y = b;

    if (x->sign != y->sign)
        return x->sign < y->sign ? -1 : 1;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return (x->r > y->r) - (x->r < y->r);
}

/* m (sorted by set) with the members of every set whose present members
 * do not make its sign (a member left, or none was made: sign 0) moved to
 * the pool, sign 0, in member order; the pool's size. A set is kept whole
 * only where its parity can still rebuild one of its members. */
static int pool_incomplete(placed_t *m, int n, const uint64_t ids[])
{
    int pooled = 0;

    for (int i = 0; i < n;) {
        int e = i + 1;
        uint64_t h = DMESH_HASH_INIT; /* dmesh_copies_set_sign's */
        while (e < n && m[e].sign == m[i].sign)
            e++;
        for (int q = i; q < e && m[i].sign != 0; q++)
            h = dmesh_hash(h, &ids[m[q].r], sizeof(uint64_t));
        if (m[i].sign != 0 && (h | 1) != m[i].sign)
            for (int q = i; q < e; q++)
                m[q].sign = 0;
        i = e;
    }
    for (int q = 0; q < n; q++)
        if (m[q].sign == 0) {
            m[q].pos = (uint64_t)m[q].r;
            pooled++;
        }
    return pooled;
}

/* The sets the held parities were made for (the table's last two rows),
 * over the members ids[] of t: each member that the table names in the set
 * it had there, in its order (a set whose other members left is smaller: its
 * parity serves none, and a restore makes it again); the members the table
 * does not name (grown ones, with nothing to get back) in sets of their
 * own, of about k. */
static int held_sets(const dmesh_copies_plan_t *t, const uint64_t ids[], const uint64_t *table,
                     int tn, dmesh_copies_plan_t *h)
{
    int n = t->n, at = 0, k = t->k < 2 ? 2 : t->k, fresh = 0;
    placed_t *m = malloc((size_t)n * sizeof(*m)), *old = malloc((size_t)tn * sizeof(*old));

    *h = *t;
    h->holder = calloc(6 * (size_t)(n > 0 ? n : 1), sizeof(int));
    if (m == NULL || old == NULL || h->holder == NULL) {
        free(m);
        free(old);
        free(h->holder);
        h->holder = NULL;
        return dmesh_error_set(DMESH_ERR_NOMEM, "copies: no memory to place %d members", n);
    }
    for (int j = 0; j < tn; j++) /* the table by identity */
        old[j] = (placed_t){table[j], 0, j};
    qsort(old, (size_t)tn, sizeof(*old), by_set);
    for (int r = 0; r < n; r++) {
        placed_t key = {ids[r], 0, -1}, *f = bsearch(&key, old, (size_t)tn, sizeof(*old), by_id);
        m[r] = f != NULL ? (placed_t){table[3 * tn + f->r], table[4 * tn + f->r], r}
                         : (placed_t){0, 0, r}; /* sign 0: none was made */
    }
    qsort(m, (size_t)n, sizeof(*m), by_set);
    fresh = pool_incomplete(m, n, ids);
    qsort(m, (size_t)n, sizeof(*m), by_set);
    h->owner = h->holder + n;
    h->set_first = h->holder + 2 * n;
    h->set_size = h->holder + 3 * n;
    h->set_pos = h->holder + 4 * n;
    h->sets = h->holder + 5 * n;
    for (int i = 0; i < n;) {
        int e = i + 1, sz;
        while (e < n && m[e].sign == m[i].sign && (m[i].sign != 0 || e - i < k))
            e++;
        if (m[i].sign == 0 && e == fresh - 1) /* no set of one among the pooled */
            e = fresh;
        sz = e - i;
        for (int q = 0; q < sz; q++) {
            h->set_first[m[i + q].r] = at;
            h->set_size[m[i + q].r] = sz;
            h->set_pos[m[i + q].r] = q;
            h->sets[at + q] = m[i + q].r;
        }
        at += sz;
        i = e;
    }
    free(m);
    free(old);
    return DMESH_SUCCESS;
}

/* Whether the copies held now serve plan p: for a scheme of sets, every
 * member's parity was made for the set p gives it (the table's sign of its
 * identity is its set's sign under p: a set that lost or gained a member
 * has another); for partner, p is the placement of the table's domains,
 * its members the table's in its places. */
static int held_serve(const dmesh_copies_plan_t *p, const uint64_t ids[], const uint64_t *table,
                      int tn, int kept, const dmesh_copies_plan_t *h, const int64_t held[],
                      int64_t v)
{
    placed_t *old;
    int ok = 1;

    if (table == NULL)
        return 0;
    for (int r = 0; r < p->n; r++) /* every member holds its part (a replacement does not) */
        if (held[r] != v && p->scheme->partner(p, r, 0) >= 0)
            return 0;
    if (!p->scheme->grouped)
        return kept && same_placement(h, p);
    if ((old = malloc((size_t)(tn > 0 ? tn : 1) * sizeof(*old))) == NULL)
        return 0;                /* made again: never wrong */
    for (int j = 0; j < tn; j++) /* the table by identity */
        old[j] = (placed_t){table[j], 0, j};
    qsort(old, (size_t)tn, sizeof(*old), by_set);
    for (int r = 0; r < p->n && ok; r++) {
        placed_t key = {ids[r], 0, -1}, *f = bsearch(&key, old, (size_t)tn, sizeof(*old), by_id);
        ok = f != NULL && table[3 * tn + f->r] == dmesh_copies_set_sign(p, ids, r);
    }
    free(old);
    return ok;
}

int dmesh_copies_place_open(dmesh_copies_plan_t *p, dmesh_copies_plan_t *next, const uint64_t now[],
                            const uint64_t ids[], const uint64_t *table, int tn,
                            const int64_t held[], int64_t newest, int all_own, int *remake,
                            int *kept_was)
{
    int stored = newest != DMESH_COPIES_NONE;
    dmesh_copies_plan_t t = *p, h;
    int n = p->n, err, have = 0, serve;
    int kept = table != NULL && tn == n && memcmp(ids, table, (size_t)n * sizeof(uint64_t)) == 0;

    *remake = *kept_was = 0;
    next->n = 0;
    if ((err = plan_for(&t, now, p)) != DMESH_SUCCESS || !stored)
        return err;                          /* nothing held to keep */
    if (table != NULL && p->scheme->grouped) /* the held parities' sets, by identity */
        err = held_sets(p, ids, table, tn, &h), have = 1;
    else if (kept) /* the held copies' placement: the one its domains give */
        err = plan_for(&t, table + n, &h), have = 1;
    if (err != DMESH_SUCCESS)
        return err;
    serve = held_serve(p, ids, table, tn, kept, have ? &h : NULL, held, newest);
    if (serve || all_own || !have) { /* kept, or made again here from the own copies */
        *remake = !serve && all_own;
        if (have)
            dmesh_copies_plan_free(&h);
        return DMESH_SUCCESS;
    }
    *next = *p; /* the domains' placement waits for the next store */
    *p = h;
    *kept_was = kept;
    return DMESH_SUCCESS;
}
