/* SPDX-License-Identifier: BSD-3-Clause */
/* Dimensions by name (dim_name.h). A name is compared before a number is
 * read: names may look like numbers (dmesh_names_check allows "1" and
 * "2d"), and a name is what a program that gave it means. */
#include "config.h"

#include "api_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dim_name.h"
#include "error.h"

int dmesh_dim_find(int ndims, const char *const names[], const char *name)
{
    for (int d = 0; names != NULL && name != NULL && d < ndims; d++)
        if (names[d] != NULL && strcmp(names[d], name) == 0)
            return d;
    return -1;
}

void dmesh_dim_names_text(int ndims, const char *const names[], char *buf, size_t len)
{
    size_t at = 0;

    if (len == 0)
        return;
    buf[0] = '\0';
    if (names == NULL) {
        snprintf(buf, len, "%d unnamed dimension%s", ndims, ndims == 1 ? "" : "s");
        return;
    }
    for (int d = 0; d < ndims && at < len; d++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", d ? ", " : "", names[d]);
}

int dmesh_dim_by_name(int ndims, const char *const names[], const char *name, const char *fn,
                      int *dim)
{
    char all[DMESH_MAX_DIMS * (DMESH_MAX_NAME + 2)];
    int d;

    if (name == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: argument 'dim_name' is NULL", fn);
    if ((d = dmesh_dim_find(ndims, names, name)) < 0) {
        dmesh_dim_names_text(ndims, names, all, sizeof(all));
        return dmesh_error_set(DMESH_ERR_NAME, "%s: no dimension \"%s\" in mesh (%s)", fn, name,
                               all);
    }
    *dim = d;
    return DMESH_SUCCESS;
}

int dmesh_dim_of_option(int ndims, const char *const names[], const char *key, const char *value,
                        int *dim, int *by_name)
{
    char all[DMESH_MAX_DIMS * (DMESH_MAX_NAME + 2)];
    char *end;
    long v;
    int d = dmesh_dim_find(ndims, names, value);

    if (d >= 0) {
        *dim = d;
        if (by_name != NULL)
            *by_name = 1;
        return DMESH_SUCCESS;
    }
    errno = 0;
    v = strtol(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || errno != 0 || *end != '\0' || v >= ndims) {
        dmesh_dim_names_text(ndims, names, all, sizeof(all));
        return dmesh_error_set(DMESH_ERR_ARG,
                               "option %s: \"%s\" is no dimension of the mesh (%s), "
                               "nor an index 0 to %d",
                               key, value, all, ndims - 1);
    }
    *dim = (int)v;
    if (by_name != NULL)
        *by_name = 0;
    return DMESH_SUCCESS;
}
