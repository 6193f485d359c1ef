/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the layout algebra (lib/layout.c): layout-level facts taken from
 * PyTorch's own DeviceMesh and layout tests, unit tests of edge cases and
 * errors, and property tests over random layouts. No MPI: runs without mpiexec.
 *
 * The random layouts come from one seed, printed first; DMESH_TEST_SEED=<n>
 * repeats a run. Every property test draws its own stream from that seed, so
 * a failure reproduces when the test runs alone (CK_RUN_CASE/CK_RUN_SUITE).
 */
#include "config.h"

#include <check.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmesh_layout.h"

/* Random layouts per property test. */
#define NPROP 10000

static uint64_t seed = 20261122;

/* ck_assert records its location (a write to Check's message file) each time
 * it passes; the property tests make millions of checks, so they call into
 * Check only on failure. */
#define require(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg(__VA_ARGS__);                                                             \
    } while (0)
#define require_ok(call)                                                                           \
    do {                                                                                           \
        int require_err_ = (call);                                                                 \
        if (require_err_ != DMESH_SUCCESS)                                                         \
            ck_abort_msg("%s gave %d: %s", #call, require_err_, dmesh_last_error());               \
    } while (0)
#define require_eq(x, y)                                                                           \
    do {                                                                                           \
        long long require_x_ = (x), require_y_ = (y);                                              \
        if (require_x_ != require_y_)                                                              \
            ck_abort_msg("%s = %lld, expected %s = %lld", #x, require_x_, #y, require_y_);         \
    } while (0)

/* ---------------------------------------------------------------- helpers */

/* splitmix64: small, good enough, and the same on every platform. */
typedef struct {
    uint64_t state;
} rng_t;

static rng_t rng_make(uint64_t tag)
{
    return (rng_t){seed ^ (tag * 0x9E3779B97F4A7C15ull)};
}

static uint64_t rng_next(rng_t *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int rng_int(rng_t *r, int lo, int hi)
{
    return lo + (int)(rng_next(r) % ((uint64_t)hi - (uint64_t)lo + 1));
}

/* True with probability 1/n. */
static int one_in(rng_t *r, int n)
{
    return rng_int(r, 1, n) == 1;
}

/* A uniformly chosen divisor of x >= 1. */
static int rng_divisor(rng_t *r, int x)
{
    int divs[4096], n = 0;
    for (int d = 1; d <= x && n < 4096; d++)
        if (x % d == 0)
            divs[n++] = d;
    return divs[rng_int(r, 0, n - 1)];
}

/* Text of an axis for messages; a few rotating buffers so that one message
 * can show several axes. */
static const char *txt(const dmesh_axis_t *a)
{
    static char bufs[4][1024];
    static int next;
    char *b = bufs[next++ % 4];
    if (dmesh_axis_to_string(a, b, 1024, NULL) != DMESH_SUCCESS)
        snprintf(b, 1024, "<invalid axis>");
    return b;
}

static dmesh_axis_t ax(const char *text)
{
    dmesh_axis_t a;
    int err = dmesh_axis_parse(text, &a);
    ck_assert_msg(err == DMESH_SUCCESS, "parse \"%s\" failed (%d): %s", text, err,
                  dmesh_last_error());
    return a;
}

static void assert_axis(const dmesh_axis_t *a, const char *expect)
{
    char buf[1024];
    ck_assert_int_eq(dmesh_axis_to_string(a, buf, sizeof buf, NULL), DMESH_SUCCESS);
    ck_assert_str_eq(buf, expect);
}

static int numel(const dmesh_axis_t *a)
{
    int n = -1;
    require_ok(dmesh_axis_numel(a, &n));
    return n;
}

static int at(const dmesh_axis_t *a, int i)
{
    int v = -1;
    int err = dmesh_axis_index(a, i, &v);
    require(err == DMESH_SUCCESS, "index(%s, %d): %s", txt(a), i, dmesh_last_error());
    return v;
}

/* groups() of an axis must equal expect (ngroups rows of gsize), and every
 * index's decompose() and group_of() must agree with those rows. */
static void assert_groups(const char *axis, int n, const int *map, const int *expect, int ngroups,
                          int gsize)
{
    dmesh_axis_t a = ax(axis);
    int out[64], row[64], ng = -1, gs = -1, cnt = -1, g, p;

    ck_assert_int_eq(dmesh_axis_groups(&a, n, map, 64, out, &ng, &gs), DMESH_SUCCESS);
    ck_assert_int_eq(ng, ngroups);
    ck_assert_int_eq(gs, gsize);
    for (int i = 0; i < n; i++)
        ck_assert_msg(out[i] == expect[i], "%s in %d: groups[%d][%d] = %d, expected %d", axis, n,
                      i / gs, i % gs, out[i], expect[i]);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(dmesh_axis_decompose(&a, n, i, &g, &p), DMESH_SUCCESS);
        ck_assert_int_eq(out[g * gs + p], map ? map[i] : i);
        ck_assert_int_eq(dmesh_axis_group_of(&a, n, map, i, 64, row, &cnt), DMESH_SUCCESS);
        ck_assert_int_eq(cnt, gs);
        ck_assert_mem_eq(row, &out[g * gs], (size_t)gs * sizeof(int));
    }
}

/* ------------------------------- facts from PyTorch's own layout tests */

static const char *const canonical_facts[][2] = {
    {"(3,2):(2,1)", "6:1"},
    {"(2,3,4):(12,4,1)", "24:1"},
    {"(3,2):(4,1)", "(3,2):(4,1)"},
    {"(1,3,1,5,1):(0,10,17,2,1)", "15:2"},
    {"(1,1,1):(1,42,0)", "1:0"},
    {"(7,5,3,2):(900,36,4,1)", "(7,5,3,2):(900,36,4,1)"},
    {"(7,5,3,2):(30,6,2,1)", "210:1"},
};
#define N_CANONICAL_FACTS ((int)(sizeof canonical_facts / sizeof canonical_facts[0]))

START_TEST(fact_canonical)
{
    dmesh_axis_t a = ax(canonical_facts[_i][0]), c;
    ck_assert_int_eq(dmesh_axis_canonical(&a, &c), DMESH_SUCCESS);
    assert_axis(&c, canonical_facts[_i][1]);
    if (strcmp(canonical_facts[_i][1], "1:0") == 0)
        ck_assert_int_eq(c.natoms, 0);
}
END_TEST

START_TEST(fact_complement_4_2_in_8)
{
    dmesh_axis_t a = ax("4:2"), c;
    static const int expect[] = {0, 2, 4, 6, 1, 3, 5, 7};
    ck_assert_int_eq(dmesh_axis_complement(&a, 8, &c), DMESH_SUCCESS);
    assert_axis(&c, "2:1");
    assert_groups("4:2", 8, NULL, expect, 2, 4);
}
END_TEST

START_TEST(fact_complement_4_2_in_16)
{
    dmesh_axis_t a = ax("4:2"), c;
    static const int expect[] = {0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15};
    ck_assert_int_eq(dmesh_axis_complement(&a, 16, &c), DMESH_SUCCESS);
    assert_axis(&c, "(2,2):(8,1)");
    assert_groups("4:2", 16, NULL, expect, 4, 4);
}
END_TEST

START_TEST(fact_groups_22_41_in_16)
{
    dmesh_axis_t a = ax("(2,2):(4,1)"), c;
    static const int expect[] = {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15};
    ck_assert_int_eq(dmesh_axis_complement(&a, 16, &c), DMESH_SUCCESS);
    assert_axis(&c, "(2,2):(8,2)");
    assert_groups("(2,2):(4,1)", 16, NULL, expect, 4, 4);
}
END_TEST

START_TEST(fact_groups_22_24_in_16)
{
    dmesh_axis_t a = ax("(2,2):(2,4)"), c;
    static const int expect[] = {0, 4, 2, 6, 1, 5, 3, 7, 8, 12, 10, 14, 9, 13, 11, 15};
    ck_assert_int_eq(dmesh_axis_complement(&a, 16, &c), DMESH_SUCCESS);
    assert_axis(&c, "(2,2):(8,1)");
    assert_groups("(2,2):(2,4)", 16, NULL, expect, 4, 4);
}
END_TEST

START_TEST(fact_compose_42_21_with_2_1)
{
    dmesh_axis_t a = ax("(4,2):(2,1)"), r;
    ck_assert_int_eq(dmesh_axis_compose(&a, 2, 1, &r), DMESH_SUCCESS);
    assert_axis(&r, "2:1");
}
END_TEST

START_TEST(fact_compose_4_2_with_2_1)
{
    dmesh_axis_t a = ax("4:2"), r;
    ck_assert_int_eq(dmesh_axis_compose(&a, 2, 1, &r), DMESH_SUCCESS);
    assert_axis(&r, "2:2");
}
END_TEST

START_TEST(fact_compose_4_2_with_22_21)
{
    dmesh_axis_t a = ax("4:2"), r[2];
    static const int sizes[] = {2, 2}, strides[] = {2, 1};
    ck_assert_int_eq(dmesh_axis_compose_modes(&a, 2, sizes, strides, r), DMESH_SUCCESS);
    assert_axis(&r[0], "2:4");
    assert_axis(&r[1], "2:2");
}
END_TEST

START_TEST(fact_compose_42_41_with_2_3_fails)
{
    dmesh_axis_t a = ax("(4,2):(4,1)"), r = ax("(5,5):(5,5)");
    ck_assert_int_eq(dmesh_axis_compose(&a, 2, 3, &r), DMESH_ERR_LAYOUT);
    ck_assert_str_ne(dmesh_last_error(), "");
    assert_axis(&r, "(5,5):(5,5)"); /* outputs written only on success */
}
END_TEST

static const char *const orthogonal_true[] = {
    "(2,3):(6,1)",     "4:1",
    "(2,3):(3,1)",     "(2,2,2):(8,4,1)",
    "(2,2,2):(4,1,2)", "(2,11,3,7):(1,210,2,30)",
};
static const char *const orthogonal_false[] = {"(2,3):(2,1)", "(2,3):(1,1)", "(3,2):(2,3)"};

START_TEST(fact_orthogonal_true)
{
    dmesh_axis_t a = ax(orthogonal_true[_i]);
    int o = -1;
    ck_assert_int_eq(dmesh_axis_is_orthogonal(&a, &o), DMESH_SUCCESS);
    ck_assert_msg(o == 1, "%s should be orthogonal", orthogonal_true[_i]);
}
END_TEST

START_TEST(fact_orthogonal_false)
{
    dmesh_axis_t a = ax(orthogonal_false[_i]);
    int o = -1;
    ck_assert_int_eq(dmesh_axis_is_orthogonal(&a, &o), DMESH_SUCCESS);
    ck_assert_msg(o == 0, "%s should not be orthogonal", orthogonal_false[_i]);
}
END_TEST

START_TEST(fact_groups_rank_map_0214)
{
    static const int map[] = {0, 2, 1, 4}, expect[] = {0, 1, 2, 4};
    assert_groups("(2,2):(1,2)", 4, map, expect, 1, 4);
}
END_TEST

START_TEST(fact_groups_rank_map_10_to_40)
{
    static const int map[] = {10, 20, 30, 40}, expect[] = {10, 20, 30, 40};
    assert_groups("(2,2):(2,1)", 4, map, expect, 1, 4);
}
END_TEST

/* ------------------------------------------------------------ unit tests */

START_TEST(unit_numel_cosize_enumerate)
{
    dmesh_axis_t a = ax("(2,3):(1,2)"), e = {.natoms = 0};
    int out[8], n = -1, v = -1;
    static const int expect[] = {0, 2, 4, 1, 3, 5};

    ck_assert_int_eq(numel(&a), 6);
    ck_assert_int_eq(dmesh_axis_cosize(&a, &v), DMESH_SUCCESS);
    ck_assert_int_eq(v, 6);
    ck_assert_int_eq(dmesh_axis_enumerate(&a, 8, out, &n), DMESH_SUCCESS);
    ck_assert_int_eq(n, 6);
    ck_assert_mem_eq(out, expect, sizeof expect);
    ck_assert_int_eq(dmesh_axis_enumerate(&a, 5, out, &n), DMESH_ERR_SIZE);
    ck_assert_int_eq(at(&a, 4), 3);
    ck_assert_int_eq(dmesh_axis_index(&a, 6, &v), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_axis_index(&a, -1, &v), DMESH_ERR_ARG);
    /* the empty axis has one element, at 0 */
    ck_assert_int_eq(numel(&e), 1);
    ck_assert_int_eq(dmesh_axis_cosize(&e, &v), DMESH_SUCCESS);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(dmesh_axis_enumerate(&e, 1, out, &n), DMESH_SUCCESS);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(out[0], 0);
    a = ax("(2,3):(3,1)");
    ck_assert_int_eq(dmesh_axis_enumerate(&a, 8, out, &n), DMESH_SUCCESS);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(out[i], i);
}
END_TEST

START_TEST(unit_canonical_errors_and_alias)
{
    dmesh_axis_t a = ax("(2,2,1,2):(4,2,9,1)"), bad = {.natoms = 1, .atoms = {{2, -1}}};

    ck_assert_int_eq(dmesh_axis_canonical(&a, &a), DMESH_SUCCESS);
    assert_axis(&a, "8:1");
    ck_assert_int_eq(dmesh_axis_canonical(&bad, &a), DMESH_ERR_ARG);
    ck_assert_str_ne(dmesh_last_error(), "");
    assert_axis(&a, "8:1");
    bad.atoms[0] = (dmesh_atom_t){0, 1};
    ck_assert_int_eq(dmesh_axis_canonical(&bad, &a), DMESH_ERR_ARG);
    bad.natoms = DMESH_LAYOUT_MAX_ATOMS + 1;
    ck_assert_int_eq(dmesh_axis_canonical(&bad, &a), DMESH_ERR_ARG);
    bad.natoms = -1;
    ck_assert_int_eq(dmesh_axis_canonical(&bad, &a), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_axis_canonical(NULL, &a), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_axis_canonical(&a, NULL), DMESH_ERR_ARG);
    /* stride-0 atoms merge with each other (a repeated index) */
    a = ax("(3,2):(0,0)");
    ck_assert_int_eq(dmesh_axis_canonical(&a, &a), DMESH_SUCCESS);
    assert_axis(&a, "6:0");
}
END_TEST

START_TEST(unit_complement)
{
    dmesh_axis_t a, c = ax("(9,9):(9,9)");

    a = ax("1:0"); /* empty axis: one copy per index */
    ck_assert_int_eq(dmesh_axis_complement(&a, 6, &c), DMESH_SUCCESS);
    assert_axis(&c, "6:1");
    a = ax("8:1"); /* the whole codomain: one copy */
    ck_assert_int_eq(dmesh_axis_complement(&a, 8, &c), DMESH_SUCCESS);
    ck_assert_int_eq(c.natoms, 0);
    a = ax("(2,1,2):(4,7,2)"); /* size-1 atoms ignored, unsorted input */
    ck_assert_int_eq(dmesh_axis_complement(&a, 16, &c), DMESH_SUCCESS);
    assert_axis(&c, "(2,2):(8,1)");
    a = ax("3:2");
    ck_assert_int_eq(dmesh_axis_complement(&a, 12, &c), DMESH_SUCCESS);
    assert_axis(&c, "(2,2):(6,1)");
    a = ax("(3,2,2):(1,12,6)"); /* unsorted atoms */
    ck_assert_int_eq(dmesh_axis_complement(&a, 48, &c), DMESH_SUCCESS);
    assert_axis(&c, "(2,2):(24,3)");
}
END_TEST

START_TEST(unit_complement_rejects)
{
    dmesh_axis_t a, c = ax("5:5");

    a = ax("4:2"); /* extent 8 past n = 7 */
    ck_assert_int_eq(dmesh_axis_complement(&a, 7, &c), DMESH_ERR_LAYOUT);
    a = ax("4:2"); /* n = 12 not a multiple of 8 */
    ck_assert_int_eq(dmesh_axis_complement(&a, 12, &c), DMESH_ERR_LAYOUT);
    a = ax("(2,2):(1,1)"); /* overlapping atoms */
    ck_assert_int_eq(dmesh_axis_complement(&a, 4, &c), DMESH_ERR_LAYOUT);
    a = ax("(2,2):(5,2)"); /* stride 5 is not a multiple of the extent 4 below it */
    ck_assert_int_eq(dmesh_axis_complement(&a, 20, &c), DMESH_ERR_LAYOUT);
    a = ax("(2,3):(3,2)"); /* stride 3 < extent 6 below it: overlap */
    ck_assert_int_eq(dmesh_axis_complement(&a, 12, &c), DMESH_ERR_LAYOUT);
    a = ax("4:0"); /* repeated index */
    ck_assert_int_eq(dmesh_axis_complement(&a, 4, &c), DMESH_ERR_LAYOUT);
    a = ax("2:1073741824"); /* extent 2^31: past any int n */
    ck_assert_int_eq(dmesh_axis_complement(&a, INT_MAX, &c), DMESH_ERR_LAYOUT);
    ck_assert_int_eq(dmesh_axis_complement(&a, 0, &c), DMESH_ERR_ARG);
    assert_axis(&c, "5:5");
    ck_assert_int_eq(dmesh_axis_groups(&a, 7, NULL, 64, (int[64]){0}, &(int){0}, &(int){0}),
                     DMESH_ERR_LAYOUT);
}
END_TEST

START_TEST(unit_decompose)
{
    dmesh_axis_t a = ax("(2,2):(2,4)");
    int g = -1, p = -1, row[4], cnt = -1;

    ck_assert_int_eq(dmesh_axis_decompose(&a, 16, 5, &g, &p), DMESH_SUCCESS);
    ck_assert_int_eq(g, 1);
    ck_assert_int_eq(p, 1);
    ck_assert_int_eq(dmesh_axis_decompose(&a, 16, 12, &g, &p), DMESH_SUCCESS);
    ck_assert_int_eq(g, 2);
    ck_assert_int_eq(p, 1);
    ck_assert_int_eq(dmesh_axis_group_of(&a, 16, NULL, 12, 4, row, &cnt), DMESH_SUCCESS);
    ck_assert_int_eq(cnt, 4);
    ck_assert_mem_eq(row, ((int[]){8, 12, 10, 14}), sizeof row);
    ck_assert_int_eq(dmesh_axis_group_of(&a, 16, NULL, 12, 3, row, &cnt), DMESH_ERR_SIZE);
    ck_assert_int_eq(dmesh_axis_decompose(&a, 16, 16, &g, &p), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_axis_decompose(&a, 16, -1, &g, &p), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_axis_decompose(&a, 12, 0, &g, &p), DMESH_ERR_LAYOUT);
    ck_assert_int_eq(dmesh_axis_groups(&a, 16, NULL, 15, row, &g, &p), DMESH_ERR_SIZE);
    /* a 2^30-rank world, decomposed without enumerating it */
    a = ax("(1024,2):(1024,1)");
    ck_assert_int_eq(dmesh_axis_decompose(&a, 1 << 30, (5 << 20) + (7 << 10) + 513, &g, &p),
                     DMESH_SUCCESS);
    ck_assert_int_eq(g, (5 << 9) + 256);
    ck_assert_int_eq(p, 7 * 2 + 1);
}
END_TEST

START_TEST(unit_prepared_decompose)
{
    dmesh_axis_t a = ax("(2,2):(2,4)"), e = {.natoms = 0};
    dmesh_prepared_axis_t pa;
    int g = -1, p = -1;

    ck_assert_int_eq(dmesh_axis_prepare(&a, 16, &pa), DMESH_SUCCESS);
    ck_assert_int_eq(pa.n, 16);
    ck_assert_int_eq(pa.ngroups, 4);
    ck_assert_int_eq(pa.size, 4);
    ck_assert_int_eq(dmesh_prepared_axis_decompose(&pa, 5, &g, &p), DMESH_SUCCESS);
    ck_assert_int_eq(g, 1);
    ck_assert_int_eq(p, 1);
    ck_assert_int_eq(dmesh_prepared_axis_decompose(&pa, 12, &g, &p), DMESH_SUCCESS);
    ck_assert_int_eq(g, 2);
    ck_assert_int_eq(p, 1);
    ck_assert_int_eq(dmesh_prepared_axis_decompose(&pa, 16, &g, &p), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_prepared_axis_decompose(&pa, -1, &g, &p), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_prepared_axis_decompose(NULL, 0, &g, &p), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_prepared_axis_decompose(&pa, 0, NULL, &p), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_prepared_axis_decompose(&pa, 0, &g, NULL), DMESH_ERR_ARG);
    ck_assert_int_eq(g, 2); /* outputs untouched on failure */
    ck_assert_int_eq(dmesh_axis_prepare(&a, 12, &pa), DMESH_ERR_LAYOUT);
    ck_assert_int_eq(dmesh_axis_prepare(&a, 0, &pa), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_axis_prepare(NULL, 16, &pa), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_axis_prepare(&a, 16, NULL), DMESH_ERR_ARG);
    /* the empty axis: one digit (the complement) in 7, none in 1 */
    ck_assert_int_eq(dmesh_axis_prepare(&e, 7, &pa), DMESH_SUCCESS);
    ck_assert_int_eq(dmesh_prepared_axis_decompose(&pa, 6, &g, &p), DMESH_SUCCESS);
    ck_assert_int_eq(g, 6);
    ck_assert_int_eq(p, 0);
    ck_assert_int_eq(dmesh_axis_prepare(&e, 1, &pa), DMESH_SUCCESS);
    ck_assert_int_eq(pa.ngroups, 1);
    ck_assert_int_eq(dmesh_prepared_axis_decompose(&pa, 0, &g, &p), DMESH_SUCCESS);
    ck_assert_int_eq(g + p, 0);
}
END_TEST

/* Divisions by the largest radixes, at the largest indices: axis d:1 in
 * d * m gives (i / d, i % d), axis d:m gives (i % m, i / m). */
static void assert_division(int d, int m, int i)
{
    dmesh_axis_t a = {.natoms = 1, .atoms = {{d, 1}}};
    dmesh_prepared_axis_t pa;
    int g = -1, p = -1;

    require_ok(dmesh_axis_prepare(&a, d * m, &pa));
    require_ok(dmesh_prepared_axis_decompose(&pa, i, &g, &p));
    require(g == i / d && p == i % d, "%d:1 in %d: %d -> (%d, %d)", d, d * m, i, g, p);
    a.atoms[0].stride = m;
    require_ok(dmesh_axis_prepare(&a, d * m, &pa));
    require_ok(dmesh_prepared_axis_decompose(&pa, i, &g, &p));
    require(g == i % m && p == i / m, "%d:%d in %d: %d -> (%d, %d)", d, m, d * m, i, g, p);
}

START_TEST(unit_prepared_division)
{
    static const int dm[][2] = {{2, 1073741823}, {3, 715827882}, {7, 306783378},
                                {46341, 46340},  {65535, 32767}, {1073741823, 2},
                                {INT_MAX, 1},    {2, 2},         {1 << 30, 1}};
    rng_t r = rng_make(20);

    for (size_t k = 0; k < sizeof dm / sizeof dm[0]; k++) {
        int n = dm[k][0] * dm[k][1];
        assert_division(dm[k][0], dm[k][1], n - 1);
        assert_division(dm[k][0], dm[k][1], 0);
        for (int t = 0; t < 1000; t++)
            assert_division(dm[k][0], dm[k][1], rng_int(&r, 0, n - 1));
    }
    for (int t = 0; t < NPROP; t++) { /* any radix, any quotient */
        int d = rng_int(&r, 2, INT_MAX / 2), m = rng_int(&r, 1, INT_MAX / d);
        assert_division(d, m, rng_int(&r, 0, d * m - 1));
        assert_division(d, m, d * m - 1);
    }
}
END_TEST

START_TEST(unit_compose)
{
    dmesh_axis_t a = ax("8:1"), r[3], e = {.natoms = 0};
    static const int sizes[] = {2, 2, 2}, strides[] = {4, 2, 1};

    ck_assert_int_eq(dmesh_axis_compose_modes(&a, 3, sizes, strides, r), DMESH_SUCCESS);
    assert_axis(&r[0], "2:4");
    assert_axis(&r[1], "2:2");
    assert_axis(&r[2], "2:1");
    /* the mode covers two atoms of A */
    a = ax("(2,4):(16,2)");
    ck_assert_int_eq(dmesh_axis_compose(&a, 4, 2, &r[0]), DMESH_SUCCESS);
    assert_axis(&r[0], "(2,2):(16,4)");
    ck_assert_int_eq(dmesh_axis_compose(&a, 3, 0, &r[0]), DMESH_SUCCESS);
    assert_axis(&r[0], "3:0");
    ck_assert_int_eq(dmesh_axis_compose(&e, 1, 5, &r[0]), DMESH_SUCCESS);
    ck_assert_int_eq(numel(&r[0]), 1);
    /* 3 elements of stride 2 in (5,4):(8,1): 0, 2, 8 is no layout (the
     * divisibility test alone would answer 2:2) */
    a = ax("(5,4):(8,1)");
    ck_assert_int_eq(dmesh_axis_compose(&a, 3, 2, &r[0]), DMESH_ERR_LAYOUT);
    ck_assert_int_eq(dmesh_axis_compose(&a, 0, 1, &r[0]), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_axis_compose(&a, 2, -1, &r[0]), DMESH_ERR_ARG);
    /* one bad mode: nothing written */
    r[0] = ax("7:7");
    ck_assert_int_eq(dmesh_axis_compose_modes(&a, 2, (int[]){2, 3}, (int[]){1, 2}, r),
                     DMESH_ERR_LAYOUT);
    assert_axis(&r[0], "7:7");
    a = ax("2:1073741824"); /* result stride 2^32 */
    ck_assert_int_eq(dmesh_axis_compose(&a, 2, 4, &r[0]), DMESH_ERR_SIZE);
}
END_TEST

START_TEST(unit_sorted_orthogonal_equal)
{
    dmesh_axis_t a;
    int v = -1;

    a = ax("(4,2):(2,1)");
    ck_assert_int_eq(dmesh_axis_is_sorted(&a, &v), DMESH_SUCCESS);
    ck_assert_int_eq(v, 1);
    a = ax("(2,2):(1,2)");
    ck_assert_int_eq(dmesh_axis_is_sorted(&a, &v), DMESH_SUCCESS);
    ck_assert_int_eq(v, 0);
    a = ax("(2,1,2):(4,99,2)"); /* the size-1 atom's stride does not count */
    ck_assert_int_eq(dmesh_axis_is_sorted(&a, &v), DMESH_SUCCESS);
    ck_assert_int_eq(v, 1);
    a = ax("1:0");
    ck_assert_int_eq(dmesh_axis_is_sorted(&a, &v), DMESH_SUCCESS);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(dmesh_axis_is_orthogonal(&a, &v), DMESH_SUCCESS);
    ck_assert_int_eq(v, 1);
    a = ax("4:0"); /* repeats index 0 */
    ck_assert_int_eq(dmesh_axis_is_orthogonal(&a, &v), DMESH_SUCCESS);
    ck_assert_int_eq(v, 0);
    a = ax("(2,2):(1,0)");
    ck_assert_int_eq(dmesh_axis_is_orthogonal(&a, &v), DMESH_SUCCESS);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(dmesh_axis_is_orthogonal(NULL, &v), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_axis_equal(&a, &a), 1);
    dmesh_axis_t b = ax("(2,2):(1,1)");
    ck_assert_int_eq(dmesh_axis_equal(&a, &b), 0);
    b = ax("2:1");
    ck_assert_int_eq(dmesh_axis_equal(&a, &b), 0);
    ck_assert_int_eq(dmesh_axis_equal(&a, NULL), 0);
}
END_TEST

START_TEST(unit_to_string)
{
    dmesh_axis_t a = ax("(2,4):(4,1)");
    char buf[8];
    size_t need = 0;

    ck_assert_int_eq(dmesh_axis_to_string(&a, buf, 5, &need), DMESH_SUCCESS);
    ck_assert_str_eq(buf, "(2,4");
    ck_assert_uint_eq(need, 11);
    ck_assert_int_eq(dmesh_axis_to_string(&a, NULL, 0, &need), DMESH_SUCCESS);
    ck_assert_uint_eq(need, 11);
    ck_assert_int_eq(dmesh_axis_to_string(&a, NULL, 4, &need), DMESH_ERR_ARG);
    a = ax("8:1");
    ck_assert_int_eq(dmesh_axis_to_string(&a, buf, sizeof buf, &need), DMESH_SUCCESS);
    ck_assert_str_eq(buf, "8:1");
    ck_assert_uint_eq(need, 3);
    a.natoms = 0;
    assert_axis(&a, "1:0");
}
END_TEST

static const char *const parse_good[][2] = {
    {" ( 2 , 4 ) : ( 4 , 1 ) ", "(2,4):(4,1)"},
    {"\t8 :\n1", "8:1"},
    {"(8):(1)", "8:1"},
    {"2147483647:0", "2147483647:0"},
    {"(1,1):(0,0)", "(1,1):(0,0)"}, /* as written, not coalesced */
    {"(3,2):(2,1)", "(3,2):(2,1)"},
    {"1:0", "1:0"},
    {"007:010", "7:10"},
};

START_TEST(unit_parse_good)
{
    dmesh_axis_t a = ax(parse_good[_i][0]);
    assert_axis(&a, parse_good[_i][1]);
}
END_TEST

START_TEST(unit_parse_layouts_as_written)
{
    dmesh_axis_t a = ax("(1,1):(0,0)");
    ck_assert_int_eq(a.natoms, 2);
    a = ax("1:0"); /* the text of the empty axis */
    ck_assert_int_eq(a.natoms, 0);
    a = ax("(1):(0)");
    ck_assert_int_eq(a.natoms, 0);
    a = ax("1:5"); /* only 1:0 is the empty axis's text */
    ck_assert_int_eq(a.natoms, 1);
    a = ax("(3,2):(2,1)");
    ck_assert_int_eq(a.natoms, 2);
    ck_assert_int_eq(a.atoms[0].size, 3);
    ck_assert_int_eq(a.atoms[1].stride, 1);
}
END_TEST

static const struct {
    const char *text;
    int err;
} parse_bad[] = {
    {"", DMESH_ERR_ARG},
    {"   ", DMESH_ERR_ARG},
    {"8", DMESH_ERR_ARG},
    {"8:", DMESH_ERR_ARG},
    {":1", DMESH_ERR_ARG},
    {"(2,4):(4)", DMESH_ERR_ARG},
    {"(2,4):(4,1,1)", DMESH_ERR_ARG},
    {"(2,4):4", DMESH_ERR_ARG},
    {"(2,4:(4,1)", DMESH_ERR_ARG},
    {"(2,4)):(4,1)", DMESH_ERR_ARG},
    {"((2,4)):((4,1))", DMESH_ERR_ARG},
    {"2:1x", DMESH_ERR_ARG},
    {"x2:1", DMESH_ERR_ARG},
    {"-2:1", DMESH_ERR_ARG},
    {"2:-1", DMESH_ERR_ARG},
    {"(2,-4):(4,1)", DMESH_ERR_ARG},
    {"+2:1", DMESH_ERR_ARG},
    {"0:1", DMESH_ERR_ARG},
    {"(2,0):(1,2)", DMESH_ERR_ARG},
    {"():()", DMESH_ERR_ARG},
    {"(2,):(1,)", DMESH_ERR_ARG},
    {"(,2):(,1)", DMESH_ERR_ARG},
    {"(2 4):(4 1)", DMESH_ERR_ARG},
    {"2::1", DMESH_ERR_ARG},
    {"2:1:3", DMESH_ERR_ARG},
    {"2 1:1", DMESH_ERR_ARG},
    {"2.5:1", DMESH_ERR_ARG},
    {"0x10:1", DMESH_ERR_ARG},
    {"2:1;", DMESH_ERR_ARG},
    {"(2,4):(4,1", DMESH_ERR_ARG},
    {"2147483648:1", DMESH_ERR_SIZE},
    {"2:2147483648", DMESH_ERR_SIZE},
    {"(2,99999999999999999999999999):(1,2)", DMESH_ERR_SIZE},
    {"4294967298:1", DMESH_ERR_SIZE}, /* 2^32 + 2: would wrap to 2 */
};

START_TEST(unit_parse_bad)
{
    dmesh_axis_t a = ax("(3,3):(3,3)");
    int err = dmesh_axis_parse(parse_bad[_i].text, &a);
    ck_assert_msg(err == parse_bad[_i].err, "parse \"%s\" gave %d, expected %d", parse_bad[_i].text,
                  err, parse_bad[_i].err);
    ck_assert_str_ne(dmesh_last_error(), "");
    assert_axis(&a, "(3,3):(3,3)"); /* untouched */
}
END_TEST

START_TEST(unit_parse_atom_count)
{
    char text[512];
    size_t pos = 0;
    dmesh_axis_t a;

    /* 33 atoms: one too many */
    for (int side = 0; side < 2; side++) {
        text[pos++] = '(';
        for (int k = 0; k <= DMESH_LAYOUT_MAX_ATOMS; k++)
            pos += (size_t)sprintf(text + pos, k ? ",%d" : "%d", side ? 0 : 1);
        pos += (size_t)sprintf(text + pos, side ? ")" : "):");
    }
    ck_assert_int_eq(dmesh_axis_parse(text, &a), DMESH_ERR_SIZE);
    /* 32 atoms are fine: drop the last ",1" and ",0" */
    char *p1 = strstr(text, ",1)"), *p0 = strstr(text, ",0)");
    memmove(p0, p0 + 2, strlen(p0 + 2) + 1);
    memmove(p1, p1 + 2, strlen(p1 + 2) + 1);
    ck_assert_int_eq(dmesh_axis_parse(text, &a), DMESH_SUCCESS);
    ck_assert_int_eq(a.natoms, DMESH_LAYOUT_MAX_ATOMS);
    ck_assert_int_eq(dmesh_axis_parse(NULL, &a), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_axis_parse("2:1", NULL), DMESH_ERR_ARG);
}
END_TEST

START_TEST(unit_overflow)
{
    dmesh_axis_t a = ax("(65536,32768):(1,1)"), c;
    dmesh_layout_t l;
    int v = -1, out[4];

    ck_assert_int_eq(dmesh_axis_numel(&a, &v), DMESH_ERR_SIZE); /* 2^31 */
    a = ax("(65536,32767):(1,1)");
    ck_assert_int_eq(dmesh_axis_numel(&a, &v), DMESH_SUCCESS);
    ck_assert_int_eq(v, 65536 * 32767);
    a = ax("2:2147483647"); /* largest index INT_MAX, cosize INT_MAX + 1 */
    ck_assert_int_eq(dmesh_axis_cosize(&a, &v), DMESH_ERR_SIZE);
    ck_assert_int_eq(dmesh_axis_index(&a, 1, &v), DMESH_ERR_SIZE);
    ck_assert_int_eq(dmesh_axis_enumerate(&a, 4, out, &v), DMESH_ERR_SIZE);
    a = ax("2:2147483646");
    ck_assert_int_eq(at(&a, 1), INT_MAX - 1);
    a = ax("(2147483647,2147483647,2147483647):(2147483647,2147483647,2147483647)");
    ck_assert_int_eq(dmesh_axis_numel(&a, &v), DMESH_ERR_SIZE);
    ck_assert_int_eq(dmesh_axis_cosize(&a, &v), DMESH_ERR_SIZE);
    a = ax("(65536,32768):(32768,1)"); /* merges into 2^31:1 */
    ck_assert_int_eq(dmesh_axis_canonical(&a, &c), DMESH_ERR_SIZE);
    ck_assert_int_eq(dmesh_layout_row_major(2, (int[]){65536, 32768}, &l), DMESH_ERR_SIZE);
    ck_assert_int_eq(dmesh_layout_row_major(3, (int[]){2, 65536, 32768}, &l), DMESH_ERR_SIZE);
    ck_assert_int_eq(dmesh_layout_row_major(2, (int[]){65536, 32767}, &l), DMESH_SUCCESS);
    assert_axis(&l.axes[0], "65536:32767");
}
END_TEST

START_TEST(unit_row_major_concat_splice)
{
    dmesh_layout_t l, m;
    dmesh_axis_t a, r[2];

    ck_assert_int_eq(dmesh_layout_row_major(3, (int[]){3, 2, 4}, &l), DMESH_SUCCESS);
    ck_assert_int_eq(l.naxes, 3);
    assert_axis(&l.axes[0], "3:8");
    assert_axis(&l.axes[1], "2:4");
    assert_axis(&l.axes[2], "4:1");
    ck_assert_int_eq(dmesh_layout_concat(&l, &a), DMESH_SUCCESS);
    assert_axis(&a, "(3,2,4):(8,4,1)");
    ck_assert_int_eq(dmesh_axis_canonical(&a, &a), DMESH_SUCCESS);
    assert_axis(&a, "24:1");
    ck_assert_int_eq(dmesh_layout_row_major(3, (int[]){2, 1, 4}, &l), DMESH_SUCCESS);
    ck_assert_int_eq(l.axes[1].natoms, 0);
    ck_assert_int_eq(dmesh_layout_row_major(2, (int[]){2, 0}, &l), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_layout_row_major(DMESH_MAX_DIMS + 1, (int[DMESH_MAX_DIMS + 1]){0}, &l),
                     DMESH_ERR_ARG);
    /* unflatten (4,2) dim 0 into (2,2): compose, then splice in place */
    ck_assert_int_eq(dmesh_layout_row_major(2, (int[]){4, 2}, &l), DMESH_SUCCESS);
    ck_assert_int_eq(dmesh_axis_compose_modes(&l.axes[0], 2, (int[]){2, 2}, (int[]){2, 1}, r),
                     DMESH_SUCCESS);
    ck_assert_int_eq(dmesh_layout_splice(&l, 0, 2, r, &l), DMESH_SUCCESS);
    ck_assert_int_eq(l.naxes, 3);
    assert_axis(&l.axes[0], "2:4");
    assert_axis(&l.axes[1], "2:2");
    assert_axis(&l.axes[2], "2:1");
    ck_assert_int_eq(dmesh_layout_splice(&l, 2, 0, NULL, &m), DMESH_SUCCESS);
    ck_assert_int_eq(m.naxes, 2);
    assert_axis(&m.axes[1], "2:2");
    ck_assert_int_eq(dmesh_layout_splice(&l, 3, 1, r, &m), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_layout_splice(&l, -1, 1, r, &m), DMESH_ERR_ARG);
    dmesh_axis_t many[DMESH_MAX_DIMS];
    for (int j = 0; j < DMESH_MAX_DIMS; j++)
        many[j] = r[0];
    ck_assert_int_eq(dmesh_layout_splice(&l, 0, DMESH_MAX_DIMS - 2, many, &m), DMESH_SUCCESS);
    ck_assert_int_eq(m.naxes, DMESH_MAX_DIMS);
    ck_assert_int_eq(dmesh_layout_splice(&l, 0, DMESH_MAX_DIMS - 1, many, &m), DMESH_ERR_SIZE);
}
END_TEST

START_TEST(unit_concat_too_many)
{
    dmesh_layout_t l = {.naxes = 2};
    dmesh_axis_t a;

    l.axes[0].natoms = 20;
    l.axes[1].natoms = 13;
    for (int k = 0; k < 20; k++)
        l.axes[0].atoms[k] = l.axes[1].atoms[k % 13] = (dmesh_atom_t){1, 0};
    ck_assert_int_eq(dmesh_layout_concat(&l, &a), DMESH_ERR_SIZE);
    l.axes[1].natoms = 12;
    ck_assert_int_eq(dmesh_layout_concat(&l, &a), DMESH_SUCCESS);
    ck_assert_int_eq(a.natoms, 32);
}
END_TEST

/* ------------------------------------------------------- random layouts */

/* Any small axis: sizes 1..4 (some 1), strides 0, random, or contiguous with
 * the atom inside it (so that canonical() has merges to do). Built innermost
 * first. numel <= 4^6. */
static void gen_any(rng_t *r, dmesh_axis_t *a)
{
    a->natoms = rng_int(r, 0, 6);
    for (int k = a->natoms - 1; k >= 0; k--) {
        dmesh_atom_t *x = &a->atoms[k];
        x->size = one_in(r, 3) ? 1 : rng_int(r, 2, 4);
        int kind = rng_int(r, 0, 4);
        if (kind == 0)
            x->stride = 0;
        else if (kind <= 2 && k + 1 < a->natoms)
            x->stride = a->atoms[k + 1].size * a->atoms[k + 1].stride;
        else
            x->stride = rng_int(r, 1, 40);
    }
}

/* An axis that tiles [0, n) with its complement: a random subset of the dims
 * of a random row-major shape, in random order (orthogonal, not always
 * sorted), some dims split into two uncoalesced atoms, and size-1 atoms with
 * random strides sprinkled in. Every dim of size 1 also gives size-1 atoms. */
static void gen_tiling(rng_t *r, int maxdims, int maxsize, int limit, dmesh_axis_t *a, int *n)
{
    int k = rng_int(r, 1, maxdims), size[16], stride[16], perm[16];
    int64_t st = 1;

    for (int i = k - 1; i >= 0; i--) {
        size[i] = rng_int(r, 1, maxsize);
        if (st * size[i] > limit) /* keep n <= limit */
            size[i] = 1;
        stride[i] = (int)st;
        st *= size[i];
        perm[i] = i;
    }
    *n = (int)st;
    for (int i = k - 1; i > 0; i--) { /* Fisher-Yates */
        int j = rng_int(r, 0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    a->natoms = 0;
    for (int i = 0; i < k; i++) {
        int j = perm[i];
        if (one_in(r, 6))
            a->atoms[a->natoms++] = (dmesh_atom_t){1, rng_int(r, 0, 50)};
        if (one_in(r, 2))
            continue; /* dim j belongs to the complement */
        if (size[j] % 2 == 0 && size[j] > 2 && one_in(r, 2)) {
            a->atoms[a->natoms++] = (dmesh_atom_t){size[j] / 2, 2 * stride[j]};
            a->atoms[a->natoms++] = (dmesh_atom_t){2, stride[j]};
        } else {
            a->atoms[a->natoms++] = (dmesh_atom_t){size[j], stride[j]};
        }
    }
}

START_TEST(prop_canonical_preserves_function)
{
    rng_t r = rng_make(1);
    static int e1[4096], e2[4096];

    for (int it = 0; it < NPROP; it++) {
        dmesh_axis_t a, c, cc;
        int n1, n2;
        gen_any(&r, &a);
        require_ok(dmesh_axis_canonical(&a, &c));
        require_ok(dmesh_axis_enumerate(&a, 4096, e1, &n1));
        require_ok(dmesh_axis_enumerate(&c, 4096, e2, &n2));
        require(n1 == n2 && memcmp(e1, e2, (size_t)n1 * sizeof(int)) == 0,
                "canonical(%s) = %s maps differently", txt(&a), txt(&c));
        for (int k = 0; k < c.natoms; k++) {
            require(c.atoms[k].size > 1, "%s -> %s: size-1 atom", txt(&a), txt(&c));
            if (k > 0)
                require((int64_t)c.atoms[k].size * c.atoms[k].stride != c.atoms[k - 1].stride,
                        "%s -> %s: atoms %d and %d should merge", txt(&a), txt(&c), k - 1, k);
        }
        require_ok(dmesh_axis_canonical(&c, &cc));
        require(dmesh_axis_equal(&c, &cc), "canonical not idempotent on %s", txt(&a));
    }
}
END_TEST

/* Draw a mode s:d that A's canonical atoms (innermost first c_0, c_1, ...)
 * divide properly: d = c_0 * ... * c_{j-1} * q with q | c_j, and s takes the
 * rest of c_j, whole atoms after it, and a divisor of the last one, never
 * reaching past numel(A). */
static void gen_dividing_mode(rng_t *r, const dmesh_axis_t *fa, int *s, int *d)
{
    int m = fa->natoms, c[DMESH_LAYOUT_MAX_ATOMS], j, t, rem;
    int64_t dd = 1, ss;

    if (m == 0) {
        *s = 1;
        *d = rng_int(r, 0, 3);
        return;
    }
    for (int k = 0; k < m; k++)
        c[k] = fa->atoms[m - 1 - k].size;
    j = rng_int(r, 0, m - 1);
    for (int k = 0; k < j; k++)
        dd *= c[k];
    int q = c[j] > 2 && one_in(r, 2) ? rng_divisor(r, c[j]) : 1;
    q = q == c[j] ? 1 : q;
    rem = c[j] / q;
    t = rng_int(r, j, m - 1);
    if (t == j) {
        ss = rng_divisor(r, rem);
    } else {
        ss = rem;
        for (int k = j + 1; k < t; k++)
            ss *= c[k];
        ss *= rng_divisor(r, c[t]);
    }
    *s = (int)ss;
    *d = (int)(dd * q);
}

/* R(i) == A(i * d) for every i < s, and numel(R) == s. */
static void check_composition(const dmesh_axis_t *a, int s, int d, const dmesh_axis_t *res)
{
    require(numel(res) == s, "%s o %d:%d = %s: numel %d", txt(a), s, d, txt(res), numel(res));
    for (int i = 0; i < s; i++)
        require(at(res, i) == at(a, i * d), "%s o %d:%d = %s: R(%d) = %d, A(%d) = %d", txt(a), s, d,
                txt(res), i, at(res, i), i * d, at(a, i * d));
}

START_TEST(prop_compose)
{
    rng_t r = rng_make(2);
    int ok_random = 0, bad_random = 0;

    for (int it = 0; it < NPROP; it++) {
        dmesh_axis_t a, fa, res;
        int s, d, na, err;
        gen_any(&r, &a);
        require_ok(dmesh_axis_canonical(&a, &fa));
        gen_dividing_mode(&r, &fa, &s, &d);
        err = dmesh_axis_compose(&a, s, d, &res);
        require(err == DMESH_SUCCESS, "%s o %d:%d failed: %s", txt(&a), s, d, dmesh_last_error());
        check_composition(&a, s, d, &res);
        /* any in-range mode: when it composes, the result must be right */
        na = numel(&a);
        s = rng_int(&r, 1, na);
        d = s > 1 ? rng_int(&r, 0, (na - 1) / (s - 1)) : rng_int(&r, 0, 5);
        err = dmesh_axis_compose(&a, s, d, &res);
        require(err == DMESH_SUCCESS || err == DMESH_ERR_LAYOUT, "%s o %d:%d gave %d", txt(&a), s,
                d, err);
        if (err == DMESH_SUCCESS) {
            check_composition(&a, s, d, &res);
            ok_random++;
        } else {
            bad_random++;
        }
    }
    printf("prop_compose: %d dividing modes composed; random modes: %d composed, %d refused\n",
           NPROP, ok_random, bad_random);
    ck_assert_int_gt(ok_random, NPROP / 4);
    ck_assert_int_gt(bad_random, 0);
}
END_TEST

/* The copies o_k + A(x) cover [0, n) exactly once, and A and its complement
 * share only index 0. */
static void check_tiling(const dmesh_axis_t *a, int n, const dmesh_axis_t *c)
{
    int na = numel(a), nc = numel(c);
    int *av = malloc((size_t)na * sizeof(int)), *cv = malloc((size_t)nc * sizeof(int));
    unsigned char *hit = calloc((size_t)n, 1), *in_a = calloc((size_t)n, 1);
    int cnt;

    require(av && cv && hit && in_a, "out of memory");
    require((int64_t)na * nc == n, "%s in %d: complement %s has %d elements", txt(a), n, txt(c),
            nc);
    require_ok(dmesh_axis_enumerate(a, na, av, &cnt));
    require_ok(dmesh_axis_enumerate(c, nc, cv, &cnt));
    for (int x = 0; x < na; x++) {
        require(av[x] >= 0 && av[x] < n, "%s reaches %d, past n = %d", txt(a), av[x], n);
        in_a[av[x]] = 1;
    }
    for (int k = 0; k < nc; k++) {
        require(k == 0 || !in_a[cv[k]], "%s and its complement %s share %d", txt(a), txt(c), cv[k]);
        for (int x = 0; x < na; x++) {
            int i = cv[k] + av[x];
            require(i >= 0 && i < n && !hit[i], "%s in %d, complement %s: index %d twice", txt(a),
                    n, txt(c), i);
            hit[i] = 1;
        }
    }
    free(av);
    free(cv);
    free(hit);
    free(in_a);
}

START_TEST(prop_complement_tiles)
{
    rng_t r = rng_make(3);
    int ok_any = 0;

    for (int it = 0; it < NPROP; it++) {
        dmesh_axis_t a, c, cc;
        int n, err, o = -1;
        gen_tiling(&r, 5, 6, 8192, &a, &n);
        err = dmesh_axis_complement(&a, n, &c);
        require(err == DMESH_SUCCESS, "complement(%s, %d): %s", txt(&a), n, dmesh_last_error());
        check_tiling(&a, n, &c);
        require_ok(dmesh_axis_canonical(&c, &cc));
        require(dmesh_axis_equal(&c, &cc), "complement %s not canonical", txt(&c));
        require_ok(dmesh_axis_is_orthogonal(&a, &o));
        require(o == 1, "%s tiles but is not orthogonal", txt(&a));
        /* any axis in any n: either refused, or an exact tiling */
        gen_any(&r, &a);
        n = rng_int(&r, 1, 400);
        err = dmesh_axis_complement(&a, n, &c);
        require(err == DMESH_SUCCESS || err == DMESH_ERR_LAYOUT, "complement(%s, %d) gave %d",
                txt(&a), n, err);
        if (err == DMESH_SUCCESS) {
            check_tiling(&a, n, &c);
            ok_any++;
        }
    }
    printf("prop_complement_tiles: %d tiling axes; %d of %d arbitrary axes complementable\n", NPROP,
           ok_any, NPROP);
    ck_assert_int_gt(ok_any, 0);
}
END_TEST

/* Exhaustive: groups()[group][position] == index for every index of the
 * rank map, with the identity and with a random permutation as rank map. */
START_TEST(prop_decompose_agrees_with_groups)
{
    rng_t r = rng_make(4);
    static int out[8192], outm[8192], map[8192], row[8192];

    for (int it = 0; it < NPROP; it++) {
        dmesh_axis_t a;
        int n, ng, gs, g, p, cnt;
        gen_tiling(&r, 5, 6, 8192, &a, &n);
        require_ok(dmesh_axis_groups(&a, n, NULL, 8192, out, &ng, &gs));
        require_eq(ng * gs, n);
        require_eq(gs, numel(&a));
        for (int i = 0; i < n; i++) {
            require_ok(dmesh_axis_decompose(&a, n, i, &g, &p));
            require(g >= 0 && g < ng && p >= 0 && p < gs && out[g * gs + p] == i,
                    "%s in %d: index %d decomposes to (%d, %d)", txt(&a), n, i, g, p);
        }
        for (int i = 0; i < n; i++)
            map[i] = 1000 + i;
        for (int i = n - 1; i > 0; i--) {
            int j = rng_int(&r, 0, i), t = map[i];
            map[i] = map[j];
            map[j] = t;
        }
        require_ok(dmesh_axis_groups(&a, n, map, 8192, outm, &ng, &gs));
        for (int i = 0; i < n; i++)
            require_eq(outm[i], map[out[i]]);
        for (int t = 0; t < 4; t++) {
            int i = rng_int(&r, 0, n - 1);
            require_ok(dmesh_axis_decompose(&a, n, i, &g, &p));
            require_ok(dmesh_axis_group_of(&a, n, map, i, 8192, row, &cnt));
            require_eq(cnt, gs);
            require(memcmp(row, &outm[g * gs], (size_t)gs * sizeof(int)) == 0,
                    "%s in %d: group_of(%d) is not row %d of groups()", txt(&a), n, i, g);
        }
    }
}
END_TEST

/* Sampled, for worlds too large to enumerate: the group's offset (the
 * group-th complement value) plus the position's index gives back index. */
START_TEST(prop_decompose_large)
{
    rng_t r = rng_make(5);

    for (int it = 0; it < NPROP; it++) {
        dmesh_axis_t a, c;
        int n, g, p;
        do
            gen_tiling(&r, 12, 9, 1 << 30, &a, &n);
        while (n < 4096);
        require_ok(dmesh_axis_complement(&a, n, &c));
        for (int t = 0; t < 16; t++) {
            int i = rng_int(&r, 0, n - 1);
            require_ok(dmesh_axis_decompose(&a, n, i, &g, &p));
            require(at(&c, g) + at(&a, p) == i, "%s in %d: %d -> (%d, %d)", txt(&a), n, i, g, p);
        }
    }
}
END_TEST

/* The prepared decomposition against dmesh_axis_decompose: every index of
 * random tilings, sampled indices of large ones, and the same error class
 * for arbitrary axes (most of which do not tile). */
static void assert_prepared_agrees(const dmesh_axis_t *a, int n, int i)
{
    dmesh_prepared_axis_t pa;
    int g1, p1, g2 = -1, p2 = -1;

    require_ok(dmesh_axis_decompose(a, n, i, &g1, &p1));
    require_ok(dmesh_axis_prepare(a, n, &pa));
    require_ok(dmesh_prepared_axis_decompose(&pa, i, &g2, &p2));
    require(g1 == g2 && p1 == p2, "%s in %d: %d -> (%d, %d), prepared (%d, %d)", txt(a), n, i, g1,
            p1, g2, p2);
}

START_TEST(prop_prepared_agrees)
{
    rng_t r = rng_make(7);

    for (int it = 0; it < NPROP; it++) {
        dmesh_axis_t a;
        dmesh_prepared_axis_t pa;
        int n, g1, p1, g2, p2, e1, e2;
        gen_tiling(&r, 5, 6, 8192, &a, &n);
        require_ok(dmesh_axis_prepare(&a, n, &pa));
        require(pa.n == n && pa.size == numel(&a) && pa.ngroups * pa.size == n, "%s in %d: counts",
                txt(&a), n);
        for (int i = 0; i < n; i++) {
            require_ok(dmesh_axis_decompose(&a, n, i, &g1, &p1));
            require_ok(dmesh_prepared_axis_decompose(&pa, i, &g2, &p2));
            require(g1 == g2 && p1 == p2, "%s in %d: %d -> (%d, %d), prepared (%d, %d)", txt(&a), n,
                    i, g1, p1, g2, p2);
        }
        do
            gen_tiling(&r, 12, 9, 1 << 30, &a, &n);
        while (n < 4096);
        for (int t = 0; t < 4; t++)
            assert_prepared_agrees(&a, n, rng_int(&r, 0, n - 1));
        assert_prepared_agrees(&a, n, n - 1);
        gen_any(&r, &a);
        n = rng_int(&r, 1, 400);
        e1 = dmesh_axis_decompose(&a, n, 0, &g1, &p1);
        e2 = dmesh_axis_prepare(&a, n, &pa);
        require(e1 == e2, "%s in %d: decompose gave %d, prepare %d", txt(&a), n, e1, e2);
    }
}
END_TEST

/* Any axis, with values up to INT_MAX: print, parse back, same atoms; also
 * with white space between the tokens. */
START_TEST(prop_text_round_trip)
{
    rng_t r = rng_make(6);
    char text[1024], spaced[4096];

    for (int it = 0; it < NPROP; it++) {
        dmesh_axis_t a, b;
        size_t need = 0, pos = 0;
        a.natoms = one_in(&r, 4) ? rng_int(&r, 0, DMESH_LAYOUT_MAX_ATOMS) : rng_int(&r, 0, 4);
        for (int k = 0; k < a.natoms; k++) {
            a.atoms[k].size = one_in(&r, 3) ? rng_int(&r, 1, INT_MAX) : rng_int(&r, 1, 9);
            a.atoms[k].stride = one_in(&r, 3) ? rng_int(&r, 0, INT_MAX) : rng_int(&r, 0, 9);
        }
        require_ok(dmesh_axis_to_string(&a, text, sizeof text, &need));
        require_eq(need, strlen(text));
        for (const char *s = text; *s; s++) {
            if (strchr("(),:", *s) && one_in(&r, 2))
                spaced[pos++] = " \t\n"[rng_int(&r, 0, 2)];
            spaced[pos++] = *s;
        }
        spaced[pos] = '\0';
        /* a single 1:0 atom prints as the empty axis, and reads back as it */
        if (a.natoms == 1 && a.atoms[0].size == 1 && a.atoms[0].stride == 0)
            a.natoms = 0;
        require_ok(dmesh_axis_parse(text, &b));
        require(dmesh_axis_equal(&a, &b), "\"%s\" parses to %s", text, txt(&b));
        require_ok(dmesh_axis_parse(spaced, &b));
        require(dmesh_axis_equal(&a, &b), "\"%s\" parses to %s", spaced, txt(&b));
    }
}
END_TEST

/* Mutated text never crashes the parser: it is refused with ARG or SIZE, or
 * it is a valid axis that round-trips. */
START_TEST(prop_parse_mutations)
{
    rng_t r = rng_make(7);
    static const char alphabet[] = "0123456789(),: -+x\t";
    int accepted = 0;

    for (int it = 0; it < NPROP; it++) {
        dmesh_axis_t a, b;
        char text[1100];
        gen_any(&r, &a);
        require_ok(dmesh_axis_to_string(&a, text, 1024, NULL));
        for (int m = rng_int(&r, 1, 3); m > 0; m--) {
            size_t len = strlen(text), p = (size_t)rng_int(&r, 0, (int)len);
            char ch = alphabet[rng_int(&r, 0, (int)sizeof alphabet - 2)];
            int op = rng_int(&r, 0, 2);
            if (op == 0 && p < len) /* delete */
                memmove(text + p, text + p + 1, len - p);
            else if (op == 1 && p < len) /* replace */
                text[p] = ch;
            else { /* insert */
                memmove(text + p + 1, text + p, len - p + 1);
                text[p] = ch;
            }
        }
        int err = dmesh_axis_parse(text, &a);
        require(err == DMESH_SUCCESS || err == DMESH_ERR_ARG || err == DMESH_ERR_SIZE, "\"%s\": %d",
                text, err);
        if (err != DMESH_SUCCESS)
            continue;
        accepted++;
        char again[1024];
        require_ok(dmesh_axis_to_string(&a, again, sizeof again, NULL));
        require_ok(dmesh_axis_parse(again, &b));
        require(dmesh_axis_equal(&a, &b), "\"%s\" -> %s -> %s", text, again, txt(&b));
    }
    printf("prop_parse_mutations: %d of %d mutated texts were valid axes\n", accepted, NPROP);
}
END_TEST

/* ------------------------------------------------------------------ main */

static Suite *layout_suite(void)
{
    Suite *s = suite_create("layout");
    TCase *facts = tcase_create("facts"), *units = tcase_create("units");
    TCase *props = tcase_create("properties");

    tcase_add_loop_test(facts, fact_canonical, 0, N_CANONICAL_FACTS);
    tcase_add_test(facts, fact_complement_4_2_in_8);
    tcase_add_test(facts, fact_complement_4_2_in_16);
    tcase_add_test(facts, fact_groups_22_41_in_16);
    tcase_add_test(facts, fact_groups_22_24_in_16);
    tcase_add_test(facts, fact_compose_42_21_with_2_1);
    tcase_add_test(facts, fact_compose_4_2_with_2_1);
    tcase_add_test(facts, fact_compose_4_2_with_22_21);
    tcase_add_test(facts, fact_compose_42_41_with_2_3_fails);
    tcase_add_loop_test(facts, fact_orthogonal_true, 0,
                        (int)(sizeof orthogonal_true / sizeof orthogonal_true[0]));
    tcase_add_loop_test(facts, fact_orthogonal_false, 0,
                        (int)(sizeof orthogonal_false / sizeof orthogonal_false[0]));
    tcase_add_test(facts, fact_groups_rank_map_0214);
    tcase_add_test(facts, fact_groups_rank_map_10_to_40);
    suite_add_tcase(s, facts);

    tcase_add_test(units, unit_numel_cosize_enumerate);
    tcase_add_test(units, unit_canonical_errors_and_alias);
    tcase_add_test(units, unit_complement);
    tcase_add_test(units, unit_complement_rejects);
    tcase_add_test(units, unit_decompose);
    tcase_add_test(units, unit_prepared_decompose);
    tcase_add_test(units, unit_prepared_division);
    tcase_add_test(units, unit_compose);
    tcase_add_test(units, unit_sorted_orthogonal_equal);
    tcase_add_test(units, unit_to_string);
    tcase_add_loop_test(units, unit_parse_good, 0, (int)(sizeof parse_good / sizeof parse_good[0]));
    tcase_add_test(units, unit_parse_layouts_as_written);
    tcase_add_loop_test(units, unit_parse_bad, 0, (int)(sizeof parse_bad / sizeof parse_bad[0]));
    tcase_add_test(units, unit_parse_atom_count);
    tcase_add_test(units, unit_overflow);
    tcase_add_test(units, unit_row_major_concat_splice);
    tcase_add_test(units, unit_concat_too_many);
    suite_add_tcase(s, units);

    /* generous: the machine may be shared and the build unoptimised */
    tcase_set_timeout(props, 300);
    tcase_add_test(props, prop_canonical_preserves_function);
    tcase_add_test(props, prop_compose);
    tcase_add_test(props, prop_complement_tiles);
    tcase_add_test(props, prop_decompose_agrees_with_groups);
    tcase_add_test(props, prop_decompose_large);
    tcase_add_test(props, prop_prepared_agrees);
    tcase_add_test(props, prop_text_round_trip);
    tcase_add_test(props, prop_parse_mutations);
    suite_add_tcase(s, props);
    return s;
}

int main(void)
{
    const char *env = getenv("DMESH_TEST_SEED");
    SRunner *sr;
    int failed;

    if (env != NULL && *env != '\0')
        seed = strtoull(env, NULL, 0);
    printf("test_layout: seed %" PRIu64 " (DMESH_TEST_SEED=%" PRIu64 " repeats this run)\n", seed,
           seed);
    fflush(stdout);
    sr = srunner_create(layout_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
