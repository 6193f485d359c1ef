/* SPDX-License-Identifier: BSD-3-Clause */
/* Text accumulated with snprintf rules (text.h). */
#include "config.h"

#include "api_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

void dmesh_text_put(dmesh_text_t *t, const char *fmt, ...)
{
    va_list ap;
    int k;

    va_start(ap, fmt);
    k = vsnprintf(t->used < t->len ? t->buf + t->used : NULL,
                  t->used < t->len ? t->len - t->used : 0, fmt, ap);
    va_end(ap);
    if (k > 0)
        t->used += (size_t)k;
}

void dmesh_text_put_quoted(dmesh_text_t *t, const char *s)
{
    dmesh_text_put(t, " \"");
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
            dmesh_text_put(t, "\\x%02x", ch);
        else
            dmesh_text_put(t, "%c", ch);
    }
    dmesh_text_put(t, "\"");
}

void dmesh_text_finish(dmesh_text_t *t, size_t *needed)
{
    if (t->len > 0 && t->used >= t->len)
        t->buf[t->len - 1] = '\0';
    if (needed != NULL)
        *needed = t->used;
}

const char *dmesh_ints_text(int n, const int v[], char *buf, size_t len)
{
    dmesh_text_t t = {buf, len, 0};

    dmesh_text_put(&t, "(");
    for (int i = 0; i < n; i++)
        dmesh_text_put(&t, i > 0 ? ", %d" : "%d", v[i]);
    dmesh_text_put(&t, ")");
    dmesh_text_finish(&t, NULL);
    return buf;
}

const char *dmesh_names_text(int n, const char *const names[], char *buf, size_t len)
{
    dmesh_text_t t = {buf, len, 0};

    if (names == NULL)
        dmesh_text_put(&t, "unnamed");
    for (int i = 0; names != NULL && i < n; i++)
        dmesh_text_put(&t, "%s%s", i > 0 ? ", " : "(", names[i] != NULL ? names[i] : "NULL");
    if (names != NULL)
        dmesh_text_put(&t, ")");
    dmesh_text_finish(&t, NULL);
    return buf;
}

int dmesh_names_check(int n, const char *const names[], const char *fn)
{
    int i, j;

    for (i = 0; i < n; i++) {
        if (names[i] == NULL || names[i][0] == '\0')
            return dmesh_error_set(DMESH_ERR_NAME, "%s: dimension name %d is %s", fn, i,
                                   names[i] ? "empty" : "NULL");
        if (strlen(names[i]) >= DMESH_MAX_NAME)
            return dmesh_error_set(DMESH_ERR_NAME,
                                   "%s: dimension name \"%.16s...\" is longer than %d bytes", fn,
                                   names[i], DMESH_MAX_NAME - 1);
        for (j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0)
                return dmesh_error_set(DMESH_ERR_NAME, "%s: dimension name \"%s\" is used twice",
                                       fn, names[i]);
    }
    return DMESH_SUCCESS;
}
