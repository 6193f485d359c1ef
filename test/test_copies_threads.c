/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies under MPI_THREAD_MULTIPLE (the threads rule of dmesh.h's copies):
 * THREADS threads, each on a mesh of its own communicator (a duplicate of
 * MPI_COMM_WORLD), open, store, restore and free copies at once, many
 * times, with copies of 6 MiB (the large buffers and their spares are
 * process-wide) and of a few bytes; every restore gives the thread's own
 * bytes back. Meanwhile the main thread looks the handles up again and
 * again (dmesh_copies_get_partners on whatever handle a thread published,
 * which may be freed by then: a freed handle is DMESH_ERR_ARG, never a read
 * of freed memory). Skips (77) without MPI_THREAD_MULTIPLE. Run under
 * ThreadSanitizer or helgrind it shows the races of the process-wide
 * lists; run plain it fails when one of them breaks a list or a copy.
 *
 * Launched with fault tolerance (mpiexec --with-ft ulfm) the threads take
 * their collective calls in turns, in the same order on every process,
 * while the main thread's lookups stay concurrent: Open MPI 5.0.7's
 * MPIX_Comm_agree returns wrong flags with MPI_SUCCESS when several threads
 * agree at once on different communicators (test/trixie/agree-threads.c
 * shows it without dmesh), and every collective dmesh call agrees. The
 * user guide's threads section says so.
 *
 * Under Open MPI 6 the threads take their collective calls in turns too,
 * whatever the launch: with Open MPI 6.0.0rc2 (Debian 14), threads that
 * split, reduce and exchange on communicators of their own at once hang
 * now and then (every thread of every process waiting in MPI_Comm_split,
 * MPI_Allreduce or MPI_Waitall), without dmesh as with it:
 * test/trixie/threads-traffic.c, the calls this test makes through dmesh
 * and nothing else, hung in 4 runs of 50 at 4 ranks (2 cores shared), and
 * this test in 5 of 290; that program passed every run under Open MPI
 * 4.1.4 and 5.0.7. The user guide's threads section says so too. */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"
#include "ft_launch.h"

#define THREADS 3
#define ROUNDS 6
#define BIG ((size_t)6 << 20)

static int bad;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static dmesh_copies_t published[THREADS];
static MPI_Comm comms[THREADS]; /* made by the main thread: a dup is collective */
static int done_threads;

/* Turns (fault tolerance only): a thread's k-th collective section is turn
 * k * THREADS + t; every process takes them in that order. */
static int serial, turn;
static pthread_cond_t turn_cv = PTHREAD_COND_INITIALIZER;

static void turn_begin(int t, int k)
{
    pthread_mutex_lock(&lock);
    while (serial && turn != k * THREADS + t)
        pthread_cond_wait(&turn_cv, &lock);
    pthread_mutex_unlock(&lock);
}

static void turn_end(void)
{
    pthread_mutex_lock(&lock);
    turn++;
    pthread_cond_broadcast(&turn_cv);
    pthread_mutex_unlock(&lock);
}

static void fail(int t, const char *what, int rc)
{
    pthread_mutex_lock(&lock);
    fprintf(stderr, "test_copies_threads: thread %d: %s: %d (%s)\n", t, what, rc,
            dmesh_last_error());
    bad++;
    pthread_mutex_unlock(&lock);
}

static void *work(void *arg)
{
    int t = (int)(uintptr_t)arg, rank, rc, ver, size = 1;
    size_t bytes = t % 2 == 0 ? BIG : 64;
    unsigned char *buf = malloc(bytes);
    char name[32];
    MPI_Comm comm;
    dmesh_t mesh = DMESH_NULL;

    comm = comms[t];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    turn_begin(t, 0);
    if ((rc = dmesh_init(comm, "cpu", 1, &size, NULL, MPI_INFO_NULL, &mesh)) != DMESH_SUCCESS)
        fail(t, "dmesh_init", rc);
    turn_end();
    snprintf(name, sizeof(name), "thread%d", t);
    for (int r = 0; r < ROUNDS; r++) {
        dmesh_copies_t c = DMESH_COPIES_NULL;
        turn_begin(t, r + 1);
        if (mesh == DMESH_NULL) { /* failed: the turns go on */
            turn_end();
            continue;
        }
        if ((rc = dmesh_copies_open(mesh, name, MPI_INFO_NULL, &c)) != DMESH_SUCCESS) {
            fail(t, "open", rc);
            dmesh_free(&mesh);
            turn_end();
            continue;
        }
        pthread_mutex_lock(&lock);
        published[t] = c;
        pthread_mutex_unlock(&lock);
        memset(buf, (rank * 31 + t * 7 + r) & 0xff, bytes);
        dmesh_copies_add(c, 0, buf, (MPI_Count)bytes, MPI_BYTE);
        for (int v = 1; v <= 2; v++)
            if ((rc = dmesh_copies_store(c, v)) != DMESH_SUCCESS)
                fail(t, "store", rc);
        memset(buf, 0, bytes);
        if ((rc = dmesh_copies_restore(c, &ver)) != DMESH_SUCCESS || ver != 2)
            fail(t, "restore", rc);
        for (size_t i = 0; i < bytes; i += 4093)
            if (buf[i] != ((rank * 31 + t * 7 + r) & 0xff)) {
                fail(t, "restored bytes", (int)i);
                break;
            }
        if ((rc = dmesh_copies_free(&c)) != DMESH_SUCCESS)
            fail(t, "free", rc);
        turn_end();
    }
    turn_begin(t, ROUNDS + 1);
    dmesh_free(&mesh);
    MPI_Comm_free(&comm);
    turn_end();
    free(buf);
    pthread_mutex_lock(&lock);
    done_threads++;
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* Major version of the running Open MPI ("Open MPI v6.0.0rc2, ..."), or -1. */
static int openmpi_major(void)
{
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0, major = -1;

    if (MPI_Get_library_version(text, &len) != MPI_SUCCESS ||
        sscanf(text, "Open MPI v%d", &major) != 1)
        major = -1;
    return major;
}

int main(int argc, char **argv)
{
    pthread_t th[THREADS];
    int provided = 0, all = 0, finished = 0, lookups = 0;
    const char *turns; /* why the collective calls take turns, or NULL */
    char why[64] = "";

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("test_copies_threads: skipped: the MPI gives no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    turns = test_launched_ft() ? "fault tolerance" : openmpi_major() >= 6 ? "Open MPI 6" : NULL;
    serial = turns != NULL;
    if (serial)
        snprintf(why, sizeof(why), " (collective calls in turns: %s)", turns);
    for (int t = 0; t < THREADS; t++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
        MPI_Comm_set_errhandler(comms[t], MPI_ERRORS_RETURN);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, work, (void *)(uintptr_t)t);
    while (!finished) { /* handles looked up while threads free them */
        for (int t = 0; t < THREADS; t++) {
            dmesh_copies_t c;
            int n = 0, rc;
            pthread_mutex_lock(&lock);
            c = published[t];
            finished = done_threads == THREADS;
            pthread_mutex_unlock(&lock);
            rc = c == DMESH_COPIES_NULL ? DMESH_SUCCESS : dmesh_copies_get_partners(c, 0, NULL, &n);
            if (rc != DMESH_SUCCESS && rc != DMESH_ERR_ARG)
                fail(-1, "get_partners", rc);
            lookups++;
        }
        sched_yield();
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all == 0)
        printf("test_copies_threads: %d threads, %d rounds each%s, %d lookups: passed\n", THREADS,
               ROUNDS, why, lookups);
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
