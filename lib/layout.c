/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The layout algebra of include/dmesh_layout.h: the CuTe-style layouts of
 * PyTorch's DeviceMesh (canonical form, complement, composition,
 * orthogonality, the groups of an axis), each specified in that header.
 * Pure arithmetic, no MPI.
 *
 * Sizes and strides are ints, but their products and sums easily are not, so
 * every intermediate is int64_t and anything that would not fit an int is
 * DMESH_ERR_SIZE. With at most DMESH_LAYOUT_MAX_ATOMS atoms, checking a
 * running product or sum against INT_MAX after every step keeps it far from
 * the int64_t limit (INT_MAX * INT_MAX < 2^62).
 */
#include "config.h"

#include "api_impl.h"

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dmesh_layout.h"
#include "error.h"
#include "layout_decompose.h"
#include "layout_check.h"
#include "rank_map.h"

/* Every function trusts natoms, sizes and strides once this has passed
 * (layout_text.c too). */
int dmesh_axis_check(const dmesh_axis_t *a, const char *func)
{
    if (a == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: axis is NULL", func);
    if (a->natoms < 0 || a->natoms > DMESH_LAYOUT_MAX_ATOMS)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: natoms %d is not in [0, %d]", func, a->natoms,
                               DMESH_LAYOUT_MAX_ATOMS);
    for (int k = 0; k < a->natoms; k++) {
        const dmesh_atom_t *at = &a->atoms[k];
        if (at->size < 1 || at->stride < 0)
            return dmesh_error_set(DMESH_ERR_ARG,
                                   "%s: atom %d is %d:%d (size must be >= 1, stride >= 0)", func, k,
                                   at->size, at->stride);
    }
    return DMESH_SUCCESS;
}

static int numel64(const dmesh_axis_t *a, const char *func, int64_t *numel)
{
    int64_t p = 1;

    for (int k = 0; k < a->natoms; k++) {
        p *= a->atoms[k].size;
        if (p > INT_MAX)
            return dmesh_error_set(DMESH_ERR_SIZE,
                                   "%s: number of elements exceeds INT_MAX at atom %d (%d:%d)",
                                   func, k, a->atoms[k].size, a->atoms[k].stride);
    }
    *numel = p;
    return DMESH_SUCCESS;
}

static int cosize64(const dmesh_axis_t *a, const char *func, int64_t *cosize)
{
    int64_t last = 0; /* the largest index */

    for (int k = 0; k < a->natoms; k++) {
        last += (int64_t)(a->atoms[k].size - 1) * a->atoms[k].stride;
        if (last >= INT_MAX)
            return dmesh_error_set(DMESH_ERR_SIZE,
                                   "%s: largest index exceeds INT_MAX - 1 at atom %d (%d:%d)", func,
                                   k, a->atoms[k].size, a->atoms[k].stride);
    }
    *cosize = last + 1;
    return DMESH_SUCCESS;
}

/* The i-th index of a checked axis whose cosize fits an int: peel the digits
 * of i off from the innermost (fastest) atom outwards. */
static int64_t axis_at(const dmesh_axis_t *a, int64_t i)
{
    int64_t index = 0;

    for (int k = a->natoms - 1; k >= 0 && i > 0; k--) {
        index += (i % a->atoms[k].size) * a->atoms[k].stride;
        i /= a->atoms[k].size;
    }
    return index;
}

/* Sort atoms by ascending stride, then size (insertion sort: n <= 32). */
static void sort_by_stride(dmesh_atom_t at[], int n)
{
    for (int i = 1; i < n; i++) {
        dmesh_atom_t x = at[i];
        int j = i;
        while (j > 0 && (at[j - 1].stride > x.stride ||
                         (at[j - 1].stride == x.stride && at[j - 1].size > x.size))) {
            at[j] = at[j - 1];
            j--;
        }
        at[j] = x;
    }
}

/* Copy n atoms built innermost first into an axis, outermost first. */
static void store_reversed(const dmesh_atom_t rev[], int n, dmesh_axis_t *out)
{
    out->natoms = n;
    for (int k = 0; k < n; k++)
        out->atoms[k] = rev[n - 1 - k];
}

int dmesh_axis_canonical_impl(const dmesh_axis_t *in, dmesh_axis_t *out)
{
    dmesh_atom_t rev[DMESH_LAYOUT_MAX_ATOMS]; /* innermost first, so merges hit rev[n-1] */
    int n = 0;

    DMESH_TRY(dmesh_axis_check(in, "dmesh_axis_canonical"));
    DMESH_CHECK_PTR_OF("dmesh_axis_canonical", out);
    for (int k = in->natoms - 1; k >= 0; k--) {
        dmesh_atom_t at = in->atoms[k];
        if (at.size == 1)
            continue; /* a single coordinate contributes nothing, whatever its stride */
        if (n > 0 && (int64_t)rev[n - 1].size * rev[n - 1].stride == at.stride) {
            /* the outer atom starts where the inner one ends: one longer atom */
            int64_t size = (int64_t)rev[n - 1].size * at.size;
            if (size > INT_MAX)
                return dmesh_error_set(DMESH_ERR_SIZE,
                                       "%s: merging atom %d (%d:%d) gives a size over INT_MAX",
                                       "dmesh_axis_canonical", k, at.size, at.stride);
            rev[n - 1].size = (int)size;
            continue;
        }
        rev[n++] = at;
    }
    store_reversed(rev, n, out);
    return DMESH_SUCCESS;
}

int dmesh_axis_numel_impl(const dmesh_axis_t *a, int *numel)
{
    int64_t p = 0;

    DMESH_TRY(dmesh_axis_check(a, "dmesh_axis_numel"));
    DMESH_CHECK_PTR_OF("dmesh_axis_numel", numel);
    DMESH_TRY(numel64(a, "dmesh_axis_numel", &p));
    *numel = (int)p;
    return DMESH_SUCCESS;
}

int dmesh_axis_cosize_impl(const dmesh_axis_t *a, int *cosize)
{
    int64_t c = 0;

    DMESH_TRY(dmesh_axis_check(a, "dmesh_axis_cosize"));
    DMESH_CHECK_PTR_OF("dmesh_axis_cosize", cosize);
    DMESH_TRY(cosize64(a, "dmesh_axis_cosize", &c));
    *cosize = (int)c;
    return DMESH_SUCCESS;
}

int dmesh_axis_index_impl(const dmesh_axis_t *a, int i, int *index)
{
    int64_t numel = 0, cosize = 0;

    DMESH_TRY(dmesh_axis_check(a, "dmesh_axis_index"));
    DMESH_CHECK_PTR_OF("dmesh_axis_index", index);
    DMESH_TRY(numel64(a, "dmesh_axis_index", &numel));
    if (i < 0 || i >= numel)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: coordinate %d is not in [0, %" PRId64 ")",
                               "dmesh_axis_index", i, numel);
    /* a small cosize guarantees the sum below fits an int */
    DMESH_TRY(cosize64(a, "dmesh_axis_index", &cosize));
    *index = (int)axis_at(a, i);
    return DMESH_SUCCESS;
}

int dmesh_axis_enumerate_impl(const dmesh_axis_t *a, int max, int out[], int *n)
{
    int64_t numel = 0, cosize = 0;

    DMESH_TRY(dmesh_axis_check(a, "dmesh_axis_enumerate"));
    DMESH_CHECK_PTR_OF("dmesh_axis_enumerate", n);
    DMESH_TRY(numel64(a, "dmesh_axis_enumerate", &numel));
    DMESH_TRY(cosize64(a, "dmesh_axis_enumerate", &cosize));
    if (max < numel)
        return dmesh_error_set(DMESH_ERR_SIZE, "%s: capacity %d is below numel %" PRId64,
                               "dmesh_axis_enumerate", max, numel);
    DMESH_CHECK_PTR_OF("dmesh_axis_enumerate", out);
    for (int64_t i = 0; i < numel; i++)
        out[i] = (int)axis_at(a, i);
    *n = (int)numel;
    return DMESH_SUCCESS;
}

/*
 * The complement fills the gaps between the axis's atoms (taken by ascending
 * stride) and repeats the whole up to n. dmesh also demands that the copies
 * tile [0, n) exactly (each index in exactly one copy, at one coordinate):
 * every atom must start at a multiple of what lies below it, and n must be a
 * multiple of the axis's extent. Otherwise groups would overlap or index past
 * the rank map.
 */
/* The complement's atoms, not coalesced (linearising them gives the same
 * numbers as the canonical form), so that decompose skips that pass. */
static int complement_atoms(const dmesh_axis_t *a, int n, const char *func, dmesh_axis_t *c)
{
    dmesh_atom_t at[DMESH_LAYOUT_MAX_ATOMS], rev[DMESH_LAYOUT_MAX_ATOMS + 1];
    int m = 0, nrev = 0;
    int64_t cur = 1; /* extent of the atoms placed so far */

    DMESH_TRY(dmesh_axis_check(a, func));
    if (n < 1)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: codomain size %d < 1", func, n);
    for (int k = 0; k < a->natoms; k++)
        if (a->atoms[k].size > 1)
            at[m++] = a->atoms[k];
    sort_by_stride(at, m);
    for (int k = 0; k < m; k++) {
        if (at[k].stride < cur || at[k].stride % cur != 0)
            return dmesh_error_set(DMESH_ERR_LAYOUT,
                                   "%s: atom %d:%d %s the atoms of smaller stride (extent %" PRId64
                                   "): copies do not tile [0, %d)",
                                   func, at[k].size, at[k].stride,
                                   at[k].stride < cur ? "overlaps" : "is not aligned on", cur, n);
        if (at[k].stride / cur > 1)
            rev[nrev++] = (dmesh_atom_t){(int)(at[k].stride / cur), (int)cur};
        cur = (int64_t)at[k].size * at[k].stride;
        if (cur > n)
            break;
    }
    if (n % cur != 0)
        return dmesh_error_set(DMESH_ERR_LAYOUT,
                               "%s: codomain size %d is not a multiple of the axis extent %" PRId64,
                               func, n, cur);
    if (n / cur > 1)
        rev[nrev++] = (dmesh_atom_t){(int)(n / cur), (int)cur};
    store_reversed(rev, nrev, c);
    return DMESH_SUCCESS;
}

int dmesh_axis_complement_impl(const dmesh_axis_t *a, int n, dmesh_axis_t *out)
{
    dmesh_axis_t c;

    DMESH_CHECK_PTR_OF("dmesh_axis_complement", out);
    DMESH_TRY(complement_atoms(a, n, "dmesh_axis_complement", &c));
    return dmesh_axis_canonical_impl(&c, out);
}

/* Linearise the digits of index along the atoms of an axis, outermost atom
 * most significant. Only valid when the axis and its complement tile the
 * codomain: then the sizes and strides of both, sorted by stride, form a
 * mixed radix, so the digit of an atom is (index / stride) % size no matter
 * where the atom sits in that order. */
static int64_t linearise(const dmesh_axis_t *a, int index)
{
    int64_t lin = 0;

    for (int k = 0; k < a->natoms; k++) {
        const dmesh_atom_t *at = &a->atoms[k];
        if (at->size > 1) /* size-1 atoms have digit 0 (and may have stride 0) */
            lin = lin * at->size + (index / at->stride) % at->size;
    }
    return lin;
}

int dmesh_axis_decompose_impl(const dmesh_axis_t *a, int n, int index, int *group, int *position)
{
    dmesh_axis_t c;

    DMESH_TRY(complement_atoms(a, n, "dmesh_axis_decompose", &c));
    DMESH_CHECK_PTR_OF("dmesh_axis_decompose", group);
    DMESH_CHECK_PTR_OF("dmesh_axis_decompose", position);
    if (index < 0 || index >= n)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: index %d is not in [0, %d)",
                               "dmesh_axis_decompose", index, n);
    *group = (int)linearise(&c, index);
    *position = (int)linearise(a, index);
    return DMESH_SUCCESS;
}

/*
 * A prepared axis holds the digits of a rank-map index in the mixed radix of
 * the axis's atoms and its complement's, sorted by ascending stride (the
 * tiling that complement_atoms() checks makes them a mixed radix from stride
 * 1 up to n). With q_k = index / stride_k, digit k is q_k - size_k q_(k+1),
 * so the sum of the digits at their place values w_k is
 *     q_0 w_0 + sum over k >= 1 of q_k (w_k - size_(k-1) w_(k-1)):
 * each q_k straight from the index (the quotients do not wait for each
 * other), times a constant. Each division is a multiplication by a
 * rounded-up reciprocal and a shift (Granlund and Montgomery 1994, theorem
 * 4.2: with l = ceil(log2 d) and m = ceil(2^(31+l) / d), q / d equals
 * (q m) >> (31 + l) for every q < 2^31, and q m < 2^31 (2^32 + 1) fits 64
 * bits). The place values of the position (axis atoms) are scaled by 2^32,
 * so one 64-bit sum carries the group in its low half and the position in
 * its high half; it is exact modulo 2^64, and its true value is below 2^63.
 */
typedef struct {
    int size, stride, weight, part;
} digit_t;

/* Append the atoms of size > 1 of x, with their place values in x's
 * lexicographic order (the innermost atom least significant). */
static void collect_digits(const dmesh_axis_t *x, int part, digit_t d[], int *n)
{
    int64_t w = 1; /* at most numel(x) <= INT_MAX: x tiles the codomain */

    for (int k = x->natoms - 1; k >= 0; k--) {
        if (x->atoms[k].size < 2)
            continue;
        d[(*n)++] = (digit_t){x->atoms[k].size, x->atoms[k].stride, (int)w, part};
        w *= x->atoms[k].size;
    }
}

/* Ascending stride (insertion sort: n <= 2 * 32); the tiling has no ties. */
static void sort_digits(digit_t d[], int n)
{
    for (int i = 1; i < n; i++) {
        digit_t x = d[i];
        int j = i;
        for (; j > 0 && d[j - 1].stride > x.stride; j--)
            d[j] = d[j - 1];
        d[j] = x;
    }
}

/* Neighbours that feed the same part at consecutive place values are one
 * digit of the product size: one multiplication fewer. Returns the count. */
static int merge_digits(digit_t d[], int n)
{
    int m = 0;

    for (int k = 0; k < n; k++) {
        if (m > 0 && d[m - 1].part == d[k].part &&
            (int64_t)d[m - 1].weight * d[m - 1].size == d[k].weight)
            d[m - 1].size *= d[k].size;
        else
            d[m++] = d[k];
    }
    return m;
}

/* The multiplier and shift that divide any q < 2^31 by d >= 1. */
static void set_division(int d, uint64_t *magic, unsigned char *shift)
{
    int l = 0;

    while (((int64_t)1 << l) < d)
        l++;
    *shift = (unsigned char)(31 + l);
    *magic = (((uint64_t)1 << *shift) + (uint64_t)d - 1) / (uint64_t)d;
}

/* Place value of a digit in the 64-bit (position, group) sum. */
static uint64_t place(const digit_t *d)
{
    return d->part ? (uint64_t)d->weight << 32 : (uint64_t)d->weight;
}

int dmesh_axis_prepare_impl(const dmesh_axis_t *a, int n, dmesh_prepared_axis_t *p)
{
    dmesh_axis_t c;
    digit_t d[2 * DMESH_LAYOUT_MAX_ATOMS + 1];
    int nd = 0;
    int64_t size = 0;

    DMESH_CHECK_PTR_OF("dmesh_axis_prepare", p);
    DMESH_TRY(complement_atoms(a, n, "dmesh_axis_prepare", &c));
    DMESH_TRY(numel64(a, "dmesh_axis_prepare", &size));
    collect_digits(a, 1, d, &nd);
    collect_digits(&c, 0, d, &nd);
    sort_digits(d, nd);
    nd = merge_digits(d, nd);
    if (nd > DMESH_PREPARED_MAX_DIGITS) /* sizes >= 2 multiply to n < 2^31 */
        return dmesh_error_set(DMESH_ERR_INTERNAL, "%s: %d digits", "dmesh_axis_prepare", nd);
    *p = (dmesh_prepared_axis_t){.n = n, .ngroups = (int)(n / size), .size = (int)size};
    p->ndigits = nd;
    for (int k = 0; k < nd; k++) {
        set_division(d[k].stride, &p->magic[k], &p->shift[k]);
        p->coef[k] = place(&d[k]) - (k > 0 ? (uint64_t)d[k - 1].size * place(&d[k - 1]) : 0);
    }
    return DMESH_SUCCESS;
}

/* The hot path of every creation and coordinate query (layout_decompose.h). */
int dmesh_prepared_axis_decompose_impl(const dmesh_prepared_axis_t *p, int index, int *group,
                                       int *position)
{
    return dmesh_prepared_decompose_inline(p, index, group, position);
}

int dmesh_axis_groups_impl(const dmesh_axis_t *a, int n, const int *rank_map, int max, int out[],
                           int *ngroups, int *group_size)
{
    dmesh_axis_t c;
    int64_t na = 0, nc = 0;

    DMESH_TRY(dmesh_axis_complement_impl(a, n, &c));
    DMESH_CHECK_PTR_OF("dmesh_axis_groups", ngroups);
    DMESH_CHECK_PTR_OF("dmesh_axis_groups", group_size);
    if (max < n)
        return dmesh_error_set(DMESH_ERR_SIZE, "%s: capacity %d is below the rank map size %d",
                               "dmesh_axis_groups", max, n);
    DMESH_CHECK_PTR_OF("dmesh_axis_groups", out);
    /* complement() checked that the copies tile [0, n): na * nc == n */
    DMESH_TRY(numel64(a, "dmesh_axis_groups", &na));
    DMESH_TRY(numel64(&c, "dmesh_axis_groups", &nc));
    /* The first row holds the axis's own indices until the end, so every copy
     * is its offset plus that row; row 0 is rewritten last and in place. */
    for (int64_t x = 0; x < na; x++)
        out[x] = (int)axis_at(a, x);
    for (int64_t k = nc - 1; k >= 0; k--) {
        int64_t offset = axis_at(&c, k);
        for (int64_t x = 0; x < na; x++) {
            int64_t i = offset + out[x];
            out[k * na + x] = dmesh_rank_map_rank(rank_map, i);
        }
    }
    *ngroups = (int)nc;
    *group_size = (int)na;
    return DMESH_SUCCESS;
}

int dmesh_axis_group_of_impl(const dmesh_axis_t *a, int n, const int *rank_map, int index, int max,
                             int out[], int *count)
{
    int group, position;
    int64_t na = 0, base;

    DMESH_TRY(dmesh_axis_decompose_impl(a, n, index, &group, &position));
    DMESH_CHECK_PTR_OF("dmesh_axis_group_of", count);
    DMESH_TRY(numel64(a, "dmesh_axis_group_of", &na));
    if (max < na)
        return dmesh_error_set(DMESH_ERR_SIZE, "%s: capacity %d is below the group size %" PRId64,
                               "dmesh_axis_group_of", max, na);
    DMESH_CHECK_PTR_OF("dmesh_axis_group_of", out);
    base = index - axis_at(a, position); /* the copy's offset */
    for (int64_t x = 0; x < na; x++) {
        int64_t i = base + axis_at(a, x);
        out[x] = dmesh_rank_map_rank(rank_map, i);
    }
    *count = (int)na;
    return DMESH_SUCCESS;
}

/* Append one result atom of compose(), refusing strides over INT_MAX. */
static int push_atom(dmesh_atom_t rev[], int *n, int64_t size, int64_t stride, const char *func)
{
    if (stride > INT_MAX)
        return dmesh_error_set(DMESH_ERR_SIZE, "%s: result stride %" PRId64 " exceeds INT_MAX",
                               func, stride);
    rev[(*n)++] = (dmesh_atom_t){(int)size, (int)stride};
    return DMESH_SUCCESS;
}

/*
 * Walk A's canonical atoms from the innermost outwards: while the remaining
 * stride rd exceeds an atom, the mode skips over it whole (rd shrinks by its
 * size); once rd divides an atom, the mode takes cs / rd of its coordinates,
 * spaced rd apart. The outermost atom is unbounded, so whatever is left ends
 * there. Besides the usual divisibility test (each atom's size and the
 * remaining stride divide one another), the remaining size must be a
 * multiple of what an atom takes, or the result would not be a layout (the
 * textbook walk would silently drop elements); the walk stops once the mode is
 * used up, as later atoms cannot matter.
 */
int dmesh_axis_compose_impl(const dmesh_axis_t *a, int size, int stride, dmesh_axis_t *out)
{
    dmesh_axis_t fa;
    dmesh_atom_t rev[DMESH_LAYOUT_MAX_ATOMS + 1];
    int n = 0;
    int64_t rs = size, rd = stride;

    DMESH_TRY(dmesh_axis_check(a, "dmesh_axis_compose"));
    DMESH_CHECK_PTR_OF("dmesh_axis_compose", out);
    if (size < 1 || stride < 0)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: mode %d:%d (size must be >= 1, stride >= 0)",
                               "dmesh_axis_compose", size, stride);
    DMESH_TRY(dmesh_axis_canonical_impl(a, &fa));
    if (stride == 0 || size == 1) {
        *out = (dmesh_axis_t){.natoms = 1, .atoms = {{size, 0}}};
        return DMESH_SUCCESS;
    }
    for (int k = fa.natoms - 1; k >= 1 && rs > 1; k--) {
        int64_t cs = fa.atoms[k].size, ns;
        if (cs % rd != 0 && rd % cs != 0)
            return dmesh_error_set(
                DMESH_ERR_LAYOUT, "%s: mode %d:%d: stride %" PRId64 " and atom %d:%d do not divide",
                "dmesh_axis_compose", size, stride, rd, fa.atoms[k].size, fa.atoms[k].stride);
        ns = cs / rd < 1 ? 1 : cs / rd;
        ns = ns < rs ? ns : rs;
        if (rs % ns != 0)
            return dmesh_error_set(
                DMESH_ERR_LAYOUT,
                "%s: mode %d:%d: %" PRId64 " elements left, atom %d:%d gives %" PRId64,
                "dmesh_axis_compose", size, stride, rs, fa.atoms[k].size, fa.atoms[k].stride, ns);
        if (ns > 1)
            DMESH_TRY(push_atom(rev, &n, ns, rd * fa.atoms[k].stride, "dmesh_axis_compose"));
        rs /= ns;
        rd = (rd + cs - 1) / cs;
    }
    if (rs > 1 || n == 0)
        DMESH_TRY(push_atom(rev, &n, rs, rd * (fa.natoms > 0 ? fa.atoms[0].stride : 0),
                            "dmesh_axis_compose"));
    store_reversed(rev, n, out);
    return DMESH_SUCCESS;
}

int dmesh_axis_compose_modes_impl(const dmesh_axis_t *a, int n, const int sizes[],
                                  const int strides[], dmesh_axis_t out[])
{
    dmesh_axis_t scratch;

    if (n < 0)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: number of modes %d < 0",
                               "dmesh_axis_compose_modes", n);
    if (n > 0) {
        DMESH_CHECK_PTR_OF("dmesh_axis_compose_modes", sizes);
        DMESH_CHECK_PTR_OF("dmesh_axis_compose_modes", strides);
        DMESH_CHECK_PTR_OF("dmesh_axis_compose_modes", out);
    }
    /* a dry run first, so that out is written only when every mode composes */
    for (int j = 0; j < n; j++)
        DMESH_TRY(dmesh_axis_compose_impl(a, sizes[j], strides[j], &scratch));
    for (int j = 0; j < n; j++)
        DMESH_TRY(dmesh_axis_compose_impl(a, sizes[j], strides[j], &out[j]));
    return DMESH_SUCCESS;
}

/* Nested strides: sorted by stride, each atom starts at a multiple of the
 * extent of the next smaller one. A stride-0 atom (of size > 1, canonical
 * atoms have no other) repeats an index, which is never orthogonal, even
 * alone. */
int dmesh_axis_is_orthogonal_impl(const dmesh_axis_t *a, int *orthogonal)
{
    dmesh_axis_t c;

    DMESH_TRY(dmesh_axis_canonical_impl(a, &c));
    DMESH_CHECK_PTR_OF("dmesh_axis_is_orthogonal", orthogonal);
    sort_by_stride(c.atoms, c.natoms);
    *orthogonal = 1;
    for (int k = 0; k < c.natoms; k++) {
        int64_t below = k > 0 ? (int64_t)c.atoms[k - 1].size * c.atoms[k - 1].stride : 1;
        if (c.atoms[k].stride == 0 || c.atoms[k].stride % below != 0) {
            *orthogonal = 0; /* also stops before a stride-0 atom gives below == 0 */
            break;
        }
    }
    return DMESH_SUCCESS;
}

int dmesh_axis_is_sorted_impl(const dmesh_axis_t *a, int *sorted)
{
    dmesh_axis_t c;

    DMESH_TRY(dmesh_axis_canonical_impl(a, &c));
    DMESH_CHECK_PTR_OF("dmesh_axis_is_sorted", sorted);
    *sorted = 1;
    for (int k = 1; k < c.natoms; k++)
        if (c.atoms[k - 1].stride < c.atoms[k].stride)
            *sorted = 0;
    return DMESH_SUCCESS;
}

int dmesh_axis_equal_impl(const dmesh_axis_t *a, const dmesh_axis_t *b)
{
    if (a == NULL || b == NULL || a->natoms != b->natoms)
        return 0;
    if (a->natoms < 0 || a->natoms > DMESH_LAYOUT_MAX_ATOMS)
        return 0;
    for (int k = 0; k < a->natoms; k++)
        if (a->atoms[k].size != b->atoms[k].size || a->atoms[k].stride != b->atoms[k].stride)
            return 0;
    return 1;
}

int dmesh_layout_row_major_impl(int ndims, const int shape[], dmesh_layout_t *l)
{
    dmesh_layout_t tmp;
    int64_t stride = 1; /* suffix product of the shape */

    DMESH_CHECK_PTR_OF("dmesh_layout_row_major", l);
    if (ndims < 0 || ndims > DMESH_MAX_DIMS)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: ndims %d is not in [0, %d]",
                               "dmesh_layout_row_major", ndims, DMESH_MAX_DIMS);
    if (ndims > 0)
        DMESH_CHECK_PTR_OF("dmesh_layout_row_major", shape);
    tmp.naxes = ndims;
    for (int i = ndims - 1; i >= 0; i--) {
        if (shape[i] < 1)
            return dmesh_error_set(DMESH_ERR_ARG, "%s: shape[%d] = %d < 1",
                                   "dmesh_layout_row_major", i, shape[i]);
        tmp.axes[i] = (dmesh_axis_t){.natoms = 1, .atoms = {{shape[i], (int)stride}}};
        DMESH_TRY(dmesh_axis_canonical_impl(&tmp.axes[i], &tmp.axes[i])); /* size 1 -> empty */
        stride *= shape[i];
        if (stride > INT_MAX)
            return dmesh_error_set(DMESH_ERR_SIZE, "%s: product of shape[%d..] exceeds INT_MAX",
                                   "dmesh_layout_row_major", i);
    }
    *l = tmp;
    return DMESH_SUCCESS;
}

static int layout_check(const dmesh_layout_t *l, const char *func)
{
    if (l == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: layout is NULL", func);
    if (l->naxes < 0 || l->naxes > DMESH_MAX_DIMS)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: naxes %d is not in [0, %d]", func, l->naxes,
                               DMESH_MAX_DIMS);
    for (int i = 0; i < l->naxes; i++)
        DMESH_TRY(dmesh_axis_check(&l->axes[i], func));
    return DMESH_SUCCESS;
}

int dmesh_layout_concat_impl(const dmesh_layout_t *l, dmesh_axis_t *a)
{
    dmesh_axis_t tmp = {.natoms = 0};

    DMESH_TRY(layout_check(l, "dmesh_layout_concat"));
    DMESH_CHECK_PTR_OF("dmesh_layout_concat", a);
    for (int i = 0; i < l->naxes; i++) {
        const dmesh_axis_t *x = &l->axes[i];
        if (tmp.natoms + x->natoms > DMESH_LAYOUT_MAX_ATOMS)
            return dmesh_error_set(DMESH_ERR_SIZE, "%s: more than %d atoms in all axes",
                                   "dmesh_layout_concat", DMESH_LAYOUT_MAX_ATOMS);
        memcpy(&tmp.atoms[tmp.natoms], x->atoms, (size_t)x->natoms * sizeof(x->atoms[0]));
        tmp.natoms += x->natoms;
    }
    *a = tmp;
    return DMESH_SUCCESS;
}

int dmesh_layout_splice_impl(const dmesh_layout_t *l, int dim, int n, const dmesh_axis_t axes[],
                             dmesh_layout_t *out)
{
    dmesh_layout_t tmp; /* out may alias l */

    DMESH_TRY(layout_check(l, "dmesh_layout_splice"));
    DMESH_CHECK_PTR_OF("dmesh_layout_splice", out);
    if (dim < 0 || dim >= l->naxes)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: dim %d is not in [0, %d)", "dmesh_layout_splice",
                               dim, l->naxes);
    if (n < 0)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: number of new axes %d < 0",
                               "dmesh_layout_splice", n);
    if (l->naxes - 1 + n > DMESH_MAX_DIMS)
        return dmesh_error_set(DMESH_ERR_SIZE, "%s: %d axes exceed DMESH_MAX_DIMS (%d)",
                               "dmesh_layout_splice", l->naxes - 1 + n, DMESH_MAX_DIMS);
    if (n > 0)
        DMESH_CHECK_PTR_OF("dmesh_layout_splice", axes);
    for (int j = 0; j < n; j++)
        DMESH_TRY(dmesh_axis_check(&axes[j], "dmesh_layout_splice"));
    tmp.naxes = 0;
    for (int i = 0; i < dim; i++)
        tmp.axes[tmp.naxes++] = l->axes[i];
    for (int j = 0; j < n; j++)
        tmp.axes[tmp.naxes++] = axes[j];
    for (int i = dim + 1; i < l->naxes; i++)
        tmp.axes[tmp.naxes++] = l->axes[i];
    *out = tmp;
    return DMESH_SUCCESS;
}
