/* SPDX-License-Identifier: BSD-3-Clause */
/* The copies objects (copies.h): a process's copies by name (the registry:
 * they belong to the process, not to a mesh, so that the survivors of a
 * failure find them on the mesh that dmesh_respawn made), the handles that
 * open them on a mesh, and the packed form of the registered buffers. The
 * collective store and restore are in copies_xfer.c. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "copies.h"
#include "error.h"
#include "ft/ulfm.h"
#include "hash.h"
#include "mesh.h"
#include "option_value.h"
#include "universe_comms.h"

#define COPIES_MAGIC 0x646d636f70696573ull /* "dmcopies" */
#define PACK_MAGIC 0x646d63707976ull

/* The process's copies and its live handles (no thread may open, free or
 * store copies while another does: as with collective calls). */
static dmesh_copies_data_t *registry;
static struct dmesh_copies_s *live;

int dmesh_copies_get(dmesh_copies_t h, const char *fn, struct dmesh_copies_s **c)
{
    for (struct dmesh_copies_s *x = live; x != NULL; x = x->next_live)
        if (x == h) {
            if (x->d == NULL)
                return dmesh_error_set(DMESH_ERR_ARG,
                                       "%s: these copies were opened again on another mesh: use "
                                       "the handle of that dmesh_copies_open",
                                       fn);
            *c = x;
            return DMESH_SUCCESS;
        }
    return dmesh_error_set(DMESH_ERR_ARG, "%s: freed or invalid copies handle", fn);
}

MPI_Comm dmesh_copies_raise_comm(dmesh_copies_t h)
{
    for (struct dmesh_copies_s *x = live; x != NULL; x = x->next_live)
        if (x == h)
            return x->raise;
    return MPI_COMM_NULL;
}

/* dmesh_revoke of universe u: the copies opened on its meshes are revoked
 * too, so that a process blocked in their store or restore returns. */
static void universe_revoked(const void *u)
{
    for (struct dmesh_copies_s *x = live; x != NULL; x = x->next_live)
        if (x->universe == u) {
            if (x->set != MPI_COMM_NULL)
                dmesh_ulfm_revoke(x->set);
            if (x->comm != MPI_COMM_NULL)
                dmesh_ulfm_revoke(x->comm);
        }
}

/* Universe u goes: its address is no longer the copies'. */
static void universe_gone(const void *u)
{
    for (struct dmesh_copies_s *x = live; x != NULL; x = x->next_live)
        if (x->universe == u)
            x->universe = NULL;
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

/* ---- the packed form: header, (id, bytes) per buffer, then the bytes ---- */

typedef struct {
    uint64_t magic;
    int64_t version;
    uint64_t nbufs, len;
} pack_head_t;

typedef struct {
    int64_t id;
    uint64_t bytes;
} pack_entry_t;

int dmesh_copies_pack(dmesh_copies_data_t *d, int64_t version, char **copy, size_t *len)
{
    size_t n = sizeof(pack_head_t) + (size_t)d->nbufs * sizeof(pack_entry_t), at;
    pack_head_t h = {PACK_MAGIC, version, (uint64_t)d->nbufs, 0};
    char *p;

    for (int i = 0; i < d->nbufs; i++)
        n += d->bufs[i].bytes;
    if ((p = dmesh_copies_alloc(n)) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM,
                               "dmesh_copies_store: no memory for a copy of %zu bytes", n);
    h.len = n;
    memcpy(p, &h, sizeof(h));
    at = sizeof(h) + (size_t)d->nbufs * sizeof(pack_entry_t);
    for (int i = 0; i < d->nbufs; i++) {
        const dmesh_copies_buf_t *b = &d->bufs[i];
        pack_entry_t e = {b->id, b->bytes};
        memcpy(p + sizeof(h) + (size_t)i * sizeof(e), &e, sizeof(e));
        if (b->contiguous) {
            MPI_Aint lb, extent;
            int err = DMESH_SUCCESS;
            MPI_Type_get_true_extent(b->type, &lb, &extent);
            if (b->bytes > 0 && b->device)
                err = dmesh_copies_device_copy(p + at, (const char *)b->buf + lb, b->bytes,
                                               "dmesh_copies_store");
            else if (b->bytes > 0)
                memcpy(p + at, (const char *)b->buf + lb, b->bytes);
            if (err != DMESH_SUCCESS) {
                dmesh_copies_release(p);
                return err;
            }
        } else {
            int pos = 0, rc = MPI_Pack(b->buf, (int)b->count, b->type, p + at, (int)b->bytes, &pos,
                                       MPI_COMM_SELF);
            if (rc != MPI_SUCCESS) {
                dmesh_copies_release(p);
                return dmesh_error_mpi(rc, "dmesh_copies_store: MPI_Pack");
            }
        }
        at += b->bytes;
    }
    *copy = p;
    *len = n;
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
        if (e.id != d->bufs[i].id || e.bytes != d->bufs[i].bytes)
            return dmesh_error_set(DMESH_ERR_MISMATCH,
                                   "dmesh_copies_restore: buffer id %lld of %llu bytes was stored "
                                   "where id %d of %zu bytes is registered",
                                   (long long)e.id, (unsigned long long)e.bytes, d->bufs[i].id,
                                   d->bufs[i].bytes);
    }
    *len_out = h.len;
    return DMESH_SUCCESS;
}

int dmesh_copies_unpack(const dmesh_copies_data_t *d, const char *copy)
{
    size_t at = sizeof(pack_head_t) + (size_t)d->nbufs * sizeof(pack_entry_t);

    for (int i = 0; i < d->nbufs; i++) {
        const dmesh_copies_buf_t *b = &d->bufs[i];
        if (b->contiguous) {
            MPI_Aint lb, extent;
            MPI_Type_get_true_extent(b->type, &lb, &extent);
            if (b->bytes > 0 && b->device)
                DMESH_TRY(dmesh_copies_device_copy((char *)b->buf + lb, copy + at, b->bytes,
                                                   "dmesh_copies_restore"));
            else if (b->bytes > 0)
                memcpy((char *)b->buf + lb, copy + at, b->bytes);
        } else {
            int pos = 0, rc = MPI_Unpack(copy + at, (int)b->bytes, &pos, b->buf, (int)b->count,
                                         b->type, MPI_COMM_SELF);
            if (rc != MPI_SUCCESS)
                return dmesh_error_mpi(rc, "dmesh_copies_restore: MPI_Unpack");
        }
        at += b->bytes;
    }
    return DMESH_SUCCESS;
}

void dmesh_copies_slot_free(dmesh_copies_slot_t *s)
{
    dmesh_copies_release(s->own);
    dmesh_copies_release(s->held);
    memset(s, 0, sizeof(*s));
    s->version = DMESH_COPIES_NONE;
    s->held_version = DMESH_COPIES_NONE;
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

/* The packed size of count elements of type, and whether memcpy does. */
static int buf_bytes(MPI_Count count, MPI_Datatype type, size_t *bytes, int *contiguous)
{
    MPI_Aint lb, extent, tlb, textent;
    int size, rc, packed;

    if ((rc = MPI_Type_size(type, &size)) != MPI_SUCCESS ||
        (rc = MPI_Type_get_extent(type, &lb, &extent)) != MPI_SUCCESS ||
        (rc = MPI_Type_get_true_extent(type, &tlb, &textent)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_copies_add: the datatype");
    *contiguous = size == textent && (count <= 1 || extent == size);
    if (*contiguous) {
        if (size > 0 && (unsigned long long)count > SIZE_MAX / (size_t)size)
            return dmesh_error_set(DMESH_ERR_ARG, "dmesh_copies_add: count %lld is too large",
                                   (long long)count);
        *bytes = (size_t)count * (size_t)size;
        return DMESH_SUCCESS;
    }
    if (count > INT_MAX)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "dmesh_copies_add: count %lld of a type that is not contiguous "
                               "exceeds INT_MAX",
                               (long long)count);
    if ((rc = MPI_Pack_size((int)count, type, MPI_COMM_SELF, &packed)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_copies_add: MPI_Pack_size");
    *bytes = (size_t)packed;
    return DMESH_SUCCESS;
}

int dmesh_copies_add_impl(dmesh_copies_t h, int id, void *buf, MPI_Count count, MPI_Datatype type)
{
    struct dmesh_copies_s *c;
    dmesh_copies_data_t *d;
    dmesh_copies_buf_t b = {id, buf, count, type, 0, 0, 0};
    int i;

    DMESH_TRY(dmesh_copies_get(h, "dmesh_copies_add", &c));
    d = c->d;
    if (id < 0 || count < 0 || type == MPI_DATATYPE_NULL || (buf == NULL && count > 0))
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: id %d, count %lld, %s datatype, %s buffer: ids and counts "
                               "are >= 0, a buffer of elements is not NULL",
                               "dmesh_copies_add", id, (long long)count,
                               type == MPI_DATATYPE_NULL ? "null" : "a", buf ? "a" : "NULL");
    DMESH_TRY(buf_bytes(count, type, &b.bytes, &b.contiguous));
    if (c->cuda && b.bytes > 0) /* a "cuda" mesh's buffers may be device memory */
        DMESH_TRY(dmesh_copies_device_of(buf, &b.device));
    if (b.device && !b.contiguous)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: buffer %d is device memory with a datatype that is not "
                               "contiguous: device buffers are copied whole (cudaMemcpy), "
                               "register a contiguous type",
                               "dmesh_copies_add", id);
    for (i = 0; i < d->nbufs && d->bufs[i].id < id; i++)
        ;
    if (i < d->nbufs && d->bufs[i].id == id) {
        d->bufs[i] = b;
        return DMESH_SUCCESS;
    }
    if (d->nbufs == d->capbufs) {
        int cap = d->capbufs ? 2 * d->capbufs : 8;
        dmesh_copies_buf_t *nb = realloc(d->bufs, (size_t)cap * sizeof(*nb));
        if (nb == NULL)
            return dmesh_error_set(DMESH_ERR_NOMEM, "%s: no memory", "dmesh_copies_add");
        d->bufs = nb;
        d->capbufs = cap;
    }
    memmove(&d->bufs[i + 1], &d->bufs[i], (size_t)(d->nbufs - i) * sizeof(b));
    d->bufs[i] = b;
    d->nbufs++;
    return DMESH_SUCCESS;
}

/* ---- dmesh_copies_get_partners and dmesh_copies_free -------------------- */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

int dmesh_copies_get_partners_impl(dmesh_copies_t h, int maxranks, int ranks[], int *n)
{
    struct dmesh_copies_s *c;
    int members[DMESH_COPIES_MAX_SET], m = 0, pos, k = 0;

    DMESH_TRY(dmesh_copies_get(h, "dmesh_copies_get_partners", &c));
    DMESH_CHECK_PTR_OF("dmesh_copies_get_partners", n);
    if (maxranks < 0 || (maxranks > 0 && ranks == NULL))
        return dmesh_error_set(DMESH_ERR_ARG, "%s: maxranks %d with %s ranks",
                               "dmesh_copies_get_partners", maxranks, ranks ? "a" : "NULL");
    if (c->comm != MPI_COMM_NULL && c->plan.scheme == DMESH_COPIES_PARTNER) {
        int p = dmesh_copies_holder(&c->plan, c->me);
        if (p != c->me)
            members[m++] = p;
    } else if (c->comm != MPI_COMM_NULL) {
        dmesh_copies_set(&c->plan, c->me, members, &m, &pos);
    }
    for (int i = 0; i < m; i++)
        if (members[i] != c->me)
            members[k++] = c->ranks[members[i]];
    qsort(members, (size_t)k, sizeof(int), cmp_int);
    for (int i = 0; i < k && i < maxranks; i++)
        ranks[i] = members[i];
    *n = k;
    return DMESH_SUCCESS;
}

static void data_free(dmesh_copies_data_t *d)
{
    for (dmesh_copies_data_t **p = &registry; *p != NULL; p = &(*p)->next)
        if (*p == d) {
            *p = d->next;
            break;
        }
    dmesh_copies_slot_free(&d->slot);
    free(d->bufs);
    free(d);
}

static void handle_free(struct dmesh_copies_s *c)
{
    for (struct dmesh_copies_s **p = &live; *p != NULL; p = &(*p)->next_live)
        if (*p == c) {
            *p = c->next_live;
            break;
        }
    if (c->set != MPI_COMM_NULL)
        MPI_Comm_free(&c->set);
    if (c->comm != MPI_COMM_NULL)
        MPI_Comm_free(&c->comm);
    if (c->raise != MPI_COMM_NULL)
        MPI_Comm_free(&c->raise);
    free(c->ranks);
    c->magic = 0;
    free(c);
}

int dmesh_copies_free_impl(dmesh_copies_t *h)
{
    struct dmesh_copies_s *c = NULL;

    DMESH_CHECK_PTR_OF("dmesh_copies_free", h);
    if (*h == DMESH_COPIES_NULL)
        return DMESH_SUCCESS;
    for (struct dmesh_copies_s *x = live; x != NULL; x = x->next_live)
        if (x == *h)
            c = x;
    if (c == NULL)
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
    for (dmesh_copies_data_t *d = registry; d != NULL; d = d->next)
        if (strcmp(d->name, name) == 0)
            return d;
    return NULL;
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

/* The agreed outcome of dmesh_copies_open: c has d (fresh: new, into the
 * registry), the handle that had them no longer. */
static int attach(struct dmesh_copies_s *c, dmesh_copies_data_t *d, dmesh_copies_data_t *fresh,
                  dmesh_copies_t *out)
{
    if (fresh != NULL) {
        fresh->next = registry;
        registry = fresh;
    }
    if (d->open != NULL)
        d->open->d = NULL;
    d->open = c;
    d->dim = c->plan.dim;
    d->scheme = c->plan.scheme;
    d->k = c->plan.k;
    c->d = d;
    c->magic = COPIES_MAGIC;
    c->next_live = live;
    live = c;
    *out = c;
    return DMESH_SUCCESS;
}

/* ---- dmesh_copies_open -------------------------------------------------- */

typedef struct {
    int scheme, k, dim; /* dim -2: the default */
} open_args_t;

static int get_key(MPI_Info info, const char *key, char *val, int *flag)
{
    int rc;

    *flag = 0;
    if (info == MPI_INFO_NULL)
        return DMESH_SUCCESS;
    if ((rc = MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, flag)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_copies_open: MPI_Info_get");
    return DMESH_SUCCESS;
}

static int parse_info(dmesh_t mesh, int ndims, MPI_Info info, open_args_t *a)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int flag;

    a->scheme = DMESH_COPIES_PARTNER;
    a->k = 4;
    a->dim = -2;
    DMESH_TRY(get_key(info, "dmesh_copies_scheme", val, &flag));
    if (flag)
        DMESH_TRY(dmesh_option_choice("dmesh_copies_scheme", val, "partner", "xor", &a->scheme));
    DMESH_TRY(get_key(info, "dmesh_copies_group", val, &flag));
    if (flag)
        DMESH_TRY(dmesh_option_int("dmesh_copies_group", val, 2, DMESH_COPIES_MAX_SET / 2, &a->k));
    DMESH_TRY(get_key(info, "dmesh_copies_dim", val, &flag));
    if (flag && val[0] >= '0' && val[0] <= '9')
        return dmesh_option_int("dmesh_copies_dim", val, 0, ndims - 1, &a->dim);
    if (flag)
        return dmesh_get_dim_index_impl(mesh, val, &a->dim);
    return DMESH_SUCCESS;
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

/* What the processes that carry stored copies of the name stored them with
 * (their plan), and this process's arguments checked against it. */
static int carried(MPI_Comm ucomm, const dmesh_copies_data_t *d, open_args_t *a, int err)
{
    int mine = 0, all = 0, rc;

    if (d != NULL && d->slot.version >= 0)
        mine = (d->k << 9) | (d->scheme << 8) | (d->dim + 2);
    if ((rc = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, ucomm)) != MPI_SUCCESS)
        return err ? err : dmesh_error_mpi(rc, "dmesh_copies_open: MPI_Allreduce");
    if (all == 0 || err)
        return err;
    if (((all >> 8) & 1) != a->scheme || (a->scheme == DMESH_COPIES_XOR && (all >> 9) != a->k))
        return dmesh_error_set(DMESH_ERR_MISMATCH,
                               "dmesh_copies_open: the copies were stored with scheme %s, group "
                               "%d; opened with %s, group %d",
                               (all >> 8) & 1 ? "xor" : "partner", all >> 9,
                               a->scheme ? "xor" : "partner", a->k);
    a->dim = (all & 0xff) - 2;
    return DMESH_SUCCESS;
}

/* The communicators: the members of this copy of the mesh by flat index,
 * and under xor this member's set. Every process takes both steps. */
static int split(MPI_Comm ucomm, struct dmesh_copies_s *c, int member, int low, int err)
{
    int members[DMESH_COPIES_MAX_SET], m, pos, rc;

    rc = MPI_Comm_split(ucomm, member ? low : MPI_UNDEFINED, c->me, &c->comm);
    if (rc != MPI_SUCCESS && !err)
        err = dmesh_error_mpi(rc, "dmesh_copies_open: MPI_Comm_split");
    if (c->comm == MPI_COMM_NULL || c->plan.scheme != DMESH_COPIES_XOR)
        return err;
    dmesh_copies_set(&c->plan, c->me, members, &m, &pos);
    rc = MPI_Comm_split(c->comm, members[0], pos, &c->set);
    if (rc != MPI_SUCCESS && !err)
        err = dmesh_error_mpi(rc, "dmesh_copies_open: MPI_Comm_split (XOR set)");
    return err;
}

static int open_steps(dmesh_t mesh, const char *name, MPI_Info info, MPI_Comm ucomm,
                      struct dmesh_copies_s *c, const dmesh_copies_data_t *d, open_args_t *a,
                      int err)
{
    int member = 0, low = 0, kind[DMESH_MAX_DIMS], coords[DMESH_MAX_DIMS];
    dmesh_copies_plan_t *p = &c->plan;

    if (!err && (name == NULL || name[0] == '\0' || strlen(name) >= DMESH_MAX_NAME))
        err = dmesh_error_set(DMESH_ERR_ARG, "dmesh_copies_open: a name of 1 to %d bytes",
                              DMESH_MAX_NAME - 1);
    dmesh_get_ndims_impl(mesh, &p->ndims);
    dmesh_get_shape_impl(mesh, DMESH_MAX_DIMS, p->shape);
    dmesh_get_size_impl(mesh, &p->n);
    if (!err)
        err = parse_info(mesh, p->ndims, info, a);
    for (int d = 0; d < p->ndims; d++) { /* every process, whatever failed */
        int rc = dmesh_get_dim_locality_impl(mesh, d, &kind[d]);
        err = err ? err : rc;
    }
    if (!err && dmesh_get_coordinate_impl(mesh, DMESH_MAX_DIMS, coords, &member) == DMESH_SUCCESS &&
        member)
        err = members_of(mesh, ucomm, c, &low);
    if (!err && a->dim == -2)
        a->dim = dmesh_copies_pick_dim(p->ndims, p->shape, kind);
    err = carried(ucomm, d, a, err);
    p->dim = a->dim;
    p->scheme = a->scheme;
    p->k = a->k;
    return split(ucomm, c, member && !err, low, err);
}

int dmesh_copies_open_impl(dmesh_t mesh, const char *name, MPI_Info info, dmesh_copies_t *copies)
{
    struct dmesh_mesh *m;
    struct dmesh_copies_s *c = calloc(1, sizeof(*c));
    dmesh_copies_data_t *d = NULL, *fresh = NULL;
    open_args_t a = {0, 0, -2};
    uint64_t hash = DMESH_HASH_INIT;
    MPI_Comm ucomm;
    int err = DMESH_SUCCESS;

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
        c->comm = c->set = c->raise = MPI_COMM_NULL;
        err = raise_comm(m, c, err);
        err = open_steps(mesh, name, info, ucomm, c, d, &a, err);
        hash = dmesh_hash(hash, name ? name : "", name ? strlen(name) : 0);
        hash = dmesh_hash(hash, &c->plan.dim, sizeof(int) * 3);
    } else { /* the others must not wait: the steps' collectives with nothing */
        struct dmesh_copies_s z = {0};
        z.comm = z.set = MPI_COMM_NULL;
        open_steps(mesh, NULL, MPI_INFO_NULL, ucomm, &z, NULL, &a, err);
        free(z.ranks);
    }
    err = dmesh_agree(ucomm, hash, err, "dmesh_copies_open");
    if (err != DMESH_SUCCESS) {
        if (c != NULL)
            handle_free(c);
        free(fresh);
        return err;
    }
    c->universe = m->u;
    c->cuda = dmesh_universe_cuda(m->u);
    return attach(c, d, fresh, copies);
}
