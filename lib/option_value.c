/* SPDX-License-Identifier: BSD-3-Clause */
/* Values of options (option_value.h). */
#include "config.h"

#include "api_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "option_value.h"

int dmesh_option_int(const char *key, const char *val, int lo, int hi, int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(val, &end, 10);
    if (errno != 0 || end == val || *end != '\0' || v < lo || v > hi)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "option %s: value \"%s\" is not an integer in [%d, %d]", key, val,
                               lo, hi);
    *out = (int)v;
    return DMESH_SUCCESS;
}

int dmesh_option_choice(const char *key, const char *val, const char *a, const char *b, int *out)
{
    if (strcmp(val, a) == 0)
        *out = 0;
    else if (strcmp(val, b) == 0)
        *out = 1;
    else
        return dmesh_error_set(
            DMESH_ERR_ARG, "option %s: value \"%s\" is neither \"%s\" nor \"%s\"", key, val, a, b);
    return DMESH_SUCCESS;
}

int dmesh_option_choices(const char *key, const char *val, int n, const char *const list[],
                         int *out)
{
    char names[160] = "";
    size_t at = 0;

    for (int i = 0; i < n; i++)
        if (strcmp(val, list[i]) == 0) {
            *out = i;
            return DMESH_SUCCESS;
        }
    for (int i = 0; i < n && at < sizeof(names); i++) {
        const char *sep = i == n - 1 ? " or " : ", ";
        at += (size_t)snprintf(names + at, sizeof(names) - at, "%s\"%s\"", i ? sep : "", list[i]);
    }
    return dmesh_error_set(DMESH_ERR_ARG, "option %s: value \"%s\" is not %s", key, val, names);
}
