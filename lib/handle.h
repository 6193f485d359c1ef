/* SPDX-License-Identifier: BSD-3-Clause */
/* Mesh handles: a dmesh_t is no pointer but a slot of one process-wide
 * table (its index) and the slot's generation when the mesh was made,
 * packed into the handle's bits. Freeing a mesh advances its slot's
 * generation, so that every copy of the old handle, and any value that
 * was never a handle, fails the look-up instead of reaching memory:
 * the look-up reads only the table, whose chunks live as long as the
 * process. A slot's generation would repeat after 2^32 meshes made in
 * that one slot. */
#ifndef DMESH_HANDLE_H
#define DMESH_HANDLE_H

#include <stdint.h>

#include "dmesh.h"

struct dmesh_mesh;

#define DMESH_HANDLE_CHUNK_BITS 10
#define DMESH_HANDLE_CHUNK (1u << DMESH_HANDLE_CHUNK_BITS)
#define DMESH_HANDLE_CHUNKS 16384u /* at most 16 Mi meshes alive at once */
/* The bits of a handle below the generation: the index plus one (a
 * handle is never DMESH_NULL). */
#define DMESH_HANDLE_GEN_SHIFT (sizeof(uintptr_t) >= 8 ? 32 : 24)
/* The generations a handle can carry (2^32, or 2^8 where pointers have 32
 * bits): a slot's generation stays below, 0 excluded. */
#define DMESH_HANDLE_GEN_MASK ((uint32_t)(UINTPTR_MAX >> DMESH_HANDLE_GEN_SHIFT))

typedef struct {
    uint32_t gen;            /* of the mesh in the slot, or of the next one */
    uint32_t next_free;      /* free list, under the table's lock */
    struct dmesh_mesh *mesh; /* NULL while the slot is free */
    const char *made_by;     /* the call that made the mesh */
} dmesh_handle_slot_t;

extern dmesh_handle_slot_t *dmesh_handle_chunks[DMESH_HANDLE_CHUNKS];

/* The mesh of handle h, NULL when h is no live handle (freed, a copy of
 * a freed one, never made). Two loads and a comparison: no lock. */
static inline struct dmesh_mesh *dmesh_handle_mesh(dmesh_t h)
{
    uintptr_t v = (uintptr_t)h;
    uintptr_t low = (((uintptr_t)1 << DMESH_HANDLE_GEN_SHIFT) - 1);
    uintptr_t idx = (v & low) - 1; /* 0 wraps to a value past the table */
    dmesh_handle_slot_t *chunk;
    dmesh_handle_slot_t *slot;
    struct dmesh_mesh *m;

    if (idx >= (uintptr_t)DMESH_HANDLE_CHUNKS * DMESH_HANDLE_CHUNK)
        return NULL;
    chunk = __atomic_load_n(&dmesh_handle_chunks[idx >> DMESH_HANDLE_CHUNK_BITS], __ATOMIC_ACQUIRE);
    if (chunk == NULL)
        return NULL;
    slot = &chunk[idx & (DMESH_HANDLE_CHUNK - 1)];
    if (__atomic_load_n(&slot->gen, __ATOMIC_ACQUIRE) != (uint32_t)(v >> DMESH_HANDLE_GEN_SHIFT))
        return NULL;
    m = __atomic_load_n(&slot->mesh, __ATOMIC_ACQUIRE);
    /* the generation again, after the mesh: a free and a new mesh in this
     * slot between the two loads above would otherwise give the new mesh
     * to the old handle (a slot's mesh changes only after its generation) */
    if (__atomic_load_n(&slot->gen, __ATOMIC_ACQUIRE) != (uint32_t)(v >> DMESH_HANDLE_GEN_SHIFT))
        return NULL;
    return m;
}

/* A new handle for m, made by the call made_by (a string literal). */
int dmesh_handle_new(struct dmesh_mesh *m, const char *made_by, dmesh_t *h);

/* End handle h: its copies fail the look-up from now on. Returns 1, or 0
 * where h was ended already (another thread freed a copy of it first):
 * the caller then owns nothing. */
int dmesh_handle_end(dmesh_t h);

/* Call f on every live mesh (with the call that made it), under the
 * table's lock; returns how many there are. */
int dmesh_handle_each(void (*f)(struct dmesh_mesh *m, const char *made_by, void *arg), void *arg);

#endif /* DMESH_HANDLE_H */
