/* SPDX-License-Identifier: BSD-3-Clause */
/* Hash table of communicator entries, keyed by canonical axis layout and
 * backend options: a 64-bit FNV-1a hash picks the chain, an exact comparison
 * decides. Entries also sit in an array in creation order, so that the
 * universe can free them in reverse. */
#include "config.h"

#include "api_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "error.h"
#include "fault.h"

static uint64_t entry_hash(const dmesh_axis_t *axis, const char *options)
{
    uint64_t h = dmesh_hash(DMESH_HASH_INIT, &axis->natoms, sizeof(axis->natoms));

    h = dmesh_hash(h, axis->atoms, sizeof(axis->atoms[0]) * (size_t)axis->natoms);
    return dmesh_hash(h, options, strlen(options));
}

int dmesh_cache_init(dmesh_cache_t *c)
{
    memset(c, 0, sizeof(*c));
    c->nbuckets = 64;
    c->buckets = DMESH_FAULT_CALLOC((size_t)c->nbuckets, sizeof(*c->buckets));
    if (c->buckets == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "communicator cache: out of memory");
    return DMESH_SUCCESS;
}

dmesh_comm_entry_t *dmesh_cache_find(dmesh_cache_t *c, const dmesh_axis_t *axis,
                                     const char *options)
{
    uint64_t h = entry_hash(axis, options);
    dmesh_comm_entry_t *e;

    c->lookups++;
    for (e = c->buckets[h % (uint64_t)c->nbuckets]; e != NULL; e = e->next) {
        if (e->hash == h && dmesh_axis_equal_impl(&e->axis, axis) &&
            strcmp(e->options, options) == 0) {
            c->hits++;
            return e;
        }
    }
    return NULL;
}

int dmesh_cache_entry_new(const dmesh_axis_t *axis, const char *options, int backend,
                          dmesh_comm_entry_t **out)
{
    dmesh_comm_entry_t *e = DMESH_FAULT_CALLOC(1, sizeof(*e));

    if (e == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "communicator cache: out of memory");
    e->axis = *axis;
    snprintf(e->options, sizeof(e->options), "%s", options);
    e->backend = backend;
    e->hash = entry_hash(axis, e->options);
    e->comm = MPI_COMM_NULL;
    e->members = MPI_GROUP_NULL;
    *out = e;
    return DMESH_SUCCESS;
}

/* Double the bucket array when the load passes 1, keeping chains short. */
static int grow(dmesh_cache_t *c)
{
    int nb = c->nbuckets * 2, i;
    dmesh_comm_entry_t **b = DMESH_FAULT_CALLOC((size_t)nb, sizeof(*b));

    if (b == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "communicator cache: out of memory");
    for (i = 0; i < c->count; i++) {
        dmesh_comm_entry_t *e = c->order[i];
        e->next = b[e->hash % (uint64_t)nb];
        b[e->hash % (uint64_t)nb] = e;
    }
    free(c->buckets);
    c->buckets = b;
    c->nbuckets = nb;
    return DMESH_SUCCESS;
}

int dmesh_cache_add(dmesh_cache_t *c, dmesh_comm_entry_t *e)
{
    uint64_t slot;

    if (c->count == c->capacity) {
        int cap = c->capacity ? 2 * c->capacity : 16;
        dmesh_comm_entry_t **o = DMESH_FAULT_REALLOC(c->order, (size_t)cap * sizeof(*o));
        if (o == NULL)
            return dmesh_error_set(DMESH_ERR_NOMEM, "communicator cache: out of memory");
        c->order = o;
        c->capacity = cap;
    }
    /* grow before e is in order[]: a failure leaves the cache as it was and
     * e to the caller */
    if (c->count + 1 > c->nbuckets)
        DMESH_TRY(grow(c));
    c->order[c->count++] = e;
    slot = e->hash % (uint64_t)c->nbuckets;
    e->next = c->buckets[slot];
    c->buckets[slot] = e;
    return DMESH_SUCCESS;
}

void dmesh_cache_drop_last(dmesh_cache_t *c)
{
    dmesh_comm_entry_t *e = c->order[--c->count], **p;

    for (p = &c->buckets[e->hash % (uint64_t)c->nbuckets]; *p != NULL; p = &(*p)->next) {
        if (*p == e) {
            *p = e->next;
            break;
        }
    }
    free(e);
}

void dmesh_cache_destroy(dmesh_cache_t *c)
{
    int i;

    for (i = 0; i < c->count; i++)
        free(c->order[i]);
    free(c->order);
    free(c->buckets);
    memset(c, 0, sizeof(*c));
}

int dmesh_cache_count_paired(const dmesh_cache_t *c, int b)
{
    int i, n = 0;

    for (i = 0; i < c->count; i++)
        n += c->order[i]->backend == b && c->order[i]->paired != NULL;
    return n;
}

int dmesh_cache_listed_before(dmesh_comm_entry_t *const e[], int i)
{
    for (int j = 0; j < i; j++)
        if (e[j] == e[i])
            return 1;
    return 0;
}
