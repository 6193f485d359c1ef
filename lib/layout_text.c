/* SPDX-License-Identifier: BSD-3-Clause */
/* The text form of an axis (include/dmesh_layout.h): "size:stride" for one
 * atom, "(s0,s1,...):(d0,d1,...)" for several, printed and parsed so that
 * the two agree. Pure, no MPI. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "dmesh_layout.h"
#include "error.h"
#include "layout_check.h"

/* The text form of an axis is at most two lists of 32 ints of 10 digits. */
#define AXIS_TEXT_MAX (2 * DMESH_LAYOUT_MAX_ATOMS * 12 + 8)

/* Append "v" (one atom) or "(v0,v1,...)" to buf at *pos. */
static void print_list(const dmesh_axis_t *a, int strides, char *buf, size_t *pos)
{
    int one = a->natoms == 1;

    if (!one)
        buf[(*pos)++] = '(';
    for (int k = 0; k < a->natoms; k++) {
        int v = strides ? a->atoms[k].stride : a->atoms[k].size;
        *pos += (size_t)sprintf(buf + *pos, k > 0 ? ",%d" : "%d", v);
    }
    if (!one)
        buf[(*pos)++] = ')';
    buf[*pos] = '\0';
}

int dmesh_axis_to_string_impl(const dmesh_axis_t *a, char *buf, size_t len, size_t *needed)
{
    char text[AXIS_TEXT_MAX];
    size_t pos = 0;

    DMESH_TRY(dmesh_axis_check(a, "dmesh_axis_to_string"));
    if (buf == NULL && len > 0)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: buf is NULL but len is %zu",
                               "dmesh_axis_to_string", len);
    if (a->natoms == 0) {
        strcpy(text, "1:0"); /* the empty axis: one element at index 0 */
        pos = 3;
    } else {
        print_list(a, 0, text, &pos);
        text[pos++] = ':';
        print_list(a, 1, text, &pos);
    }
    if (len > 0) {
        size_t copy = pos < len - 1 ? pos : len - 1;
        memcpy(buf, text, copy);
        buf[copy] = '\0';
    }
    if (needed != NULL)
        *needed = pos;
    return DMESH_SUCCESS;
}

static void skip_space(const char **p)
{
    while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r' || **p == '\f' || **p == '\v')
        (*p)++;
}

/* One unsigned decimal int; digits past INT_MAX are consumed, then refused. */
static int parse_int(const char **p, const char *text, int *v)
{
    int64_t x = 0;
    int over = 0;

    skip_space(p);
    if (**p < '0' || **p > '9')
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_axis_parse: \"%.80s\": %s at offset %d", text,
                               **p == '-' ? "negative value" : "expected a number",
                               (int)(*p - text));
    for (; **p >= '0' && **p <= '9'; (*p)++) {
        x = x * 10 + (**p - '0');
        if (x > INT_MAX) {
            over = 1;
            x = INT_MAX; /* keep x small; the value is refused anyway */
        }
    }
    if (over)
        return dmesh_error_set(DMESH_ERR_SIZE, "dmesh_axis_parse: \"%.80s\": value over INT_MAX",
                               text);
    *v = (int)x;
    return DMESH_SUCCESS;
}

/* "v" or "(v0, v1, ...)": at most DMESH_LAYOUT_MAX_ATOMS values. */
static int parse_list(const char **p, const char *text, int vals[], int *n)
{
    skip_space(p);
    *n = 0;
    if (**p != '(') {
        *n = 1;
        return parse_int(p, text, &vals[0]);
    }
    do {
        (*p)++; /* past '(' or ',' */
        if (*n == DMESH_LAYOUT_MAX_ATOMS)
            return dmesh_error_set(DMESH_ERR_SIZE,
                                   "dmesh_axis_parse: \"%.80s\": more than %d atoms", text,
                                   DMESH_LAYOUT_MAX_ATOMS);
        DMESH_TRY(parse_int(p, text, &vals[(*n)++]));
        skip_space(p);
    } while (**p == ',');
    if (**p != ')')
        return dmesh_error_set(DMESH_ERR_ARG,
                               "dmesh_axis_parse: \"%.80s\": expected ',' or ')' at offset %d",
                               text, (int)(*p - text));
    (*p)++;
    return DMESH_SUCCESS;
}

/* Expect character c (after optional space) at *p. */
static int expect_char(const char **p, const char *text, char c)
{
    skip_space(p);
    if (**p != c)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "dmesh_axis_parse: \"%.80s\": expected %s at offset %d", text,
                               c == ':' ? "':'" : "end of text", (int)(*p - text));
    if (c != '\0')
        (*p)++;
    return DMESH_SUCCESS;
}

int dmesh_axis_parse_impl(const char *text, dmesh_axis_t *a)
{
    int sizes[DMESH_LAYOUT_MAX_ATOMS], strides[DMESH_LAYOUT_MAX_ATOMS], ns, nd;
    const char *p = text;

    DMESH_CHECK_PTR_OF("dmesh_axis_parse", text);
    DMESH_CHECK_PTR_OF("dmesh_axis_parse", a);
    DMESH_TRY(parse_list(&p, text, sizes, &ns));
    DMESH_TRY(expect_char(&p, text, ':'));
    DMESH_TRY(parse_list(&p, text, strides, &nd));
    DMESH_TRY(expect_char(&p, text, '\0'));
    if (ns != nd)
        return dmesh_error_set(
            DMESH_ERR_ARG, "dmesh_axis_parse: \"%.80s\": %d sizes but %d strides", text, ns, nd);
    for (int k = 0; k < ns; k++)
        if (sizes[k] < 1)
            return dmesh_error_set(DMESH_ERR_ARG, "dmesh_axis_parse: \"%.80s\": size %d of atom %d",
                                   text, sizes[k], k);
    /* "1:0" is how the empty axis prints: a lone 1:0 atom reads back as the
     * empty axis (the same function), so that printing and parsing agree */
    a->natoms = (ns == 1 && sizes[0] == 1 && strides[0] == 0) ? 0 : ns;
    for (int k = 0; k < a->natoms; k++)
        a->atoms[k] = (dmesh_atom_t){sizes[k], strides[k]};
    return DMESH_SUCCESS;
}
