/* SPDX-License-Identifier: BSD-3-Clause */
/* The copies' memory (copies.h). A store writes every byte of a new version
 * into memory of its own, since the version before must stay whole until all
 * members hold the new one. Fresh memory costs the kernel a zeroed page per
 * fault: for copies of hundreds of MiB that is a second pass over the bytes,
 * and on a shared node the memory bandwidth it takes is the store's largest
 * cost after the transfer itself.
 *
 * So the big buffers a version leaves behind are kept as spares for the
 * next version of the same size, mapped and untouched: a store writes
 * into them (its copy, or a receive) without a fault. They are not handed
 * to the kernel (madvise(MADV_FREE)): a page so handed reads back as zeros
 * once reclaimed unless a store of the CPU dirtied it again, and a NIC's
 * RDMA write into a receive buffer dirties no page table, so the copy held
 * could be lost while it looked stored; and the kernel split the huge
 * pages and faulted them in again on each store, which cost the large
 * stores 25 times their floor. The spares never exceed the big buffers in
 * use (the copies a process holds, at least one version's): the memory
 * stays that of a store's peak (partner: 4 x the registered bytes), and
 * they go with the last of those. */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "copies_mem.h"

#define HUGE_PAGE ((size_t)2 << 20)

/* A big buffer (2 huge pages and more): live, or a spare. */
typedef struct big_s {
    char *p;
    size_t cap; /* bytes, a multiple of HUGE_PAGE */
    int spare;
    struct big_s *next;
} big_t;

static big_t *bigs; /* under the lock: threads store on different handles at once */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t round_huge(size_t n)
{
    return (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

static big_t *find(const char *p)
{
    for (big_t *b = bigs; b != NULL; b = b->next)
        if (b->p == p)
            return b;
    return NULL;
}

static void drop(big_t *b)
{
    for (big_t **q = &bigs; *q != NULL; q = &(*q)->next)
        if (*q == b) {
            *q = b->next;
            break;
        }
    free(b->p);
    free(b);
}

/* The bytes of the spares (spare 1) or of the live buffers (spare 0). */
static size_t bytes_of(int spare)
{
    size_t n = 0;

    for (big_t *b = bigs; b != NULL; b = b->next)
        n += b->spare == spare ? b->cap : 0;
    return n;
}

size_t dmesh_copies_spare_bytes(void)
{
    size_t n;

    pthread_mutex_lock(&lock);
    n = bytes_of(1);
    pthread_mutex_unlock(&lock);
    return n;
}

static char *alloc_big(size_t n);

char *dmesh_copies_alloc(size_t n)
{
    char *p;

    if (n < 2 * HUGE_PAGE)
        return malloc(n > 0 ? n : 1);
    pthread_mutex_lock(&lock);
    p = alloc_big(n);
    pthread_mutex_unlock(&lock);
    return p;
}

static char *alloc_big(size_t n)
{
    size_t cap = round_huge(n);
    big_t *b;
    void *p = NULL;

    for (b = bigs; b != NULL; b = b->next)
        if (b->spare && b->cap == cap) {
            b->spare = 0;
            return b->p;
        }
    if ((b = malloc(sizeof(*b))) == NULL)
        return NULL;
    if (posix_memalign(&p, HUGE_PAGE, cap) != 0) {
        free(b);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    madvise(p, cap, MADV_HUGEPAGE); /* a hint */
#endif
    *b = (big_t){p, cap, 0, bigs};
    bigs = b;
    return p;
}

/* Free spares until they are within the live buffers' bytes. */
static void trim(void)
{
    for (big_t *b = bigs, *next; b != NULL && bytes_of(1) > bytes_of(0); b = next) {
        next = b->next;
        if (b->spare)
            drop(b);
    }
}

static int release_big(char *p);

void dmesh_copies_release(char *p)
{
    pthread_mutex_lock(&lock);
    if (p != NULL && release_big(p)) {
        pthread_mutex_unlock(&lock);
        return;
    }
    pthread_mutex_unlock(&lock);
    free(p);
}

/* 1 when p is a big buffer (kept as a spare, mapped). */
static int release_big(char *p)
{
    big_t *b = find(p);

    if (b == NULL)
        return 0;
    b->spare = 1;
    trim();
    return 1;
}
