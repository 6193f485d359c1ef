/* SPDX-License-Identifier: BSD-3-Clause */
/* The argument check of an axis, shared by layout.c and layout_text.c. */
#ifndef DMESH_LAYOUT_CHECK_H
#define DMESH_LAYOUT_CHECK_H

#include "dmesh_layout.h"

/* DMESH_ERR_ARG (naming func) unless a is non-NULL with 0 to
 * DMESH_LAYOUT_MAX_ATOMS atoms of size >= 1 and stride >= 0. */
int dmesh_axis_check(const dmesh_axis_t *a, const char *func);

#endif /* DMESH_LAYOUT_CHECK_H */
