/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI boundary of the Fortran simulation-code routines
 * (lib/fortran/dmesh_sim.inc): handles as MPI_Fint, as in dmesh_f.c. */
#include "dmesh.h"

/* Declared here (not in a header): the Fortran interfaces are their users. */
int dmesh_f_get_cart_comm(dmesh_t mesh, int has_periods, const int periods[], int reorder,
                          MPI_Fint *cart);
int dmesh_f_deserialize(MPI_Fint comm, const char *text, int has_info, MPI_Fint info,
                        dmesh_t *mesh);
int dmesh_f_get_sub_comm(dmesh_t mesh, int has_remain, const int remain_dims[], MPI_Fint *newcomm);

/* has_periods 0: the Fortran layer found periods of the wrong size; NULL
 * makes the library reject the call while this rank still takes part in its
 * agreement (a collective call: the other ranks must not wait for it). */
int dmesh_f_get_cart_comm(dmesh_t mesh, int has_periods, const int periods[], int reorder,
                          MPI_Fint *cart)
{
    MPI_Comm c = MPI_COMM_NULL;
    int err = dmesh_get_cart_comm(mesh, has_periods ? periods : NULL, reorder, &c);

    *cart = MPI_Comm_c2f(c); /* MPI_COMM_NULL on failure */
    return err;
}

/* has_remain 0: as has_periods above. */
int dmesh_f_get_sub_comm(dmesh_t mesh, int has_remain, const int remain_dims[], MPI_Fint *newcomm)
{
    MPI_Comm c = MPI_COMM_NULL;
    int err = dmesh_get_sub_comm(mesh, has_remain ? remain_dims : NULL, &c);

    *newcomm = MPI_Comm_c2f(c); /* MPI_COMM_NULL on failure */
    return err;
}

int dmesh_f_deserialize(MPI_Fint comm, const char *text, int has_info, MPI_Fint info, dmesh_t *mesh)
{
    return dmesh_deserialize(MPI_Comm_f2c(comm), text,
                             has_info ? MPI_Info_f2c(info) : MPI_INFO_NULL, mesh);
}
