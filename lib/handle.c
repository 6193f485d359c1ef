/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of mesh handles (handle.h). Chunks of slots are allocated as
 * handles need them and kept for the life of the process, so that a
 * look-up of any value reads only memory the table owns. Making and
 * ending handles takes a lock (meshes of different universes may be made
 * on different threads at once); look-ups do not. */
#include "config.h"

#include "api_impl.h"

#include <pthread.h>
#include <stdlib.h>

#include "error.h"
#include "handle.h"

dmesh_handle_slot_t *dmesh_handle_chunks[DMESH_HANDLE_CHUNKS];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t free_head = UINT32_MAX; /* a slot index, UINT32_MAX: none */
static uint32_t nslots;                 /* slots in the chunks so far */
static int live;                        /* handles made and not ended */

static dmesh_handle_slot_t *slot_of(uint32_t idx)
{
    return &dmesh_handle_chunks[idx >> DMESH_HANDLE_CHUNK_BITS][idx & (DMESH_HANDLE_CHUNK - 1)];
}

/* One more chunk on the free list; under the lock. */
static int grow(void)
{
    dmesh_handle_slot_t *chunk;
    uint32_t i;

    if (nslots / DMESH_HANDLE_CHUNK >= DMESH_HANDLE_CHUNKS)
        return dmesh_error_set(DMESH_ERR_NOMEM, "mesh handle: %u meshes alive at once",
                               (unsigned)nslots);
    chunk = calloc(DMESH_HANDLE_CHUNK, sizeof(*chunk));
    if (chunk == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "mesh handle: out of memory");
    for (i = 0; i < DMESH_HANDLE_CHUNK; i++) {
        chunk[i].gen = 1;
        chunk[i].next_free = i + 1 < DMESH_HANDLE_CHUNK ? nslots + i + 1 : free_head;
    }
    __atomic_store_n(&dmesh_handle_chunks[nslots / DMESH_HANDLE_CHUNK], chunk, __ATOMIC_RELEASE);
    free_head = nslots;
    nslots += DMESH_HANDLE_CHUNK;
    return DMESH_SUCCESS;
}

int dmesh_handle_new(struct dmesh_mesh *m, const char *made_by, dmesh_t *h)
{
    dmesh_handle_slot_t *s;
    uint32_t idx;
    int err = DMESH_SUCCESS;

    pthread_mutex_lock(&lock);
    if (free_head == UINT32_MAX)
        err = grow();
    if (err == DMESH_SUCCESS) {
        idx = free_head;
        s = slot_of(idx);
        free_head = s->next_free;
        s->made_by = made_by;
        __atomic_store_n(&s->mesh, m, __ATOMIC_RELEASE);
        live++;
        *h = (dmesh_t)(((uintptr_t)s->gen << DMESH_HANDLE_GEN_SHIFT) | ((uintptr_t)idx + 1));
    }
    pthread_mutex_unlock(&lock);
    return err;
}

int dmesh_handle_end(dmesh_t h)
{
    uintptr_t low = ((uintptr_t)1 << DMESH_HANDLE_GEN_SHIFT) - 1;
    uint32_t idx = (uint32_t)(((uintptr_t)h & low) - 1);
    dmesh_handle_slot_t *s;
    uint32_t gen;

    pthread_mutex_lock(&lock);
    s = slot_of(idx);
    if (s->gen != (uint32_t)((uintptr_t)h >> DMESH_HANDLE_GEN_SHIFT) || s->mesh == NULL) {
        pthread_mutex_unlock(&lock);
        return 0; /* ended already: its slot is on the free list once */
    }
    gen = (s->gen + 1) & DMESH_HANDLE_GEN_MASK;
    __atomic_store_n(&s->gen, gen != 0 ? gen : 1, __ATOMIC_RELEASE);
    __atomic_store_n(&s->mesh, NULL, __ATOMIC_RELEASE);
    s->made_by = NULL;
    s->next_free = free_head;
    free_head = idx;
    live--;
    pthread_mutex_unlock(&lock);
    return 1;
}

int dmesh_handle_each(void (*f)(struct dmesh_mesh *m, const char *made_by, void *arg), void *arg)
{
    uint32_t i;
    int n;

    pthread_mutex_lock(&lock);
    for (i = 0; i < nslots; i++) {
        dmesh_handle_slot_t *s = slot_of(i);
        if (s->mesh != NULL && f != NULL)
            f(s->mesh, s->made_by, arg);
    }
    n = live;
    pthread_mutex_unlock(&lock);
    return n;
}
