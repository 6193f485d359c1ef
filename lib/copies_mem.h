/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies in memory, their memory (copies_mem.c). */
#ifndef DMESH_COPIES_MEM_H
#define DMESH_COPIES_MEM_H

#include <stddef.h>

/* The copies' memory (copies_mem.c). n bytes for a copy (NULL when there is
 * no memory); large ones aligned to and advised for huge pages (first touch
 * of fresh memory costs a page fault per page, which dominated a new
 * process's restore), and taken from the spares a version left when one has
 * the size. */
char *dmesh_copies_alloc(size_t n);

/* Give back p (from dmesh_copies_alloc, or NULL): a large one becomes a spare,
 * kept mapped (never handed to the kernel: safe for RDMA writes), the spares
 * kept within the large buffers in use; else it is freed. */
void dmesh_copies_release(char *p);

/* The bytes of the spares. */
size_t dmesh_copies_spare_bytes(void);

#endif /* DMESH_COPIES_MEM_H */
