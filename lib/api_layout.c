/* SPDX-License-Identifier: BSD-3-Clause */
/* The entry points of dmesh_layout.h (see api.c): tied to no communicator,
 * their failures are raised on MPI_COMM_SELF's handler while MPI is
 * initialised, and only returned before and after (the algebra needs no
 * MPI). */
#include "config.h"

#include "dmesh_layout.h"

#include "api_names.h"
#include "error.h"
#include "layout_decompose.h"
#include "raise.h"

DMESH_API_LAYOUT_NAMES(DMESH_API_DECLARE_IMPL)
DMESH_API_DECLARE_IMPL(dmesh_axis_equal)

int dmesh_axis_canonical(const dmesh_axis_t *in, dmesh_axis_t *out)
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_canonical_impl(in, out), MPI_COMM_NULL, __func__);
}

int dmesh_axis_numel(const dmesh_axis_t *a, int *numel)
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_numel_impl(a, numel), MPI_COMM_NULL, __func__);
}

int dmesh_axis_cosize(const dmesh_axis_t *a, int *cosize)
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_cosize_impl(a, cosize), MPI_COMM_NULL, __func__);
}

int dmesh_axis_index(const dmesh_axis_t *a, int i, int *index)
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_index_impl(a, i, index), MPI_COMM_NULL, __func__);
}

int dmesh_axis_enumerate(const dmesh_axis_t *a, int max, int out[], int *n)
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_enumerate_impl(a, max, out, n), MPI_COMM_NULL,
                                       __func__);
}

int dmesh_axis_complement(const dmesh_axis_t *a, int n, dmesh_axis_t *out)
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_complement_impl(a, n, out), MPI_COMM_NULL,
                                       __func__);
}

int dmesh_axis_compose(const dmesh_axis_t *a, int size, int stride, dmesh_axis_t *out)
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_compose_impl(a, size, stride, out), MPI_COMM_NULL,
                                       __func__);
}

int dmesh_axis_compose_modes(const dmesh_axis_t *a, int n, const int sizes[], const int strides[],
                             dmesh_axis_t out[])
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_compose_modes_impl(a, n, sizes, strides, out),
                                       MPI_COMM_NULL, __func__);
}

int dmesh_axis_is_orthogonal(const dmesh_axis_t *a, int *orthogonal)
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_is_orthogonal_impl(a, orthogonal), MPI_COMM_NULL,
                                       __func__);
}

int dmesh_axis_is_sorted(const dmesh_axis_t *a, int *sorted)
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_is_sorted_impl(a, sorted), MPI_COMM_NULL,
                                       __func__);
}

int dmesh_axis_decompose(const dmesh_axis_t *a, int n, int index, int *group, int *position)
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_decompose_impl(a, n, index, group, position),
                                       MPI_COMM_NULL, __func__);
}

int dmesh_axis_prepare(const dmesh_axis_t *a, int n, dmesh_prepared_axis_t *p)
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_prepare_impl(a, n, p), MPI_COMM_NULL, __func__);
}

/* Hot: the work here, no call when it succeeds (layout_decompose.h). */
int dmesh_prepared_axis_decompose(const dmesh_prepared_axis_t *p, int index, int *group,
                                  int *position)
{
    return dmesh_raise_outcome_on_comm(dmesh_prepared_decompose_inline(p, index, group, position),
                                       MPI_COMM_NULL, __func__);
}

int dmesh_axis_groups(const dmesh_axis_t *a, int n, const int *rank_map, int max, int out[],
                      int *ngroups, int *group_size)
{
    return dmesh_raise_outcome_on_comm(
        dmesh_axis_groups_impl(a, n, rank_map, max, out, ngroups, group_size), MPI_COMM_NULL,
        __func__);
}

int dmesh_axis_group_of(const dmesh_axis_t *a, int n, const int *rank_map, int index, int max,
                        int out[], int *count)
{
    return dmesh_raise_outcome_on_comm(
        dmesh_axis_group_of_impl(a, n, rank_map, index, max, out, count), MPI_COMM_NULL, __func__);
}

int dmesh_axis_to_string(const dmesh_axis_t *a, char *buf, size_t len, size_t *needed)
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_to_string_impl(a, buf, len, needed),
                                       MPI_COMM_NULL, __func__);
}

int dmesh_axis_parse(const char *text, dmesh_axis_t *a)
{
    return dmesh_raise_outcome_on_comm(dmesh_axis_parse_impl(text, a), MPI_COMM_NULL, __func__);
}

int dmesh_layout_row_major(int ndims, const int shape[], dmesh_layout_t *l)
{
    return dmesh_raise_outcome_on_comm(dmesh_layout_row_major_impl(ndims, shape, l), MPI_COMM_NULL,
                                       __func__);
}

int dmesh_layout_concat(const dmesh_layout_t *l, dmesh_axis_t *a)
{
    return dmesh_raise_outcome_on_comm(dmesh_layout_concat_impl(l, a), MPI_COMM_NULL, __func__);
}

int dmesh_layout_splice(const dmesh_layout_t *l, int dim, int n, const dmesh_axis_t axes[],
                        dmesh_layout_t *out)
{
    return dmesh_raise_outcome_on_comm(dmesh_layout_splice_impl(l, dim, n, axes, out),
                                       MPI_COMM_NULL, __func__);
}

int dmesh_axis_equal(const dmesh_axis_t *a, const dmesh_axis_t *b)
{
    return dmesh_axis_equal_impl(a, b);
}
