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
    dmesh_request_part(r, "call", "%s", fn);
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
    part->kind = DMESH_REQUEST_NONE;
    part->data = NULL;
    part->len = 0;
    va_start(ap, fmt);
    vsnprintf(part->text, sizeof(part->text), fmt, ap);
    va_end(ap);
}

void dmesh_request_long(dmesh_request_t *r, int kind, const void *data, size_t len)
{
    dmesh_request_part_t *part;

    if (!r->check || r->nparts == 0)
        return;
    part = &r->part[r->nparts - 1];
    part->kind = kind;
    part->data = data;
    part->len = data != NULL ? len : 0;
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

    dmesh_request_part(r, "dmesh_comm_create", "%s",
                       o->comm_create == DMESH_COMM_CREATE_GROUP ? "group" : "split");
    dmesh_request_bytes(r, &o->comm_create, sizeof(o->comm_create));
    dmesh_request_part(r, "dmesh_order", "%s", o->order == DMESH_ORDER_NODE ? "node" : "rank");
    dmesh_request_bytes(r, &o->order, sizeof(o->order));
    dmesh_request_part(r, "options", "%s", "");
    for (int b = 0; b < dmesh_backend_count; b++) /* each backend's options of the call */
        if (dmesh_backends[b]->call_option != NULL)
            dmesh_request_bytes(r, &o->call[b], sizeof(o->call[b]));
    /* the node steps are collective: the rule must be the same everywhere */
    dmesh_request_part(r, "dmesh_node", "%s",
                       o->node >= 0 && o->node < DMESH_NODE_RULES ? dmesh_node_rule_names[o->node]
                                                                  : "?");
    dmesh_request_bytes(r, &o->node, sizeof(o->node));
    for (int d = 0; d < ndims; d++) {
        dmesh_axis_options_key(&o->axis[d], key, sizeof(key));
        /* the first dims' backends and options by value, the others in the last */
        dmesh_request_part(r, "backend", "of dim %d: %.44s", d, key);
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

/* Rank at's and rank 0's value of a long argument where they first differ:
 * a position of ints, a line of text. */
typedef struct {
    char at[DMESH_REQUEST_TEXT];
    char zero[DMESH_REQUEST_TEXT];
} told_long_t;

static void ints_difference(const int *a, size_t na, const int *z, size_t nz, told_long_t *t)
{
    size_t i;

    for (i = 0; i < na && i < nz && a[i] == z[i]; i++)
        ;
    if (i < na && i < nz) {
        snprintf(t->at, sizeof(t->at), "[%zu] = %d", i, a[i]);
        snprintf(t->zero, sizeof(t->zero), "[%zu] = %d", i, z[i]);
    } else {
        snprintf(t->at, sizeof(t->at), " with %zu entries", na);
        snprintf(t->zero, sizeof(t->zero), " with %zu", nz);
    }
}

/* One line of text at its start, shortened to fit. */
static void line_text(char *out, size_t len, int line, const char *s, const char *end)
{
    size_t n = strcspn(s, "\n");

    if (s >= end)
        snprintf(out, len, " line %d: (none)", line);
    else if (n > 40)
        snprintf(out, len, " line %d \"%.37s...\"", line, s);
    else
        snprintf(out, len, " line %d \"%.*s\"", line, (int)n, s);
}

static void lines_difference(const char *a, size_t na, const char *z, size_t nz, told_long_t *t)
{
    size_t i, start = 0;
    int line = 1;

    for (i = 0; i < na && i < nz && a[i] == z[i]; i++)
        if (a[i] == '\n') {
            line++;
            start = i + 1;
        }
    line_text(t->at, sizeof(t->at), line, a + start, a + na);
    line_text(t->zero, sizeof(t->zero), line, z + start, z + nz);
}

/* Collective: rank 0's long value of part k to every rank (its first
 * DMESH_REQUEST_LONG bytes), rank at's comparison of its own with it to
 * every rank. 0 when rank 0 has none (nothing told) or a step failed. */
static int tell_long(MPI_Comm comm, int rank, int at, const dmesh_request_t *r, int k,
                     told_long_t *t)
{
    static _Thread_local char zero[DMESH_REQUEST_LONG];
    const dmesh_request_part_t *p = k < r->nparts ? &r->part[k] : NULL;
    uint64_t head[2] = {0, 0}; /* rank 0's kind and length */
    size_t n, mine;

    memset(t, 0, sizeof(*t));
    if (rank == 0 && p != NULL && p->data != NULL) {
        head[0] = (uint64_t)p->kind;
        head[1] = p->len < DMESH_REQUEST_LONG ? p->len : DMESH_REQUEST_LONG;
        memcpy(zero, p->data, (size_t)head[1]);
    }
    if (MPI_Bcast(head, 2, MPI_UINT64_T, 0, comm) != MPI_SUCCESS || head[1] == 0)
        return 0;
    n = (size_t)head[1];
    if (MPI_Bcast(zero, (int)n, MPI_BYTE, 0, comm) != MPI_SUCCESS)
        return 0;
    if (rank == at && p != NULL && p->data != NULL && (uint64_t)p->kind == head[0]) {
        mine = p->len < DMESH_REQUEST_LONG ? p->len : DMESH_REQUEST_LONG;
        if (p->kind == DMESH_REQUEST_INTS)
            ints_difference(p->data, mine / sizeof(int), (const int *)zero, n / sizeof(int), t);
        else
            lines_difference(p->data, mine, zero, n, t);
    }
    if (MPI_Bcast(t, (int)sizeof(*t), MPI_BYTE, at, comm) != MPI_SUCCESS)
        return 0;
    t->at[sizeof(t->at) - 1] = t->zero[sizeof(t->zero) - 1] = '\0';
    return t->at[0] != '\0';
}

/* The environment variable of an option (the value that differs), or
 * NULL. A value that differs between hosts mostly comes from a variable
 * set on some hosts only: a launcher passes the caller's environment to
 * the ranks of its own host, and to the others only when told to. */
static const char *option_variable(const char *what)
{
    if (strcmp(what, "dmesh_node") == 0)
        return "DMESH_NODE";
    if (strcmp(what, "dmesh_comm_create") == 0)
        return "DMESH_COMM_CREATE";
    return NULL;
}

/* The detail once rank at's argument k is known to differ. */
static int explain_part(const char *fn, int at, const told_t *theirs, const told_t *zero,
                        const told_long_t *l, int has_long)
{
    if (theirs->what[0] == '\0' || strcmp(theirs->what, zero->what) != 0)
        return dmesh_error_set(DMESH_ERR_MISMATCH,
                               "%s: rank %d passed other arguments than rank 0 (its %s, "
                               "rank 0's %s)",
                               fn, at, theirs->what[0] ? theirs->what : "arguments end",
                               zero->what[0] ? zero->what : "arguments end");
    if (strcmp(theirs->what, "call") == 0)
        return dmesh_error_set(DMESH_ERR_MISMATCH, "%s: rank %d called %s, rank 0 %s", fn, at,
                               theirs->text, zero->text);
    if (has_long)
        return dmesh_error_set(DMESH_ERR_MISMATCH, "%s: rank %d passed %s%s, rank 0 %s%s", fn, at,
                               theirs->what, l->at, zero->what, l->zero);
    if (theirs->text[0] == '\0')
        return dmesh_error_set(DMESH_ERR_MISMATCH, "%s: rank %d and rank 0 passed different %s", fn,
                               at, theirs->what);
    if (option_variable(theirs->what) != NULL)
        return dmesh_error_set(DMESH_ERR_MISMATCH,
                               "%s: rank %d passed %s %s, rank 0 %s (set by the info key or by "
                               "%s: where the variable is set, pass it to every host, as "
                               "Open MPI's mpiexec -x %s does)",
                               fn, at, theirs->what, theirs->text, zero->text,
                               option_variable(theirs->what), option_variable(theirs->what));
    return dmesh_error_set(DMESH_ERR_MISMATCH, "%s: rank %d passed %s %s, rank 0 %s", fn, at,
                           theirs->what, theirs->text, zero->text);
}

int dmesh_request_explain(MPI_Comm comm, const dmesh_request_t *r, const char *fn)
{
    uint64_t h0[DMESH_REQUEST_PARTS + 1];
    int rank = 0, mine = INT_MAX, first = INT_MAX, at, k, ok, has_long, err;
    told_t theirs, zero;
    told_long_t l;

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
    err = ok ? DMESH_SUCCESS
             : dmesh_error_set(DMESH_ERR_MPI, "%s: comparing the arguments failed", fn);
    if (dmesh_agree_outcome(comm, err, fn) != DMESH_SUCCESS || first == INT_MAX)
        goto generic;
    at = first / 32;
    k = first % 32;
    if (k == DMESH_REQUEST_PARTS)
        return dmesh_error_set(DMESH_ERR_MISMATCH,
                               "%s: rank %d and rank 0 passed different dmesh_check settings "
                               "(set by the info key or by DMESH_CHECK: where the variable is "
                               "set, pass it to every host, as Open MPI's mpiexec -x DMESH_CHECK "
                               "does)",
                               fn, at);
    ok = tell(comm, rank, at, r, k, &theirs);
    ok = tell(comm, rank, 0, r, k, &zero) && ok;
    has_long = tell_long(comm, rank, at, r, k, &l); /* the last collective: each rank alone now */
    if (!ok)
        goto generic;
    return explain_part(fn, at, &theirs, &zero, &l, has_long);
generic:
    return dmesh_error_set(DMESH_ERR_MISMATCH,
                           "%s: ranks passed different arguments (compared: the call, "
                           "dmesh_check, the universe, shape, names, layout, rank map, device "
                           "type, backends and options)",
                           fn);
}
