/* SPDX-License-Identifier: BSD-3-Clause */
/* The backend table (backend.h) and the mpi backend, which pairs nothing:
 * the MPI communicator every dimension has is the universe's. */
#include "config.h"

#include "api_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "error.h"

const dmesh_backend_t dmesh_backend_mpi = {.name = "mpi"};

#ifdef DMESH_BACKEND_EXTRA /* one more backend, of a test (test/backend_dup.c) */
extern const dmesh_backend_t DMESH_BACKEND_EXTRA;
#endif

/* One line per backend; the first is mpi. */
const dmesh_backend_t *const dmesh_backends[] = {
    &dmesh_backend_mpi,
    &dmesh_backend_nccl,
#ifdef DMESH_BACKEND_EXTRA
    &DMESH_BACKEND_EXTRA,
#endif
};

const int dmesh_backend_count = (int)(sizeof(dmesh_backends) / sizeof(dmesh_backends[0]));

_Static_assert(sizeof(dmesh_backends) / sizeof(dmesh_backends[0]) <= DMESH_BACKEND_MAX,
               "more backends than DMESH_BACKEND_MAX (options.h) has room for");

int dmesh_backend_find(const char *name)
{
    for (int b = 0; b < dmesh_backend_count; b++)
        if (strcmp(dmesh_backends[b]->name, name) == 0)
            return b;
    return -1;
}

int dmesh_backend_index(const dmesh_backend_t *b)
{
    int i = 0;

    while (dmesh_backends[i] != b)
        i++;
    return i;
}

static int built_in(const dmesh_backend_t *b)
{
    return b->available == NULL || b->available();
}

int dmesh_backend_default(int cuda)
{
    for (int b = 0; cuda && b < dmesh_backend_count; b++)
        if (dmesh_backends[b]->needs_cuda && built_in(dmesh_backends[b]))
            return b;
    return DMESH_BACKEND_MPI;
}

int dmesh_backend_check(int b, int cuda, const char *fmt, ...)
{
    const dmesh_backend_t *be = dmesh_backends[b];
    char what[DMESH_MAX_NAME + 64];
    va_list ap;

    if ((!be->needs_cuda || cuda) && built_in(be))
        return DMESH_SUCCESS;
    va_start(ap, fmt); /* only for the message: creation calls check every dim */
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (be->needs_cuda && !cuda)
        return dmesh_error_set(DMESH_ERR_BACKEND, "backend \"%s\" (%s) needs device type \"cuda\"",
                               be->name, what);
    if (!built_in(be))
        return dmesh_error_set(DMESH_ERR_BACKEND, "backend \"%s\" (%s): dmesh was built without %s",
                               be->name, what, be->library ? be->library : be->name);
    return DMESH_SUCCESS;
}

void dmesh_backend_names(char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (int b = 0; b < dmesh_backend_count && at < len; b++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", b ? ", " : "", dmesh_backends[b]->name);
}
