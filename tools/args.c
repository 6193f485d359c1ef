/* SPDX-License-Identifier: BSD-3-Clause */
/* Command-line helpers of the tools: numbers are parsed whole (strtoll and
 * a check of the end), never with atoi, which reads "2x" as 2 and "x" as 0. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "args.h"

static FILE *errors;
static int errors_set;

void tool_set_error_stream(FILE *f)
{
    errors = f;
    errors_set = 1;
}

/* One message, where tool_set_error_stream says. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    FILE *f = errors_set ? errors : stderr;
    va_list ap;

    if (f == NULL)
        return;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
}

int tool_parse_long(const char *prog, const char *opt, const char *s, long long lo, long long hi,
                    long long *out)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi) {
        say("%s: %s: '%s' is not an integer in [%lld, %lld]\n", prog, opt, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int tool_parse_sizes(const char *prog, const char *opt, const char *s, const char *seps, int max,
                     int out[], int *n)
{
    return tool_parse_list(prog, opt, s, seps, max, 1, out, n);
}

int tool_parse_list(const char *prog, const char *opt, const char *s, const char *seps, int max,
                    int lo, int out[], int *n)
{
    const char *p = s;
    char item[32];
    long long v;
    int count = 0;

    for (;;) {
        size_t len = strcspn(p, seps);
        if (count == max) {
            say("%s: %s: '%s' has more than %d values\n", prog, opt, s, max);
            return -1;
        }
        if (len == 0 || len >= sizeof(item)) {
            say("%s: %s: '%s' is not a list of %s integers\n", prog, opt, s,
                lo > 0 ? "positive" : "non-negative");
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (tool_parse_long(prog, opt, item, lo, INT_MAX, &v) != 0)
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
    say("%s: unknown option '%s'\n", prog, opt);
    return -1;
}

int tool_missing_value(const char *prog, const char *opt)
{
    say("%s: option '%s' needs a value\n", prog, opt);
    return -1;
}

int tool_launcher_rank(void)
{
    static const char *const names[] = {"PMIX_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                        "SLURM_PROCID"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        char *end;
        long r;

        if (v == NULL || *v == '\0')
            continue;
        errno = 0;
        r = strtol(v, &end, 10);
        if (errno == 0 && *end == '\0' && r >= 0 && r <= INT_MAX)
            return (int)r;
    }
    return 0;
}

int tool_finalize(int rc)
{
    fflush(stdout);
    fflush(stderr);
    MPI_Barrier(MPI_COMM_WORLD); /* errors return: a failure here changes nothing */
    MPI_Finalize();
    return rc;
}
