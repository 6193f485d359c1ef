/* SPDX-License-Identifier: BSD-3-Clause */
/* A PMPI interposer for tests only (loaded with LD_PRELOAD by
 * test/node-double.sh, never linked into libdmesh): it gives any MPI the
 * node layouts that dmesh's node finding must see through.
 *
 *   DMESH_TEST_SPLIT_ONE=1       MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)
 *                                returns one-process splits, as MPICH 5
 *                                built for ch4:ucx does on one host
 *   DMESH_TEST_FAKE_HOSTS=a,a,b  the host of MPI_COMM_WORLD rank r is the
 *                                r-th name (the list repeats past its end):
 *                                MPI_Get_processor_name reports it, and the
 *                                shared split (without DMESH_TEST_SPLIT_ONE)
 *                                groups the ranks by it
 *
 * Like the real calls, the split is collective over its communicator (it is
 * an MPI_Comm_split), orders each split by key, then by rank, and fails
 * where MPI_Comm_split fails; other split types go to the MPI. */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define MAX_HOSTS 1024

/* The fake host of MPI_COMM_WORLD rank r (copied into name, at most len
 * bytes with the NUL) and its index: the first position of that name in the
 * list. -1 when no list is set. */
static int fake_host(int r, char *name, size_t len)
{
    const char *list = getenv("DMESH_TEST_FAKE_HOSTS"), *p = list, *start[MAX_HOSTS];
    size_t size[MAX_HOSTS], k;
    int n = 0, at, first;

    if (list == NULL || *list == '\0')
        return -1;
    while (n < MAX_HOSTS) { /* the entries between commas */
        start[n] = p;
        size[n] = strcspn(p, ",");
        p += size[n++];
        if (*p++ == '\0')
            break;
    }
    at = r % n;
    for (first = 0; first < at; first++)
        if (size[first] == size[at] && strncmp(start[first], start[at], size[at]) == 0)
            break;
    k = size[at] < len ? size[at] : len - 1;
    memcpy(name, start[at], k);
    name[k] = '\0';
    return first;
}

static int world_rank(void)
{
    int r = 0;

    PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    const char *one = getenv("DMESH_TEST_SPLIT_ONE");
    int r, host;

    if (split_type != MPI_COMM_TYPE_SHARED)
        return PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
    r = world_rank();
    host = fake_host(r, name, sizeof(name));
    if (one != NULL && strcmp(one, "0") != 0)
        return PMPI_Comm_split(comm, r, key, newcomm);
    if (host >= 0)
        return PMPI_Comm_split(comm, host, key, newcomm);
    return PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
    char fake[MPI_MAX_PROCESSOR_NAME];

    if (fake_host(world_rank(), fake, sizeof(fake)) < 0)
        return PMPI_Get_processor_name(name, resultlen);
    strcpy(name, fake);
    *resultlen = (int)strlen(fake);
    return MPI_SUCCESS;
}
