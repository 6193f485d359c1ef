/* SPDX-License-Identifier: BSD-3-Clause */
/* host_loss_mpi: what Open MPI 5 does when a host dies, without dmesh
 * (test/hosts/host-loss-mpi.sh runs it). Rank 0 runs $KILL_CMD (kill-host:
 * every process of h2, or its ranks only), the survivors revoke, shrink and
 * start one process per dead one with MPI_Comm_spawn, info host=$SPAWN_HOST,
 * merge, and print each process's host. Run under mpiexec --with-ft ulfm. */
#include <mpi.h>
#include <mpi-ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void show(MPI_Comm m, const char *who)
{
    char h[64] = {0}, *all;
    int r, n;
    MPI_Comm_rank(m, &r);
    MPI_Comm_size(m, &n);
    gethostname(h, sizeof(h));
    all = calloc((size_t)n, 64);
    MPI_Gather(h, 64, MPI_CHAR, all, 64, MPI_CHAR, 0, m);
    if (r == 0) {
        printf("%s: %d processes:", who, n);
        for (int i = 0; i < n; i++)
            printf(" %s", all + 64 * i);
        printf("\n");
        fflush(stdout);
    }
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Comm parent, comm, shr, ic, m;
    int rank, size, nshr, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        MPI_Intercomm_merge(parent, 1, &m);
        show(m, "merged");
        MPI_Comm_free(&m);
        MPI_Comm_free(&parent);
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    show(comm, "start");
    if (rank == 0) {
        rc = system(getenv("KILL_CMD"));
        printf("rank 0: %s: %d\n", getenv("KILL_CMD"), rc);
        fflush(stdout);
    }
    rc = MPI_Barrier(comm);
    if (rc == MPI_SUCCESS) /* the ranks that passed before the kill */
        rc = MPI_Barrier(comm);
    MPIX_Comm_revoke(comm);
    MPIX_Comm_shrink(comm, &shr);
    MPI_Comm_size(shr, &nshr);
    MPI_Comm_rank(shr, &rank);
    if (rank == 0)
        printf("survivors %d of %d (barrier rc %d)\n", nshr, size, rc), fflush(stdout);
    {
        MPI_Info info;
        int *codes = calloc((size_t)(size - nshr), sizeof(int));
        MPI_Info_create(&info);
        if (getenv("SPAWN_HOST"))
            MPI_Info_set(info, "host", getenv("SPAWN_HOST"));
        MPI_Comm_set_errhandler(shr, MPI_ERRORS_RETURN);
        rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, size - nshr, info, 0, shr, &ic, codes);
        if (rank == 0)
            printf("spawn host=%s: rc %d\n", getenv("SPAWN_HOST"), rc), fflush(stdout);
        if (rc != MPI_SUCCESS) {
            MPI_Finalize();
            return 1;
        }
    }
    MPI_Intercomm_merge(ic, 0, &m);
    show(m, "merged");
    MPI_Comm_free(&m);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&shr);
    MPI_Comm_free(&comm);
    if (rank == 0)
        printf("finalize\n"), fflush(stdout);
    MPI_Finalize();
    if (rank == 0)
        printf("done\n"), fflush(stdout);
    return 0;
}
