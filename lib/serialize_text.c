/* SPDX-License-Identifier: BSD-3-Clause */
/* The text form of a saved mesh: printer and parser, pure (no MPI call).
 *
 *   dmesh-mesh 1
 *   device cpu
 *   ranks 8 identity               or: ranks 4 : 3 1 2 0
 *   root "dp" 2:4                  one line per root dimension ("-": unnamed)
 *   root "tp" 4:1
 *   flat "dp_tp" 8:1 mpi           names registered by dmesh_flatten
 *   dim "tp" 4:1 mpi               one line per dimension of the mesh, with
 *                                  its backend and the backend's options
 *                                  (backend.h): mpi, or nccl MASK BLOCKING
 *                                  CGA MIN_CTAS MAX_CTAS SPLIT_SHARE "NET"
 *   is-root 0
 *   end
 *
 * Names are quoted; '"', '\\' and bytes outside printable ASCII are written
 * \xHH. The parser accepts exactly this grammar (one space or tab run
 * between tokens) and checks what the library relies on: distinct names and
 * ranks, canonical axes, a root layout covering the rank map, mesh axes that
 * are orthogonal and tile the rank map. Every error names its line, column
 * and byte offset. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "error.h"
#include "fault.h"
#include "scan.h"
#include "serialize_text.h"
#include "text.h"

/* ---- printer ------------------------------------------------------------ */

static void put_dim(dmesh_text_t *o, const char *kw, const dmesh_saved_dim_t *d, int named,
                    int backend)
{
    char axis[1024];

    dmesh_text_put(o, "%s", kw);
    if (named)
        dmesh_text_put_quoted(o, d->name);
    else
        dmesh_text_put(o, " -");
    dmesh_axis_to_string_impl(&d->axis, axis, sizeof(axis), NULL);
    dmesh_text_put(o, " %s", axis);
    if (backend) {
        const dmesh_backend_t *b = dmesh_backends[d->opts.backend];
        dmesh_text_put(o, " %s", b->name);
        if (b->axis_print != NULL)
            b->axis_print(o, &d->opts.opts);
    }
    dmesh_text_put(o, "\n");
}

void dmesh_saved_print(const dmesh_saved_t *s, char *buf, size_t len, size_t *needed)
{
    dmesh_text_t o = {buf, len, 0};
    int i;

    dmesh_text_put(&o, "dmesh-mesh %d\ndevice %s\nranks %d", DMESH_SAVED_VERSION,
                   s->cuda ? "cuda" : "cpu", s->n);
    if (s->rank_map == NULL)
        dmesh_text_put(&o, " identity");
    else
        dmesh_text_put(&o, " :");
    for (i = 0; s->rank_map != NULL && i < s->n; i++)
        dmesh_text_put(&o, " %d", s->rank_map[i]);
    dmesh_text_put(&o, "\n");
    for (i = 0; i < s->nroot; i++)
        put_dim(&o, "root", &s->root[i], s->root_named, 0);
    for (i = 0; i < s->nflat; i++)
        put_dim(&o, "flat", &s->flat[i], 1, 1);
    for (i = 0; i < s->ndims; i++)
        put_dim(&o, "dim", &s->dims[i], s->named, 1);
    dmesh_text_put(&o, "is-root %d\nend\n", s->is_root != 0);
    dmesh_text_finish(&o, needed);
}

/* ---- parser ------------------------------------------------------------- */

/* A canonical axis whose copies tile a rank map of n. */
static int axis(dmesh_scan_t *c, int n, dmesh_axis_t *a)
{
    char tok[DMESH_SCAN_TOKEN_MAX];
    dmesh_axis_t canon, comp;
    const char *at;

    at = dmesh_scan_at(c);
    DMESH_TRY(dmesh_scan_word(c, 1, tok, "an axis"));
    if (dmesh_axis_parse_impl(tok, a) != DMESH_SUCCESS)
        return dmesh_scan_fail(c, at, "bad axis \"%.60s\" (%s)", tok, dmesh_last_error_impl());
    if (dmesh_axis_canonical_impl(a, &canon) != DMESH_SUCCESS || !dmesh_axis_equal_impl(a, &canon))
        return dmesh_scan_fail(c, at, "axis \"%.60s\" is not canonical", tok);
    if (dmesh_axis_complement_impl(a, n, &comp) != DMESH_SUCCESS)
        return dmesh_scan_fail(c, at, "axis \"%.60s\" does not tile the %d ranks", tok, n);
    return DMESH_SUCCESS;
}

/* A backend of the table by name, then its options (backend.h). */
static int backend(dmesh_scan_t *c, dmesh_axis_options_t *o)
{
    char tok[DMESH_SCAN_TOKEN_MAX], all[64];
    const char *at = c->p + 1;
    int b;

    memset(o, 0, sizeof(*o));
    dmesh_backend_names(all, sizeof(all));
    DMESH_TRY(dmesh_scan_word(c, 1, tok, "a backend"));
    if ((b = dmesh_backend_find(tok)) < 0)
        return dmesh_scan_fail(c, at, "backend \"%.40s\" is not one of %s", tok, all);
    o->backend = b;
    if (dmesh_backends[b]->axis_scan == NULL)
        return DMESH_SUCCESS;
    return dmesh_backends[b]->axis_scan(c, &o->opts);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* "ranks N identity" or "ranks N : r0 r1 ...": N distinct ranks >= 0. */
static int ranks(dmesh_scan_t *c, dmesh_saved_t *s)
{
    char tok[DMESH_SCAN_TOKEN_MAX];
    const char *at;
    int *sorted, i;

    DMESH_TRY(dmesh_scan_int(c, 1, INT_MAX, "rank map size", &s->n));
    at = c->p + 1;
    DMESH_TRY(dmesh_scan_word(c, 1, tok, "identity or :"));
    if (strcmp(tok, "identity") == 0)
        return dmesh_scan_end_of_line(c);
    if (strcmp(tok, ":") != 0)
        return dmesh_scan_fail(c, at, "expected identity or : before the ranks");
    for (i = 0;; i++) {
        const char *q = c->p;
        while (dmesh_scan_is_blank(*q))
            q++;
        if (*q == '\n' || *q == '\0')
            break;
        if (i == s->n)
            return dmesh_scan_fail(c, q, "more than %d ranks", s->n);
        if ((i & (i - 1)) == 0) { /* grow as the list is read: N alone allocates nothing */
            int *m = DMESH_FAULT_REALLOC(s->rank_map, (size_t)(i ? 2 * i : 1) * sizeof(int));
            if (m == NULL)
                return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_deserialize: out of memory");
            s->rank_map = m;
        }
        DMESH_TRY(dmesh_scan_int(c, 0, INT_MAX, "rank", &s->rank_map[i]));
    }
    if (i != s->n)
        return dmesh_scan_fail(c, c->p, "%d ranks, expected %d", i, s->n);
    if ((sorted = DMESH_FAULT_MALLOC((size_t)s->n * sizeof(int))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_deserialize: out of memory");
    memcpy(sorted, s->rank_map, (size_t)s->n * sizeof(int));
    qsort(sorted, (size_t)s->n, sizeof(int), cmp_int);
    for (i = 1; i < s->n && sorted[i] != sorted[i - 1]; i++)
        ;
    i = i < s->n ? sorted[i] : -1;
    free(sorted);
    if (i >= 0)
        return dmesh_scan_fail(c, c->line_start, "rank %d appears twice in the rank map", i);
    return dmesh_scan_end_of_line(c);
}

/* Names of a list of dimensions: all named or none, distinct. */
static int check_names(dmesh_scan_t *c, const char *at, const dmesh_saved_dim_t *d, int k,
                       int *named)
{
    int j;

    if (k == 0)
        *named = d[0].name[0] != '\0';
    if ((d[k].name[0] != '\0') != *named)
        return dmesh_scan_fail(c, at, "named and unnamed dimensions mixed");
    for (j = 0; *named && j < k; j++)
        if (strcmp(d[j].name, d[k].name) == 0)
            return dmesh_scan_fail(c, at, "name \"%.63s\" is used twice", d[k].name);
    return DMESH_SUCCESS;
}

/* The axes of dims joined: orthogonal, tiling the rank map; for the root,
 * exactly the whole rank map in order. */
static int check_joined(dmesh_scan_t *c, const dmesh_saved_dim_t *d, int k, int n, int root,
                        const char *what)
{
    dmesh_layout_t l;
    dmesh_axis_t all, comp;
    int ok = 0, i;

    l.naxes = k;
    for (i = 0; i < k; i++)
        l.axes[i] = d[i].axis;
    if (dmesh_layout_concat_impl(&l, &all) != DMESH_SUCCESS ||
        dmesh_axis_is_orthogonal_impl(&all, &ok) != DMESH_SUCCESS || !ok ||
        dmesh_axis_complement_impl(&all, n, &comp) != DMESH_SUCCESS)
        return dmesh_scan_fail(c, c->line_start,
                               "the %s dimensions overlap or do not tile the rank map", what);
    if (root &&
        (dmesh_axis_canonical_impl(&all, &all) != DMESH_SUCCESS ||
         (n > 1 && (all.natoms != 1 || all.atoms[0].size != n || all.atoms[0].stride != 1))))
        return dmesh_scan_fail(c, c->line_start,
                               "the root dimensions do not cover the rank map in order");
    return DMESH_SUCCESS;
}

enum { SEC_ROOT, SEC_FLAT, SEC_DIM, SEC_DONE };

/* One "root", "flat" or "dim" line after its keyword. */
static int dim_line(dmesh_scan_t *c, dmesh_saved_t *s, int sec, const char *at)
{
    dmesh_saved_dim_t *d;
    int j;

    if (sec == SEC_FLAT) {
        if ((s->nflat & (s->nflat - 1)) == 0) {
            d = DMESH_FAULT_REALLOC(s->flat, (size_t)(s->nflat ? 2 * s->nflat : 1) * sizeof(*d));
            if (d == NULL)
                return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_deserialize: out of memory");
            s->flat = d;
        }
        d = &s->flat[s->nflat];
    } else {
        if ((sec == SEC_ROOT ? s->nroot : s->ndims) == DMESH_MAX_DIMS)
            return dmesh_scan_fail(c, at, "more than %d dimensions", DMESH_MAX_DIMS);
        d = sec == SEC_ROOT ? &s->root[s->nroot] : &s->dims[s->ndims];
    }
    memset(d, 0, sizeof(*d));
    DMESH_TRY(dmesh_scan_name(
        c, d->name, sec != SEC_FLAT ? DMESH_SCAN_NAME_DASH_OK : DMESH_SCAN_NAME_REQUIRED));
    DMESH_TRY(axis(c, s->n, &d->axis));
    if (sec != SEC_ROOT)
        DMESH_TRY(backend(c, &d->opts));
    if (sec == SEC_ROOT)
        DMESH_TRY(check_names(c, at, s->root, s->nroot++, &s->root_named));
    else if (sec == SEC_DIM)
        DMESH_TRY(check_names(c, at, s->dims, s->ndims++, &s->named));
    else {
        for (j = 0; j < s->nroot; j++)
            if (strcmp(s->root[j].name, d->name) == 0)
                return dmesh_scan_fail(c, at, "flattened name \"%.63s\" is a root dimension",
                                       d->name);
        for (j = 0; j < s->nflat; j++)
            if (strcmp(s->flat[j].name, d->name) == 0)
                return dmesh_scan_fail(c, at, "flattened name \"%.63s\" is used twice", d->name);
        s->nflat++;
    }
    return dmesh_scan_end_of_line(c);
}

/* "is-root 0|1" then "end" and the end of the text. */
static int finish(dmesh_scan_t *c, dmesh_saved_t *s)
{
    char tok[DMESH_SCAN_TOKEN_MAX];
    int d, same = s->ndims == s->nroot && s->named == s->root_named;

    DMESH_TRY(dmesh_scan_int(c, 0, 1, "is-root", &s->is_root));
    for (d = 0; same && d < s->ndims; d++)
        same = dmesh_axis_equal_impl(&s->dims[d].axis, &s->root[d].axis) &&
               strcmp(s->dims[d].name, s->root[d].name) == 0;
    if (s->is_root && !same)
        return dmesh_scan_fail(c, c->line_start,
                               "is-root 1, but the dimensions are not the root's");
    DMESH_TRY(dmesh_scan_end_of_line(c));
    DMESH_TRY(dmesh_scan_word(c, 0, tok, "end"));
    if (strcmp(tok, "end") != 0)
        return dmesh_scan_fail(c, c->line_start, "expected end");
    if (*c->p == '\n') {
        c->p++;
        c->line++;
        c->line_start = c->p;
    }
    if (*c->p != '\0')
        return dmesh_scan_fail(c, c->p, "text after end");
    return DMESH_SUCCESS;
}

static int parse_body(dmesh_scan_t *c, dmesh_saved_t *s)
{
    char tok[DMESH_SCAN_TOKEN_MAX];
    const char *at;
    int v = 0, sec = SEC_ROOT, next;

    DMESH_TRY(dmesh_scan_word(c, 0, tok, "dmesh-mesh"));
    if (strcmp(tok, "dmesh-mesh") != 0)
        return dmesh_scan_fail(c, c->text, "not a saved dmesh mesh (expected \"dmesh-mesh\")");
    DMESH_TRY(dmesh_scan_int(c, 0, INT_MAX, "version", &v));
    if (v != DMESH_SAVED_VERSION)
        return dmesh_scan_fail(c, c->line_start,
                               "version %d is not supported (this dmesh reads %d)", v,
                               DMESH_SAVED_VERSION);
    DMESH_TRY(dmesh_scan_end_of_line(c));
    DMESH_TRY(dmesh_scan_word(c, 0, tok, "device"));
    if (strcmp(tok, "device") != 0)
        return dmesh_scan_fail(c, c->line_start, "expected device");
    at = c->p + 1;
    DMESH_TRY(dmesh_scan_word(c, 1, tok, "a device type"));
    if (strcmp(tok, "cpu") != 0 && strcmp(tok, "cuda") != 0)
        return dmesh_scan_fail(c, at, "device type \"%.40s\" is not cpu or cuda", tok);
    s->cuda = tok[1] == 'u';
    DMESH_TRY(dmesh_scan_end_of_line(c));
    DMESH_TRY(dmesh_scan_word(c, 0, tok, "ranks"));
    if (strcmp(tok, "ranks") != 0)
        return dmesh_scan_fail(c, c->line_start, "expected ranks");
    DMESH_TRY(ranks(c, s));
    for (;;) {
        at = c->line_start;
        DMESH_TRY(dmesh_scan_word(c, 0, tok, "root, flat, dim or is-root"));
        next = strcmp(tok, "root") == 0      ? SEC_ROOT
               : strcmp(tok, "flat") == 0    ? SEC_FLAT
               : strcmp(tok, "dim") == 0     ? SEC_DIM
               : strcmp(tok, "is-root") == 0 ? SEC_DONE
                                             : -1;
        if (next < 0)
            return dmesh_scan_fail(c, at, "unknown line \"%.40s\"", tok);
        if (next < sec || (next > SEC_ROOT && s->nroot == 0) || (next == SEC_DONE && s->ndims == 0))
            return dmesh_scan_fail(c, at, "\"%s\" line out of order (root, flat, dim, is-root)",
                                   tok);
        if (next > SEC_ROOT && sec == SEC_ROOT)
            DMESH_TRY(check_joined(c, s->root, s->nroot, s->n, 1, "root"));
        if (next == SEC_DONE) {
            DMESH_TRY(check_joined(c, s->dims, s->ndims, s->n, 0, "mesh"));
            return finish(c, s);
        }
        sec = next;
        DMESH_TRY(dim_line(c, s, sec, at));
    }
}

int dmesh_saved_parse(const char *text, dmesh_saved_t *s)
{
    dmesh_scan_t c = {text, text, text, 1};
    int err;

    DMESH_CHECK_PTR(text);
    memset(s, 0, sizeof(*s));
    if ((err = parse_body(&c, s)) != DMESH_SUCCESS)
        dmesh_saved_free(s);
    return err;
}

void dmesh_saved_free(dmesh_saved_t *s)
{
    free(s->rank_map);
    free(s->flat);
    s->rank_map = NULL;
    s->flat = NULL;
    s->nflat = 0;
}
