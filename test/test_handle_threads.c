/* SPDX-License-Identifier: BSD-3-Clause */
/* Mesh handles under MPI_THREAD_MULTIPLE: threads make meshes (dmesh_slice,
 * local), free copies of the same handle at once, and read meshes, for a
 * few seconds. A mesh is never read while it is being freed (a query of a
 * mesh that another thread frees meanwhile is erroneous, as for any MPI
 * object: dmesh.h's threads rule); the reads go to meshes that live
 * through the run and to handles already freed, while other meshes of the
 * same universe are made and freed. Checked:
 *   - a live mesh reads as itself (the dimension name it was sliced with);
 *   - a freed handle reads as DMESH_ERR_ARG, never as the mesh made later
 *     in its slot of the handle table;
 *   - of the threads freeing copies of one handle, exactly one succeeds
 *     and the others get DMESH_ERR_ARG;
 *   - no handle value is handed out twice while its mesh lives (a slot on
 *     the free list twice would give two meshes one handle).
 * Prints the counts; exits 1 on any failed check. Run under
 * ThreadSanitizer it shows the races of the handle table (test/tsan.sh). */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"

#define NSLOTS 2
#define NLIVE 2
#define NFREED 64 /* the handles freed last */
#define NTHREADS 8
#define ITERS 20000
#define TABLE (1u << 20)

static dmesh_t root;
static uintptr_t slots[NSLOTS];
static dmesh_t live[NLIVE]; /* never freed while the threads run */
static uintptr_t freed[NFREED];
static unsigned nfreed;
static uintptr_t table_key[TABLE];
static int table_kind[TABLE];
static long bad, frees, refused, reads, stale;

static const char *const names[2] = {"a", "b"};

static unsigned spot(uintptr_t h)
{
    return (unsigned)((h * 0x9e3779b97f4a7c15ull) >> 44) & (TABLE - 1);
}

/* Record h's kind (the dim it was sliced by); 0 if h was handed out before. */
static int record(uintptr_t h, int kind)
{
    unsigned i = spot(h);

    for (;;) {
        uintptr_t zero = 0;
        if (__atomic_compare_exchange_n(&table_key[i], &zero, h, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            __atomic_store_n(&table_kind[i], kind + 1, __ATOMIC_RELEASE);
            return 1;
        }
        if (zero == h)
            return 0;
        i = (i + 1) & (TABLE - 1);
    }
}

static int kind_of(uintptr_t h)
{
    unsigned i = spot(h);

    while (__atomic_load_n(&table_key[i], __ATOMIC_ACQUIRE) != h)
        i = (i + 1) & (TABLE - 1);
    return __atomic_load_n(&table_kind[i], __ATOMIC_ACQUIRE) - 1;
}

static uintptr_t make(unsigned *seed)
{
    int kind = (int)(rand_r(seed) & 1);
    const char *dim[1] = {names[kind]};
    dmesh_t m = DMESH_NULL;

    if (dmesh_slice(root, 1, dim, &m) != DMESH_SUCCESS) {
        __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        fprintf(stderr, "dmesh_slice: %s\n", dmesh_last_error());
        return 0;
    }
    if (!record((uintptr_t)m, kind)) {
        __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        fprintf(stderr, "handle %#lx handed out twice\n", (unsigned long)(uintptr_t)m);
    }
    return (uintptr_t)m;
}

/* A live mesh reads as itself. */
static void check_read(int k)
{
    const char *name = NULL;
    int rc = dmesh_get_dim_name(live[k], 0, &name);

    __atomic_add_fetch(&reads, 1, __ATOMIC_RELAXED);
    if (rc != DMESH_SUCCESS || strcmp(name, names[k]) != 0) {
        __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        fprintf(stderr, "a live mesh read %d (%s, made as %s)\n", rc, rc ? "-" : name, names[k]);
    }
}

/* A freed handle reads as DMESH_ERR_ARG (its free returned before it was
 * listed), whatever its slot holds now. */
static void check_stale(unsigned *seed)
{
    unsigned n = __atomic_load_n(&nfreed, __ATOMIC_ACQUIRE);
    uintptr_t h;
    const char *name = NULL;
    int rc;

    if (n == 0)
        return;
    h = __atomic_load_n(&freed[rand_r(seed) % (n < NFREED ? n : NFREED)], __ATOMIC_ACQUIRE);
    if (h == 0)
        return;
    rc = dmesh_get_dim_name((dmesh_t)h, 0, &name);
    __atomic_add_fetch(&stale, 1, __ATOMIC_RELAXED);
    if (rc != DMESH_ERR_ARG) {
        __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        fprintf(stderr, "a freed handle read %d (%s, made as %s)\n", rc, rc ? "-" : name,
                names[kind_of(h)]);
    }
}

static void try_free(uintptr_t h, unsigned *seed, int i)
{
    dmesh_t copy = (dmesh_t)h;
    int rc = dmesh_free(&copy);
    uintptr_t next;

    if (rc == DMESH_ERR_ARG) {
        __atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED);
        return;
    }
    if (rc != DMESH_SUCCESS) {
        __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        return;
    }
    __atomic_add_fetch(&frees, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&freed[__atomic_fetch_add(&nfreed, 1, __ATOMIC_ACQ_REL) % NFREED], h,
                     __ATOMIC_RELEASE);
    next = make(seed);
    /* only the thread that freed h replaces it: a second success fails here */
    if (!__atomic_compare_exchange_n(&slots[i], &h, next, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        fprintf(stderr, "two threads freed one handle\n");
        copy = (dmesh_t)next;
        dmesh_free(&copy);
    }
}

static void *work(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg * 7919u + 1u;

    for (int it = 0; it < ITERS; it++) {
        int i = (int)(rand_r(&seed) % NSLOTS);
        uintptr_t h = __atomic_load_n(&slots[i], __ATOMIC_ACQUIRE);
        switch (rand_r(&seed) % 3) {
        case 0:
            if (h != 0)
                try_free(h, &seed, i);
            break;
        case 1:
            check_read((int)(rand_r(&seed) % NLIVE));
            break;
        default:
            check_stale(&seed);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[NTHREADS];
    int provided = 0, shape[2] = {1, 1}, i;
    unsigned seed = 12345;
    MPI_Comm comm;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("test_handle_threads: skipped: the MPI gives no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_SELF, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (dmesh_init(comm, "cpu", 2, shape, names, MPI_INFO_NULL, &root) != DMESH_SUCCESS) {
        fprintf(stderr, "dmesh_init: %s\n", dmesh_last_error());
        return 1;
    }
    for (i = 0; i < NLIVE; i++) {
        const char *dim[1] = {names[i]};
        if (dmesh_slice(root, 1, dim, &live[i]) != DMESH_SUCCESS) {
            fprintf(stderr, "dmesh_slice: %s\n", dmesh_last_error());
            return 1;
        }
    }
    for (i = 0; i < NSLOTS; i++)
        slots[i] = make(&seed);
    for (i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, work, (void *)(uintptr_t)i);
    for (i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    for (i = 0; i < NSLOTS; i++) {
        dmesh_t m = (dmesh_t)slots[i];
        if (dmesh_free(&m) != DMESH_SUCCESS)
            bad++;
    }
    for (i = 0; i < NLIVE; i++)
        if (dmesh_free(&live[i]) != DMESH_SUCCESS)
            bad++;
    dmesh_free(&root);
    MPI_Comm_free(&comm);
    printf("test_handle_threads: %d threads: %ld reads, %ld reads of freed handles, %ld frees, "
           "%ld frees refused (freed by another thread), %ld failed checks\n",
           NTHREADS, reads, stale, frees, refused, bad);
    MPI_Finalize();
    return bad != 0;
}
