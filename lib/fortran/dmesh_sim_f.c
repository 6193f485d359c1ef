/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI boundary of the Fortran simulation-code routines
 * (lib/fortran/dmesh_sim.inc): handles as MPI_Fint, as in dmesh_f.c. */
#include "dmesh.h"

/* Declared here (not in a header): the Fortran interfaces are their users. */
int dmesh_f_get_cart_comm(dmesh_t mesh, const int periods[], int reorder, MPI_Fint *cart);
int dmesh_f_deserialize(MPI_Fint comm, const char *text, int has_info, MPI_Fint info,
                        dmesh_t *mesh);

int dmesh_f_get_cart_comm(dmesh_t mesh, const int periods[], int reorder, MPI_Fint *cart)
{
    MPI_Comm c;
    int err = dmesh_get_cart_comm(mesh, periods, reorder, &c);

    if (err == DMESH_SUCCESS)
        *cart = MPI_Comm_c2f(c);
    return err;
}

int dmesh_f_deserialize(MPI_Fint comm, const char *text, int has_info, MPI_Fint info, dmesh_t *mesh)
{
    return dmesh_deserialize(MPI_Comm_f2c(comm), text,
                             has_info ? MPI_Info_f2c(info) : MPI_INFO_NULL, mesh);
}
