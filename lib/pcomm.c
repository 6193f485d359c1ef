/* SPDX-License-Identifier: BSD-3-Clause */
/* The private duplicate of a user's communicator, cached on it as an MPI
 * attribute so that later meshes on the same communicator do not pay for
 * another MPI_Comm_dup; released at MPI_Finalize through MPI_COMM_SELF's
 * attribute. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "agree.h"
#include "comm_mpi.h"
#include "error.h"
#include "fault.h"
#include "pcomm.h"

/* The private duplicate of one user communicator. One reference belongs to
 * the attribute on the user's communicator, one to each universe. */
struct dmesh_private_comm {
    MPI_Comm comm;
    MPI_Comm user; /* the user's handle, to delete the attribute at finalize */
    int refs;
    unsigned long universes;                /* universes made on it: the next one's identity */
    struct dmesh_private_comm *prev, *next; /* list of those still attached */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int comm_keyval = MPI_KEYVAL_INVALID;
static int finalize_keyval = MPI_KEYVAL_INVALID;
static dmesh_private_comm_t *attached; /* private comms still cached on a user comm */

void dmesh_private_comm_release(dmesh_private_comm_t *p)
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
    dmesh_private_comm_release(p);
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
    return rc == MPI_SUCCESS ? DMESH_SUCCESS
                             : dmesh_error_mpi(rc, "creating dmesh's attribute keys");
}

/* Collective over user: a new private duplicate, attached to user. Every
 * rank takes part in the duplication whatever failed before it, and the
 * ranks agree (over user: the duplicate may not exist everywhere) before
 * any of them keeps it. */
static int private_comm_make(MPI_Comm user, int err, dmesh_private_comm_t **out)
{
    dmesh_private_comm_t *p = err ? NULL : DMESH_FAULT_CALLOC(1, sizeof(*p));
    MPI_Comm c = MPI_COMM_NULL;
    int rc, attached_here = 0;

    if (err == DMESH_SUCCESS && p == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "private communicator: out of memory");
    rc = MPI_Comm_dup(user, &c);
    if (rc == MPI_SUCCESS && dmesh_fault(DMESH_FAULT_DUP))
        rc = MPI_ERR_INTERN;
    if (rc != MPI_SUCCESS && err == DMESH_SUCCESS)
        err = dmesh_error_mpi(rc, "MPI_Comm_dup of the user's communicator");
    if (err == DMESH_SUCCESS && (rc = dmesh_set_errhandler(c)) != MPI_SUCCESS)
        err = dmesh_error_mpi(rc, "MPI_Comm_set_errhandler");
    if (err == DMESH_SUCCESS) {
        p->comm = c;
        p->user = user;
        p->refs = 1;
        if ((rc = MPI_Comm_set_attr(user, comm_keyval, p)) != MPI_SUCCESS)
            err = dmesh_error_mpi(rc, "MPI_Comm_set_attr");
        else
            attached_here = 1;
    }
    if (attached_here) {
        pthread_mutex_lock(&lock);
        p->next = attached;
        if (attached)
            attached->prev = p;
        attached = p;
        pthread_mutex_unlock(&lock);
    }
    err = dmesh_agree(user, 0, err, "private duplicate of the communicator");
    if (err == DMESH_SUCCESS) {
        *out = p;
        return DMESH_SUCCESS;
    }
    if (attached_here) {
        MPI_Comm_delete_attr(user, comm_keyval); /* releases p and its duplicate */
        return err;
    }
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
    free(p);
    return err;
}

/* Collective over user: the private duplicate of user, with a reference for
 * the caller. Whether it exists is the same on every rank (its creation is
 * agreed), so only its creation communicates. */
int dmesh_private_comm_get(MPI_Comm user, dmesh_private_comm_t **out)
{
    dmesh_private_comm_t *p = NULL;
    int flag = 0, rc, err;

    err = keyvals_create();
    if (err == DMESH_SUCCESS &&
        (rc = MPI_Comm_get_attr(user, comm_keyval, &p, &flag)) != MPI_SUCCESS)
        err = dmesh_error_mpi(rc, "MPI_Comm_get_attr");
    if (!flag)
        DMESH_TRY(private_comm_make(user, err, &p));
    pthread_mutex_lock(&lock);
    p->refs++;
    pthread_mutex_unlock(&lock);
    *out = p;
    return DMESH_SUCCESS;
}

void dmesh_private_comm_retain(dmesh_private_comm_t *p)
{
    pthread_mutex_lock(&lock);
    p->refs++;
    pthread_mutex_unlock(&lock);
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
