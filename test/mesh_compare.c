/* SPDX-License-Identifier: BSD-3-Clause */
/* Two meshes compared through the public queries only (mesh_compare.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mesh_compare.h"

#define MAX_GROUP 1024

/* What differs, into why[len]; returns 1 (different). */
static int differ(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return 1;
}

/* 1 when two names, either NULL (an unnamed mesh), are the same. */
static int same_name(const char *x, const char *y)
{
    return x == NULL || y == NULL ? x == y : strcmp(x, y) == 0;
}

/* Number, sizes and names of the dimensions; *ndims the number. */
static int compare_dims(dmesh_t a, dmesh_t b, int *ndims, char *why, size_t len)
{
    int na = -1, nb = -2, sa[DMESH_MAX_DIMS], sb[DMESH_MAX_DIMS], d;
    const char *xa = NULL, *xb = NULL;

    if (dmesh_get_ndims(a, &na) != DMESH_SUCCESS || dmesh_get_ndims(b, &nb) != DMESH_SUCCESS ||
        na != nb)
        return differ(why, len, "%d dimensions against %d", na, nb);
    if (dmesh_get_shape(a, DMESH_MAX_DIMS, sa) != DMESH_SUCCESS ||
        dmesh_get_shape(b, DMESH_MAX_DIMS, sb) != DMESH_SUCCESS)
        return differ(why, len, "dmesh_get_shape: %s", dmesh_last_error());
    for (d = 0; d < na; d++) {
        if (sa[d] != sb[d])
            return differ(why, len, "dimension %d: size %d against %d", d, sa[d], sb[d]);
        dmesh_get_dim_name(a, d, &xa);
        dmesh_get_dim_name(b, d, &xb);
        if (!same_name(xa, xb))
            return differ(why, len, "dimension %d: named %s against %s", d, xa ? xa : "(none)",
                          xb ? xb : "(none)");
    }
    *ndims = na;
    return 0;
}

/* Along dimension d, the caller's coordinate and the ranks of its group. */
static int compare_group(dmesh_t a, dmesh_t b, int d, const int ca[], const int cb[], char *why,
                         size_t len)
{
    int ra[MAX_GROUP], rb[MAX_GROUP], na = -1, nb = -2;

    if (ca[d] != cb[d])
        return differ(why, len, "dimension %d: coordinate %d against %d", d, ca[d], cb[d]);
    if (dmesh_get_group_ranks(a, d, MAX_GROUP, ra, &na) != DMESH_SUCCESS ||
        dmesh_get_group_ranks(b, d, MAX_GROUP, rb, &nb) != DMESH_SUCCESS || na != nb)
        return differ(why, len, "dimension %d: a group of %d against %d", d, na, nb);
    if (memcmp(ra, rb, (size_t)na * sizeof(int)) != 0)
        return differ(why, len, "dimension %d: the groups hold other ranks", d);
    return 0;
}

int mesh_compare(dmesh_t a, dmesh_t b, char *why, size_t len)
{
    int ndims = 0, ma = -1, mb = -2, ca[DMESH_MAX_DIMS], cb[DMESH_MAX_DIMS], d;

    if (compare_dims(a, b, &ndims, why, len) != 0)
        return 1;
    if (dmesh_get_coordinate(a, DMESH_MAX_DIMS, ca, &ma) != DMESH_SUCCESS ||
        dmesh_get_coordinate(b, DMESH_MAX_DIMS, cb, &mb) != DMESH_SUCCESS || ma != mb)
        return differ(why, len, "member %d against %d", ma, mb);
    for (d = 0; ma && d < ndims; d++)
        if (compare_group(a, b, d, ca, cb, why, len) != 0)
            return 1;
    return 0;
}
