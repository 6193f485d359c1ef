/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Finalize's work: MPI_Finalize deletes MPI_COMM_SELF's attributes
 * first, and the deletion of dmesh's reports the meshes the program never
 * freed (DMESH_DEBUG) and releases the private duplicates still cached on
 * user communicators (pcomm.c). It sits above the meshes, which it reads,
 * so that nothing below them (pcomm.c, the universe) calls up to them. */
#include "config.h"

#include "api_impl.h"

#include <pthread.h>
#include <stdio.h>

#include "error.h"
#include "finalize.h"
#include "handle.h"
#include "mesh.h"
#include "pcomm.h"
#include "universe.h"
#include "universe_comms.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int finalize_keyval = MPI_KEYVAL_INVALID;
static int finalize_hooked; /* MPI_COMM_SELF carries finalize_keyval */

/* One unfreed mesh of a printing universe: counted (arg: a count), or
 * written (arg: NULL). */
static void unfreed(struct dmesh_mesh *m, const char *made_by, void *arg)
{
    char text[200];
    size_t needed = 0;

    if (!dmesh_universe_debugging(m->u))
        return;
    if (arg != NULL) {
        (*(int *)arg)++;
        return;
    }
    if (dmesh_to_string_impl(m->handle, text, sizeof(text), &needed) != DMESH_SUCCESS)
        snprintf(text, sizeof(text), "?");
    dmesh_universe_debug(m->u, "  made by %s: %s%s", made_by != NULL ? made_by : "?", text,
                         needed >= sizeof(text) ? "..." : "");
}

/* Under DMESH_DEBUG, on the printing rank of each universe (its rank 0):
 * how many meshes the program never freed, and the call that made each
 * with the mesh (stderr). */
static void report_unfreed(void)
{
    int n = 0;

    dmesh_handle_each(unfreed, &n);
    if (n == 0)
        return;
    fprintf(stderr, "dmesh: at MPI_Finalize, %d mesh%s never freed (dmesh_free):\n", n,
            n == 1 ? "" : "es");
    dmesh_handle_each(unfreed, NULL);
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: report, release
 * every private duplicate still cached on a user communicator, then the
 * keyvals, unless the MPI refused the calls that needs (pcomm.h). */
static int finalize_attr_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)value;
    (void)extra;
    report_unfreed(); /* DMESH_DEBUG: the meshes the program kept */
    if (dmesh_private_comm_release_attached()) {
        MPI_Comm_free_keyval(&finalize_keyval);
        finalize_hooked = 0;
    }
    return MPI_SUCCESS;
}

/* The finalize hook needs MPI_COMM_SELF, which exists only in the world
 * model (after MPI_Init). A program of the sessions model (MPI-4:
 * MPI_Session_init, a communicator from MPI_Comm_create_from_group, no
 * MPI_Init) has none: calling MPI_Comm_set_attr on it is an error that the
 * MPI may treat as fatal. There the duplicates are released when their
 * user communicator is freed (which MPI_Session_finalize requires of the
 * program); the hook is set at the first creation after MPI_Init, if the
 * program ever calls it. */
static int hook(void)
{
    int initialized = 0, finalized = 0, rc;

    if (finalize_hooked || MPI_Initialized(&initialized) != MPI_SUCCESS || !initialized ||
        MPI_Finalized(&finalized) != MPI_SUCCESS || finalized)
        return MPI_SUCCESS;
    if (finalize_keyval == MPI_KEYVAL_INVALID &&
        (rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_attr_delete, &finalize_keyval,
                                     NULL)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL)) == MPI_SUCCESS)
        finalize_hooked = 1;
    return rc;
}

int dmesh_finalize_hook(void)
{
    int rc;

    pthread_mutex_lock(&lock);
    rc = hook();
    pthread_mutex_unlock(&lock);
    return rc == MPI_SUCCESS ? DMESH_SUCCESS
                             : dmesh_error_mpi(rc, "creating dmesh's attribute keys");
}
