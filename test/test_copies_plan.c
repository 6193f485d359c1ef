/* SPDX-License-Identifier: BSD-3-Clause */
/* The pure parts of the copies in memory (lib/copies.h): the default
 * dimension, who holds whose copy, the XOR sets, the parity and its
 * rebuild, and the version a restore gives back (or DMESH_ERR_DATA_LOST).
 * Pure: runs in every build. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "copies.h"
#include "dmesh.h"

static dmesh_copies_plan_t plan2(int s0, int s1, int dim, int scheme, int k)
{
    dmesh_copies_plan_t p;

    memset(&p, 0, sizeof(p));
    p.ndims = 2;
    p.shape[0] = s0;
    p.shape[1] = s1;
    p.n = s0 * s1;
    p.dim = dim;
    p.scheme = scheme;
    p.k = k;
    return p;
}

START_TEST(pick_dim)
{
    int shape[3] = {2, 1, 4}, node[3] = {1, 1, 1}, across[3] = {2, 2, 1}, inner[3] = {1, 2, 3};

    ck_assert_int_eq(dmesh_copies_pick_dim(3, shape, node), -1);
    ck_assert_int_eq(dmesh_copies_pick_dim(3, shape, across), 0);
    ck_assert_int_eq(dmesh_copies_pick_dim(3, shape, inner), 2); /* dim 1 has size 1 */
}
END_TEST

START_TEST(partner_ring)
{
    dmesh_copies_plan_t p = plan2(2, 4, 1, DMESH_COPIES_PARTNER, 0), f = plan2(2, 4, -1, 0, 0);
    dmesh_copies_plan_t d0 = plan2(2, 4, 0, DMESH_COPIES_PARTNER, 0), one = plan2(4, 1, 1, 0, 0);

    /* along dim 1: the next column of the same row, a ring */
    ck_assert_int_eq(dmesh_copies_holder(&p, 0), 1);
    ck_assert_int_eq(dmesh_copies_holder(&p, 3), 0);
    ck_assert_int_eq(dmesh_copies_holder(&p, 7), 4);
    ck_assert_int_eq(dmesh_copies_owner(&p, 4), 7);
    /* along dim 0: the other row, same column */
    ck_assert_int_eq(dmesh_copies_holder(&d0, 2), 6);
    ck_assert_int_eq(dmesh_copies_holder(&d0, 6), 2);
    /* flattened: the next member */
    ck_assert_int_eq(dmesh_copies_holder(&f, 7), 0);
    ck_assert_int_eq(dmesh_copies_owner(&f, 0), 7);
    /* a dimension of size 1: nobody else */
    ck_assert_int_eq(dmesh_copies_holder(&one, 2), 2);
    for (int r = 0; r < 8; r++)
        ck_assert_int_eq(dmesh_copies_owner(&p, dmesh_copies_holder(&p, r)), r);
}
END_TEST

START_TEST(xor_sets)
{
    dmesh_copies_plan_t p = plan2(1, 9, 1, DMESH_COPIES_XOR, 4);
    int m[DMESH_COPIES_MAX_SET], n, pos;

    dmesh_copies_set(&p, 2, m, &n, &pos); /* 0..3 */
    ck_assert_int_eq(n, 4);
    ck_assert_int_eq(m[0], 0);
    ck_assert_int_eq(pos, 2);
    dmesh_copies_set(&p, 8, m, &n, &pos); /* a rest of one joins: 4..8 */
    ck_assert_int_eq(n, 5);
    ck_assert_int_eq(m[0], 4);
    ck_assert_int_eq(pos, 4);
    p = plan2(2, 6, 1, DMESH_COPIES_XOR, 4); /* 6 = 4 + a set of 2 */
    dmesh_copies_set(&p, 11, m, &n, &pos);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(m[0], 10);
    ck_assert_int_eq(m[1], 11);
    p = plan2(4, 2, 0, DMESH_COPIES_XOR, 3); /* along dim 0, stride 2: 4 = one set of 4 */
    dmesh_copies_set(&p, 5, m, &n, &pos);
    ck_assert_int_eq(n, 4);
    ck_assert_int_eq(m[0], 1);
    ck_assert_int_eq(m[3], 7);
    ck_assert_int_eq(pos, 2);
}
END_TEST

/* Parity of a set of m copies, then every member rebuilt from the others. */
START_TEST(xor_parity_rebuild)
{
    enum { M = 5 };
    size_t len[M] = {37, 100, 8, 0, 64}, longest = 100, c = dmesh_copies_chunk_size(longest, M);
    char *copy[M], *par[M], blk[256];

    ck_assert_uint_eq(c % 8, 0);
    ck_assert_uint_ge(c * (M - 1), longest);
    for (int j = 0; j < M; j++) {
        copy[j] = malloc(len[j] + 1);
        for (size_t b = 0; b < len[j]; b++)
            copy[j][b] = (char)(j * 31 + b * 7 + 1);
        par[j] = calloc(1, c);
    }
    for (int i = 0; i < M; i++) /* the reduce-scatter of the contributions */
        for (int j = 0; j < M; j++) {
            dmesh_copies_contribution(copy[j], len[j], c, j, i, M, blk);
            for (size_t b = 0; b < c; b++)
                par[i][b] ^= blk[b];
        }
    for (int x = 0; x < M; x++) {
        char *got = calloc(M - 1, c);
        for (int i = 0; i < M; i++) {
            char *slot;
            if (i == x)
                continue;
            slot = got + (size_t)dmesh_copies_chunk(i, x, M) * c;
            for (size_t b = 0; b < c; b++)
                slot[b] ^= par[i][b];
            for (int j = 0; j < M; j++) {
                if (j == i || j == x)
                    continue;
                dmesh_copies_contribution(copy[j], len[j], c, j, i, M, blk);
                for (size_t b = 0; b < c; b++)
                    slot[b] ^= blk[b];
            }
        }
        ck_assert_int_eq(memcmp(got, copy[x], len[x]), 0);
        free(got);
    }
    for (int j = 0; j < M; j++) {
        free(copy[j]);
        free(par[j]);
    }
}
END_TEST

static void records(dmesh_copies_record_t rec[], int n, int64_t v)
{
    for (int r = 0; r < n; r++) {
        rec[r].own = rec[r].held = v;
        rec[r].own_len = rec[r].held_len = 64;
    }
}

START_TEST(restore_partner)
{
    dmesh_copies_plan_t p = plan2(2, 4, 1, DMESH_COPIES_PARTNER, 0);
    dmesh_copies_record_t rec[8];
    int src[8], refresh[8];
    int64_t v;

    records(rec, 8, DMESH_COPIES_NONE); /* nothing stored */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(v, DMESH_COPIES_NONE);
    records(rec, 8, 3); /* nothing lost */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(v, 3);
    for (int r = 0; r < 8; r++)
        ck_assert(src[r] == DMESH_COPIES_SRC_SELF && !refresh[r]);
    rec[5].own = rec[5].held = DMESH_COPIES_NONE; /* 5 replaced: from 6, and 5 holds 4's again */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(v, 3);
    ck_assert_int_eq(src[5], DMESH_COPIES_SRC_HOLDER);
    ck_assert(refresh[5] && !refresh[6] && !refresh[4]);
    rec[1].own = rec[1].held = DMESH_COPIES_NONE; /* 1 too, another row: fine */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(src[1], DMESH_COPIES_SRC_HOLDER);
    rec[6].own = rec[6].held = DMESH_COPIES_NONE; /* 5 and its holder 6: lost */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, refresh), DMESH_ERR_DATA_LOST);
    ck_assert_int_eq(src[5], DMESH_COPIES_SRC_LOST);
    ck_assert_int_eq(src[6], DMESH_COPIES_SRC_HOLDER);
    records(rec, 8, 4); /* survivors newer than what a holder kept: the newest all get */
    rec[2].own = DMESH_COPIES_NONE;
    rec[3].held = 3;
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, refresh), DMESH_ERR_DATA_LOST);
    rec[3].held = 4;
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(v, 4);
}
END_TEST

START_TEST(restore_xor)
{
    dmesh_copies_plan_t p = plan2(1, 8, 1, DMESH_COPIES_XOR, 4);
    dmesh_copies_record_t rec[8];
    int src[8], refresh[8];
    int64_t v;

    records(rec, 8, 2);
    rec[1].own = rec[1].held = DMESH_COPIES_NONE; /* one per set: rebuilt */
    rec[6].own = rec[6].held = DMESH_COPIES_NONE;
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(v, 2);
    ck_assert_int_eq(src[1], DMESH_COPIES_SRC_PARITY);
    ck_assert_int_eq(src[6], DMESH_COPIES_SRC_PARITY);
    for (int r = 0; r < 8; r++)
        ck_assert(refresh[r]);                    /* both sets make their parity anew */
    rec[3].own = rec[3].held = DMESH_COPIES_NONE; /* two in the first set */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, refresh), DMESH_ERR_DATA_LOST);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copies_plan");
    TCase *tc = tcase_create("plan");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, pick_dim);
    tcase_add_test(tc, partner_ring);
    tcase_add_test(tc, xor_sets);
    tcase_add_test(tc, xor_parity_rebuild);
    tcase_add_test(tc, restore_partner);
    tcase_add_test(tc, restore_xor);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
