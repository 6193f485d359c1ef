/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * expert_parallel: one 1-D world mesh unflattened twice, as a model with
 * attention and mixture-of-experts layers does it:
 *   attention layers: (dp, cp, tp)     data, context and tensor parallel
 *   expert layers:    (dp, ep, ep_tp)  data, expert and expert-tensor parallel
 * Here ep has the size of cp and ep_tp the size of tp, so their process
 * groups are the same: dmesh's communicator cache (keyed by the axis layout,
 * not by the name) gives both meshes the same communicators, and the second
 * unflatten creates none. The program prints the cache figures and checks,
 * with an allreduce along ep, that the shared communicator is right.
 * Exits 1 on a wrong sum or a communicator that was not shared.
 *
 *   mpiexec -n 8 ./expert_parallel   (8 ranks: (2,2,2); 4: (1,2,2); 2: (1,1,2))
 */
#include <stdio.h>

#include <mpi.h>
#include <dmesh.h>

/* No CHECK around the dmesh calls: as with MPI's own calls, a failure goes
 * to the error handler of MPI_COMM_WORLD, fatal by default, which ends the
 * job after dmesh has written what went wrong to stderr. */

static void print_cache(int rank, const char *when, dmesh_t mesh)
{
    dmesh_cache_info_t ci;

    dmesh_get_cache_info(mesh, &ci);
    if (rank == 0)
        printf("%-24s %d MPI communicators, %ld lookups, %ld hits\n", when, ci.comms_mpi,
               ci.lookups, ci.hits);
}

/* Whether dims a of mesh x and b of mesh y have the very same communicator. */
static int same_comm(dmesh_t x, int a, dmesh_t y, int b)
{
    MPI_Comm ca, cb;
    int result;

    dmesh_get_comm(x, a, &ca);
    dmesh_get_comm(y, b, &cb);
    MPI_Comm_compare(ca, cb, &result);
    return result == MPI_IDENT;
}

int main(int argc, char **argv)
{
    const char *world_name[1] = {"world"};
    const char *attn_names[3] = {"dp", "cp", "tp"};
    const char *moe_names[3] = {"dp", "ep", "ep_tp"};
    dmesh_t world, attn, moe;
    dmesh_cache_info_t before, after;
    int rank, size, coords[3], member, sum, expected = 0, ok = 1;
    MPI_Comm ep_comm;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int tp = size % 2 == 0 ? 2 : 1, cp = size / tp % 2 == 0 ? 2 : 1;
    int sizes[3] = {size / (tp * cp), cp, tp};

    dmesh_init(MPI_COMM_WORLD, "cpu", 1, &size, world_name, MPI_INFO_NULL, &world);
    print_cache(rank, "world mesh:", world);
    dmesh_unflatten(world, 0, 3, sizes, attn_names, MPI_INFO_NULL, &attn);
    print_cache(rank, "+ (dp, cp, tp):", attn);
    dmesh_get_cache_info(attn, &before);
    dmesh_unflatten(world, 0, 3, sizes, moe_names, MPI_INFO_NULL, &moe);
    print_cache(rank, "+ (dp, ep, ep_tp):", moe);
    dmesh_get_cache_info(moe, &after);

    if (after.comms_mpi != before.comms_mpi) {
        fprintf(stderr, "rank %d: the second unflatten created communicators\n", rank);
        ok = 0;
    }
    for (int d = 0; d < 3; d++)
        if (!same_comm(attn, d, moe, d)) {
            fprintf(stderr, "rank %d: %s and %s do not share a communicator\n", rank, attn_names[d],
                    moe_names[d]);
            ok = 0;
        }
    if (rank == 0 && ok)
        printf("dp/dp, cp/ep and tp/ep_tp share their communicators\n");

    /* Allreduce along ep: the members are tp apart, ordered by ep coordinate. */
    dmesh_get_coordinate(moe, 3, coords, &member);
    dmesh_get_comm(moe, 1, &ep_comm);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ep_comm);
    for (int e = 0; e < cp; e++)
        expected += rank + (e - coords[1]) * tp;
    if (sum != expected) {
        fprintf(stderr, "rank %d: ep allreduce gave %d, expected %d\n", rank, sum, expected);
        ok = 0;
    }
    printf("rank %d: (dp, ep, ep_tp) = (%d, %d, %d), sum over ep = %d\n", rank, coords[0],
           coords[1], coords[2], sum);

    dmesh_free(&moe);
    dmesh_free(&attn);
    dmesh_free(&world);
    MPI_Finalize();
    return ok ? 0 : 1;
}
