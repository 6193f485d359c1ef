/* SPDX-License-Identifier: BSD-3-Clause */
/* The pure parts of a restore (copies.h): the XOR parity's chunks, and
 * which version every member can get back and from where. No MPI call, so
 * that a plain unit test covers them.
 *
 * A copy is given back to its owner only: a held copy serves the identity
 * it was made for (held_for), wherever it is now held (after a shrink the
 * members are numbered anew, and the holder of a copy need not be the
 * member the placement names); a parity serves the set it was made for
 * (its members' identities in order). A member without predecessor (born)
 * has nothing to get back and does not hold the version back for the
 * others. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "copies_plan.h"
#include "copies_scheme.h"
#include "error.h"

size_t dmesh_copies_chunk_size(size_t longest, int m)
{
    size_t c = m > 1 ? (longest + (size_t)m - 2) / (size_t)(m - 1) : longest;

    return (c + 7) / 8 * 8;
}

void dmesh_copies_contribution(const char *copy, size_t len, size_t c, int me, int i, int m,
                               char *out)
{
    size_t from, n;

    memset(out, 0, c);
    if (i == me)
        return;
    from = (size_t)dmesh_copies_chunk(i, me, m) * c;
    if (from >= len)
        return;
    n = len - from < c ? len - from : c;
    memcpy(out, copy + from, n);
}

typedef dmesh_copies_held_t held_t;
typedef dmesh_copies_view_t view_t;

static int cmp_held(const void *a, const void *b)
{
    const held_t *x = a, *y = b;

    if (x->held_for != y->held_for)
        return x->held_for < y->held_for ? -1 : 1;
    return (x->r > y->r) - (x->r < y->r);
}

int dmesh_copies_view_holder(const view_t *w, int r, int64_t v)
{
    int lo = 0, hi = w->p->n;
    uint64_t id = w->rec[r].id;

    while (lo < hi) { /* the first of the members whose held copy serves >= id */
        int mid = lo + (hi - lo) / 2;
        if (w->by_held[mid].held_for < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int i = lo; i < w->p->n && w->by_held[i].held_for == id; i++) {
        int x = w->by_held[i].r;
        if (x != r && w->rec[x].held == v)
            return x;
    }
    return -1;
}

/* Whether member r can get version v back, and how (*from: partner). */
static int source_of(const view_t *w, int r, int64_t v, int *from)
{
    *from = -1;
    if (w->rec[r].born)
        return DMESH_COPIES_SRC_NONE;
    if (w->rec[r].own == v)
        return DMESH_COPIES_SRC_SELF;
    return w->p->scheme->source(w, r, v, from);
}

/* Whether every member can get v back (src[] and from[] filled either way). */
static int all_get(const view_t *w, int64_t v, int src[], int from[])
{
    int ok = 1;

    for (int r = 0; r < w->p->n; r++) {
        src[r] = source_of(w, r, v, &from[r]);
        ok &= src[r] != DMESH_COPIES_SRC_LOST;
    }
    return ok;
}

static void mark_refresh(const view_t *w, int64_t v, int refresh[])
{
    for (int r = 0; r < w->p->n; r++)
        refresh[r] = w->p->scheme->refresh(w, r, v);
}

static int cmp_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x < y) - (x > y);
}

/* The versions anyone holds, newest first, into v (2n); their count. */
static int versions(const view_t *w, int64_t v[])
{
    int nv = 0;

    for (int r = 0; r < w->p->n; r++) {
        if (w->rec[r].own >= 0)
            v[nv++] = w->rec[r].own;
        if (w->rec[r].held >= 0)
            v[nv++] = w->rec[r].held;
    }
    qsort(v, (size_t)nv, sizeof(*v), cmp_desc);
    return nv;
}

static int view_make(view_t *w, const dmesh_copies_plan_t *p, const dmesh_copies_record_t rec[])
{
    uint64_t *ids;

    w->p = p;
    w->rec = rec;
    w->by_held = malloc((size_t)p->n * sizeof(*w->by_held));
    w->want = malloc(2 * (size_t)p->n * sizeof(uint64_t));
    if (w->by_held == NULL || w->want == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_copies_restore: no memory for the plan");
    ids = w->want + p->n;
    for (int r = 0; r < p->n; r++) {
        w->by_held[r] = (held_t){rec[r].held_for, r};
        ids[r] = rec[r].id;
    }
    qsort(w->by_held, (size_t)p->n, sizeof(*w->by_held), cmp_held);
    for (int r = 0; r < p->n; r++)
        w->want[r] = p->scheme->held_for(p, ids, r);
    return DMESH_SUCCESS;
}

int dmesh_copies_plan_restore(const dmesh_copies_plan_t *p, const dmesh_copies_record_t rec[],
                              int64_t *version, int src[], int from[], int refresh[])
{
    view_t w = {0};
    int64_t *v = malloc(2 * (size_t)p->n * sizeof(*v));
    int nv = 0, found = -1, err = view_make(&w, p, rec);

    if (!err && v == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_copies_restore: no memory for the plan");
    if (!err)
        nv = versions(&w, v);
    for (int i = 0; !err && i < nv && found < 0; i++)
        if ((i == 0 || v[i] != v[i - 1]) && all_get(&w, v[i], src, from))
            found = i;
    *version = found >= 0 ? v[found] : DMESH_COPIES_NONE;
    if (!err && found < 0 && nv > 0)
        all_get(&w, v[0], src, from); /* who lacks the newest version */
    for (int r = 0; r < p->n; r++)
        refresh[r] = 0;
    if (!err && nv == 0) /* nothing held anywhere: right when nobody stored */
        for (int r = 0; r < p->n; r++) {
            src[r] = rec[r].born ? DMESH_COPIES_SRC_NONE : DMESH_COPIES_SRC_LOST;
            from[r] = -1;
            if (!rec[r].born) /* a predecessor that stored: its state is gone */
                err = DMESH_ERR_DATA_LOST;
        }
    else if (!err && found < 0)
        err = DMESH_ERR_DATA_LOST;
    else if (!err)
        mark_refresh(&w, *version, refresh);
    free(v);
    free(w.by_held);
    free(w.want);
    return err;
}
