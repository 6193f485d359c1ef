/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI boundary of the Fortran copies (lib/fortran/dmesh_copies.inc):
 * handles as MPI_Fint, as in dmesh_f.c. */
#include "dmesh.h"

/* Declared here (not in a header): the Fortran interfaces are their users. */
int dmesh_f_copies_open(dmesh_t mesh, const char *name, int has_info, MPI_Fint info,
                        dmesh_copies_t *copies);
int dmesh_f_copies_add(dmesh_copies_t copies, int id, void *buf, long long count,
                       MPI_Fint datatype);
int dmesh_f_copies_add_sized(dmesh_copies_t copies, int id, void *buf, long long room,
                             long long *count, MPI_Fint datatype);

/* The count the Fortran side keeps (INTEGER(c_long_long)) is MPI_Count. */
_Static_assert(sizeof(MPI_Count) == sizeof(long long), "MPI_Count is not a long long");

int dmesh_f_copies_open(dmesh_t mesh, const char *name, int has_info, MPI_Fint info,
                        dmesh_copies_t *copies)
{
    return dmesh_copies_open(mesh, name, has_info ? MPI_Info_f2c(info) : MPI_INFO_NULL, copies);
}

int dmesh_f_copies_add(dmesh_copies_t copies, int id, void *buf, long long count, MPI_Fint datatype)
{
    return dmesh_copies_add(copies, id, buf, (MPI_Count)count, MPI_Type_f2c(datatype));
}

int dmesh_f_copies_add_sized(dmesh_copies_t copies, int id, void *buf, long long room,
                             long long *count, MPI_Fint datatype)
{
    return dmesh_copies_add_sized(copies, id, buf, (MPI_Count)room, (MPI_Count *)count,
                                  MPI_Type_f2c(datatype));
}
