/* SPDX-License-Identifier: BSD-3-Clause */
/* The pure parts of the copies (copies.h): no MPI call, so that a plain
 * unit test covers who holds whose copy, the XOR sets and parity, and the
 * version a restore can give back. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "copies.h"
#include "error.h"

int dmesh_copies_pick_dim(int ndims, const int shape[], const int kind[])
{
    for (int d = 0; d < ndims; d++)
        if (shape[d] > 1 && kind[d] != DMESH_LOCALITY_NODE)
            return d;
    return -1;
}

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

static int moved(const dmesh_copies_plan_t *p, int r, int by)
{
    int len, at, stride;

    line_of(p, r, &len, &at, &stride);
    return r + (((at + by) % len + len) % len - at) * stride;
}

int dmesh_copies_holder(const dmesh_copies_plan_t *p, int r)
{
    return moved(p, r, 1);
}

int dmesh_copies_owner(const dmesh_copies_plan_t *p, int r)
{
    return moved(p, r, -1);
}

void dmesh_copies_set(const dmesh_copies_plan_t *p, int r, int members[], int *m, int *pos)
{
    int len, at, stride, k = p->k < 2 ? 2 : p->k, nsets, set, first, size;

    line_of(p, r, &len, &at, &stride);
    nsets = len / k;
    if (nsets == 0 || len % k >= 2)
        nsets++; /* a last set of the rest; a rest of one joins the last full set */
    set = at / k < nsets - 1 ? at / k : nsets - 1;
    first = set * k;
    size = set == nsets - 1 ? len - first : k;
    if (size > DMESH_COPIES_MAX_SET)
        size = DMESH_COPIES_MAX_SET; /* guarded by open: k <= DMESH_COPIES_MAX_SET / 2 */
    for (int i = 0; i < size; i++)
        members[i] = r + (first + i - at) * stride;
    *m = size;
    *pos = at - first;
}

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

/* Whether member r of the plan can get version v back, and how. */
static int source_of(const dmesh_copies_plan_t *p, const dmesh_copies_record_t rec[], int r,
                     int64_t v)
{
    if (rec[r].own == v)
        return DMESH_COPIES_SRC_SELF;
    if (p->scheme == DMESH_COPIES_PARTNER) {
        int h = dmesh_copies_holder(p, r);
        return h != r && rec[h].held == v ? DMESH_COPIES_SRC_HOLDER : DMESH_COPIES_SRC_LOST;
    }
    {
        int members[DMESH_COPIES_MAX_SET], m, pos;
        dmesh_copies_set(p, r, members, &m, &pos);
        if (m < 2)
            return DMESH_COPIES_SRC_LOST;
        for (int i = 0; i < m; i++)
            if (members[i] != r && (rec[members[i]].own != v || rec[members[i]].held != v))
                return DMESH_COPIES_SRC_LOST;
    }
    return DMESH_COPIES_SRC_PARITY;
}

static int cmp_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x < y) - (x > y);
}

/* Whether every member can get v back (src[] filled either way). */
static int all_get(const dmesh_copies_plan_t *p, const dmesh_copies_record_t rec[], int64_t v,
                   int src[])
{
    int ok = 1;

    for (int r = 0; r < p->n; r++) {
        src[r] = source_of(p, rec, r, v);
        ok &= src[r] != DMESH_COPIES_SRC_LOST;
    }
    return ok;
}

static void mark_refresh(const dmesh_copies_plan_t *p, const dmesh_copies_record_t rec[], int64_t v,
                         int refresh[])
{
    for (int r = 0; r < p->n; r++) {
        if (p->scheme == DMESH_COPIES_PARTNER) {
            refresh[r] = dmesh_copies_owner(p, r) != r && rec[r].held != v;
            continue;
        }
        int members[DMESH_COPIES_MAX_SET], m, pos;
        dmesh_copies_set(p, r, members, &m, &pos);
        refresh[r] = 0;
        for (int i = 0; i < m && m > 1; i++)
            if (rec[members[i]].own != v || rec[members[i]].held != v)
                refresh[r] = 1;
    }
}

int dmesh_copies_plan_restore(const dmesh_copies_plan_t *p, const dmesh_copies_record_t rec[],
                              int64_t *version, int src[], int refresh[])
{
    int64_t *v = malloc(2 * (size_t)p->n * sizeof(*v));
    int nv = 0, found = -1;

    if (v == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_copies_restore: no memory for the plan");
    for (int r = 0; r < p->n; r++) {
        if (rec[r].own >= 0)
            v[nv++] = rec[r].own;
        if (rec[r].held >= 0)
            v[nv++] = rec[r].held;
    }
    qsort(v, (size_t)nv, sizeof(*v), cmp_desc);
    for (int i = 0; i < nv && found < 0; i++)
        if ((i == 0 || v[i] != v[i - 1]) && all_get(p, rec, v[i], src))
            found = i;
    *version = found >= 0 ? v[found] : DMESH_COPIES_NONE;
    if (found < 0 && nv > 0)
        all_get(p, rec, v[0], src); /* who lacks the newest version */
    free(v);
    for (int r = 0; r < p->n; r++)
        refresh[r] = 0;
    if (nv == 0) {
        for (int r = 0; r < p->n; r++)
            src[r] = DMESH_COPIES_SRC_SELF;
        return DMESH_SUCCESS;
    }
    if (found < 0)
        return DMESH_ERR_DATA_LOST;
    mark_refresh(p, rec, *version, refresh);
    return DMESH_SUCCESS;
}
