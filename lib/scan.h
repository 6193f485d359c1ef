/* SPDX-License-Identifier: BSD-3-Clause */
/* The scanner of the saved text form (dmesh_deserialize): the parser of
 * serialize_text.c and each backend's options (backend.h) read through it.
 * Pure (no MPI). Every error is DMESH_ERR_ARG whose detail starts
 * "dmesh_deserialize: line L, column C (byte B)". */
#ifndef DMESH_SCAN_H
#define DMESH_SCAN_H

#include "dmesh.h"
#include "error.h"

/* Where the scanner stands in the text. */
typedef struct dmesh_scan {
    const char *text, *p, *line_start;
    int line;
} dmesh_scan_t;

#define DMESH_SCAN_TOKEN_MAX 1024

/* DMESH_ERR_ARG at position at of the text, with the printf-formatted what. */
int dmesh_scan_fail(const dmesh_scan_t *c, const char *at, const char *fmt, ...) DMESH_PRINTF(3, 4);

/* Blank (space, tab) and end of a token (blank, newline, end of text). */
int dmesh_scan_is_blank(char ch);
int dmesh_scan_is_end(char ch);

/* Skip a run of blanks but its last one; where the next token starts (for
 * messages about it). */
const char *dmesh_scan_at(dmesh_scan_t *c);

/* A token: a run of non-blank characters, after one or more blanks (lead)
 * or at the start of a line (!lead). */
int dmesh_scan_word(dmesh_scan_t *c, int lead, char out[DMESH_SCAN_TOKEN_MAX], const char *what);

/* A decimal integer of [lo, hi] after blanks, named what in messages. */
int dmesh_scan_int(dmesh_scan_t *c, long long lo, long long hi, const char *what, int *v);

/* Blanks, then the end of the line; the scanner moves to the next line. */
int dmesh_scan_end_of_line(dmesh_scan_t *c);

enum { DMESH_SCAN_NAME_REQUIRED = 0, DMESH_SCAN_NAME_DASH_OK = 1, DMESH_SCAN_NAME_EMPTY_OK = 2 };

/* A quoted name after blanks ('"', '\\' and other bytes written \xHH),
 * of 1 to DMESH_MAX_NAME - 1 bytes (0 with DMESH_SCAN_NAME_EMPTY_OK), or
 * "-" with DMESH_SCAN_NAME_DASH_OK (unnamed: out = ""). */
int dmesh_scan_name(dmesh_scan_t *c, char out[DMESH_MAX_NAME], int flags);

#endif /* DMESH_SCAN_H */
