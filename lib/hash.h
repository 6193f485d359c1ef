/* SPDX-License-Identifier: BSD-3-Clause */
/* The one hash of dmesh: 64-bit FNV-1a (cache keys, the agreement's
 * argument hashes, the device list of a node). */
#ifndef DMESH_HASH_H
#define DMESH_HASH_H

#include <stddef.h>
#include <stdint.h>

#define DMESH_HASH_INIT 14695981039346656037ULL /* FNV-1a 64-bit offset basis */
#define DMESH_HASH_PRIME 1099511628211ULL

/* Hash of n bytes at p, continuing h (start from DMESH_HASH_INIT). */
static inline uint64_t dmesh_hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;

    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * DMESH_HASH_PRIME;
    return h;
}

#endif /* DMESH_HASH_H */
