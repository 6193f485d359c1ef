/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): owns the pure part of dmesh_grow
 * (grow_plan.h): the grown mesh. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "error.h"
#include "fault.h"
#include "ft/grow_plan.h"

/* The grown rank map: old positions keep their ranks, new ones get size,
 * size + 1, ... in row-major order. */
static int grown_map(const dmesh_saved_t *s, const int old[], const int shape[], int dim, int size,
                     int n, int **out, int *nnewcomers)
{
    int *map = DMESH_FAULT_MALLOC((size_t)n * sizeof(int)), q, d, next = size;

    if (map == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_grow: out of memory");
    for (q = 0; q < n; q++) {
        int rest = q, p = 0, mul = 1, fresh = 0;
        for (d = s->nroot - 1; d >= 0; d--) {
            int c = rest % shape[d];
            rest /= shape[d];
            fresh |= d == dim && c >= old[d];
            p += c * mul;
            mul *= old[d];
        }
        map[q] = fresh ? next++ : s->rank_map != NULL ? s->rank_map[p] : p;
    }
    *out = map;
    *nnewcomers = next - size;
    return DMESH_SUCCESS;
}

int dmesh_grow_plan(dmesh_saved_t *s, int dim, int n, int size, int *nnewcomers)
{
    int old[DMESH_MAX_DIMS], shape[DMESH_MAX_DIMS], d, *map = NULL;
    int64_t total = 1;
    dmesh_layout_t l;

    if (!s->is_root || s->ndims != s->nroot)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "dmesh_grow: the mesh is not a root mesh (slice, "
                               "flatten and unflatten give meshes that cannot grow)");
    for (d = 0; d < s->nroot; d++) {
        DMESH_TRY(dmesh_axis_numel_impl(&s->root[d].axis, &old[d]));
        /* checked before the sum: a signed overflow would be undefined */
        if (d == dim && n > INT_MAX - old[d])
            return dmesh_error_set(DMESH_ERR_SIZE,
                                   "dmesh_grow: %d more indices of dim %d (now %d) exceed INT_MAX",
                                   n, dim, old[d]);
        shape[d] = old[d] + (d == dim ? n : 0);
        total *= shape[d];
        if (total > INT_MAX || total + size > INT_MAX)
            return dmesh_error_set(DMESH_ERR_SIZE,
                                   "dmesh_grow: %d more indices of dim %d: the mesh's size "
                                   "exceeds INT_MAX",
                                   n, dim);
    }
    DMESH_TRY(dmesh_layout_row_major_impl(s->nroot, shape, &l));
    DMESH_TRY(grown_map(s, old, shape, dim, size, (int)total, &map, nnewcomers));
    for (d = 0; d < s->nroot; d++) {
        s->root[d].axis = l.axes[d];
        s->dims[d].axis = l.axes[d];
    }
    free(s->rank_map);
    s->rank_map = map;
    s->n = (int)total;
    free(s->flat);
    s->flat = NULL;
    s->nflat = 0;
    return DMESH_SUCCESS;
}
