/* SPDX-License-Identifier: BSD-3-Clause */
/* Errors raised on MPI error handlers (raise.h). A layered library does
 * what MPI does: its classes become MPI error classes with a code and a
 * string each (MPI_Add_error_class, _code, _string), registered at the
 * first failure that needs them, and a failing call hands its code to
 * MPI_Comm_call_errhandler of the communicator it concerns. The handler
 * decides: MPI_ERRORS_RETURN and a program's own handler return (the call
 * then returns its DMESH_ERR_* class), the fatal ones end the job, after
 * dmesh has written its detail to stderr. DMESH_ERRORS=return (read once)
 * turns raising off. Nothing here runs on the path of a call that
 * succeeds but a thread-local load. */
#include "config.h"

#include "api_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding.h"
#include "error.h"
#include "handle.h"
#include "mesh.h"
#include "raise.h"
#include "version.h"

/* DMESH_ERRORS: "comm" (the default) raises, "return" does not. */
static int raising = 1;
static pthread_once_t mode_once = PTHREAD_ONCE_INIT;

static void read_mode(void)
{
    const char *v = getenv("DMESH_ERRORS");

    raising = v == NULL || strcmp(v, "return") != 0;
}

/* Whether this thread may call MPI now: MPI initialised (world model) or,
 * in the sessions model, not finalised and holding the communicator we
 * raise on (need_world: the call is tied to no communicator, MPI_COMM_SELF
 * is needed); below MPI_THREAD_MULTIPLE, only the main thread (a local
 * query of another thread returns its class: measured, Open MPI 6 crashed
 * in MPI_Finalize after MPI calls of a second thread at
 * MPI_THREAD_FUNNELED); and the MPI dmesh was built for (a foreign one
 * would be handed handles it cannot read). */
static int mpi_open(int need_world)
{
    int initialized = 0, finalized = 0, level = MPI_THREAD_SINGLE, main_thread = 0;

    if (MPI_Finalized(&finalized) != MPI_SUCCESS || finalized)
        return 0;
    if (MPI_Initialized(&initialized) != MPI_SUCCESS || (!initialized && need_world))
        return 0;
    if (!dmesh_mpi_is_ours())
        return 0;
    if (!initialized) /* the sessions model: no thread level to ask for */
        return 1;
    if (MPI_Query_thread(&level) != MPI_SUCCESS)
        return 0;
    return level == MPI_THREAD_MULTIPLE ||
           (MPI_Is_thread_main(&main_thread) == MPI_SUCCESS && main_thread);
}

static int is_fatal(MPI_Errhandler eh)
{
#ifdef MPI_ERRORS_ABORT
    if (eh == MPI_ERRORS_ABORT)
        return 1;
#endif
    return eh == MPI_ERRORS_ARE_FATAL;
}

/* The rank of this process in MPI_COMM_WORLD, -1 without MPI_Init (the
 * sessions model): a call tied to no communicator names it. */
static int world_rank(void)
{
    int initialized = 0, rank = -1;

    if (MPI_Initialized(&initialized) == MPI_SUCCESS && initialized)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/* Before a fatal handler ends the job: what failed, where, and why; once
 * per job for an agreed outcome. Its writer (the lowest rank of the
 * agreement that failed, or its rank 0, whichever communicator the handler
 * is raised on) writes; the other ranks wait a moment before their
 * handler, so that the first abort cannot end the writer before its line. */
static void tell_fatal(MPI_Comm comm, int self, int err, const char *fn)
{
    const char *detail = dmesh_last_error_impl();
    char found[40] = "";
    size_t n = strlen(fn);
    int rank = -1, at = -1, skip = 0, writer = dmesh_error_writer();

    if (!self)
        MPI_Comm_rank(comm, &rank);
    if (!self && writer == 0) {
        struct timespec pause = {1, 0};
        nanosleep(&pause, NULL);
        return;
    }
    /* "rank R: fn: ..." (a collective call's agreed detail): said once */
    if (sscanf(detail, "rank %d: %n", &at, &skip) == 1 && skip > 0) {
        snprintf(found, sizeof(found), " (found on rank %d)", at);
        detail += skip;
    }
    if (strncmp(detail, fn, n) == 0 && detail[n] == ':')
        detail += detail[n + 1] == ' ' ? n + 2 : n + 1;
    if (self)
        rank = world_rank();
    if (!self)
        fprintf(stderr, "dmesh: %s failed on rank %d of its communicator%s: %s [%s]\n", fn, rank,
                found, detail, dmesh_error_string_impl(err));
    else if (rank >= 0)
        fprintf(stderr, "dmesh: %s failed on rank %d of MPI_COMM_WORLD: %s [%s]\n", fn, rank,
                detail, dmesh_error_string_impl(err));
    else
        fprintf(stderr, "dmesh: %s failed (process %ld): %s [%s]\n", fn, (long)getpid(), detail,
                dmesh_error_string_impl(err));
    fflush(stderr);
}

/* MPI_Comm_call_errhandler on comm, with the handler eh put there for the
 * call when it is not MPI_ERRHANDLER_NULL (dmesh's own duplicate of a
 * communicator the program freed, with that communicator's handler). */
static pthread_mutex_t borrow_lock = PTHREAD_MUTEX_INITIALIZER;

static void call_handler(MPI_Comm comm, MPI_Errhandler eh, int self, int err, const char *fn)
{
    MPI_Errhandler now = MPI_ERRHANDLER_NULL;
    int code, returns = 0;

    /* MPI_ERRORS_RETURN does nothing: not called (SimGrid's SMPI 3.32
     * crashes calling it), nor are the codes registered for it */
    if (eh == MPI_ERRORS_RETURN)
        return;
    if (eh == MPI_ERRHANDLER_NULL && MPI_Comm_get_errhandler(comm, &now) == MPI_SUCCESS) {
        returns = now == MPI_ERRORS_RETURN;
        if (is_fatal(now))
            tell_fatal(comm, self, err, fn);
        MPI_Errhandler_free(&now);
    }
    if (returns)
        return;
    code = dmesh_error_code(err);
    if (eh != MPI_ERRHANDLER_NULL) {
        pthread_mutex_lock(&borrow_lock);
        if (is_fatal(eh))
            tell_fatal(comm, self, err, fn);
        if (MPI_Comm_set_errhandler(comm, eh) == MPI_SUCCESS) {
            MPI_Comm_call_errhandler(comm, code);
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        }
        pthread_mutex_unlock(&borrow_lock);
        return;
    }
    MPI_Comm_call_errhandler(comm, code);
}

/* Every entry point's return: the binding's rejection (if unused) goes. */
static int should_raise(int err)
{
    dmesh_error_reject_drop();
    if (err == DMESH_SUCCESS || dmesh_error_quieted())
        return 0;
    pthread_once(&mode_once, read_mode);
    return raising;
}

/* err, decided to be raised, on comm's handler (MPI_COMM_NULL: on
 * MPI_COMM_SELF's) where MPI may be called. */
static int raise_on(int err, MPI_Comm comm, const char *fn)
{
    int self = comm == MPI_COMM_NULL;

    if (mpi_open(self))
        call_handler(self ? MPI_COMM_SELF : comm, MPI_ERRHANDLER_NULL, self, err, fn);
    else if (!dmesh_mpi_is_ours()) /* no handler to trust: the detail is not lost */
        fprintf(stderr,
                "dmesh: %s failed (process %ld, not raised: the MPI running is not the one "
                "dmesh was built for): %s [%s]\n",
                fn, (long)getpid(), dmesh_last_error_impl(), dmesh_error_string_impl(err));
    return err;
}

int dmesh_raise_on_comm(int err, MPI_Comm comm, const char *fn)
{
    if (err == DMESH_SUCCESS && !dmesh_error_rejected())
        return err;
    return should_raise(err) ? raise_on(err, comm, fn) : err;
}

int dmesh_raise_on_mesh(int err, dmesh_t mesh, const char *fn)
{
    struct dmesh_mesh *m;
    MPI_Comm user;

    if (err == DMESH_SUCCESS && !dmesh_error_rejected())
        return err;
    if (!should_raise(err))
        return err;
    /* A freed or invalid handle (no mesh): MPI_COMM_SELF's handler. */
    m = dmesh_handle_mesh(mesh);
    user = m != NULL ? dmesh_universe_user_comm(m->u) : MPI_COMM_NULL;
    if (m == NULL || user != MPI_COMM_NULL)
        return raise_on(err, user, fn);
    /* The program freed the communicator: its handler (kept by the
     * universe) on dmesh's duplicate of it. */
    if (mpi_open(0) && dmesh_universe_errhandler(m->u) != MPI_ERRHANDLER_NULL)
        call_handler(dmesh_universe_comm(m->u), dmesh_universe_errhandler(m->u), 0, err, fn);
    else
        raise_on(err, MPI_COMM_NULL, fn);
    return err;
}

int dmesh_x_binding_reject(int err, const char *detail)
{
    return dmesh_error_reject(err, detail);
}

int dmesh_x_binding_raise(dmesh_t mesh, int err, const char *detail)
{
    char fn[64] = "dmesh";
    size_t n;

    if (detail == NULL)
        detail = "";
    n = strcspn(detail, ":");
    if (detail[n] == ':' && n < sizeof(fn))
        snprintf(fn, sizeof(fn), "%.*s", (int)n, detail);
    dmesh_error_set(err, "%s", detail);
    return dmesh_raise_on_mesh(err, mesh, fn);
}

void dmesh_x_binding_quiet(int on)
{
    dmesh_error_quiet(on);
}
