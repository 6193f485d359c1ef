/* SPDX-License-Identifier: BSD-3-Clause */
/* The scanner of the saved text form (scan.h): tokens, integers and quoted
 * names, each error naming its line, column and byte offset. Pure. */
#include "config.h"

#include "api_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scan.h"

int dmesh_scan_fail(const dmesh_scan_t *c, const char *at, const char *fmt, ...)
{
    char what[300];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return dmesh_error_set(DMESH_ERR_ARG, "dmesh_deserialize: line %d, column %d (byte %zu): %s",
                           c->line, (int)(at - c->line_start) + 1, (size_t)(at - c->text), what);
}

int dmesh_scan_is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

const char *dmesh_scan_at(dmesh_scan_t *c)
{
    while (dmesh_scan_is_blank(*c->p) && dmesh_scan_is_blank(c->p[1]))
        c->p++;
    return c->p + dmesh_scan_is_blank(*c->p);
}

int dmesh_scan_is_end(char ch)
{
    return ch == '\0' || ch == '\n' || dmesh_scan_is_blank(ch);
}

/* A run of non-blank characters, after one or more blanks (lead) or at the
 * start of a line (!lead). */
int dmesh_scan_word(dmesh_scan_t *c, int lead, char out[DMESH_SCAN_TOKEN_MAX], const char *what)
{
    size_t k = 0;

    if (lead && !dmesh_scan_is_blank(*c->p))
        return dmesh_scan_fail(c, c->p, "expected a blank before %s", what);
    while (dmesh_scan_is_blank(*c->p))
        c->p++;
    if (dmesh_scan_is_end(*c->p))
        return dmesh_scan_fail(c, c->p, "expected %s", what);
    while (!dmesh_scan_is_end(*c->p)) {
        if (k == DMESH_SCAN_TOKEN_MAX - 1)
            return dmesh_scan_fail(c, c->p, "%s is too long", what);
        out[k++] = *c->p++;
    }
    out[k] = '\0';
    return DMESH_SUCCESS;
}

int dmesh_scan_int(dmesh_scan_t *c, long long lo, long long hi, const char *what, int *v)
{
    char tok[DMESH_SCAN_TOKEN_MAX], *end;
    const char *at;
    long long x;

    at = dmesh_scan_at(c);
    DMESH_TRY(dmesh_scan_word(c, 1, tok, what));
    if (tok[0] != '-' && (tok[0] < '0' || tok[0] > '9'))
        return dmesh_scan_fail(c, at, "%s: \"%.40s\" is not an integer", what, tok);
    if (strlen(tok) > 12)
        return dmesh_scan_fail(c, at, "%s: \"%.40s\" is out of range [%lld, %lld]", what, tok, lo,
                               hi);
    x = strtoll(tok, &end, 10);
    if (*end != '\0' || end == tok || (tok[0] == '-' && end == tok + 1))
        return dmesh_scan_fail(c, at, "%s: \"%.40s\" is not an integer", what, tok);
    if (x < lo || x > hi)
        return dmesh_scan_fail(c, at, "%s: %lld is out of range [%lld, %lld]", what, x, lo, hi);
    *v = (int)x;
    return DMESH_SUCCESS;
}

int dmesh_scan_end_of_line(dmesh_scan_t *c)
{
    while (dmesh_scan_is_blank(*c->p))
        c->p++;
    if (*c->p != '\n')
        return dmesh_scan_fail(c, c->p,
                               *c->p ? "unexpected text at the end of the line"
                                     : "unexpected end of the text (missing \"end\")");
    c->p++;
    c->line++;
    c->line_start = c->p;
    return DMESH_SUCCESS;
}

static int hex(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* A quoted name of 1 to DMESH_MAX_NAME - 1 bytes (0 with DMESH_SCAN_NAME_EMPTY_OK), or
 * "-" with DMESH_SCAN_NAME_DASH_OK (unnamed: out = ""). */
int dmesh_scan_name(dmesh_scan_t *c, char out[DMESH_MAX_NAME], int flags)
{
    int allow_unnamed = flags & DMESH_SCAN_NAME_DASH_OK;

    size_t k = 0;

    if (!dmesh_scan_is_blank(*c->p))
        return dmesh_scan_fail(c, c->p, "expected a blank before a name");
    while (dmesh_scan_is_blank(*c->p))
        c->p++;
    if (allow_unnamed && c->p[0] == '-' && dmesh_scan_is_end(c->p[1])) {
        c->p++;
        out[0] = '\0';
        return DMESH_SUCCESS;
    }
    if (*c->p != '"')
        return dmesh_scan_fail(
            c, c->p, allow_unnamed ? "expected a quoted name or -" : "expected a quoted name");
    for (c->p++; *c->p != '"'; c->p++) {
        unsigned char ch = (unsigned char)*c->p;
        if (ch < 0x20 || ch == 0x7f)
            return dmesh_scan_fail(c, c->p, "unterminated name or control byte in a name");
        if (ch == '\\') {
            int hi = c->p[1] == 'x' ? hex(c->p[2]) : -1, lo = hi >= 0 ? hex(c->p[3]) : -1;
            if (lo < 0 || hi * 16 + lo == 0)
                return dmesh_scan_fail(c, c->p, "bad escape in a name (\\xHH, not \\x00)");
            ch = (unsigned char)(hi * 16 + lo);
            c->p += 3;
        }
        if (k == DMESH_MAX_NAME - 1)
            return dmesh_scan_fail(c, c->p, "name longer than %d bytes", DMESH_MAX_NAME - 1);
        out[k++] = (char)ch;
    }
    c->p++;
    if (k == 0 && !(flags & DMESH_SCAN_NAME_EMPTY_OK))
        return dmesh_scan_fail(c, c->p - 2, "empty name");
    out[k] = '\0';
    return DMESH_SUCCESS;
}
