/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicators handed to the program (handout.h).
 *
 * MPI's own constructors give their result the error handler of their
 * parent (MPI_Comm_split, MPI_Cart_sub): a ported code that relies on the
 * default MPI_ERRORS_ARE_FATAL must not go on silently after an error on a
 * dmesh communicator. dmesh itself works with MPI_ERRORS_RETURN, so the
 * program's handler is set when a communicator is first handed out, and
 * dmesh's own later calls on it switch to MPI_ERRORS_RETURN around them.
 *
 * The handles are borrowed: a program that frees one (a port that kept its
 * MPI_Comm_free of an MPI_Cart_sub result) would make dmesh free it again
 * at dmesh_free, and the MPI would then report an invalid communicator
 * that names neither dmesh nor the cause. The attribute's delete callback
 * runs in that MPI_Comm_free: dmesh remembers it, never touches the handle
 * again, and says so in the next call that meets it. */
#include "config.h"

#include "api_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "handout.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int keyval = MPI_KEYVAL_INVALID;

static int handout_delete(MPI_Comm comm, int key, void *value, void *extra)
{
    dmesh_handout_t *h = value;

    (void)comm;
    (void)key;
    (void)extra;
    if (h->releasing)
        return MPI_SUCCESS;
    __atomic_store_n(&h->freed, 1, __ATOMIC_RELEASE);
    if (h->debug)
        fprintf(stderr,
                "dmesh: the program freed %s (MPI_Comm_free of a borrowed handle): dmesh will "
                "not free it again, and calls that need it fail\n",
                h->what);
    return MPI_SUCCESS;
}

/* The attribute key lives as long as the process: the communicators that
 * carry it may outlive any universe. */
static int handout_set(dmesh_handout_t *h, MPI_Comm c, MPI_Errhandler eh)
{
    int rc = MPI_SUCCESS;

    if (keyval == MPI_KEYVAL_INVALID)
        rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, handout_delete, &keyval, NULL);
    if (rc == MPI_SUCCESS && eh != MPI_ERRHANDLER_NULL)
        rc = MPI_Comm_set_errhandler(c, eh);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_attr(c, keyval, h);
    if (rc != MPI_SUCCESS && eh != MPI_ERRHANDLER_NULL)
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return rc;
}

int dmesh_handout_attach(dmesh_handout_t **h, MPI_Comm c, MPI_Errhandler eh, const char *what,
                         int debug)
{
    dmesh_handout_t *n;
    int rc = MPI_SUCCESS;

    if (__atomic_load_n(h, __ATOMIC_ACQUIRE) != NULL)
        return DMESH_SUCCESS;
    if ((n = calloc(1, sizeof(*n))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "handing out a communicator: out of memory");
    n->debug = debug;
    snprintf(n->what, sizeof(n->what), "%s", what);
    pthread_mutex_lock(&lock);
    if (*h == NULL && (rc = handout_set(n, c, eh)) == MPI_SUCCESS) {
        __atomic_store_n(h, n, __ATOMIC_RELEASE);
        n = NULL;
    }
    pthread_mutex_unlock(&lock);
    free(n); /* another thread was first, or it failed */
    return rc == MPI_SUCCESS ? DMESH_SUCCESS
                             : dmesh_error_mpi(rc, "handing out a communicator (its error "
                                                   "handler and attribute)");
}

int dmesh_handout_check(const dmesh_handout_t *h, const char *fn)
{
    if (!dmesh_handout_freed(h))
        return DMESH_SUCCESS;
    return dmesh_error_set(DMESH_ERR_ARG,
                           "%s: the program freed %s with MPI_Comm_free, but dmesh owns it "
                           "(borrowed handle): do not free communicators from dmesh_get_comm "
                           "or dmesh_get_cart_comm; dmesh_free the meshes instead",
                           fn, h->what);
}

int dmesh_handout_own_begin(const dmesh_handout_t *h, MPI_Comm c)
{
    int rc;

    if (h == NULL || c == MPI_COMM_NULL)
        return DMESH_SUCCESS;
    DMESH_TRY(dmesh_handout_check(h, "dmesh"));
    rc = MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return rc == MPI_SUCCESS ? DMESH_SUCCESS : dmesh_error_mpi(rc, "MPI_Comm_set_errhandler");
}

int dmesh_handout_own_end(const dmesh_handout_t *h, MPI_Comm c, MPI_Errhandler eh)
{
    int rc;

    if (h == NULL || c == MPI_COMM_NULL || eh == MPI_ERRHANDLER_NULL ||
        __atomic_load_n(&h->freed, __ATOMIC_ACQUIRE))
        return DMESH_SUCCESS;
    rc = MPI_Comm_set_errhandler(c, eh);
    return rc == MPI_SUCCESS ? DMESH_SUCCESS : dmesh_error_mpi(rc, "MPI_Comm_set_errhandler");
}

void dmesh_handout_free(dmesh_handout_t *h, MPI_Comm *c)
{
    if (h != NULL && __atomic_load_n(&h->freed, __ATOMIC_ACQUIRE))
        *c = MPI_COMM_NULL; /* not ours to free any more */
    if (h != NULL)
        h->releasing = 1;
    if (*c != MPI_COMM_NULL)
        MPI_Comm_free(c);
    free(h);
}
