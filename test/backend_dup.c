/* SPDX-License-Identifier: BSD-3-Clause */
/* The "dup" backend: a backend of the tests and the worked example of
 * doc/architecture.md, "Adding a backend". It pairs with each dimension's
 * MPI communicator a duplicate of it (MPI_Comm_dup, collective over the
 * group like an NCCL bootstrap), so that every hook of the table runs on a
 * machine without a GPU:
 *
 *   dup_tag[.<dim>]   an axis option (an integer of [0, 1000]), part of the
 *                     cache key and of the saved form ("dup TAG")
 *   dmesh_dup_fail    a call option: the rank of the universe's
 *                     communicator whose duplicate fails (default -1)
 *   dmesh_dup_init    a call option: eager (default) or lazy
 *   DMESH_DUP_FAIL    the variable of dmesh_dup_fail
 *
 * test/test_backend links it with its own copy of lib/backend.c whose table
 * has one more line (DMESH_BACKEND_EXTRA=dmesh_backend_dup): nothing else
 * of the library changes. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "backend.h"
#include "backend_dup.h"
#include "cache.h"
#include "option_value.h"
#include "scan.h"

typedef struct {
    int tag;
} dup_axis_t;

typedef struct {
    int fail_rank;
    int lazy;
} dup_call_t;

/* Paired communicators alive, made and destroyed (by destroy or abort). */
long dup_live, dup_made, dup_aborted;

static dup_axis_t axis_get(const dmesh_backend_axis_t *a)
{
    dup_axis_t x;

    memcpy(&x, a->bytes, sizeof(x));
    return x;
}

static void call_defaults(dmesh_backend_call_t *call)
{
    dup_call_t c = {-1, 0};

    memcpy(call->bytes, &c, sizeof(c));
}

static int call_option(const char *key, const char *val, dmesh_backend_call_t *call, int *known)
{
    dup_call_t c;
    int err = DMESH_SUCCESS;

    memcpy(&c, call->bytes, sizeof(c));
    *known = 1;
    if (strcmp(key, "dmesh_dup_fail") == 0 || strcmp(key, "DMESH_DUP_FAIL") == 0)
        err = dmesh_option_int(key, val, 0, INT_MAX, &c.fail_rank);
    else if (strcmp(key, "dmesh_dup_init") == 0)
        err = dmesh_option_choice(key, val, "eager", "lazy", &c.lazy);
    else
        *known = 0;
    if (err == DMESH_SUCCESS)
        memcpy(call->bytes, &c, sizeof(c));
    return err;
}

static int axis_option(const char *key, const char *field, const char *val,
                       dmesh_backend_axis_t *axis, int *known)
{
    dup_axis_t x = axis_get(axis);

    *known = strcmp(field, "tag") == 0;
    if (!*known)
        return DMESH_SUCCESS;
    DMESH_TRY(dmesh_option_int(key, val, 0, INT_MAX, &x.tag));
    memcpy(axis->bytes, &x, sizeof(x));
    return DMESH_SUCCESS;
}

/* What the library underneath would refuse: here, tags above 1000. */
static int axis_finish(int dim, const char *label, double timeout, dmesh_backend_axis_t *axis)
{
    (void)label;
    (void)timeout;
    if (axis_get(axis).tag > 1000)
        return dmesh_error_set(DMESH_ERR_ARG, "option dup_tag (dim %d): %d is above 1000", dim,
                               axis_get(axis).tag);
    return DMESH_SUCCESS;
}

static void axis_key(const dmesh_backend_axis_t *axis, char *buf, size_t len)
{
    snprintf(buf, len, "t%d", axis_get(axis).tag);
}

static void axis_print(dmesh_text_t *t, const dmesh_backend_axis_t *axis)
{
    dmesh_text_put(t, " %d", axis_get(axis).tag);
}

static int axis_scan(dmesh_scan_t *s, dmesh_backend_axis_t *axis)
{
    dup_axis_t x;

    DMESH_TRY(dmesh_scan_int(s, 0, 1000, "dup tag", &x.tag));
    memcpy(axis->bytes, &x, sizeof(x));
    return DMESH_SUCCESS;
}

static int destroy(void *paired, int device)
{
    MPI_Comm *c = paired;

    (void)device;
    MPI_Comm_free(c);
    free(c);
    dup_live--;
    return DMESH_SUCCESS;
}

static int abort_all(int n, void *const paired[], int device)
{
    for (int i = 0; i < n; i++)
        destroy(paired[i], device);
    dup_aborted += n;
    return DMESH_SUCCESS;
}

/* Whether e[i] is this call's to make (backend.h, make): pending, this
 * backend's, reserved by the call unless made on its own (call NULL), and
 * not listed before. */
static int todo(const dmesh_backend_ctx_t *ctx, const dmesh_backend_call_t *call,
                dmesh_comm_entry_t *const e[], int i)
{
    return e[i]->paired_pending && e[i]->backend == ctx->self && (call == NULL || e[i]->reserved) &&
           !dmesh_cache_listed_before(e, i);
}

/* One duplicate of e's communicator; the failing rank's fails. */
static int dup_one(const dmesh_comm_entry_t *e, int fail, MPI_Comm **out)
{
    MPI_Comm *c = malloc(sizeof(*c));

    if (c == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dup backend: out of memory");
    if (MPI_Comm_dup(e->comm, c) != MPI_SUCCESS || fail) {
        if (*c != MPI_COMM_NULL)
            MPI_Comm_free(c);
        free(c);
        return dmesh_error_set(DMESH_ERR_MPI, "dup backend: MPI_Comm_dup failed (dmesh_dup_fail)");
    }
    *out = c;
    return DMESH_SUCCESS;
}

static int make(const dmesh_backend_ctx_t *ctx, MPI_Comm all, const dmesh_backend_call_t *call,
                int n, dmesh_comm_entry_t *const e[])
{
    dup_call_t c = {-1, 0};
    MPI_Comm *made[DMESH_MAX_DIMS] = {NULL};
    int rank, k = 0, err = DMESH_SUCCESS;

    if (call != NULL)
        memcpy(&c, call->bytes, sizeof(c));
    if (c.lazy)
        return DMESH_SUCCESS;
    MPI_Comm_rank(all, &rank);
    /* every member takes part in every duplicate, whatever failed before */
    for (int i = 0; i < n && k < DMESH_MAX_DIMS; i++) {
        if (!todo(ctx, call, e, i))
            continue;
        if (e[i]->comm != MPI_COMM_NULL) {
            int one = dup_one(e[i], rank == c.fail_rank, &made[k]);
            err = err != DMESH_SUCCESS ? err : one;
        }
        k++;
    }
    err = dmesh_agree_outcome(all, err, "dup backend");
    for (int i = 0, j = 0; i < n && j < k; i++) {
        if (!todo(ctx, call, e, i))
            continue;
        if (err != DMESH_SUCCESS && made[j] != NULL) {
            MPI_Comm_free(made[j]); /* nothing left made on failure */
            free(made[j]);
        } else if (err == DMESH_SUCCESS) {
            ctx->pair_done(e[i], made[j]);
            dup_live += made[j] != NULL;
            dup_made += made[j] != NULL;
        }
        j++;
    }
    return err;
}

static const char *const names[] = {"dmesh_dup_fail", "dmesh_dup_init", "DMESH_DUP_FAIL", NULL};

const dmesh_backend_t dmesh_backend_dup = {
    .name = "dup",
    .names = names,
    .axis_prefix = "dup_",
    .call_defaults = call_defaults,
    .call_option = call_option,
    .axis_option = axis_option,
    .axis_finish = axis_finish,
    .axis_key = axis_key,
    .axis_print = axis_print,
    .axis_scan = axis_scan,
    .make = make,
    .destroy = destroy,
    .abort_all = abort_all,
};
