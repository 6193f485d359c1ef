/* SPDX-License-Identifier: BSD-3-Clause */
/* Text built piece by piece with snprintf rules: what does not fit in the
 * buffer is still counted, so that the caller learns the length it needs.
 * Pure (no MPI): used by dmesh_to_string and the saved-mesh printer. Also
 * the check of dimension names. */
#ifndef DMESH_TEXT_H
#define DMESH_TEXT_H

#include <stddef.h>

#include "error.h"

typedef struct {
    char *buf;   /* may be NULL when len is 0 */
    size_t len;  /* capacity of buf */
    size_t used; /* length of the full text so far */
} dmesh_text_t;

/* Append printf-formatted text. */
void dmesh_text_put(dmesh_text_t *t, const char *fmt, ...) DMESH_PRINTF(2, 3);

/* Append a blank and s in double quotes, with '"', '\\' and bytes outside printable
 * ASCII written \xHH (the saved text form's names). */
void dmesh_text_put_quoted(dmesh_text_t *t, const char *s);

/* End the text: NUL-terminated within len, full length in *needed (may be NULL). */
void dmesh_text_finish(dmesh_text_t *t, size_t *needed);

/* The one check of dimension names, on every path that takes them (init,
 * create, from_comms, flatten, unflatten, deserialize): n names, none NULL
 * or empty, each shorter than DMESH_MAX_NAME bytes, none given twice. fn
 * starts the detail message. */
int dmesh_names_check(int n, const char *const names[], const char *fn);

/* "(3, 0)", the n entries of v in buf of len bytes (cut short there): for
 * a detail message. Returns buf. */
const char *dmesh_ints_text(int n, const int v[], char *buf, size_t len);

/* "(dp, tp)", the n names (or "unnamed" for NULL) in buf of len bytes (cut
 * short there): for a detail message. Returns buf. */
const char *dmesh_names_text(int n, const char *const names[], char *buf, size_t len);

#endif /* DMESH_TEXT_H */
