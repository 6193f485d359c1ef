/* SPDX-License-Identifier: BSD-3-Clause */
/* The "dup" backend of the tests (test/backend_dup.c). */
#ifndef DMESH_TEST_BACKEND_DUP_H
#define DMESH_TEST_BACKEND_DUP_H

#include "backend.h"

extern const dmesh_backend_t dmesh_backend_dup;

/* Its paired communicators: alive now, made and aborted so far (this rank). */
extern long dup_live, dup_made, dup_aborted;

#endif /* DMESH_TEST_BACKEND_DUP_H */
