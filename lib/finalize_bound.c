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
 * program's work is done when it calls MPI_Finalize. A program that goes
 * on after MPI_Finalize returned is left alone: MPI_Finalized tells, asked
 * from a thread of its own (Open MPI's waits for a lock that MPI_Finalize
 * holds while it runs, so one that does not answer within a second says
 * that MPI_Finalize is still running). */
#include "config.h"

#include "api_impl.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "finalize_bound.h"
#include "options.h"

static pthread_once_t arm_once = PTHREAD_ONCE_INIT;
static double bound;

/* 0: the probe has not returned; 1: MPI_Finalize is still running (or
 * has not started); 2: it has returned. */
static int probe_state;

/* MPI_Finalized, which Open MPI makes wait for a lock that MPI_Finalize
 * holds while it runs: a probe that does not return says as much. */
static void *probe(void *arg)
{
    int done = 0;

    (void)arg;
    if (MPI_Finalized(&done) != MPI_SUCCESS)
        done = 0;
    __atomic_store_n(&probe_state, done ? 2 : 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Whether MPI_Finalize has returned, asked from another thread and given
 * a second to answer. */
static int finalize_returned(void)
{
    struct timespec tick = {0, 10000000}; /* 10 ms */
    pthread_attr_t a;
    pthread_t t;
    int i, started = 0;

    if (pthread_attr_init(&a) != 0)
        return 0;
    if (pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) == 0)
        started = pthread_create(&t, &a, probe, NULL) == 0;
    pthread_attr_destroy(&a);
    for (i = 0; started && i < 100 && __atomic_load_n(&probe_state, __ATOMIC_ACQUIRE) == 0; i++)
        nanosleep(&tick, NULL);
    return __atomic_load_n(&probe_state, __ATOMIC_ACQUIRE) == 2;
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
    if (finalize_returned())
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
    if (bound > 0 &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &keyval, NULL) == MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL);
}

void dmesh_finalize_bound_arm(void)
{
    pthread_once(&arm_once, arm);
}
