/* SPDX-License-Identifier: BSD-3-Clause */
/* A bound on MPI_Finalize in a process that lived through a repair
 * (dmesh_shrink, dmesh_respawn, dmesh_join). Open MPI 5.0.7's MPI_Finalize
 * may not return after a process of the launch died: its fence over the
 * launch waits for the dead one too (doc/user-guide.md, "The end of the
 * job"). Once such a process has a repaired mesh, an attribute on
 * MPI_COMM_SELF (whose delete callback MPI_Finalize runs first) starts a
 * thread that waits DMESH_FINALIZE_BOUND seconds (default 60; 0 or "off":
 * never) and, if MPI_Finalize has not returned by then, says so on stderr,
 * flushes the program's streams and ends the process with status 0: the
 * program's work is done when it calls MPI_Finalize. The process is left
 * alone once it exits (an atexit handler says so). MPI_Finalized cannot
 * tell: Open MPI 5's says yes from the start of MPI_Finalize, Open MPI 4's
 * waits for a lock that MPI_Finalize holds. A program that works on after
 * MPI_Finalize for longer than the bound is ended too: it sets
 * DMESH_FINALIZE_BOUND=off (or a longer bound). */
#include "config.h"

#include "api_impl.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "finalize_bound.h"
#include "options.h"

static pthread_once_t arm_once = PTHREAD_ONCE_INIT;
static double bound;

/* Set when the process exits (atexit): MPI_Finalize has returned. */
static int exiting;

static void at_exit(void)
{
    __atomic_store_n(&exiting, 1, __ATOMIC_RELEASE);
}

static void *watch(void *arg)
{
    static const char msg[] = "dmesh: MPI_Finalize did not return within DMESH_FINALIZE_BOUND "
                              "after a repair: the process ends (status 0)\n";
    struct timespec t;
    ssize_t w;

    (void)arg;
    t.tv_sec = (time_t)bound;
    t.tv_nsec = (long)((bound - (double)t.tv_sec) * 1e9);
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
    if (__atomic_load_n(&exiting, __ATOMIC_ACQUIRE))
        return NULL;
    w = write(2, msg, sizeof(msg) - 1);
    (void)w;
    fflush(NULL);
    _exit(0);
}

static int on_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    pthread_attr_t a;
    pthread_t t;

    (void)comm;
    (void)keyval;
    (void)value;
    (void)extra;
    if (bound > 0 && pthread_attr_init(&a) == 0) {
        if (pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) == 0)
            (void)pthread_create(&t, &a, watch, NULL);
        pthread_attr_destroy(&a);
    }
    return MPI_SUCCESS;
}

static void arm(void)
{
    int keyval = MPI_KEYVAL_INVALID;

    bound = dmesh_options_finalize_bound();
    if (bound > 0 && atexit(at_exit) == 0 &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &keyval, NULL) == MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL);
}

void dmesh_finalize_bound_arm(void)
{
    pthread_once(&arm_once, arm);
}
