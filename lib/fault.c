/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault injection (configure --enable-fault-injection only): see fault.h.
 * The specification is read again whenever DMESH_FAULT changes, which
 * resets the call counters, so that a test arms one fault with setenv. */
#include "config.h"

#include "api_impl.h"

#ifdef DMESH_FAULT_INJECTION /* listed in test programs unconditionally */

#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmesh.h"
#include "fault.h"

#define MAX_FAULTS 16

static const char *const site_names[DMESH_FAULT_NSITES] = {
    "dup",   "split",     "create_group", "errhandler", "nccl_init", "nccl_hang", "set_device",
    "hwloc", "allgather", "malloc",       "cart",       "gpu_lib",   "group",     "colour",
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char spec[512];
static struct {
    int site, nth;
} faults[MAX_FAULTS];
static int nfaults;
static long calls[DMESH_FAULT_NSITES];
static long hits;

static int site_index(const char *name, size_t len)
{
    for (int s = 0; s < DMESH_FAULT_NSITES; s++)
        if (strlen(site_names[s]) == len && strncmp(site_names[s], name, len) == 0)
            return s;
    return -1;
}

/* Keep the entries of text that name this process's rank. */
static void parse(const char *text)
{
    char copy[sizeof(spec)], *save = NULL, *item;
    int rank = -1, flag = 0;

    MPI_Initialized(&flag);
    if (flag)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(copy, sizeof(copy), "%s", text);
    nfaults = 0;
    for (item = strtok_r(copy, ",", &save); item && nfaults < MAX_FAULTS;
         item = strtok_r(NULL, ",", &save)) {
        char *c1 = strchr(item, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        int site = c1 ? site_index(item, (size_t)(c1 - item)) : -1;
        if (site < 0 || c2 == NULL)
            continue;
        if (c1[1] != '*' && atoi(c1 + 1) != rank)
            continue;
        faults[nfaults].site = site;
        faults[nfaults++].nth = atoi(c2 + 1);
    }
}

/* With the lock held: a changed DMESH_FAULT is parsed, counters reset. */
static void refresh(void)
{
    const char *text = getenv("DMESH_FAULT");

    if (text == NULL)
        text = "";
    if (strcmp(text, spec) == 0)
        return;
    snprintf(spec, sizeof(spec), "%s", text);
    memset(calls, 0, sizeof(calls));
    hits = 0;
    parse(spec);
}

/* DMESH_FAULT_KILL: the step at which this process dies (0: none), and
 * the steps since the variable last changed. */
static char kill_spec[64];
static long kill_at, steps;

/* With the lock held: a changed DMESH_FAULT_KILL is parsed, steps reset. */
static void refresh_kill(void)
{
    const char *text = getenv("DMESH_FAULT_KILL");
    int rank = -1, flag = 0;
    const char *colon;

    if (text == NULL)
        text = "";
    if (strcmp(text, kill_spec) == 0)
        return;
    snprintf(kill_spec, sizeof(kill_spec), "%s", text);
    steps = 0;
    kill_at = 0;
    MPI_Initialized(&flag);
    if (flag)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if ((colon = strchr(kill_spec, ':')) != NULL && atoi(kill_spec) == rank)
        kill_at = atol(colon + 1);
}

void dmesh_fault_step(void)
{
    int die;

    pthread_mutex_lock(&lock);
    refresh_kill();
    steps++;
    die = kill_at > 0 && steps == kill_at;
    pthread_mutex_unlock(&lock);
    if (die)
        raise(SIGKILL);
}

/* Test builds only: the steps this process took since DMESH_FAULT_KILL
 * last changed (declared by the tests themselves). */
DMESH_EXPORT long dmesh_fault_steps(void);
DMESH_EXPORT long dmesh_fault_steps(void)
{
    long n;

    pthread_mutex_lock(&lock);
    refresh_kill();
    n = steps;
    pthread_mutex_unlock(&lock);
    return n;
}

int dmesh_fault(int site)
{
    int fail = 0;

    dmesh_fault_step();
    pthread_mutex_lock(&lock);
    refresh();
    calls[site]++;
    for (int i = 0; i < nfaults; i++)
        if (faults[i].site == site && faults[i].nth == calls[site])
            fail = 1;
    hits += fail;
    pthread_mutex_unlock(&lock);
    return fail;
}

/* Test builds only: how many faults were injected into this process since
 * DMESH_FAULT last changed (declared by the tests themselves). */
DMESH_EXPORT long dmesh_fault_hits(void);
DMESH_EXPORT long dmesh_fault_hits(void)
{
    long n;

    pthread_mutex_lock(&lock);
    refresh();
    n = hits;
    pthread_mutex_unlock(&lock);
    return n;
}

void *dmesh_fault_malloc(size_t n)
{
    return dmesh_fault(DMESH_FAULT_MALLOC) ? NULL : malloc(n);
}

void *dmesh_fault_calloc(size_t n, size_t size)
{
    return dmesh_fault(DMESH_FAULT_MALLOC) ? NULL : calloc(n, size);
}

void *dmesh_fault_realloc(void *p, size_t n)
{
    return dmesh_fault(DMESH_FAULT_MALLOC) ? NULL : realloc(p, n);
}

#endif /* DMESH_FAULT_INJECTION */
