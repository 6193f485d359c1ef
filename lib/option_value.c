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

/* A host name: letters, digits, '.', '-' and '_' (what resolvers and
 * launchers take; no ':' count, no space). */
static int host_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '_';
}

int dmesh_option_hosts(const char *key, const char *val, char *names, int *n)
{
    const char *p = val;
    size_t at = 0;
    int k = 0;

    for (;;) {
        size_t len = strcspn(p, ",");
        for (size_t i = 0; i < len; i++)
            if (!host_char(p[i]))
                return dmesh_error_set(DMESH_ERR_ARG,
                                       "option %s: \"%s\": host %d, \"%.*s\", has '%c': a comma "
                                       "list of host names (letters, digits, '.', '-', '_'; "
                                       "dmesh gives each host its count)",
                                       key, val, k + 1, (int)len, p, p[i]);
        if (len == 0)
            return dmesh_error_set(DMESH_ERR_ARG,
                                   "option %s: \"%s\": host %d is empty: a comma list of host "
                                   "names",
                                   key, val, k + 1);
        memcpy(names + at, p, len);
        names[at + len] = '\0';
        at += len + 1;
        k++;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    *n = k;
    return DMESH_SUCCESS;
}

int dmesh_option_get(MPI_Info info, const char *key, const char *fn, char *val, int *flag)
{
    char what[96];
    int rc;

    *flag = 0;
    if (info == MPI_INFO_NULL ||
        (rc = MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, flag)) == MPI_SUCCESS)
        return DMESH_SUCCESS;
    snprintf(what, sizeof(what), "%s: MPI_Info_get", fn);
    return dmesh_error_mpi(rc, what);
}
