/* SPDX-License-Identifier: BSD-3-Clause */
/* The hash of a collective creation call (request.h). */
#include "config.h"

#include "api_impl.h"

#include <string.h>

#include "backend.h"
#include "hash.h"
#include "request.h"

void dmesh_request_begin(dmesh_request_t *r, const char *fn, int check)
{
    r->check = check != 0;
    r->h = dmesh_hash(DMESH_HASH_INIT, &r->check, sizeof(r->check));
    dmesh_request_string(r, fn);
}

void dmesh_request_bytes(dmesh_request_t *r, const void *p, size_t n)
{
    if (r->check)
        r->h = dmesh_hash(r->h, p, n);
}

void dmesh_request_string(dmesh_request_t *r, const char *s)
{
    /* with the NUL: "ab","c" differs from "a","bc" */
    dmesh_request_bytes(r, s, strlen(s) + 1);
}

void dmesh_request_axis(dmesh_request_t *r, const dmesh_axis_t *a)
{
    dmesh_request_bytes(r, &a->natoms, sizeof(a->natoms));
    dmesh_request_bytes(r, a->atoms, sizeof(dmesh_atom_t) * (size_t)a->natoms);
}

void dmesh_request_layout(dmesh_request_t *r, const dmesh_layout_t *l)
{
    dmesh_request_bytes(r, &l->naxes, sizeof(l->naxes));
    for (int d = 0; d < l->naxes; d++)
        dmesh_request_axis(r, &l->axes[d]);
}

void dmesh_request_names(dmesh_request_t *r, int n, const char *const names[])
{
    int named = names != NULL;

    dmesh_request_bytes(r, &named, sizeof(named));
    for (int i = 0; named && i < n; i++)
        dmesh_request_string(r, names[i]);
}

void dmesh_request_dims(dmesh_request_t *r, int n, int named, const dmesh_dim_t dim[])
{
    dmesh_request_bytes(r, &n, sizeof(n));
    dmesh_request_bytes(r, &named, sizeof(named));
    for (int d = 0; d < n; d++) {
        dmesh_request_axis(r, &dim[d].entry->axis);
        if (named)
            dmesh_request_string(r, dim[d].name);
    }
}

void dmesh_request_options(dmesh_request_t *r, int ndims, const dmesh_options_t *o)
{
    char key[DMESH_OPTIONS_KEY_LEN];

    dmesh_request_bytes(r, &o->comm_create, sizeof(o->comm_create));
    for (int b = 0; b < dmesh_backend_count; b++) /* each backend's options of the call */
        if (dmesh_backends[b]->call_option != NULL)
            dmesh_request_bytes(r, &o->call[b], sizeof(o->call[b]));
    dmesh_request_bytes(r, &o->order, sizeof(o->order));
    for (int d = 0; d < ndims; d++) {
        dmesh_axis_options_key(&o->axis[d], key, sizeof(key));
        dmesh_request_string(r, key);
    }
}

uint64_t dmesh_request_hash(const dmesh_request_t *r)
{
    return r->check ? r->h : 0;
}
