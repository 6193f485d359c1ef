/* SPDX-License-Identifier: BSD-3-Clause */
/* The ground floor of lib/: owns the MPI's fault tolerance (ulfm.h). The
 * one file that includes <mpi-ext.h>: the extension's calls are behind the
 * functions below, so that a build without it compiles the same callers. */
#include "config.h"

#include "api_impl.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "ulfm.h"

/* Under fault tolerance Open MPI 5.0.7 writes to dead peers: a revocation
 * travels by a reliable broadcast whose messages go to every neighbour, the
 * dead included, and its TCP transport writes them with writev, which
 * raises SIGPIPE on a socket the dead peer's end closed. At the default
 * disposition that ends the writer, a survivor (measured: survivors of a
 * respawn exiting with status 141, the signal raised in
 * mca_btl_tcp_frag_send under ompi_comm_rbcast_send_msg, and every other
 * survivor then hung in MPIX_Comm_shrink). Caught by a handler that does
 * nothing, the write fails with EPIPE, which the MPI takes as the peer's
 * failure. Caught, not ignored: an ignored signal stays ignored across
 * exec, so every program the process starts (system, popen, fork and exec)
 * would run with SIGPIPE ignored, and the writer of a pipeline there
 * would get EPIPE (an error message, or a loop that never ends) instead of
 * the signal that ends it when its reader exits; a caught signal goes back
 * to its default at exec. SA_RESTART: where the signal comes from
 * outside, the call it interrupts goes on. A program's own choice (a
 * handler, or the signal ignored already) is kept: only the default
 * disposition changes. Outside the #if: every build has it, for the
 * tests. */
static void sigpipe_caught(int sig)
{
    (void)sig;
}

void dmesh_ulfm_catch_sigpipe(void)
{
    struct sigaction old, caught;

    if (sigaction(SIGPIPE, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
        old.sa_handler != SIG_DFL)
        return;
    memset(&caught, 0, sizeof(caught));
    caught.sa_handler = sigpipe_caught;
    caught.sa_flags = SA_RESTART;
    sigemptyset(&caught.sa_mask);
    sigaction(SIGPIPE, &caught, NULL);
}

#if DMESH_HAVE_ULFM

#include <mpi-ext.h>

/* -1 not known yet, else 0 / 1: a property of the launch, the same for
 * every communicator of the process. */
static atomic_int enabled = -1;

int dmesh_ulfm_built(void)
{
    return 1;
}

int dmesh_ulfm_enabled(MPI_Comm comm)
{
    int on = atomic_load_explicit(&enabled, memory_order_relaxed), flag = 0, world = 0;
    int *value = NULL;

    if (on >= 0)
        return on;
    /* MPIX_FT is a predefined attribute, read-only. Open MPI 5.0 sets it
     * on MPI_COMM_WORLD only (measured: a duplicate and MPI_COMM_SELF do not
     * carry it), so where comm does not, the one read of MPI_COMM_WORLD in
     * the library: an attribute query, never communication on it. */
    if (comm != MPI_COMM_NULL && MPI_Comm_get_attr(comm, MPIX_FT, &value, &flag) != MPI_SUCCESS)
        flag = 0;
    if (!flag && (MPI_Initialized(&world) != MPI_SUCCESS || !world))
        world = 0; /* the sessions model only: no MPI_COMM_WORLD to ask */
    if (!flag && world && MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_FT, &value, &flag) != MPI_SUCCESS)
        flag = 0;
    on = flag && value != NULL && *value != 0;
    if (on)
        dmesh_ulfm_catch_sigpipe();
    atomic_store_explicit(&enabled, on, memory_order_relaxed);
    return on;
}

void dmesh_ulfm_set_enabled(int on)
{
    atomic_store_explicit(&enabled, on ? -1 : 0, memory_order_relaxed);
}

int dmesh_ulfm_is_failure(int mpi_err)
{
    int cls = mpi_err;

    if (mpi_err == MPI_SUCCESS)
        return 0;
    if (MPI_Error_class(mpi_err, &cls) != MPI_SUCCESS)
        cls = mpi_err;
    return cls == MPIX_ERR_PROC_FAILED || cls == MPIX_ERR_PROC_FAILED_PENDING ||
           cls == MPIX_ERR_REVOKED;
}

int dmesh_ulfm_revoke(MPI_Comm comm)
{
    return MPIX_Comm_revoke(comm);
}

int dmesh_ulfm_agree(MPI_Comm comm, int *flag)
{
    return MPIX_Comm_agree(comm, flag);
}

int dmesh_ulfm_shrink(MPI_Comm comm, MPI_Comm *survivors)
{
    return MPIX_Comm_shrink(comm, survivors);
}

int dmesh_ulfm_is_revoked(MPI_Comm comm, int *flag)
{
    return MPIX_Comm_is_revoked(comm, flag);
}

int dmesh_ulfm_get_failed(MPI_Comm comm, MPI_Group *failed)
{
    return MPIX_Comm_get_failed(comm, failed);
}

const char *dmesh_ulfm_how(void)
{
    return "run under mpiexec --with-ft ulfm (Open MPI 5 and 6)";
}

#else /* no extension: fault tolerance is off */

int dmesh_ulfm_built(void)
{
    return 0;
}

int dmesh_ulfm_enabled(MPI_Comm comm)
{
    (void)comm;
    return 0;
}

void dmesh_ulfm_set_enabled(int on)
{
    (void)on;
}

int dmesh_ulfm_is_failure(int mpi_err)
{
    (void)mpi_err;
    return 0;
}

int dmesh_ulfm_revoke(MPI_Comm comm)
{
    (void)comm;
    return MPI_ERR_OTHER;
}

int dmesh_ulfm_agree(MPI_Comm comm, int *flag)
{
    (void)comm;
    (void)flag;
    return MPI_ERR_OTHER;
}

int dmesh_ulfm_shrink(MPI_Comm comm, MPI_Comm *survivors)
{
    (void)comm;
    (void)survivors;
    return MPI_ERR_OTHER;
}

int dmesh_ulfm_is_revoked(MPI_Comm comm, int *flag)
{
    (void)comm;
    *flag = 0;
    return MPI_SUCCESS;
}

int dmesh_ulfm_get_failed(MPI_Comm comm, MPI_Group *failed)
{
    (void)comm;
    (void)failed;
    return MPI_ERR_OTHER;
}

const char *dmesh_ulfm_how(void)
{
#ifdef DMESH_MPI_ABI
    return "this dmesh was built against the MPI-5 standard ABI, which has no fault-tolerance "
           "extension: build it with Open MPI 5 or 6 itself (mpi-ext.h ftmpi, not "
           "--with-mpi-abi) and run under mpiexec --with-ft ulfm";
#else
    return "this dmesh was built with an MPI without the ULFM extension: rebuild it with "
           "Open MPI 5 or 6 (mpi-ext.h ftmpi) and run under mpiexec --with-ft ulfm";
#endif
}

#endif /* DMESH_HAVE_ULFM */
