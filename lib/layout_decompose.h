/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh_prepared_axis_decompose's body, inline: the implementation
 * (layout.c) and the entry point (api_layout.c) both expand it, so that a
 * program's call does its work in the entry point and calls nothing else
 * when it succeeds (a failure's detail is one call). */
#ifndef DMESH_LAYOUT_DECOMPOSE_H
#define DMESH_LAYOUT_DECOMPOSE_H

#include <stdint.h>

#include "dmesh_layout.h"
#include "error.h"

/* No complement, no division instruction, and quotients that do not depend
 * on each other. Digit 0 has stride 1: its quotient is the index. */
static inline int dmesh_prepared_decompose_inline(const dmesh_prepared_axis_t *p, int index,
                                                  int *group, int *position)
{
    const char *fn = "dmesh_prepared_axis_decompose";
    uint64_t i = (uint64_t)index, sum = 0;

    if (p == NULL || group == NULL || position == NULL || p->ndigits < 0 ||
        p->ndigits > DMESH_PREPARED_MAX_DIGITS)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: NULL argument or unprepared axis", fn);
    if (index < 0 || index >= p->n)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: index %d is not in [0, %d)", fn, index, p->n);
    if (p->ndigits > 0)
        sum = i * p->coef[0];
    for (int k = 1; k < p->ndigits; k++)
        sum += ((i * p->magic[k]) >> (p->shift[k] & 63)) * p->coef[k];
    *group = (int)(uint32_t)sum;
    *position = (int)(sum >> 32);
    return DMESH_SUCCESS;
}

#endif /* DMESH_LAYOUT_DECOMPOSE_H */
