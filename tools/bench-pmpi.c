/* SPDX-License-Identifier: BSD-3-Clause */
/* PMPI wrappers of the MPI calls that mesh creation makes. libdmesh_core is
 * linked statically into dmesh-bench, so the library's calls land here; with
 * --profile, the time spent in each is added to the current case's bucket,
 * which splits a dmesh_init into MPI work and dmesh's own work. Outside a
 * profiled region a wrapper costs one branch. */
#include "config.h"

#include "bench.h"

int bench_prof_case = -1;
double bench_prof_time[BENCH_MAX_CASES][PROF_N];

const char *const bench_prof_names[PROF_N] = {
    "MPI_Comm_split", "MPI_Comm_create", "MPI_Comm_create_group", "MPI_Comm_group/Group_incl/free",
    "MPI_Comm_dup",   "MPI_Allreduce",   "MPI_Comm_get/set_attr", "MPI_Comm_set_errhandler",
    "MPI_Info_get*",  "MPI_Comm_free"};

static double prof_start(void)
{
    return bench_prof_case >= 0 ? PMPI_Wtime() : 0.0;
}

static void prof_stop(int fn, double t0)
{
    if (bench_prof_case >= 0)
        bench_prof_time[bench_prof_case][fn] += PMPI_Wtime() - t0;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    double t0 = prof_start();
    int rc = PMPI_Comm_split(comm, color, key, newcomm);

    prof_stop(PROF_SPLIT, t0);
    return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    double t0 = prof_start();
    int rc = PMPI_Comm_create(comm, group, newcomm);

    prof_stop(PROF_CREATE, t0);
    return rc;
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    double t0 = prof_start();
    int rc = PMPI_Comm_create_group(comm, group, tag, newcomm);

    prof_stop(PROF_CREATE_GROUP, t0);
    return rc;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    double t0 = prof_start();
    int rc = PMPI_Comm_group(comm, group);

    prof_stop(PROF_GROUP, t0);
    return rc;
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    double t0 = prof_start();
    int rc = PMPI_Group_incl(group, n, ranks, newgroup);

    prof_stop(PROF_GROUP, t0);
    return rc;
}

int MPI_Group_free(MPI_Group *group)
{
    double t0 = prof_start();
    int rc = PMPI_Group_free(group);

    prof_stop(PROF_GROUP, t0);
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    double t0 = prof_start();
    int rc = PMPI_Comm_dup(comm, newcomm);

    prof_stop(PROF_DUP, t0);
    return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    double t0 = prof_start();
    int rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);

    prof_stop(PROF_ALLREDUCE, t0);
    return rc;
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
    double t0 = prof_start();
    int rc = PMPI_Comm_get_attr(comm, keyval, value, flag);

    prof_stop(PROF_ATTR, t0);
    return rc;
}

int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value)
{
    double t0 = prof_start();
    int rc = PMPI_Comm_set_attr(comm, keyval, value);

    prof_stop(PROF_ATTR, t0);
    return rc;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    double t0 = prof_start();
    int rc = PMPI_Comm_set_errhandler(comm, errhandler);

    prof_stop(PROF_ERRHANDLER, t0);
    return rc;
}

int MPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    double t0 = prof_start();
    int rc = PMPI_Info_get_nkeys(info, nkeys);

    prof_stop(PROF_INFO, t0);
    return rc;
}

int MPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    double t0 = prof_start();
    int rc = PMPI_Info_get_nthkey(info, n, key);

    prof_stop(PROF_INFO, t0);
    return rc;
}

int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    double t0 = prof_start();
    int rc = PMPI_Info_get(info, key, valuelen, value, flag);

    prof_stop(PROF_INFO, t0);
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    double t0 = prof_start();
    int rc = PMPI_Comm_free(comm);

    prof_stop(PROF_FREE, t0);
    return rc;
}
