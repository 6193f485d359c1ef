/* SPDX-License-Identifier: BSD-3-Clause */
/* The private duplicate of a user's communicator, cached on it as an MPI
 * attribute so that later meshes on the same communicator do not pay for
 * another MPI_Comm_dup; released when that communicator is freed, or at
 * MPI_Finalize (finalize.c, through MPI_COMM_SELF's attribute). */
#include "config.h"

#include "api_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "comm_mpi.h"
#include "error.h"
#include "fault.h"
#include "ulfm.h"
#include "pcomm.h"

/* The private duplicate of one user communicator. One reference belongs to
 * the attribute on the user's communicator, one to each universe. */
struct dmesh_private_comm {
    MPI_Comm comm;
    MPI_Comm user;  /* the user's handle, to delete the attribute at finalize */
    int user_alive; /* p is still user's attribute (the program has not freed user) */
    int refs;
    unsigned long universes;                /* universes made on it: the next one's identity */
    int debug;                              /* DMESH_DEBUG: say when it is released */
    struct dmesh_private_comm *prev, *next; /* list of those still attached */
    dmesh_node_cache_t nodes;               /* its nodes, found once (node_find.h) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int comm_keyval = MPI_KEYVAL_INVALID;
static dmesh_private_comm_t *attached; /* private comms still cached on a user comm */
static int live;                       /* private comms not yet freed */

/* The last private duplicate of a program of the sessions model (no
 * MPI_Init) is gone: its sessions may end, and an MPI initialised anew has
 * none of the error codes registered before (error.h). */
static void forget_codes_if_last(void)
{
    int initialized = 1, none;

    pthread_mutex_lock(&lock);
    none = --live == 0;
    pthread_mutex_unlock(&lock);
    if (none && MPI_Initialized(&initialized) == MPI_SUCCESS && !initialized)
        dmesh_error_forget_codes();
}

void dmesh_private_comm_release(dmesh_private_comm_t *p)
{
    int last;

    pthread_mutex_lock(&lock);
    last = --p->refs == 0;
    pthread_mutex_unlock(&lock);
    if (last) {
        if (p->debug)
            fprintf(stderr, "dmesh: released the private duplicate of a user communicator\n");
        dmesh_node_cache_free(&p->nodes);
        MPI_Comm_free(&p->comm);
        free(p);
        forget_codes_if_last();
    }
}

dmesh_node_cache_t *dmesh_private_comm_nodes(dmesh_private_comm_t *p)
{
    return p != NULL ? &p->nodes : NULL;
}

void dmesh_private_comm_debug(dmesh_private_comm_t *p)
{
    p->debug = 1;
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
    p->user_alive = 0;
    if (p->prev || attached == p) { /* still listed (see dmesh_private_comm_release_attached) */
        if (p->prev)
            p->prev->next = p->next;
        else
            attached = p->next;
        if (p->next)
            p->next->prev = p->prev;
        p->prev = p->next = NULL;
    }
    pthread_mutex_unlock(&lock);
    dmesh_private_comm_release(p);
    return MPI_SUCCESS;
}

/* At MPI_Finalize (finalize.c): release every private duplicate still
 * cached on a user communicator, then the keyval. An MPI may run
 * MPI_Finalize's attribute deletions when it already counts itself
 * finalised and refuse attribute calls (SimGrid's SMPI: "MPI_Init was not
 * called"), then delete the attributes of MPI_COMM_WORLD itself. A
 * duplicate whose attribute MPI_Comm_delete_attr did not remove (the call
 * failed, or did not run comm_attr_delete) is only taken off the list
 * here, without MPI, so that the loop ends; its attribute keeps its
 * reference, which comm_attr_delete drops if the MPI deletes the attribute
 * later, and the keyval stays (freeing it would need the refused calls). */
int dmesh_private_comm_release_attached(void)
{
    dmesh_private_comm_t *p;
    int finalized = 0, refused = 0;

    if (MPI_Finalized(&finalized) != MPI_SUCCESS || finalized)
        refused = 1;
    while ((p = attached) != NULL) {
        if (!refused && MPI_Comm_delete_attr(p->user, comm_keyval) == MPI_SUCCESS && attached != p)
            continue;
        refused = 1;
        pthread_mutex_lock(&lock);
        attached = p->next;
        if (attached)
            attached->prev = NULL;
        p->prev = p->next = NULL;
        pthread_mutex_unlock(&lock);
    }
    if (!refused)
        MPI_Comm_free_keyval(&comm_keyval);
    return !refused;
}

static int keyval_create(void)
{
    int rc = MPI_SUCCESS;

    pthread_mutex_lock(&lock);
    if (comm_keyval == MPI_KEYVAL_INVALID)
        rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_attr_delete, &comm_keyval, NULL);
    pthread_mutex_unlock(&lock);
    return rc == MPI_SUCCESS ? DMESH_SUCCESS
                             : dmesh_error_mpi(rc, "creating dmesh's attribute keys");
}

/* Whether user carries a private duplicate already (local). A failure here
 * counts as "none": the rank then takes part in a new duplication, as every
 * rank does on a communicator without one. */
static dmesh_private_comm_t *attached_to(MPI_Comm user, int *err)
{
    dmesh_private_comm_t *p = NULL;
    int flag = 0, rc;

    if (*err == DMESH_SUCCESS)
        *err = keyval_create();
    if (*err == DMESH_SUCCESS &&
        (rc = MPI_Comm_get_attr(user, comm_keyval, &p, &flag)) != MPI_SUCCESS)
        *err = dmesh_error_mpi(rc, "MPI_Comm_get_attr");
    return flag ? p : NULL;
}

/* MPI_Comm_idup, or MPI_Comm_dup without a working one (configure), or
 * for a communicator of one process, where nothing is to overlap: MPICH
 * (4.0 and 4.2) crashes in the MPI_Wait of MPI_Comm_idup of a one-process
 * communicator made from an MPI-4 session. With fault tolerance on, the
 * blocking duplicate too: Open MPI 5.0.7 raises a process failure met by
 * the MPI_Wait of MPI_Comm_idup as MPI_ERR_INTERN on MPI_COMM_WORLD, whose
 * handler (fatal by default) is not the one of the communicator the
 * program passed; MPI_Comm_dup reports it on that communicator. */
static int dup_user(MPI_Comm user, MPI_Comm *comm, MPI_Request *req)
{
#if DMESH_HAVE_MPI_COMM_IDUP
    int size = 0;

    if ((MPI_Comm_size(user, &size) != MPI_SUCCESS || size != 1) && !dmesh_ulfm_enabled(user))
        return MPI_Comm_idup(user, comm, req);
#endif
    *req = MPI_REQUEST_NULL;
    return MPI_Comm_dup(user, comm);
}

/* With fault tolerance on, whether every process of user is alive, as the
 * survivors agree (MPIX_Comm_agree): a duplication that meets a dead
 * process fails inside Open MPI 5.0.7's allocation of a context id and
 * leaves it stuck (a later MPIX_Comm_shrink of any communicator waits
 * forever), so it is not begun then; *err tells why. Without fault
 * tolerance: true, and nothing is called. */
static int survivors_whole(MPI_Comm user, int *err)
{
    int flag = 1, rc;

    if (!dmesh_ulfm_enabled(user))
        return 1;
    if ((rc = dmesh_ulfm_agree(user, &flag)) == MPI_SUCCESS)
        return 1;
    *err = dmesh_error_mpi(rc, "MPIX_Comm_agree before duplicating the user's communicator");
    return 0;
}

void dmesh_private_comm_begin(MPI_Comm user, int err, dmesh_private_comm_pending_t *s)
{
    int rc;

    s->user = user;
    s->comm = MPI_COMM_NULL;
    s->req = MPI_REQUEST_NULL;
    s->err = err;
    s->attached = 0;
    if ((s->p = attached_to(user, &s->err)) != NULL) {
        s->fresh = 0;
        dmesh_private_comm_retain(s->p);
        return;
    }
    /* Every rank joins the duplication, whatever failed before it; with
     * MPI_Comm_dup, the same collective at the same place on every rank,
     * only blocking. */
    s->fresh = 1;
    if (s->err == DMESH_SUCCESS && !survivors_whole(user, &s->err))
        return; /* no duplicate: the agreement over user reports it */
    rc = dup_user(user, &s->comm, &s->req);
    if (rc != MPI_SUCCESS) {
        s->req = MPI_REQUEST_NULL;
        s->comm = MPI_COMM_NULL;
        if (s->err == DMESH_SUCCESS)
            s->err = dmesh_error_mpi(rc, "MPI_Comm_idup of the user's communicator");
    }
    if (s->err == DMESH_SUCCESS && (s->p = DMESH_FAULT_CALLOC(1, sizeof(*s->p))) == NULL)
        s->err = dmesh_error_set(DMESH_ERR_NOMEM, "private communicator: out of memory");
}

/* A completed duplicate, attached to the user's communicator: the
 * attribute's reference and the caller's. */
static int attach_new(dmesh_private_comm_pending_t *s)
{
    dmesh_private_comm_t *p = s->p;
    int rc;

    if ((rc = dmesh_set_errhandler(s->comm)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "MPI_Comm_set_errhandler");
    p->comm = s->comm;
    p->user = s->user;
    p->refs = 2;
    p->user_alive = 1;
    if ((rc = MPI_Comm_set_attr(s->user, comm_keyval, p)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "MPI_Comm_set_attr");
    s->comm = MPI_COMM_NULL; /* p owns it now */
    s->attached = 1;
    pthread_mutex_lock(&lock);
    live++;
    p->next = attached;
    if (attached)
        attached->prev = p;
    attached = p;
    pthread_mutex_unlock(&lock);
    return DMESH_SUCCESS;
}

int dmesh_private_comm_complete(dmesh_private_comm_pending_t *s, int err)
{
    int rc;

    if (!s->fresh)
        return err;
    /* Completed on every path: the other ranks' duplication needs this one. */
    if (s->req != MPI_REQUEST_NULL && (rc = MPI_Wait(&s->req, MPI_STATUS_IGNORE)) != MPI_SUCCESS &&
        s->err == DMESH_SUCCESS)
        s->err = dmesh_error_mpi(rc, "MPI_Comm_idup of the user's communicator (MPI_Wait)");
    if (s->err == DMESH_SUCCESS && dmesh_fault(DMESH_FAULT_DUP))
        s->err = dmesh_error_mpi(MPI_ERR_INTERN, "MPI_Comm_idup of the user's communicator");
    if (s->err == DMESH_SUCCESS)
        s->err = attach_new(s);
    return err != DMESH_SUCCESS ? err : s->err;
}

MPI_Comm dmesh_private_comm_agreed_over(const dmesh_private_comm_pending_t *s)
{
    return s->fresh ? s->user : s->p->comm;
}

void dmesh_private_comm_settle(dmesh_private_comm_pending_t *s, int agreed)
{
    dmesh_private_comm_t *p = s->p;

    s->p = NULL;
    if (agreed != DMESH_SUCCESS && s->fresh) {
        if (!s->attached) { /* nobody else holds it */
            free(p);
            p = NULL;
        } else /* the attribute goes, with its reference; a universe may hold one */
            MPI_Comm_delete_attr(s->user, comm_keyval);
        if (s->comm != MPI_COMM_NULL)
            MPI_Comm_free(&s->comm);
    }
    if (p != NULL)
        dmesh_private_comm_release(p);
}

void dmesh_private_comm_retain(dmesh_private_comm_t *p)
{
    pthread_mutex_lock(&lock);
    p->refs++;
    pthread_mutex_unlock(&lock);
}

MPI_Comm dmesh_private_comm_user(const dmesh_private_comm_t *p)
{
    return p->user;
}

MPI_Comm dmesh_private_comm_user_alive(const dmesh_private_comm_t *p)
{
    return p->user_alive ? p->user : MPI_COMM_NULL;
}

void dmesh_private_comm_detach(dmesh_private_comm_t *p)
{
    if (p->user_alive)
        MPI_Comm_delete_attr(p->user, comm_keyval); /* comm_attr_delete: its reference goes */
}

MPI_Comm dmesh_private_comm_handle(const dmesh_private_comm_t *p)
{
    return p->comm;
}

unsigned long dmesh_private_comm_next_id(dmesh_private_comm_t *p)
{
    unsigned long id;

    pthread_mutex_lock(&lock);
    id = ++p->universes;
    pthread_mutex_unlock(&lock);
    return id;
}
