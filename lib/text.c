/* SPDX-License-Identifier: BSD-3-Clause */
/* Text accumulated with snprintf rules (text.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

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

void dmesh_text_finish(dmesh_text_t *t, size_t *needed)
{
    if (t->len > 0 && t->used >= t->len)
        t->buf[t->len - 1] = '\0';
    if (needed != NULL)
        *needed = t->used;
}
