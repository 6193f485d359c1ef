/* SPDX-License-Identifier: BSD-3-Clause */
/* Command-line helpers of the tools: numbers are parsed whole (strtoll and
 * a check of the end), never with atoi, which reads "2x" as 2 and "x" as 0. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

int tool_parse_long(const char *prog, const char *opt, const char *s, long long lo, long long hi,
                    long long *out)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi) {
        fprintf(stderr, "%s: %s: '%s' is not an integer in [%lld, %lld]\n", prog, opt, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int tool_parse_sizes(const char *prog, const char *opt, const char *s, const char *seps, int max,
                     int out[], int *n)
{
    const char *p = s;
    char item[32];
    long long v;
    int count = 0;

    for (;;) {
        size_t len = strcspn(p, seps);
        if (count == max) {
            fprintf(stderr, "%s: %s: '%s' has more than %d values\n", prog, opt, s, max);
            return -1;
        }
        if (len == 0 || len >= sizeof(item)) {
            fprintf(stderr, "%s: %s: '%s' is not a list of positive integers\n", prog, opt, s);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (tool_parse_long(prog, opt, item, 1, INT_MAX, &v) != 0)
            return -1;
        out[count++] = (int)v;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    *n = count;
    return 0;
}

int tool_unknown_option(const char *prog, const char *opt)
{
    fprintf(stderr, "%s: unknown option '%s'\n", prog, opt);
    return -1;
}

int tool_missing_value(const char *prog, const char *opt)
{
    fprintf(stderr, "%s: option '%s' needs a value\n", prog, opt);
    return -1;
}
