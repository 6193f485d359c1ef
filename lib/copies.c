/* SPDX-License-Identifier: BSD-3-Clause */
/* The copies objects (copies.h): a process's copies by name (the registry:
 * they belong to the process, not to a mesh, so that the survivors of a
 * failure find them on the mesh that dmesh_respawn made), the handles that
 * open them on a mesh, and the packed form of the registered buffers. The
 * collective store and restore are in copies_xfer.c. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agree.h"
#include "copies.h"
#include "copies_device.h"
#include "copies_mem.h"
#include "copies_scheme.h"
#include "mesh_dim.h"
#include "error.h"
#include "ulfm.h"
#include "hash.h"
#include "mesh.h"
#include "option_value.h"
#include "node_find.h"
#include "options.h"
#include "universe_comms.h"

#define COPIES_MAGIC 0x646d636f70696573ull /* "dmcopies" */
#define PACK_MAGIC 0x646d63707976ull

/* The process's copies and its live handles. The threads rule: under
 * MPI_THREAD_MULTIPLE threads may open, store, restore and free copies on
 * different handles at once (as collective calls on different
 * communicators), and dmesh_revoke may come from any thread (a watchdog)
 * while another frees a handle; one handle is used by one thread at a time,
 * but for the local queries, which any thread may make even while another
 * frees the handle (query_begin).
 * So the two lists are walked and changed under the lock, never held across
 * an MPI call that waits for other processes: a handle leaves the list of
 * live handles before its communicators go, so a revocation that found it
 * there revoked them while they still existed. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static dmesh_copies_data_t *registry;
static uint64_t opens; /* the handles' order of opening */
static struct dmesh_copies_s *live;

static struct dmesh_copies_s *live_find_locked(dmesh_copies_t h)
{
    struct dmesh_copies_s *x;

    for (x = live; x != NULL && x != h; x = x->next_live)
        ;
    return x;
}

static struct dmesh_copies_s *live_find(dmesh_copies_t h)
{
    struct dmesh_copies_s *x;

    pthread_mutex_lock(&lock);
    x = live_find_locked(h);
    pthread_mutex_unlock(&lock);
    return x;
}

static int usable(const struct dmesh_copies_s *x, const char *fn)
{
    if (x == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: freed or invalid copies handle", fn);
    if (x->d == NULL)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: these copies were opened again on another mesh (or an "
                               "open on another mesh failed and keeps them for the next "
                               "dmesh_copies_open): use the handle of that open",
                               fn);
    return DMESH_SUCCESS;
}

int dmesh_copies_get(dmesh_copies_t h, const char *fn, struct dmesh_copies_s **c)
{
    struct dmesh_copies_s *x = live_find(h);

    DMESH_TRY(usable(x, fn));
    *c = x;
    return DMESH_SUCCESS;
}

/* A local query (dmesh_copies_get_partners, _get_survival) may come from
 * any thread while another frees the handle: it finds the handle and reads
 * it under the lock, and dmesh_copies_free takes the handle off the live
 * list under the lock before it frees anything, so the query either ends
 * first or finds no handle (DMESH_ERR_ARG), never reads freed memory. On
 * success the lock is held until query_end. */
static int query_begin(dmesh_copies_t h, const char *fn, struct dmesh_copies_s **c)
{
    int rc;

    pthread_mutex_lock(&lock);
    *c = live_find_locked(h);
    rc = usable(*c, fn);
    if (rc != DMESH_SUCCESS)
        pthread_mutex_unlock(&lock);
    return rc;
}

static int query_end(int rc)
{
    pthread_mutex_unlock(&lock);
    return rc;
}

MPI_Comm dmesh_copies_raise_comm(dmesh_copies_t h)
{
    struct dmesh_copies_s *x;
    MPI_Comm raise;

    pthread_mutex_lock(&lock);
    x = live_find_locked(h);
    raise = x != NULL ? x->raise : MPI_COMM_NULL;
    pthread_mutex_unlock(&lock);
    return raise;
}

/* dmesh_revoke of universe u: the copies opened on its meshes are revoked
 * too, so that a process blocked in their store or restore returns
 * (MPIX_Comm_revoke does not wait for other processes). */
static void universe_revoked(const void *u)
{
    pthread_mutex_lock(&lock);
    for (struct dmesh_copies_s *x = live; x != NULL; x = x->next_live)
        if (x->universe == u) {
            if (x->set != MPI_COMM_NULL)
                dmesh_ulfm_revoke(x->set);
            if (x->next_set != MPI_COMM_NULL)
                dmesh_ulfm_revoke(x->next_set);
            if (x->comm != MPI_COMM_NULL)
                dmesh_ulfm_revoke(x->comm);
        }
    pthread_mutex_unlock(&lock);
}

/* Universe u goes: its address is no longer the copies'. */
static void universe_gone(const void *u)
{
    pthread_mutex_lock(&lock);
    for (struct dmesh_copies_s *x = live; x != NULL; x = x->next_live)
        if (x->universe == u)
            x->universe = NULL;
    pthread_mutex_unlock(&lock);
}

/* The universe's watcher (universe.h), installed at the first open: the
 * universe tells the copies, never calls them. */
static void on_universe(const void *u, int event)
{
    if (event == DMESH_UNIVERSE_REVOKED)
        universe_revoked(u);
    else
        universe_gone(u);
}

/* ---- the packed form: header, (id, count, bytes) per buffer, the bytes ---- */

typedef struct {
    uint64_t magic;
    int64_t version;
    uint64_t nbufs, len;
} pack_head_t;

typedef struct {
    int64_t id;
    int64_t count; /* elements stored */
    uint64_t bytes;
} pack_entry_t;

/* The packed size of count elements of type, and whether memcpy does (a
 * type whose extent is its size, for up to room elements); fn: the call. */
static int buf_bytes(MPI_Count count, MPI_Count room, MPI_Datatype type, const char *fn,
                     size_t *bytes, int *contiguous)
{
    MPI_Aint lb, extent, tlb, textent;
    int size, rc, packed;

    if ((rc = MPI_Type_size(type, &size)) != MPI_SUCCESS ||
        (rc = MPI_Type_get_extent(type, &lb, &extent)) != MPI_SUCCESS ||
        (rc = MPI_Type_get_true_extent(type, &tlb, &textent)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_copies: the datatype");
    *contiguous = size == textent && (room <= 1 || extent == size);
    if (*contiguous) {
        if (size > 0 && (unsigned long long)room > SIZE_MAX / (size_t)size)
            return dmesh_error_set(DMESH_ERR_ARG, "%s: count %lld is too large", fn,
                                   (long long)room);
        *bytes = (size_t)count * (size_t)size;
        return DMESH_SUCCESS;
    }
    /* MPI_Pack and MPI_Pack_size count in int: the packed size too (at least
     * the data's size; an MPI gives a wrong size past INT_MAX, measured:
     * Open MPI 4.1, 600 M elements of an 8-byte strided type, 505,032,704) */
    if (room > INT_MAX || (long long)room * size > INT_MAX)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: %lld elements of a type that is not contiguous: %lld bytes "
                               "of data, past what MPI_Pack takes (INT_MAX); register a "
                               "contiguous type, or the buffer in parts",
                               fn, (long long)room, (long long)room * size);
    if ((rc = MPI_Pack_size((int)room, type, MPI_COMM_SELF, &packed)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_copies: MPI_Pack_size");
    if (packed < 0 || (long long)packed < (long long)room * size)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: %lld elements of a type that is not contiguous pack into "
                               "more than MPI_Pack takes (INT_MAX)",
                               fn, (long long)room);
    if (count != room &&
        (rc = MPI_Pack_size((int)count, type, MPI_COMM_SELF, &packed)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_copies: MPI_Pack_size");
    *bytes = (size_t)packed;
    return DMESH_SUCCESS;
}

/* Buffer b's elements now: a sized buffer's count as the program set it. */
static int count_now(const dmesh_copies_buf_t *b, MPI_Count *count)
{
    *count = b->count;
    if (b->sized == NULL)
        return DMESH_SUCCESS;
    *count = *b->sized;
    if (*count < 0 || *count > b->count)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "dmesh_copies_store: buffer %d holds %lld elements, its room is "
                               "%lld (dmesh_copies_add_sized)",
                               b->id, (long long)*count, (long long)b->count);
    return DMESH_SUCCESS;
}

/* count elements of b between buf and the packed bytes at at (pack: to). */
static int move_buf(const dmesh_copies_buf_t *b, MPI_Count count, size_t bytes, char *at, int to,
                    const char *fn)
{
    MPI_Aint lb, extent;
    int pos = 0, rc;

    if (bytes == 0)
        return DMESH_SUCCESS;
    if (b->contiguous) {
        MPI_Type_get_true_extent(b->type, &lb, &extent);
        if (b->device)
            return to ? dmesh_copies_device_copy(at, (const char *)b->buf + lb, bytes, fn)
                      : dmesh_copies_device_copy((char *)b->buf + lb, at, bytes, fn);
        if (to)
            memcpy(at, (const char *)b->buf + lb, bytes);
        else
            memcpy((char *)b->buf + lb, at, bytes);
        return DMESH_SUCCESS;
    }
    rc = to ? MPI_Pack(b->buf, (int)count, b->type, at, (int)bytes, &pos, MPI_COMM_SELF)
            : MPI_Unpack(at, (int)bytes, &pos, b->buf, (int)count, b->type, MPI_COMM_SELF);
    return rc == MPI_SUCCESS ? DMESH_SUCCESS
                             : dmesh_error_mpi(rc, to ? "dmesh_copies_store: MPI_Pack"
                                                      : "dmesh_copies_restore: MPI_Unpack");
}

/* Whether a registered buffer is in device memory. */
static int has_device(const dmesh_copies_data_t *d)
{
    for (int i = 0; i < d->nbufs; i++)
        if (d->bufs[i].device && d->bufs[i].count > 0)
            return 1;
    return 0;
}

/* Every buffer's count and bytes now (sized ones change between stores). */
static int sizes_now(dmesh_copies_data_t *d, pack_entry_t *e, size_t *n)
{
    int contiguous;

    for (int i = 0; i < d->nbufs; i++) {
        MPI_Count count;
        size_t bytes = 0;
        DMESH_TRY(count_now(&d->bufs[i], &count));
        DMESH_TRY(buf_bytes(count, d->bufs[i].count, d->bufs[i].type, "dmesh_copies_store", &bytes,
                            &contiguous));
        e[i] = (pack_entry_t){d->bufs[i].id, (int64_t)count, (uint64_t)bytes};
        *n += bytes;
    }
    return DMESH_SUCCESS;
}

int dmesh_copies_pack(dmesh_copies_data_t *d, int64_t version, char **copy, size_t *len)
{
    size_t n = sizeof(pack_head_t) + (size_t)d->nbufs * sizeof(pack_entry_t), at;
    pack_head_t h = {PACK_MAGIC, version, (uint64_t)d->nbufs, 0};
    pack_entry_t *e = malloc((size_t)(d->nbufs > 0 ? d->nbufs : 1) * sizeof(*e));
    char *p = NULL;
    int err = e == NULL ? dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_copies_store: no memory")
                        : sizes_now(d, e, &n);

    if (!err && has_device(d)) /* the program's kernels done writing them */
        err = dmesh_copies_device_sync("dmesh_copies_store");
    if (!err && (p = dmesh_copies_alloc(n)) == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM,
                              "dmesh_copies_store: no memory for a copy of %zu bytes", n);
    if (err) {
        free(e);
        return err;
    }
    h.len = n;
    memcpy(p, &h, sizeof(h));
    memcpy(p + sizeof(h), e, (size_t)d->nbufs * sizeof(*e));
    at = sizeof(h) + (size_t)d->nbufs * sizeof(pack_entry_t);
    for (int i = 0; i < d->nbufs && !err; i++) {
        err = move_buf(&d->bufs[i], (MPI_Count)e[i].count, (size_t)e[i].bytes, p + at, 1,
                       "dmesh_copies_store");
        at += (size_t)e[i].bytes;
    }
    free(e);
    if (err) {
        dmesh_copies_release(p);
        return err;
    }
    *copy = p;
    *len = n;
    return DMESH_SUCCESS;
}

/* Whether stored entry e fits registered buffer b. */
static int entry_fits(const dmesh_copies_buf_t *b, const pack_entry_t *e)
{
    size_t bytes = 0;
    int contiguous;

    if (e->id != b->id)
        return dmesh_error_set(DMESH_ERR_MISMATCH,
                               "dmesh_copies_restore: buffer id %lld was stored where id %d is "
                               "registered",
                               (long long)e->id, b->id);
    if (b->sized != NULL && (e->count < 0 || e->count > b->count))
        return dmesh_error_set(DMESH_ERR_MISMATCH,
                               "dmesh_copies_restore: buffer %d: %lld elements were stored, "
                               "its room is %lld (dmesh_copies_add_sized)",
                               b->id, (long long)e->count, (long long)b->count);
    if (b->sized == NULL && e->count != b->count)
        return dmesh_error_set(DMESH_ERR_MISMATCH,
                               "dmesh_copies_restore: buffer %d: %lld elements were stored, %lld "
                               "are registered",
                               b->id, (long long)e->count, (long long)b->count);
    DMESH_TRY(buf_bytes((MPI_Count)e->count, b->count, b->type, "dmesh_copies_restore", &bytes,
                        &contiguous));
    if (bytes != e->bytes)
        return dmesh_error_set(DMESH_ERR_MISMATCH,
                               "dmesh_copies_restore: buffer %d of %llu bytes was stored, the "
                               "registered type packs them in %zu",
                               b->id, (unsigned long long)e->bytes, bytes);
    return DMESH_SUCCESS;
}

int dmesh_copies_check(const dmesh_copies_data_t *d, const char *copy, size_t len, size_t *len_out)
{
    pack_head_t h;

    if (len < sizeof(h))
        return dmesh_error_set(DMESH_ERR_INTERNAL, "dmesh_copies_restore: a copy of %zu bytes",
                               len);
    memcpy(&h, copy, sizeof(h));
    if (h.magic != PACK_MAGIC || h.len > len || sizeof(h) + h.nbufs * sizeof(pack_entry_t) > h.len)
        return dmesh_error_set(DMESH_ERR_INTERNAL, "dmesh_copies_restore: a damaged copy");
    if (h.nbufs != (uint64_t)d->nbufs)
        return dmesh_error_set(DMESH_ERR_MISMATCH,
                               "dmesh_copies_restore: %llu buffers were stored, %d are registered",
                               (unsigned long long)h.nbufs, d->nbufs);
    for (int i = 0; i < d->nbufs; i++) {
        pack_entry_t e;
        memcpy(&e, copy + sizeof(h) + (size_t)i * sizeof(e), sizeof(e));
        DMESH_TRY(entry_fits(&d->bufs[i], &e));
    }
    *len_out = h.len;
    return DMESH_SUCCESS;
}

int dmesh_copies_unpack(const dmesh_copies_data_t *d, const char *copy)
{
    size_t at = sizeof(pack_head_t) + (size_t)d->nbufs * sizeof(pack_entry_t);

    for (int i = 0; i < d->nbufs; i++) {
        const dmesh_copies_buf_t *b = &d->bufs[i];
        pack_entry_t e;
        memcpy(&e, copy + sizeof(pack_head_t) + (size_t)i * sizeof(e), sizeof(e));
        DMESH_TRY(move_buf(b, (MPI_Count)e.count, (size_t)e.bytes, (char *)copy + at, 0,
                           "dmesh_copies_restore"));
        if (b->sized != NULL)
            *b->sized = (MPI_Count)e.count;
        at += (size_t)e.bytes;
    }
    /* copies from pageable memory may return before they land */
    return has_device(d) ? dmesh_copies_device_sync("dmesh_copies_restore") : DMESH_SUCCESS;
}

void dmesh_copies_slot_free(dmesh_copies_slot_t *s)
{
    dmesh_copies_release(s->own);
    dmesh_copies_release(s->held);
    memset(s, 0, sizeof(*s));
    s->version = DMESH_COPIES_NONE;
    s->held_version = DMESH_COPIES_NONE;
}

void dmesh_copies_slot_take_held(dmesh_copies_slot_t *s, dmesh_copies_slot_t *from)
{
    dmesh_copies_release(s->held);
    s->held = from->held;
    s->held_len = from->held_len;
    s->held_version = from->held_version;
    s->held_for = from->held_for;
    from->held = NULL;
}

void dmesh_copies_slot_set(dmesh_copies_slot_t *s, const dmesh_copies_slot_t *n)
{
    dmesh_copies_slot_t old = *s;

    *s = *n;
    if (old.own != n->own)
        dmesh_copies_release(old.own);
    if (old.held != n->held)
        dmesh_copies_release(old.held);
}

/* ---- dmesh_copies_add ---------------------------------------------------- */

/* Register b (checked) in d: replaces the buffer of its id. */
static int add_buf(struct dmesh_copies_s *c, dmesh_copies_buf_t b, const char *fn)
{
    dmesh_copies_data_t *d = c->d;
    size_t bytes = 0;
    int i;

    if (b.id < 0 || b.count < 0 || b.type == MPI_DATATYPE_NULL || (b.buf == NULL && b.count > 0))
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: id %d, count %lld, %s datatype, %s buffer: ids and counts "
                               "are >= 0, a buffer of elements is not NULL",
                               fn, b.id, (long long)b.count,
                               b.type == MPI_DATATYPE_NULL ? "null" : "a", b.buf ? "a" : "NULL");
    DMESH_TRY(buf_bytes(b.count, b.count, b.type, fn, &bytes, &b.contiguous));
    if (c->cuda && bytes > 0) /* a "cuda" mesh's buffers may be device memory */
        DMESH_TRY(dmesh_copies_device_of(b.buf, &b.device));
    if (b.device && !b.contiguous)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: buffer %d is device memory with a datatype that is not "
                               "contiguous: device buffers are copied whole (cudaMemcpy), "
                               "register a contiguous type",
                               fn, b.id);
    for (i = 0; i < d->nbufs && d->bufs[i].id < b.id; i++)
        ;
    if (i < d->nbufs && d->bufs[i].id == b.id) {
        d->bufs[i] = b;
        return DMESH_SUCCESS;
    }
    if (d->nbufs == d->capbufs) {
        int cap = d->capbufs ? 2 * d->capbufs : 8;
        dmesh_copies_buf_t *nb = realloc(d->bufs, (size_t)cap * sizeof(*nb));
        if (nb == NULL)
            return dmesh_error_set(DMESH_ERR_NOMEM, "%s: no memory", fn);
        d->bufs = nb;
        d->capbufs = cap;
    }
    memmove(&d->bufs[i + 1], &d->bufs[i], (size_t)(d->nbufs - i) * sizeof(b));
    d->bufs[i] = b;
    d->nbufs++;
    return DMESH_SUCCESS;
}

int dmesh_copies_add_impl(dmesh_copies_t h, int id, void *buf, MPI_Count count, MPI_Datatype type)
{
    struct dmesh_copies_s *c;
    dmesh_copies_buf_t b = {id, buf, count, type, NULL, 0, 0};

    DMESH_TRY(dmesh_copies_get(h, "dmesh_copies_add", &c));
    return add_buf(c, b, "dmesh_copies_add");
}

int dmesh_copies_add_sized_impl(dmesh_copies_t h, int id, void *buf, MPI_Count room,
                                MPI_Count *count, MPI_Datatype type)
{
    struct dmesh_copies_s *c;
    dmesh_copies_buf_t b = {id, buf, room, type, count, 0, 0};

    DMESH_TRY(dmesh_copies_get(h, "dmesh_copies_add_sized", &c));
    DMESH_CHECK_PTR_OF("dmesh_copies_add_sized", count);
    return add_buf(c, b, "dmesh_copies_add_sized");
}

/* ---- dmesh_copies_get_partners, _get_survival and dmesh_copies_free ----- */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

static int partners_of(const struct dmesh_copies_s *c, int maxranks, int ranks[], int *n)
{
    int *out, m = 0, k;

    DMESH_CHECK_PTR_OF("dmesh_copies_get_partners", n);
    if (maxranks < 0 || (maxranks > 0 && ranks == NULL))
        return dmesh_error_set(DMESH_ERR_ARG, "%s: maxranks %d with %s ranks",
                               "dmesh_copies_get_partners", maxranks, ranks ? "a" : "NULL");
    while (c->comm != MPI_COMM_NULL && c->plan.scheme->partner(&c->plan, c->me, m) >= 0)
        m++;
    if ((out = malloc((size_t)(m > 1 ? m : 1) * sizeof(int))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "%s: no memory", "dmesh_copies_get_partners");
    for (k = 0; k < m; k++)
        out[k] = c->ranks[c->plan.scheme->partner(&c->plan, c->me, k)];
    qsort(out, (size_t)k, sizeof(int), cmp_int);
    for (int i = 0; i < k && i < maxranks; i++)
        ranks[i] = out[i];
    free(out);
    *n = k;
    return DMESH_SUCCESS;
}

int dmesh_copies_get_partners_impl(dmesh_copies_t h, int maxranks, int ranks[], int *n)
{
    struct dmesh_copies_s *c;

    DMESH_TRY(query_begin(h, "dmesh_copies_get_partners", &c));
    return query_end(partners_of(c, maxranks, ranks, n));
}

static int survival_of(const struct dmesh_copies_s *c, int *kind)
{
    DMESH_CHECK_PTR_OF("dmesh_copies_get_survival", kind);
    *kind = c->comm == MPI_COMM_NULL ? DMESH_COPIES_SURVIVES_NOTHING
                                     : dmesh_copies_survives(&c->plan, c->domain, c->me);
    return DMESH_SUCCESS;
}

int dmesh_copies_get_survival_impl(dmesh_copies_t h, int *kind)
{
    struct dmesh_copies_s *c;

    DMESH_TRY(query_begin(h, "dmesh_copies_get_survival", &c));
    return query_end(survival_of(c, kind));
}

static void data_free(dmesh_copies_data_t *d)
{
    pthread_mutex_lock(&lock);
    for (dmesh_copies_data_t **p = &registry; *p != NULL; p = &(*p)->next)
        if (*p == d) {
            *p = d->next;
            break;
        }
    pthread_mutex_unlock(&lock);
    dmesh_copies_slot_free(&d->slot);
    free(d->bufs);
    free(d->table);
    free(d);
}

void dmesh_copies_swap_next(struct dmesh_copies_s *c)
{
    dmesh_copies_plan_t p;
    MPI_Comm s;

    pthread_mutex_lock(&lock);
    p = c->plan;
    c->plan = c->next;
    c->next = p;
    s = c->set;
    c->set = c->next_set;
    c->next_set = s;
    pthread_mutex_unlock(&lock);
}

void dmesh_copies_drop_next(struct dmesh_copies_s *c)
{
    MPI_Comm s;

    pthread_mutex_lock(&lock);
    s = c->next_set;
    c->next_set = MPI_COMM_NULL;
    pthread_mutex_unlock(&lock);
    if (s != MPI_COMM_NULL)
        MPI_Comm_free(&s);
    dmesh_copies_plan_free(&c->next);
    c->next.n = 0;
}

/* What a handle owns (its communicators, plan and tables). */
static void handle_free_parts(struct dmesh_copies_s *c)
{
    dmesh_copies_drop_next(c);
    if (c->set != MPI_COMM_NULL)
        MPI_Comm_free(&c->set);
    if (c->comm != MPI_COMM_NULL)
        MPI_Comm_free(&c->comm);
    if (c->raise != MPI_COMM_NULL)
        MPI_Comm_free(&c->raise);
    if (c->info != MPI_INFO_NULL)
        MPI_Info_free(&c->info);
    dmesh_copies_plan_free(&c->plan);
    free(c->ranks);
    free(c->ids);
    free(c->domain);
    free(c->placed);
    dmesh_copies_slot_free(&c->remade);
    c->ranks = NULL;
    c->ids = c->domain = c->placed = NULL;
}

static void handle_free(struct dmesh_copies_s *c)
{
    pthread_mutex_lock(&lock);
    for (struct dmesh_copies_s **p = &live; *p != NULL; p = &(*p)->next_live)
        if (*p == c) {
            *p = c->next_live;
            break;
        }
    pthread_mutex_unlock(&lock);
    handle_free_parts(c);
    c->magic = 0;
    free(c);
}

int dmesh_copies_free_impl(dmesh_copies_t *h)
{
    struct dmesh_copies_s *c = NULL;

    DMESH_CHECK_PTR_OF("dmesh_copies_free", h);
    if (*h == DMESH_COPIES_NULL)
        return DMESH_SUCCESS;
    if ((c = live_find(*h)) == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: freed or invalid copies handle",
                               "dmesh_copies_free");
    if (c->d != NULL && c->d->open == c)
        data_free(c->d);
    handle_free(c);
    *h = DMESH_COPIES_NULL;
    return DMESH_SUCCESS;
}

static dmesh_copies_data_t *find(const char *name)
{
    dmesh_copies_data_t *d;

    pthread_mutex_lock(&lock);
    for (d = registry; d != NULL && strcmp(d->name, name) != 0; d = d->next)
        ;
    pthread_mutex_unlock(&lock);
    return d;
}

/* Local: the communicator the entry points raise on (copies.h). */
static int raise_comm(struct dmesh_mesh *m, struct dmesh_copies_s *c, int err)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Comm user = dmesh_universe_user_comm(m->u);
    int rc;

    if (err)
        return err;
    if ((rc = MPI_Comm_dup(MPI_COMM_SELF, &c->raise)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_copies_open: MPI_Comm_dup");
    if (user != MPI_COMM_NULL && MPI_Comm_get_errhandler(user, &eh) == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(c->raise, eh);
        MPI_Errhandler_free(&eh);
    }
    return DMESH_SUCCESS;
}

/* ---- dmesh_copies_open -------------------------------------------------- */

typedef struct {
    const dmesh_copies_scheme_t *scheme;
    int k, dim;       /* dim DMESH_COPIES_DIM_DEFAULT: the default placement */
    int domain_given; /* the process named its failure domain */
    uint64_t domain;  /* ... as this hash */
} open_args_t;

/* The agreed outcome of dmesh_copies_open: c has d (fresh: new, into the
 * registry), the handle that had them no longer; d keeps the members'
 * identities for the next open (a predecessor's identity is found there). */
static int attach(struct dmesh_copies_s *c, dmesh_copies_data_t *d, dmesh_copies_data_t *fresh,
                  const open_args_t *a, uint64_t *table, int born, dmesh_copies_t *out)
{
    pthread_mutex_lock(&lock);
    if (fresh != NULL) {
        fresh->next = registry;
        registry = fresh;
    }
    if (d->open != NULL)
        d->open->d = NULL;
    d->open = c;
    d->dim = a->dim;
    d->scheme = c->plan.scheme;
    d->k = c->plan.k;
    if (table != NULL) { /* a member */
        d->born = d->id == 0 ? born : d->born;
        d->id = c->ids[c->me];
        free(d->table);
        d->table = table;
        d->table_n = c->plan.n;
        d->epoch = c->epoch;
    }
    if (c->remade.version != DMESH_COPIES_NONE) { /* the held copies the open made */
        dmesh_copies_slot_take_held(&d->slot, &c->remade);
        c->remade.version = DMESH_COPIES_NONE;
    }
    c->d = d;
    c->seq = ++opens;
    c->magic = COPIES_MAGIC;
    c->next_live = live;
    live = c;
    pthread_mutex_unlock(&lock);
    *out = c;
    return DMESH_SUCCESS;
}

/* A failed open on a mesh of another universe than the handle that has d
 * (a repair's new mesh) takes d from that handle and keeps it in the
 * process for the next open: a program that frees the old handle whatever
 * the open returned (its repair is over with that mesh) must not lose its
 * copies, which the next try of the repair needs. The old handle answers
 * DMESH_ERR_ARG from then on, as after a successful open elsewhere. */
static void park(dmesh_copies_data_t *d, const void *universe)
{
    pthread_mutex_lock(&lock);
    if (d->open != NULL && d->open->universe != universe) {
        d->open->d = NULL;
        d->open = NULL;
    }
    pthread_mutex_unlock(&lock);
}

static int parse_info(dmesh_t mesh, MPI_Info info, open_args_t *a)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int flag;

    a->scheme = dmesh_copies_schemes[0];
    a->k = 4;
    a->dim = DMESH_COPIES_DIM_DEFAULT;
    a->domain_given = dmesh_options_copies_domain(info, val);
    a->domain = a->domain_given ? dmesh_hash(DMESH_HASH_INIT, val, strlen(val)) : 0;
    DMESH_TRY(dmesh_option_get(info, "dmesh_copies_scheme", "dmesh_copies_open", val, &flag));
    if (flag) {
        const char *names[DMESH_COPIES_NSCHEMES];
        int code;
        for (int i = 0; i < DMESH_COPIES_NSCHEMES; i++)
            names[i] = dmesh_copies_schemes[i]->name;
        DMESH_TRY(
            dmesh_option_choices("dmesh_copies_scheme", val, DMESH_COPIES_NSCHEMES, names, &code));
        a->scheme = dmesh_copies_schemes[code];
    }
    DMESH_TRY(dmesh_option_get(info, "dmesh_copies_group", "dmesh_copies_open", val, &flag));
    if (flag)
        DMESH_TRY(dmesh_option_int("dmesh_copies_group", val, 2, DMESH_COPIES_MAX_GROUP, &a->k));
    DMESH_TRY(dmesh_option_get(info, "dmesh_copies_dim", "dmesh_copies_open", val, &flag));
    if (flag)
        return dmesh_handle_dim_of_option(mesh, "dmesh_copies_dim", val, &a->dim);
    return DMESH_SUCCESS;
}

/* The hash of what every process must pass alike, agreed before any
 * communicator is made: a process waiting in an XOR set's split while
 * another waits in an agreement would never return. */
static uint64_t args_hash(const char *name, const open_args_t *a)
{
    int v[4] = {dmesh_copies_scheme_code(a->scheme), a->scheme->grouped ? a->k : 0, a->dim,
                a->domain_given};
    uint64_t h = dmesh_hash(DMESH_HASH_INIT, name ? name : "", name ? strlen(name) : 0);

    return dmesh_hash(h, v, sizeof(v));
}

/* The plan's place of this process: the members of its copy of the mesh
 * (ranks of the mesh's communicator, row-major) and its flat index. */
static int members_of(dmesh_t mesh, MPI_Comm ucomm, struct dmesh_copies_s *c, int *low)
{
    int rank, n = c->plan.n;

    if ((c->ranks = malloc((size_t)n * sizeof(int))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_copies_open: no memory for %d ranks", n);
    DMESH_TRY(dmesh_get_ranks_impl(mesh, n, c->ranks, &n));
    MPI_Comm_rank(ucomm, &rank);
    *low = INT_MAX;
    for (int i = 0; i < n; i++) {
        if (c->ranks[i] == rank)
            c->me = i;
        if (c->ranks[i] < *low)
            *low = c->ranks[i];
    }
    return DMESH_SUCCESS;
}

/* What the processes that carry stored copies of the name stored them with,
 * checked against this process's (agreed) arguments: the same scheme and
 * group; their dimension is kept. */
static int carried(MPI_Comm ucomm, const dmesh_copies_data_t *d, open_args_t *a, int err)
{
    int mine = 0, all = 0, rc, code, k;

    /* bits 0-7 the dimension + 8, 8-11 the scheme's code, 12 on the group */
    if (d != NULL && d->slot.version >= 0)
        mine = (d->k << 12) | (dmesh_copies_scheme_code(d->scheme) << 8) | (d->dim + 8);
    if ((rc = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, ucomm)) != MPI_SUCCESS)
        return err ? err : dmesh_error_mpi(rc, "dmesh_copies_open: MPI_Allreduce");
    if (all == 0 || err)
        return err;
    code = (all >> 8) & 0xf;
    k = all >> 12;
    if (code >= DMESH_COPIES_NSCHEMES || dmesh_copies_schemes[code] != a->scheme ||
        (a->scheme->grouped && k != a->k))
        return dmesh_error_set(DMESH_ERR_MISMATCH,
                               "dmesh_copies_open: the copies were stored with scheme %s, group "
                               "%d; opened with %s, group %d",
                               code < DMESH_COPIES_NSCHEMES ? dmesh_copies_schemes[code]->name
                                                            : "?",
                               k, a->scheme->name, a->k);
    a->dim = (all & 0xff) - 8;
    return DMESH_SUCCESS;
}

/* What each member tells the others at an open. */
typedef struct {
    uint64_t id;       /* its identity, 0: none yet */
    uint64_t drawn;    /* the identity it takes when it has no predecessor */
    uint64_t domain;   /* its failure domain */
    int64_t table_n;   /* the members it knew at its last open (0: none) */
    int64_t epoch;     /* that open's */
    int64_t version;   /* of its own copy, DMESH_COPIES_NONE */
    int64_t held;      /* of its held copy or parity, DMESH_COPIES_NONE */
    uint64_t held_for; /* the identity or set its held data serves (0: none) */
    uint64_t nothing;  /* it has an identity and nothing stored to give back */
} member_rec_t;

#define MEMBER_REC_WORDS 9

/* What the members learn from each other at an open, the same on all. */
typedef struct {
    uint64_t *table; /* the members' newest table (rows of tn), NULL: none */
    int tn;
    uint64_t *nothing;  /* each member has nothing to get back (n) */
    int64_t *held;      /* the version of each member's held copy or parity (n) */
    uint64_t *held_for; /* what each one's serves (n) */
    int64_t epoch;      /* the newest table's */
    int64_t newest;     /* the newest version a member holds, DMESH_COPIES_NONE */
    int all_own;        /* every member holds that version's own copy or has nothing */
} learnt_t;

/* A number no other process draws (the host, the process, the time), and
 * no other open of this process: threads may open copies at once, so the
 * count is taken atomically (two opens with one count and one clock
 * reading would draw one identity). */
static uint64_t draw_id(int rank)
{
    static uint64_t count;
    struct timespec ts;
    uint64_t v[4], h;
    dmesh_host_t host;

    clock_gettime(CLOCK_REALTIME, &ts);
    memset(&host, 0, sizeof(host));
    dmesh_host_mine(&host);
    v[0] = host.hash;
    v[1] = (uint64_t)getpid() << 32 | (uint64_t)(unsigned)rank;
    v[2] = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    v[3] = __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
    h = dmesh_hash(DMESH_HASH_INIT, v, sizeof(v));
    return h != 0 ? h : 1;
}

/* The newest table of the members (*root: its member, -1: none) and its
 * size, and the newest version. */
static void newest_of(const member_rec_t *all, int n, int *root, learnt_t *l)
{
    *root = -1;
    l->epoch = 0;
    l->tn = 0;
    l->newest = DMESH_COPIES_NONE;
    for (int r = 0; r < n; r++) {
        if (all[r].table_n > 0 && (*root < 0 || all[r].epoch > l->epoch)) {
            *root = r;
            l->epoch = all[r].epoch;
            l->tn = (int)all[r].table_n;
        }
        if (all[r].version > l->newest) /* held too: every owner of it may be lost */
            l->newest = all[r].version;
        if (all[r].held > l->newest)
            l->newest = all[r].held;
    }
}

/* The members' newest table, the same on every member (one broadcast from
 * its member); its memory agreed first. */
static int share_table(struct dmesh_copies_s *c, const dmesh_copies_data_t *d, int root,
                       learnt_t *l)
{
    size_t words = DMESH_COPIES_TABLE_ROWS * (size_t)l->tn;
    int err = DMESH_SUCCESS, rc;

    if (root < 0)
        return DMESH_SUCCESS; /* agreed: nobody has one */
    if ((l->table = malloc(words * sizeof(uint64_t))) == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_copies_open: no memory for a table");
    if ((err = dmesh_agree(c->comm, 0, err, "dmesh_copies_open")) != DMESH_SUCCESS)
        return err;
    if (c->me == root)
        memcpy(l->table, d->table, words * sizeof(uint64_t));
    if ((rc = MPI_Bcast(l->table, (int)words, MPI_UINT64_T, root, c->comm)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_copies_open: MPI_Bcast"); /* agreed by the caller */
    return DMESH_SUCCESS;
}

/* After the identities are adopted (b: drew its own or took a predecessor
 * that had nothing): who has nothing, and whether every member holds its
 * own copy of the newest version. */
static void learn(struct dmesh_copies_s *c, const member_rec_t *all, const int *b, learnt_t *l)
{
    int n = c->plan.n;

    l->all_own = 1;
    for (int r = 0; r < n; r++) {
        l->held[r] = all[r].held;
        l->held_for[r] = all[r].held_for;
        l->nothing[r] = all[r].id != 0 ? all[r].nothing : (uint64_t)b[r];
        if (!l->nothing[r] && (all[r].id == 0 || all[r].version != l->newest))
            l->all_own = 0; /* a replacement, or a process that missed a version */
    }
}

/* The members' identities, with a new member's predecessor's when the
 * members' newest table (of as many members) names one, and their
 * domains: one allgather and a broadcast of that table (copies_place.h's
 * rows). */
static int identities(struct dmesh_copies_s *c, const dmesh_copies_data_t *d, const open_args_t *a,
                      const int *lows, int *born, learnt_t *l)
{
    int n = c->plan.n, root = -1, err = DMESH_SUCCESS, rc, *b;
    member_rec_t mine = {d->id,
                         draw_id(c->ranks[c->me]),
                         0,
                         d->table != NULL ? d->table_n : 0,
                         d->epoch,
                         d->slot.version,
                         d->slot.held_version,
                         d->slot.held_for,
                         d->id != 0 && d->born && d->slot.version == DMESH_COPIES_NONE};
    member_rec_t *all = malloc((size_t)n * sizeof(*all));
    uint64_t *drawn = malloc((size_t)n * sizeof(uint64_t));

    mine.domain = a->domain_given ? a->domain : (uint64_t)lows[c->ranks[c->me]];
    l->nothing = malloc((size_t)n * sizeof(uint64_t));
    l->held = malloc((size_t)n * sizeof(int64_t));
    l->held_for = malloc((size_t)n * sizeof(uint64_t));
    c->ids = malloc((size_t)n * sizeof(uint64_t));
    c->domain = malloc((size_t)n * sizeof(uint64_t));
    b = calloc((size_t)n, sizeof(int));
    if (all == NULL || drawn == NULL || l->nothing == NULL || l->held == NULL ||
        l->held_for == NULL || c->ids == NULL || c->domain == NULL || b == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_copies_open: no memory for %d members", n);
    /* every member's memory agreed before the allgather, its outcome before
     * the broadcast that only some would take part in otherwise */
    err = dmesh_agree(c->comm, 0, err, "dmesh_copies_open");
    if (!err && (rc = MPI_Allgather(&mine, MEMBER_REC_WORDS, MPI_UINT64_T, all, MEMBER_REC_WORDS,
                                    MPI_UINT64_T, c->comm)) != MPI_SUCCESS)
        err = dmesh_error_mpi(rc, "dmesh_copies_open: MPI_Allgather");
    err = dmesh_agree(c->comm, 0, err, "dmesh_copies_open");
    for (int r = 0; !err && r < n; r++) {
        c->ids[r] = all[r].id;
        drawn[r] = all[r].drawn;
        c->domain[r] = all[r].domain;
    }
    if (!err) {
        newest_of(all, n, &root, l);
        err = share_table(c, d, root, l);
    }
    if (!err && l->tn == n) /* a new member takes its place's predecessor's */
        err = dmesh_copies_adopt(n, c->ids, drawn, l->table, l->table + 2 * n, n, b);
    else if (!err)
        err = dmesh_copies_adopt(n, c->ids, drawn, NULL, NULL, 0, b);
    if (!err)
        learn(c, all, b, l);
    *born = !err ? b[c->me] : 0;
    free(b);
    free(all);
    free(drawn);
    return err;
}

/* ---- the placement -------------------------------------------------------- */

/* The placement (copies_place.h's dmesh_copies_place_open, the same on
 * every member) and the domains it was made with. */
static int place(struct dmesh_copies_s *c, const open_args_t *a, const learnt_t *l, int known,
                 int *remake)
{
    int n = c->plan.n, kept_was = 0, err;
    const uint64_t *now = known ? c->domain : NULL;

    *remake = 0;
    if ((c->placed = calloc((size_t)n, sizeof(uint64_t))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_copies_open: no memory");
    c->plan.dim = a->dim;
    c->plan.scheme = a->scheme;
    c->plan.k = a->k;
    err = dmesh_copies_place_open(&c->plan, &c->next, now, c->ids, l->table, l->tn, l->held,
                                  l->newest, l->all_own, remake, &kept_was);
    if (err == DMESH_SUCCESS && (kept_was || now != NULL))
        memcpy(c->placed, kept_was ? l->table + n : now, (size_t)n * sizeof(uint64_t));
    return err;
}

/* The table the open leaves (identities, the placement's domains, who has
 * nothing): into *table. */
static int table_of(const struct dmesh_copies_s *c, const learnt_t *l, int remade, uint64_t **table)
{
    size_t n = (size_t)c->plan.n;

    if ((*table = malloc(DMESH_COPIES_TABLE_ROWS * n * sizeof(uint64_t))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_copies_open: no memory");
    dmesh_copies_table_rows(&c->plan, c->ids, c->placed, *table);
    if (!remade) /* the sets whose parity is held */
        dmesh_copies_table_signs(&c->plan, c->ids, l->held_for, *table);
    memcpy(*table + 2 * n, l->nothing, n * sizeof(uint64_t));
    return DMESH_SUCCESS;
}

/* The members' communicator (by flat index); every process takes the step. */
static int split_members(MPI_Comm ucomm, struct dmesh_copies_s *c, int member, int low, int err)
{
    int rc = MPI_Comm_split(ucomm, member ? low : MPI_UNDEFINED, c->me, &c->comm);

    return rc != MPI_SUCCESS && !err ? dmesh_error_mpi(rc, "dmesh_copies_open: MPI_Comm_split")
                                     : err;
}

/* The scheme's communicators (xor: this member's set), for the placement
 * that waits for the next store too; every member takes the steps. */
static int open_scheme(struct dmesh_copies_s *c, int err)
{
    int e;

    if (err || c->comm == MPI_COMM_NULL)
        return err; /* err is agreed: every member skips the step alike */
    err = c->plan.scheme->open(c);
    if (c->next.n == 0) /* agreed: the same on every member */
        return err;
    dmesh_copies_swap_next(c);
    e = c->plan.scheme->open(c);
    dmesh_copies_swap_next(c);
    return err ? err : e;
}

int dmesh_copies_remake(struct dmesh_copies_s *c, const dmesh_copies_slot_t *s, int64_t v,
                        dmesh_copies_slot_t *out, int err)
{
    int mine = s->version == v; /* else nothing stored: an empty copy */
    dmesh_copies_slot_t n = {
        v, mine ? s->own : NULL, mine ? s->own_len : 0, NULL, 0, DMESH_COPIES_NONE, 0};
    dmesh_copies_xfer_t q = {.n = 0};
    char *scratch = NULL;

    err = c->plan.scheme->store_alloc(c, &n, &scratch, err);
    if ((err = dmesh_agree(c->comm, 0, err, "dmesh_copies_open")) == DMESH_SUCCESS)
        err = c->plan.scheme->store_moves(c, &n, scratch, &q);
    dmesh_copies_release(scratch);
    if ((err = dmesh_agree_outcome(c->comm, err, "dmesh_copies_open")) != DMESH_SUCCESS) {
        dmesh_copies_drain(&q);
        dmesh_copies_release(n.held);
        return err;
    }
    out->version = v;
    out->held = n.held;
    out->held_len = n.held != NULL ? n.held_len : 0;
    out->held_version = n.held != NULL ? v : DMESH_COPIES_NONE;
    out->held_for = n.held != NULL ? n.held_for : 0;
    return DMESH_SUCCESS;
}

/* The held copies made again where the open placed them, from the own
 * copies (into c->remade, kept by attach); every member takes the step. */
static int remake_step(struct dmesh_copies_s *c, const dmesh_copies_data_t *d, int64_t remake,
                       int err)
{
    if (c->comm == MPI_COMM_NULL || remake == DMESH_COPIES_NONE)
        return err; /* remake is agreed */
    err = dmesh_agree(c->comm, 0, err, "dmesh_copies_open");
    return dmesh_copies_remake(c, &d->slot, remake, &c->remade, err);
}

/* A member's steps: identities, placement, the table it leaves. */
static int member_steps(struct dmesh_copies_s *c, const dmesh_copies_data_t *d,
                        const open_args_t *a, const int *lows, uint64_t **table, int *born,
                        int64_t *remake)
{
    learnt_t l = {0};
    int err = identities(c, d, a, lows, born, &l), again = 0;

    if (!err)
        err = place(c, a, &l, a->domain_given || lows != NULL, &again);
    *remake = again ? l.newest : DMESH_COPIES_NONE; /* the version to make again */
    if (!err)
        err = table_of(c, &l, again, table);
    c->epoch = l.epoch + 1;
    free(l.table);
    free(l.nothing);
    free(l.held);
    free(l.held_for);
    return err;
}

/* Every process (member or not) of the universe's communicator takes every
 * step, whatever failed before: the arguments agreed, the members' split
 * agreed, then the identities, domains and placement agreed, then the
 * scheme's communicators (the XOR sets), then the held copies remade where
 * the placement changed. */
static int open_steps(dmesh_t mesh, const char *name, MPI_Info info, MPI_Comm ucomm,
                      struct dmesh_copies_s *c, const dmesh_copies_data_t *d, open_args_t *a,
                      uint64_t **table, int *born, int err)
{
    int member = 0, low = 0, coords[DMESH_MAX_DIMS];
    int64_t remake = DMESH_COPIES_NONE;
    const int *lows = NULL;
    dmesh_copies_plan_t *p = &c->plan;
    struct dmesh_mesh *m = NULL;

    if (!err && (name == NULL || name[0] == '\0' || strlen(name) >= DMESH_MAX_NAME))
        err = dmesh_error_set(DMESH_ERR_ARG, "dmesh_copies_open: a name of 1 to %d bytes",
                              DMESH_MAX_NAME - 1);
    dmesh_get_ndims_impl(mesh, &p->ndims);
    dmesh_get_shape_impl(mesh, DMESH_MAX_DIMS, p->shape);
    dmesh_get_size_impl(mesh, &p->n);
    if (!err)
        err = parse_info(mesh, info, a);
    if (dmesh_mesh_get(mesh, DMESH_ANY_DIM, "dmesh_copies_open", &m) == DMESH_SUCCESS) {
        int rc = dmesh_universe_node_lows(m->u, &lows); /* collective over ucomm */
        err = err ? err : rc;
    }
    err = dmesh_agree(ucomm, args_hash(name, a), err, "dmesh_copies_open");
    if (!err && dmesh_get_coordinate_impl(mesh, DMESH_MAX_DIMS, coords, &member) == DMESH_SUCCESS &&
        member)
        err = members_of(mesh, ucomm, c, &low);
    err = carried(ucomm, d, a, err);
    err = split_members(ucomm, c, member && !err, low, err);
    err = dmesh_agree(ucomm, 0, err, "dmesh_copies_open");
    if (!err && c->comm != MPI_COMM_NULL)
        err = member_steps(c, d, a, lows, table, born, &remake);
    if ((err = dmesh_agree(ucomm, 0, err, "dmesh_copies_open")) != DMESH_SUCCESS)
        return err; /* every process alike: remake is whole on every member */
    err = open_scheme(c, err);
    return remake_step(c, d, remake, err);
}

static int open_common(dmesh_t mesh, const char *name, MPI_Info info, int keep,
                       dmesh_copies_t *copies);

int dmesh_copies_open_impl(dmesh_t mesh, const char *name, MPI_Info info, dmesh_copies_t *copies)
{
    return open_common(mesh, name, info, 0, copies);
}

int dmesh_copies_reopen(dmesh_t mesh, const char *name, MPI_Info info, dmesh_copies_t *copies)
{
    return open_common(mesh, name, info, 1, copies);
}

/* The open's record of what it was asked (for dmesh_copies_reopen in a
 * repair): the info, and the mesh's key. */
static int remember(struct dmesh_copies_s *c, dmesh_t mesh, MPI_Info info)
{
    int rc;

    c->key = dmesh_copies_mesh_key(mesh);
    if (info == MPI_INFO_NULL)
        return DMESH_SUCCESS;
    if ((rc = MPI_Info_dup(info, &c->info)) != MPI_SUCCESS) {
        c->info = MPI_INFO_NULL;
        return dmesh_error_mpi(rc, "dmesh_copies_open: MPI_Info_dup");
    }
    return DMESH_SUCCESS;
}

uint64_t dmesh_copies_mesh_key(dmesh_t mesh)
{
    int ndims = 0, shape[DMESH_MAX_DIMS] = {0}, n = 0, size = 0, *ranks;
    uint64_t h = DMESH_HASH_INIT;

    dmesh_get_ndims_impl(mesh, &ndims);
    dmesh_get_shape_impl(mesh, DMESH_MAX_DIMS, shape);
    dmesh_get_size_impl(mesh, &size);
    h = dmesh_hash(h, shape, sizeof(shape));
    if ((ranks = malloc((size_t)(size > 0 ? size : 1) * sizeof(int))) != NULL &&
        dmesh_get_ranks_impl(mesh, size, ranks, &n) == DMESH_SUCCESS)
        h = dmesh_hash(h, ranks, (size_t)n * sizeof(int));
    free(ranks);
    return h;
}

int dmesh_copies_of_mesh(dmesh_t mesh, struct dmesh_copies_s ***out, int *n)
{
    struct dmesh_mesh *m;
    uint64_t key = dmesh_copies_mesh_key(mesh);
    int count = 0;

    *out = NULL;
    *n = 0;
    DMESH_TRY(dmesh_mesh_get(mesh, DMESH_ANY_DIM, "dmesh_repair", &m));
    pthread_mutex_lock(&lock);
    for (struct dmesh_copies_s *x = live; x != NULL; x = x->next_live)
        count += x->universe == m->u && x->d != NULL && x->key == key;
    if (count > 0 && (*out = malloc((size_t)count * sizeof(**out))) != NULL)
        for (struct dmesh_copies_s *x = live; x != NULL; x = x->next_live)
            if (x->universe == m->u && x->d != NULL && x->key == key)
                (*out)[(*n)++] = x;
    pthread_mutex_unlock(&lock);
    if (count > 0 && *out == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_repair: no memory for %d handles", count);
    for (int i = 1; i < *n; i++) /* in the order they were opened: few, insertion */
        for (int j = i; j > 0 && (*out)[j - 1]->seq > (*out)[j]->seq; j--) {
            struct dmesh_copies_s *t = (*out)[j];
            (*out)[j] = (*out)[j - 1];
            (*out)[j - 1] = t;
        }
    return DMESH_SUCCESS;
}

void dmesh_copies_take_over(struct dmesh_copies_s *h, struct dmesh_copies_s *n)
{
    struct dmesh_copies_s t;

    pthread_mutex_lock(&lock);
    t = *h;
    *h = *n;
    h->next_live = t.next_live;
    h->seq = t.seq;
    t.next_live = n->next_live;
    t.d = NULL;
    *n = t;
    if (h->d != NULL)
        h->d->open = h;
    pthread_mutex_unlock(&lock);
    handle_free(n);
}

static int open_common(dmesh_t mesh, const char *name, MPI_Info info, int keep,
                       dmesh_copies_t *copies)
{
    struct dmesh_mesh *m;
    struct dmesh_copies_s *c = calloc(1, sizeof(*c));
    dmesh_copies_data_t *d = NULL, *fresh = NULL;
    open_args_t a = {.scheme = dmesh_copies_schemes[0],
                     .k = 0,
                     .dim = DMESH_COPIES_DIM_DEFAULT,
                     .domain_given = 0,
                     .domain = 0};
    uint64_t hash = 0, *table = NULL;
    MPI_Comm ucomm;
    int err = DMESH_SUCCESS, born = 0;

    dmesh_universe_watch(on_universe);
    if (dmesh_mesh_get(mesh, DMESH_ANY_DIM, "dmesh_copies_open", &m) != DMESH_SUCCESS) {
        free(c);
        return DMESH_ERR_ARG;
    }
    ucomm = dmesh_universe_comm(m->u);
    if (c == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "%s: no memory", "dmesh_copies_open");
    else if (copies == NULL)
        err = dmesh_error_set(DMESH_ERR_ARG, "%s: argument 'copies' is NULL", "dmesh_copies_open");
    if (!err && name != NULL && (d = find(name)) == NULL &&
        (d = fresh = calloc(1, sizeof(*d))) == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "%s: no memory", "dmesh_copies_open");
    if (fresh != NULL) {
        snprintf(fresh->name, sizeof(fresh->name), "%s", name);
        fresh->slot.version = fresh->slot.held_version = DMESH_COPIES_NONE;
    }
    if (c != NULL) {
        c->comm = c->set = c->next_set = c->raise = MPI_COMM_NULL;
        c->info = MPI_INFO_NULL;
        c->remade.version = c->remade.held_version = DMESH_COPIES_NONE;
        err = raise_comm(m, c, err);
        err = err ? err : remember(c, mesh, info);
        err = open_steps(mesh, name, info, ucomm, c, d, &a, &table, &born, err);
        hash = args_hash(name, &a);
    } else { /* the others must not wait: the steps' collectives with nothing */
        struct dmesh_copies_s z = {0};
        z.comm = z.set = z.next_set = MPI_COMM_NULL;
        z.info = MPI_INFO_NULL;
        open_steps(mesh, NULL, MPI_INFO_NULL, ucomm, &z, NULL, &a, &table, &born, err);
        handle_free_parts(&z);
        free(table);
        table = NULL;
    }
    err = dmesh_agree(ucomm, hash, err, "dmesh_copies_open");
    if (err != DMESH_SUCCESS) {
        if (c != NULL)
            handle_free(c);
        if (d != NULL && fresh == NULL && !keep)
            park(d, m->u);
        free(fresh);
        free(table);
        return err;
    }
    c->universe = m->u;
    c->cuda = dmesh_universe_cuda(m->u);
    return attach(c, d, fresh, &a, table, born, copies);
}
