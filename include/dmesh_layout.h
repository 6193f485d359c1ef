/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * \file dmesh_layout.h
 * \brief dmesh layout algebra: pure arithmetic on (size, stride) layouts, no MPI.
 *
 * An *axis* is a flat layout: a list of (size, stride) atoms, outermost
 * first; the innermost (last) atom varies fastest, as in a row-major array.
 * It maps a coordinate 0 <= i < numel to the index sum(c_k * stride_k),
 * where (c_k) are the digits of i in the mixed radix of the sizes.
 * A *mesh layout* is a list of axes, one per mesh dimension.
 * Text form: "(2,4):(4,1)" for two atoms, "8:1" for one, "1:0" for the empty
 * axis (numel 1).
 */
#ifndef DMESH_LAYOUT_H
#define DMESH_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* The MPI-free part of dmesh.h: error classes, DMESH_EXPORT, DMESH_MAX_DIMS. */
#define DMESH_BASE_ONLY_ 1
#include "dmesh.h"
#undef DMESH_BASE_ONLY_

#ifdef __cplusplus
extern "C" {
#endif

/** \cond DMESH_REDECLARED */
/* Also declared (identically, and documented) in the MPI part of dmesh.h. */
DMESH_EXPORT const char *dmesh_error_string(int err);
DMESH_EXPORT const char *dmesh_last_error(void);
/** \endcond */

/** \brief Most atoms in one axis. Canonical axes of int-sized layouts have
 *  at most 31 atoms (each atom has size >= 2). */
#define DMESH_LAYOUT_MAX_ATOMS 32

/** \brief One mode of a layout: \p size coordinates spaced \p stride apart. */
typedef struct {
    int size;   /**< number of coordinates, >= 1 */
    int stride; /**< distance between neighbours, >= 0 */
} dmesh_atom_t;

/** \brief A flat layout: atoms outermost first. natoms == 0 is the empty
 *  axis, which has one element (index 0). */
typedef struct {
    int natoms;                                 /**< number of atoms */
    dmesh_atom_t atoms[DMESH_LAYOUT_MAX_ATOMS]; /**< the atoms, outermost first */
} dmesh_axis_t;

/** \brief A mesh layout: one axis per dimension, outermost first. */
typedef struct {
    int naxes;                         /**< number of axes, <= DMESH_MAX_DIMS */
    dmesh_axis_t axes[DMESH_MAX_DIMS]; /**< the axes */
} dmesh_layout_t;

/**
 * \brief Coalesce an axis: drop size-1 atoms and merge contiguous neighbours.
 * \param[in] in the axis (atoms with size >= 1, stride >= 0)
 * \param[out] out the canonical axis (may alias \p in)
 * \return DMESH_SUCCESS, DMESH_ERR_ARG for a negative size or stride
 * \note Pure and thread-safe, as every function of this header.
 */
DMESH_EXPORT int dmesh_axis_canonical(const dmesh_axis_t *in, dmesh_axis_t *out);

/** \brief Number of elements (product of sizes).
 *  \param[in] a the axis \param[out] numel the product
 *  \return DMESH_SUCCESS, DMESH_ERR_SIZE if it exceeds INT_MAX */
DMESH_EXPORT int dmesh_axis_numel(const dmesh_axis_t *a, int *numel);

/** \brief One past the largest index (1 + sum((size-1)*stride)).
 *  \param[in] a the axis \param[out] cosize the value
 *  \return DMESH_SUCCESS, DMESH_ERR_SIZE if it exceeds INT_MAX */
DMESH_EXPORT int dmesh_axis_cosize(const dmesh_axis_t *a, int *cosize);

/** \brief Index of coordinate \p i (the i-th value of the enumeration).
 *  \param[in] a the axis \param[in] i coordinate, 0 <= i < numel \param[out] index the value
 *  \return DMESH_SUCCESS, DMESH_ERR_ARG if \p i is out of range */
DMESH_EXPORT int dmesh_axis_index(const dmesh_axis_t *a, int i, int *index);

/**
 * \brief Every index of the axis in lexicographic coordinate order.
 * \param[in] a the axis
 * \param[in] max capacity of \p out
 * \param[out] out the indices
 * \param[out] n number of indices (numel)
 * \return DMESH_SUCCESS, DMESH_ERR_SIZE if \p max < numel
 */
DMESH_EXPORT int dmesh_axis_enumerate(const dmesh_axis_t *a, int max, int out[], int *n);

/**
 * \brief Complement of an axis in [0, n): the layout of the offsets of its
 *        copies, so that the axis and its complement tile [0, n) exactly.
 * \param[in] a the axis
 * \param[in] n size of the codomain (the rank map)
 * \param[out] out canonical complement
 * \return DMESH_SUCCESS, DMESH_ERR_LAYOUT if the axis is not complementable
 *         or does not tile [0, n) exactly
 */
DMESH_EXPORT int dmesh_axis_complement(const dmesh_axis_t *a, int n, dmesh_axis_t *out);

/**
 * \brief Compose an axis with one mode: R(i) = A(i * stride) for i < size.
 * \param[in] a the axis A
 * \param[in] size size of the mode
 * \param[in] stride stride of the mode
 * \param[out] out the composition (not coalesced again)
 * \return DMESH_SUCCESS, DMESH_ERR_LAYOUT if the mode is not divisible
 *         along A's atoms
 */
DMESH_EXPORT int dmesh_axis_compose(const dmesh_axis_t *a, int size, int stride, dmesh_axis_t *out);

/**
 * \brief Compose an axis with a multi-mode layout: one result axis per mode.
 * \param[in] a the axis A
 * \param[in] n number of modes
 * \param[in] sizes sizes of the modes
 * \param[in] strides strides of the modes
 * \param[out] out n axes
 * \return as dmesh_axis_compose()
 */
DMESH_EXPORT int dmesh_axis_compose_modes(const dmesh_axis_t *a, int n, const int sizes[],
                                          const int strides[], dmesh_axis_t out[]);

/** \brief Whether distinct coordinates map to disjoint indices, atom by atom
 *  (strides nest: each divisible by the next one's extent).
 *  \param[in] a the atoms \param[out] orthogonal 1 or 0 \return DMESH_SUCCESS or DMESH_ERR_ARG */
DMESH_EXPORT int dmesh_axis_is_orthogonal(const dmesh_axis_t *a, int *orthogonal);

/** \brief Whether the canonical strides are non-increasing (outer to inner).
 *  \param[in] a the atoms \param[out] sorted 1 or 0 \return DMESH_SUCCESS or DMESH_ERR_ARG */
DMESH_EXPORT int dmesh_axis_is_sorted(const dmesh_axis_t *a, int *sorted);

/** \brief Whether two axes have identical atoms.
 *  \param[in] a first \param[in] b second \return 1 if equal, else 0 */
DMESH_EXPORT int dmesh_axis_equal(const dmesh_axis_t *a, const dmesh_axis_t *b);

/**
 * \brief Position of one rank-map index relative to an axis, in O(atoms).
 * \param[in] a the axis (orthogonal)
 * \param[in] n size of the rank map
 * \param[in] index a rank-map index, 0 <= index < n
 * \param[out] group which copy of the axis contains \p index (the k-th value
 *             of the complement's enumeration; the MPI_Comm_split colour)
 * \param[out] position the coordinate of \p index in that copy (the key)
 * \return DMESH_SUCCESS, DMESH_ERR_LAYOUT as for dmesh_axis_complement()
 */
DMESH_EXPORT int dmesh_axis_decompose(const dmesh_axis_t *a, int n, int index, int *group,
                                      int *position);

/** \brief Most digits of a prepared axis: the axis's atoms and its
 *  complement's, each of size >= 2, multiply to the rank-map size, which is
 *  at most INT_MAX < 2^31. */
#define DMESH_PREPARED_MAX_DIGITS 30

/**
 * \brief An axis prepared for one rank map (dmesh_axis_prepare()): its
 *        complement is computed once, so that each dmesh_prepared_axis_decompose()
 *        costs one multiplication and shift per atom, no division instruction.
 *
 * A plain value: copy it, keep it in a struct, use it from any thread. Read
 * \p n, \p ngroups and \p size directly; the other members are private to
 * the library (their meaning may change, the size of the struct does not).
 */
typedef struct {
    int n;       /**< size of the rank map */
    int ngroups; /**< number of copies of the axis in [0, n) (numel of the complement) */
    int size;    /**< numel of the axis: ranks per group */
    int ndigits; /**< private: digits of an index (atoms of the axis and its complement) */
    uint64_t magic[DMESH_PREPARED_MAX_DIGITS]; /**< private: multipliers (division by a stride) */
    uint64_t coef[DMESH_PREPARED_MAX_DIGITS];  /**< private: place values of the quotients */
    unsigned char shift[DMESH_PREPARED_MAX_DIGITS]; /**< private: shifts */
} dmesh_prepared_axis_t;

/**
 * \brief Prepare an axis for decomposing indices of a rank map of size \p n.
 * \param[in] a the axis (as for dmesh_axis_decompose())
 * \param[in] n size of the rank map, >= 1
 * \param[out] p the prepared axis
 * \return DMESH_SUCCESS, DMESH_ERR_ARG for a malformed axis or \p n < 1,
 *         DMESH_ERR_LAYOUT as for dmesh_axis_complement()
 * \note Costs about as much as one dmesh_axis_decompose(); pure and thread-safe.
 */
DMESH_EXPORT int dmesh_axis_prepare(const dmesh_axis_t *a, int n, dmesh_prepared_axis_t *p);

/**
 * \brief dmesh_axis_decompose() of a prepared axis: the same group and
 *        position, in a few nanoseconds.
 * \param[in] p an axis prepared by dmesh_axis_prepare()
 * \param[in] index a rank-map index, 0 <= index < p->n
 * \param[out] group which copy of the axis contains \p index (the MPI_Comm_split colour)
 * \param[out] position the coordinate of \p index in that copy (the key)
 * \return DMESH_SUCCESS, DMESH_ERR_ARG for a NULL pointer, an index out of
 *         range or a \p p that dmesh_axis_prepare() did not fill
 * \note Pure and thread-safe; reads \p p only.
 */
DMESH_EXPORT int dmesh_prepared_axis_decompose(const dmesh_prepared_axis_t *p, int index,
                                               int *group, int *position);

/**
 * \brief Every copy of an axis in a rank map: group k is
 *        rank_map[o_k + A(x)] for x < numel(A), o_k the k-th complement value.
 * \param[in] a the axis
 * \param[in] n size of the rank map
 * \param[in] rank_map n ranks, or NULL for the identity
 * \param[in] max capacity of \p out (>= n)
 * \param[out] out ngroups * group_size ranks, group after group
 * \param[out] ngroups number of copies
 * \param[out] group_size numel of the axis
 * \return DMESH_SUCCESS, DMESH_ERR_SIZE if \p max is too small, DMESH_ERR_LAYOUT
 */
DMESH_EXPORT int dmesh_axis_groups(const dmesh_axis_t *a, int n, const int *rank_map, int max,
                                   int out[], int *ngroups, int *group_size);

/**
 * \brief The copy of an axis that contains rank-map index \p index.
 * \param[in] a the axis
 * \param[in] n size of the rank map
 * \param[in] rank_map n ranks, or NULL for the identity
 * \param[in] index a rank-map index
 * \param[in] max capacity of \p out (>= numel)
 * \param[out] out the group, in coordinate order
 * \param[out] count numel of the axis
 * \return DMESH_SUCCESS, DMESH_ERR_SIZE, DMESH_ERR_LAYOUT or DMESH_ERR_ARG
 */
DMESH_EXPORT int dmesh_axis_group_of(const dmesh_axis_t *a, int n, const int *rank_map, int index,
                                     int max, int out[], int *count);

/**
 * \brief Print an axis as "(s0,s1):(d0,d1)", "s:d" or "1:0" (empty).
 * \param[in] a the axis \param[out] buf buffer (may be NULL if \p len is 0)
 * \param[in] len capacity \param[out] needed length without NUL (may be NULL)
 * \return DMESH_SUCCESS (snprintf rules), DMESH_ERR_ARG
 */
DMESH_EXPORT int dmesh_axis_to_string(const dmesh_axis_t *a, char *buf, size_t len, size_t *needed);

/** \brief Parse the text form of an axis (white space allowed between tokens).
 *  \param[in] text NUL-terminated text \param[out] a the axis, as written (not coalesced)
 *  \return DMESH_SUCCESS, DMESH_ERR_ARG for malformed text, DMESH_ERR_SIZE for values over INT_MAX
 */
DMESH_EXPORT int dmesh_axis_parse(const char *text, dmesh_axis_t *a);

/** \brief Row-major mesh layout of a shape: axis i is shape[i] : prod(shape[i+1..]).
 *  \param[in] ndims number of dims \param[in] shape sizes (>= 1)
 *  \param[out] l the layout (size-1 dims give empty axes)
 *  \return DMESH_SUCCESS, DMESH_ERR_ARG, DMESH_ERR_SIZE on overflow */
DMESH_EXPORT int dmesh_layout_row_major(int ndims, const int shape[], dmesh_layout_t *l);

/** \brief All atoms of all axes, concatenated in order (not coalesced).
 *  \param[in] l the layout \param[out] a the atoms
 *  \return DMESH_SUCCESS, DMESH_ERR_SIZE if more than DMESH_LAYOUT_MAX_ATOMS */
DMESH_EXPORT int dmesh_layout_concat(const dmesh_layout_t *l, dmesh_axis_t *a);

/**
 * \brief Replace axis \p dim of \p l by the \p n axes \p axes.
 * \param[in] l the layout \param[in] dim axis to replace
 * \param[in] n number of new axes \param[in] axes the new axes
 * \param[out] out the spliced layout (may alias \p l)
 * \return DMESH_SUCCESS, DMESH_ERR_ARG for a bad dim, DMESH_ERR_SIZE if over DMESH_MAX_DIMS
 */
DMESH_EXPORT int dmesh_layout_splice(const dmesh_layout_t *l, int dim, int n,
                                     const dmesh_axis_t axes[], dmesh_layout_t *out);

#ifdef __cplusplus
}
#endif

#endif /* DMESH_LAYOUT_H */
