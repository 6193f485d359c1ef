/* Universes: the private duplicate of the user's communicator, cached on it
 * as an attribute so that later meshes on the same communicator do not pay
 * for another MPI_Comm_dup; the rank map; the communicator cache and its
 * teardown; the agreement check. */
#include "config.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "comm_mpi.h"
#include "comm_nccl.h"
#include "error.h"
#include "universe.h"

/* The private duplicate of one user communicator. One reference belongs to
 * the attribute on the user's communicator, one to each universe. */
struct dmesh_private_comm {
    MPI_Comm comm;
    MPI_Comm user; /* the user's handle, to delete the attribute at finalize */
    int refs;
    unsigned long universes; /* universes made on it: the next one's identity */
    struct dmesh_private_comm *prev, *next; /* list of those still attached */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int comm_keyval = MPI_KEYVAL_INVALID;
static int finalize_keyval = MPI_KEYVAL_INVALID;
static dmesh_private_comm_t *attached; /* private comms still cached on a user comm */

static void private_comm_release(dmesh_private_comm_t *p)
{
    int last;

    pthread_mutex_lock(&lock);
    last = --p->refs == 0;
    pthread_mutex_unlock(&lock);
    if (last) {
        MPI_Comm_free(&p->comm);
        free(p);
    }
}

/* The user's communicator is being freed (or MPI finalised): drop the
 * attribute's reference; universes still alive keep the duplicate. */
static int comm_attr_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    dmesh_private_comm_t *p = value;

    (void)comm;
    (void)keyval;
    (void)extra;
    pthread_mutex_lock(&lock);
    if (p->prev)
        p->prev->next = p->next;
    else
        attached = p->next;
    if (p->next)
        p->next->prev = p->prev;
    pthread_mutex_unlock(&lock);
    private_comm_release(p);
    return MPI_SUCCESS;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: release every
 * private duplicate still cached on a user communicator, then the keyvals. */
static int finalize_attr_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)value;
    (void)extra;
    while (attached != NULL)
        MPI_Comm_delete_attr(attached->user, comm_keyval);
    MPI_Comm_free_keyval(&comm_keyval);
    MPI_Comm_free_keyval(&finalize_keyval);
    return MPI_SUCCESS;
}

static int keyvals_create(void)
{
    int rc = MPI_SUCCESS;

    pthread_mutex_lock(&lock);
    if (comm_keyval == MPI_KEYVAL_INVALID) {
        rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_attr_delete, &comm_keyval, NULL);
        if (rc == MPI_SUCCESS)
            rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_attr_delete,
                                        &finalize_keyval, NULL);
        if (rc == MPI_SUCCESS)
            rc = MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL);
    }
    pthread_mutex_unlock(&lock);
    return rc == MPI_SUCCESS ? DMESH_SUCCESS : dmesh_error_mpi(rc, "creating dmesh's attribute keys");
}

/* Collective over user: the private duplicate of user, with a reference for
 * the caller. */
static int private_comm_get(MPI_Comm user, dmesh_private_comm_t **out)
{
    dmesh_private_comm_t *p;
    int flag = 0, rc;

    DMESH_TRY(keyvals_create());
    if ((rc = MPI_Comm_get_attr(user, comm_keyval, &p, &flag)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "MPI_Comm_get_attr");
    if (!flag) {
        if ((p = calloc(1, sizeof(*p))) == NULL)
            return dmesh_error_set(DMESH_ERR_NOMEM, "private communicator: out of memory");
        if ((rc = MPI_Comm_dup(user, &p->comm)) != MPI_SUCCESS) {
            free(p);
            return dmesh_error_mpi(rc, "MPI_Comm_dup of the user's communicator");
        }
        MPI_Comm_set_errhandler(p->comm, MPI_ERRORS_RETURN);
        p->user = user;
        p->refs = 1;
        if ((rc = MPI_Comm_set_attr(user, comm_keyval, p)) != MPI_SUCCESS) {
            MPI_Comm_free(&p->comm);
            free(p);
            return dmesh_error_mpi(rc, "MPI_Comm_set_attr");
        }
        pthread_mutex_lock(&lock);
        p->next = attached;
        if (attached)
            attached->prev = p;
        attached = p;
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    p->refs++;
    pthread_mutex_unlock(&lock);
    *out = p;
    return DMESH_SUCCESS;
}

int dmesh_rank_map_index(int n, const int *rank_map, int rank)
{
    int i;

    if (rank_map == NULL)
        return rank < n ? rank : -1;
    for (i = 0; i < n; i++)
        if (rank_map[i] == rank)
            return i;
    return -1;
}

int dmesh_universe_create(MPI_Comm user_comm, int n, const int *rank_map, int cuda,
                          dmesh_universe_t **out)
{
    dmesh_universe_t *u = calloc(1, sizeof(*u));
    int err;

    if (u == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "universe: out of memory");
    u->refcount = 1;
    u->n = n;
    u->cuda = cuda;
    u->device = -1;
    if ((err = dmesh_cache_init(&u->cache)) != DMESH_SUCCESS)
        goto fail;
    if (rank_map != NULL) {
        if ((u->rank_map = malloc((size_t)n * sizeof(int))) == NULL) {
            err = dmesh_error_set(DMESH_ERR_NOMEM, "rank map of %d ranks: out of memory", n);
            goto fail;
        }
        memcpy(u->rank_map, rank_map, (size_t)n * sizeof(int));
    }
    if ((err = private_comm_get(user_comm, &u->pcomm)) != DMESH_SUCCESS)
        goto fail;
    u->comm = u->pcomm->comm;
    /* every rank of the communicator makes its universes in the same order */
    pthread_mutex_lock(&lock);
    u->id = ++u->pcomm->universes;
    pthread_mutex_unlock(&lock);
    MPI_Comm_rank(u->comm, &u->rank);
    MPI_Comm_size(u->comm, &u->size);
    u->my_index = dmesh_rank_map_index(u->n, u->rank_map, u->rank);
    *out = u;
    return DMESH_SUCCESS;
fail:
    dmesh_cache_destroy(&u->cache);
    free(u->rank_map);
    free(u);
    return err;
}

/* Free the communicators of the cache: NCCL first, then MPI, each in
 * reverse creation order (an NCCL communicator may use its MPI one). */
static void free_comms(dmesh_universe_t *u)
{
    int i;

    for (i = u->cache.count - 1; i >= 0; i--) {
        dmesh_comm_entry_t *e = u->cache.order[i];
        if (e->nccl != NULL)
            dmesh_nccl_comm_destroy(e->nccl, u->device);
        e->nccl = NULL;
    }
    for (i = u->cache.count - 1; i >= 0; i--) {
        dmesh_comm_entry_t *e = u->cache.order[i];
        if (e->comm != MPI_COMM_NULL)
            MPI_Comm_free(&e->comm);
    }
}

void dmesh_universe_release(dmesh_universe_t *u)
{
    if (__atomic_sub_fetch(&u->refcount, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    free_comms(u);
    dmesh_cache_destroy(&u->cache);
    private_comm_release(u->pcomm);
    free(u->flat);
    free(u->rank_map);
    free(u);
}

int dmesh_universe_abort(dmesh_universe_t *u)
{
    void **nccl = NULL;
    int i, n = 0, err = DMESH_SUCCESS;

    if (u->cache.count > 0 && (nccl = malloc((size_t)u->cache.count * sizeof(*nccl))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_abort: out of memory");
    for (i = u->cache.count - 1; i >= 0; i--) {
        if (u->cache.order[i]->nccl != NULL)
            nccl[n++] = u->cache.order[i]->nccl;
        u->cache.order[i]->nccl = NULL;
    }
    if (n > 0)
        err = dmesh_nccl_comm_abort_all(n, nccl, u->device);
    free(nccl);
    free_comms(u);
    u->aborted = 1;
    return err;
}

int dmesh_universe_agree(dmesh_universe_t *u, uint64_t hash, int local_err, const char *what)
{
    /* the universe's identity: a mesh of another universe on one rank differs */
    return dmesh_agree(u->comm, dmesh_hash(hash, &u->id, sizeof(u->id)), local_err, what);
}

/* Look up (axis, o); on a miss add a new entry to the cache and report it
 * through *fresh. */
static int find_or_add(dmesh_universe_t *u, const dmesh_axis_t *axis,
                       const dmesh_axis_options_t *o, dmesh_comm_entry_t **out, int *fresh)
{
    char key[DMESH_OPTIONS_KEY_LEN], text[256];
    dmesh_comm_entry_t *e;
    int err;

    dmesh_axis_options_key(o, key, sizeof(key));
    text[0] = '\0';
    if (u->debug) /* formatting costs more than the lookup itself */
        dmesh_axis_to_string(axis, text, sizeof(text), NULL);
    *fresh = (e = dmesh_cache_find(&u->cache, axis, key)) == NULL;
    if (!*fresh) {
        dmesh_universe_debug(u, "cache hit: axis %s, %s", text, key);
        *out = e;
        return DMESH_SUCCESS;
    }
    DMESH_TRY(dmesh_cache_entry_new(axis, key, o->backend, &e));
    e->nccl_options = o->nccl;
    e->position = -1;
    e->group = -1;
    /* the caller's coordinate, once: queries then read it instead of decomposing */
    if (u->my_index >= 0 &&
        (err = dmesh_axis_decompose(axis, u->n, u->my_index, &e->group, &e->position)) != 0) {
        free(e);
        return err;
    }
    if ((err = dmesh_cache_add(&u->cache, e)) != DMESH_SUCCESS) {
        free(e);
        return err;
    }
    dmesh_universe_debug(u, "new communicator: axis %s, %s", text, key);
    *out = e;
    return DMESH_SUCCESS;
}

/* The MPI communicator of a fresh entry by split (or group creation); the
 * argument is the comm_create option. */
static int make_split(dmesh_universe_t *u, dmesh_comm_entry_t *e, const void *arg)
{
    /* a rank map private to each group: its first rank tells the groups apart */
    long long base = u->local_map && u->my_index >= 0 ? (long long)u->rank_map[0] * u->n : 0;

    if (base > INT_MAX - u->n)
        return dmesh_error_set(DMESH_ERR_SIZE, "communicator colours exceed INT_MAX");
    return dmesh_comm_mpi_create(u->comm, &e->axis, u->n, u->rank_map, u->my_index, (int)base,
                                 *(const int *)arg == DMESH_COMM_CREATE_GROUP, &e->comm);
}

/* The MPI communicator of a fresh entry as a duplicate of the user's (the
 * argument), collective over its members. */
static int make_dup(dmesh_universe_t *u, dmesh_comm_entry_t *e, const void *arg)
{
    MPI_Comm given = *(const MPI_Comm *)arg;
    int rc;

    (void)u;
    if (given == MPI_COMM_NULL)
        return DMESH_SUCCESS;
    if ((rc = MPI_Comm_dup(given, &e->comm)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "MPI_Comm_dup of a dimension communicator");
    MPI_Comm_set_errhandler(e->comm, MPI_ERRORS_RETURN);
    return DMESH_SUCCESS;
}

typedef int (*make_comm_fn)(dmesh_universe_t *u, dmesh_comm_entry_t *e, const void *arg);

/* Undo a fresh entry (the last one added) on every rank after its
 * creation failed somewhere. */
static void entry_rollback(dmesh_universe_t *u, dmesh_comm_entry_t *e)
{
    if (e->nccl != NULL)
        dmesh_nccl_comm_destroy(e->nccl, u->device);
    e->nccl = NULL;
    if (e->comm != MPI_COMM_NULL)
        MPI_Comm_free(&e->comm);
    dmesh_cache_drop_last(&u->cache);
}

/* The cache entry of (axis, o); on a miss (*fresh) make its MPI
 * communicator, followed by the agreement over the universe (a member of a
 * group whose split failed must not go on while the others return). A
 * failed entry does not stay in the cache on any rank. */
static int entry_mpi(dmesh_universe_t *u, const dmesh_axis_t *axis, const dmesh_axis_options_t *o,
                     make_comm_fn make, const void *arg, dmesh_comm_entry_t **out, int *fresh)
{
    dmesh_comm_entry_t *e;
    int err;

    DMESH_TRY(find_or_add(u, axis, o, &e, fresh));
    if (*fresh) {
        err = make(u, e, arg);
        err = dmesh_universe_agree(u, 0, err, "communicator creation");
        e->nccl_pending = e->backend == DMESH_BACKEND_NCCL;
        if (err != DMESH_SUCCESS) {
            entry_rollback(u, e);
            return err;
        }
    }
    *out = e;
    return DMESH_SUCCESS;
}

/* entry_mpi, then the NCCL communicator of a fresh entry unless deferred,
 * by init, with the agreement over the universe. */
static int entry_with(dmesh_universe_t *u, const dmesh_axis_t *axis, const dmesh_axis_options_t *o,
                      int nccl_lazy, make_comm_fn make, const void *arg, dmesh_comm_entry_t **out)
{
    dmesh_comm_entry_t *e;
    int fresh, err = DMESH_SUCCESS;

    DMESH_TRY(entry_mpi(u, axis, o, make, arg, &e, &fresh));
    if (fresh && !nccl_lazy && e->nccl_pending) {
        err = dmesh_universe_nccl_entry(u, e);
        err = dmesh_universe_agree(u, 0, err, "NCCL communicator creation");
    }
    if (err != DMESH_SUCCESS) {
        entry_rollback(u, e);
        return err;
    }
    *out = e;
    return DMESH_SUCCESS;
}

int dmesh_universe_get_entry(dmesh_universe_t *u, const dmesh_axis_t *axis,
                             const dmesh_axis_options_t *o, int comm_create, int nccl_lazy,
                             dmesh_comm_entry_t **out)
{
    return entry_with(u, axis, o, nccl_lazy, make_split, &comm_create, out);
}

static void stats_add(dmesh_nccl_stats_t *to, const dmesh_nccl_stats_t *st)
{
    to->bootstraps += st->bootstraps;
    to->splits += st->splits;
    to->scalable += st->scalable;
    to->id_calls += st->id_calls;
    to->id_bytes += st->id_bytes;
}

static const char *const create_names[] = {"init", "split", "scalable"};

/* Collective over all: the pending NCCL communicators of e[0..n) made
 * together (dmesh_nccl_comms_create), counted, and timed under DMESH_DEBUG. */
static int nccl_entries(dmesh_universe_t *u, MPI_Comm all, int how, int roots, int n,
                        dmesh_comm_entry_t *const e[])
{
    dmesh_nccl_request_t req[DMESH_MAX_DIMS + 1];
    dmesh_comm_entry_t *pending[DMESH_MAX_DIMS + 1];
    dmesh_nccl_stats_t st;
    void *parent = NULL;
    double t;
    int k = 0, err;

    for (int i = 0; i < n; i++) {
        if (!e[i]->nccl_pending)
            continue;
        memset(&req[k], 0, sizeof(req[k]));
        req[k].comm = e[i]->comm;
        req[k].opts = &e[i]->nccl_options;
        req[k].color = e[i]->group;
        req[k].key = e[i]->position;
        pending[k++] = e[i];
    }
    if (k == 0)
        return DMESH_SUCCESS;
    if (how == DMESH_NCCL_CREATE_SPLIT && u->nccl_root != NULL)
        parent = u->nccl_root->nccl; /* NULL outside the mesh */
    memset(&st, 0, sizeof(st));
    t = MPI_Wtime();
    err = dmesh_nccl_comms_create(all, how, parent, roots, u->device, k, req, &st);
    t = MPI_Wtime() - t;
    if (err != DMESH_SUCCESS)
        return err;
    for (int i = 0; i < k; i++) {
        pending[i]->nccl = req[i].nccl;
        pending[i]->nccl_pending = 0;
    }
    stats_add(&u->nccl_stats, &st);
    dmesh_universe_debug(u, "NCCL %s: %d communicators together, %ld bootstraps, %ld splits, %ld "
                         "scalable inits, %ld MPI calls and %ld bytes of ids, %.6f s",
                         create_names[how], k, st.bootstraps, st.splits, st.scalable, st.id_calls,
                         st.id_bytes, t);
    return DMESH_SUCCESS;
}

int dmesh_universe_nccl_entry(dmesh_universe_t *u, dmesh_comm_entry_t *e)
{
    if (!e->nccl_pending)
        return DMESH_SUCCESS;
    if (e->comm != MPI_COMM_NULL)
        DMESH_TRY(nccl_entries(u, e->comm, DMESH_NCCL_CREATE_INIT, 0, 1, &e));
    e->nccl_pending = 0;
    return DMESH_SUCCESS;
}

/* split: the universe's NCCL communicator over the whole mesh (its rank map
 * as one axis), bootstrapped once and kept in the cache; every later split
 * of the universe starts from it. */
static int nccl_root(dmesh_universe_t *u, const dmesh_axis_options_t *o)
{
    dmesh_axis_t axis;
    dmesh_axis_options_t ro = *o;
    dmesh_comm_entry_t *e;
    int split = DMESH_COMM_CREATE_SPLIT, err = DMESH_SUCCESS;

    memset(&axis, 0, sizeof(axis));
    if (u->n > 1) {
        axis.natoms = 1;
        axis.atoms[0].size = u->n;
        axis.atoms[0].stride = 1;
    }
    snprintf(ro.nccl.comm_name, sizeof(ro.nccl.comm_name), "dmesh/root");
    DMESH_TRY(entry_with(u, &axis, &ro, 0, make_split, &split, &e));
    if (e->nccl_pending) { /* made lazily before, still pending */
        err = dmesh_universe_nccl_entry(u, e);
        DMESH_TRY(dmesh_universe_agree(u, 0, err, "root NCCL communicator"));
    }
    u->nccl_root = e;
    return DMESH_SUCCESS;
}

int dmesh_universe_get_entries(dmesh_universe_t *u, int n, const dmesh_axis_t axes[],
                               const dmesh_axis_options_t o[], const dmesh_options_t *opts,
                               const MPI_Comm given[], dmesh_comm_entry_t *out[])
{
    dmesh_comm_entry_t *fresh[DMESH_MAX_DIMS];
    int nfresh = 0, isfresh = 0, err = DMESH_SUCCESS, d, how = opts->nccl_create;
    int cc = opts->comm_create;

    for (d = 0; how == DMESH_NCCL_CREATE_SPLIT && !opts->nccl_lazy && u->nccl_root == NULL && d < n;
         d++)
        if (o[d].backend == DMESH_BACKEND_NCCL) {
            DMESH_TRY(nccl_root(u, &o[d]));
            break;
        }
    for (d = 0; d < n && err == DMESH_SUCCESS; d++) {
        if (given != NULL)
            err = entry_mpi(u, &axes[d], &o[d], make_dup, &given[d], &out[d], &isfresh);
        else
            err = entry_mpi(u, &axes[d], &o[d], make_split, &cc, &out[d], &isfresh);
        if (err == DMESH_SUCCESS && isfresh)
            fresh[nfresh++] = out[d];
    }
    if (err == DMESH_SUCCESS && !opts->nccl_lazy)
        err = nccl_entries(u, u->comm, how, opts->nccl_scalable_roots, nfresh, fresh);
    while (err != DMESH_SUCCESS && nfresh > 0)
        entry_rollback(u, fresh[--nfresh]);
    return err;
}

int dmesh_universe_register(dmesh_universe_t *u, const char *name, const dmesh_axis_t *axis,
                            dmesh_comm_entry_t *e)
{
    dmesh_flat_name_t *f;

    if (u->nflat == u->flat_capacity) {
        int cap = u->flat_capacity ? 2 * u->flat_capacity : 4;
        if ((f = realloc(u->flat, (size_t)cap * sizeof(*f))) == NULL)
            return dmesh_error_set(DMESH_ERR_NOMEM, "flatten registry: out of memory");
        u->flat = f;
        u->flat_capacity = cap;
    }
    f = &u->flat[u->nflat++];
    snprintf(f->name, sizeof(f->name), "%s", name);
    f->axis = *axis;
    f->entry = e;
    return DMESH_SUCCESS;
}

const dmesh_flat_name_t *dmesh_universe_find_flat(const dmesh_universe_t *u, const char *name)
{
    int i;

    for (i = 0; i < u->nflat; i++)
        if (strcmp(u->flat[i].name, name) == 0)
            return &u->flat[i];
    return NULL;
}

void dmesh_universe_debug(const dmesh_universe_t *u, const char *fmt, ...)
{
    va_list ap;

    if (!u->debug || u->rank != 0)
        return;
    va_start(ap, fmt);
    fprintf(stderr, "dmesh: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}
