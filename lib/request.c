/* SPDX-License-Identifier: BSD-3-Clause */
/* The hash of a collective creation call (request.h). */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "agree.h"
#include "backend.h"
#include "hash.h"
#include "request.h"

void dmesh_request_begin(dmesh_request_t *r, const char *fn, int check)
{
    r->check = check != 0;
    r->nparts = 0;
    r->h = dmesh_hash(DMESH_HASH_INIT, &r->check, sizeof(r->check));
    dmesh_request_string(r, fn);
}

void dmesh_request_bytes(dmesh_request_t *r, const void *p, size_t n)
{
    dmesh_request_part_t *part;

    if (!r->check)
        return;
    r->h = dmesh_hash(r->h, p, n);
    if (r->nparts > 0) {
        part = &r->part[r->nparts - 1];
        part->h = dmesh_hash(part->h, p, n);
    }
}

void dmesh_request_part(dmesh_request_t *r, const char *what, const char *fmt, ...)
{
    dmesh_request_part_t *part;
    va_list ap;

    if (!r->check || r->nparts == DMESH_REQUEST_PARTS)
        return; /* the last part takes the rest */
    part = &r->part[r->nparts++];
    part->what = what;
    part->h = DMESH_HASH_INIT;
    va_start(ap, fmt);
    vsnprintf(part->text, sizeof(part->text), fmt, ap);
    va_end(ap);
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
    dmesh_request_bytes(r, &o->node, sizeof(o->node)); /* the node steps are collective */
    for (int d = 0; d < ndims; d++) {
        dmesh_axis_options_key(&o->axis[d], key, sizeof(key));
        dmesh_request_string(r, key);
    }
}

uint64_t dmesh_request_hash(const dmesh_request_t *r)
{
    return r->check ? r->h : 0;
}

/* The name and value of one argument, as sent between ranks. */
typedef struct {
    char what[24];
    char text[DMESH_REQUEST_TEXT];
} told_t;

/* Part k of r (empty beyond its parts), broadcast from root. */
static int tell(MPI_Comm comm, int rank, int root, const dmesh_request_t *r, int k, told_t *t)
{
    memset(t, 0, sizeof(*t));
    if (rank == root && k < r->nparts) {
        snprintf(t->what, sizeof(t->what), "%s", r->part[k].what);
        snprintf(t->text, sizeof(t->text), "%s", r->part[k].text);
    }
    if (MPI_Bcast(t, (int)sizeof(*t), MPI_BYTE, root, comm) != MPI_SUCCESS)
        return 0;
    t->what[sizeof(t->what) - 1] = t->text[sizeof(t->text) - 1] = '\0';
    return 1;
}

/* The first part of r that differs from rank 0's hashes (h0, n0 of them;
 * check0: rank 0's dmesh_check), DMESH_REQUEST_PARTS for dmesh_check
 * itself, DMESH_REQUEST_PARTS + 1 when none differs. */
static int first_difference(const dmesh_request_t *r, const uint64_t h0[], int n0, int check0)
{
    if (r->check != check0)
        return DMESH_REQUEST_PARTS;
    for (int k = 0; k < DMESH_REQUEST_PARTS; k++) {
        if (k >= n0 || k >= r->nparts)
            return n0 == r->nparts ? DMESH_REQUEST_PARTS + 1 : k;
        if (h0[k] != r->part[k].h)
            return k;
    }
    return DMESH_REQUEST_PARTS + 1;
}

int dmesh_request_explain(MPI_Comm comm, const dmesh_request_t *r, const char *fn)
{
    uint64_t h0[DMESH_REQUEST_PARTS + 1];
    int rank = 0, mine = INT_MAX, first = INT_MAX, at, k, ok;
    told_t theirs, zero;

    memset(h0, 0, sizeof(h0));
    MPI_Comm_rank(comm, &rank);
    for (k = 0; rank == 0 && k < r->nparts; k++)
        h0[k] = r->part[k].h;
    /* every rank takes each step, its check on or off (no parts then) */
    h0[DMESH_REQUEST_PARTS] = rank == 0 ? (uint64_t)r->nparts << 1 | (uint64_t)r->check : 0;
    /* every rank takes every collective step, whatever failed where, and
     * the ranks agree before the steps whose root the result chooses */
    ok = MPI_Bcast(h0, DMESH_REQUEST_PARTS + 1, MPI_UINT64_T, 0, comm) == MPI_SUCCESS;
    k = first_difference(r, h0, (int)(h0[DMESH_REQUEST_PARTS] >> 1),
                         (int)(h0[DMESH_REQUEST_PARTS] & 1));
    if (ok && rank > 0 && k <= DMESH_REQUEST_PARTS && rank <= INT_MAX / 32 - 1)
        mine = rank * 32 + k;
    ok = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) == MPI_SUCCESS && ok;
    if (dmesh_agree(comm, 0,
                    ok ? DMESH_SUCCESS
                       : dmesh_error_set(DMESH_ERR_MPI, "%s: comparing the arguments failed", fn),
                    fn) != DMESH_SUCCESS ||
        first == INT_MAX)
        goto generic;
    at = first / 32;
    k = first % 32;
    if (k == DMESH_REQUEST_PARTS)
        return dmesh_error_set(DMESH_ERR_MISMATCH,
                               "%s: rank %d and rank 0 passed different dmesh_check settings", fn,
                               at);
    ok = tell(comm, rank, at, r, k, &theirs);
    ok = tell(comm, rank, 0, r, k, &zero) && ok; /* the last collective: each rank alone now */
    if (!ok)
        goto generic;
    if (theirs.what[0] == '\0' || strcmp(theirs.what, zero.what) != 0)
        return dmesh_error_set(DMESH_ERR_MISMATCH,
                               "%s: rank %d passed other arguments than rank 0 (its %s, "
                               "rank 0's %s)",
                               fn, at, theirs.what[0] ? theirs.what : "arguments end",
                               zero.what[0] ? zero.what : "arguments end");
    if (theirs.text[0] == '\0')
        return dmesh_error_set(DMESH_ERR_MISMATCH, "%s: rank %d and rank 0 passed different %s", fn,
                               at, theirs.what);
    return dmesh_error_set(DMESH_ERR_MISMATCH, "%s: rank %d passed %s %s, rank 0 %s", fn, at,
                           theirs.what, theirs.text, zero.text);
generic:
    return dmesh_error_set(DMESH_ERR_MISMATCH,
                           "%s: ranks passed different arguments (compared: the call, "
                           "dmesh_check, the universe, shape, names, layout, rank map, device "
                           "type, backends and options)",
                           fn);
}
