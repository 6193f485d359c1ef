/* SPDX-License-Identifier: BSD-3-Clause */
/* The pure parts of the copies in memory (lib/copies.h): the default
 * placement, who holds whose copy (across failure domains for every shape
 * and placement), the XOR sets, the parity and its rebuild, the owners'
 * identities, and the version a restore gives back to each owner (or
 * DMESH_ERR_DATA_LOST).
 * Pure: runs in every build. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "copies_plan.h"
#include "copies_scheme.h"
#include "dmesh.h"

/* A plan of shape (s0, s1) along dim, its tables made for domain[]
 * (NULL: one domain). */
static dmesh_copies_plan_t plan2d(int s0, int s1, int dim, const dmesh_copies_scheme_t *scheme,
                                  int k, const uint64_t *domain)
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
    ck_assert_int_eq(dmesh_copies_plan_make(&p, domain), DMESH_SUCCESS);
    return p;
}

static dmesh_copies_plan_t plan2(int s0, int s1, int dim, const dmesh_copies_scheme_t *scheme,
                                 int k)
{
    return plan2d(s0, s1, dim, scheme, k, NULL);
}

START_TEST(pick_dim)
{
    uint64_t one[4] = {7, 7, 7, 7}, two[4] = {7, 7, 9, 9};

    ck_assert_int_eq(dmesh_copies_pick_dim(4, one), DMESH_COPIES_DIM_FLAT);
    ck_assert_int_eq(dmesh_copies_pick_dim(4, NULL), DMESH_COPIES_DIM_FLAT);
    ck_assert_int_eq(dmesh_copies_pick_dim(4, two), DMESH_COPIES_DIM_DOMAINS);
}
END_TEST

START_TEST(partner_ring)
{
    dmesh_copies_plan_t p = plan2(2, 4, 1, &dmesh_copies_partner, 0),
                        f = plan2(2, 4, DMESH_COPIES_DIM_FLAT, &dmesh_copies_partner, 0);
    dmesh_copies_plan_t d0 = plan2(2, 4, 0, &dmesh_copies_partner, 0),
                        one = plan2(4, 1, 1, &dmesh_copies_partner, 0);

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
    ck_assert_int_eq(dmesh_copies_survives(&one, NULL, 2), DMESH_COPIES_SURVIVES_NOTHING);
    for (int r = 0; r < 8; r++)
        ck_assert_int_eq(dmesh_copies_owner(&p, dmesh_copies_holder(&p, r)), r);
    dmesh_copies_plan_free(&p);
    dmesh_copies_plan_free(&f);
    dmesh_copies_plan_free(&d0);
    dmesh_copies_plan_free(&one);
}
END_TEST

START_TEST(xor_sets)
{
    dmesh_copies_plan_t p = plan2(1, 9, 1, &dmesh_copies_xor, 4);
    const int *m;
    int n, pos;

    dmesh_copies_set(&p, 2, &m, &n, &pos); /* 0..3 */
    ck_assert_int_eq(n, 4);
    ck_assert_int_eq(m[0], 0);
    ck_assert_int_eq(pos, 2);
    dmesh_copies_set(&p, 8, &m, &n, &pos); /* a rest of one joins: 4..8 */
    ck_assert_int_eq(n, 5);
    ck_assert_int_eq(m[0], 4);
    ck_assert_int_eq(pos, 4);
    dmesh_copies_plan_free(&p);
    p = plan2(2, 6, 1, &dmesh_copies_xor, 4); /* 6 = 4 + a set of 2 */
    dmesh_copies_set(&p, 11, &m, &n, &pos);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(m[0], 10);
    ck_assert_int_eq(m[1], 11);
    dmesh_copies_plan_free(&p);
    p = plan2(4, 2, 0, &dmesh_copies_xor, 3); /* along dim 0, stride 2: 4 = one set of 4 */
    dmesh_copies_set(&p, 5, &m, &n, &pos);
    ck_assert_int_eq(n, 4);
    ck_assert_int_eq(m[0], 1);
    ck_assert_int_eq(m[3], 7);
    ck_assert_int_eq(pos, 2);
    dmesh_copies_plan_free(&p);
}
END_TEST

/* Domains drawn with a seed: nd domains over n members, placed block,
 * cyclic or at random. */
static void domains_of(int n, int nd, int how, unsigned *seed, uint64_t dom[])
{
    for (int r = 0; r < n; r++)
        dom[r] = how == 0   ? (uint64_t)(r * nd / n) * 977 + 5
                 : how == 1 ? (uint64_t)(r % nd) * 977 + 5
                            : (uint64_t)(rand_r(seed) % nd) * 977 + 5;
}

static int largest_domain(int n, const uint64_t dom[])
{
    int big = 0;

    for (int r = 0; r < n; r++) {
        int c = 0;
        for (int x = 0; x < n; x++)
            c += dom[x] == dom[r];
        big = c > big ? c : big;
    }
    return big;
}

/* Every shape and placement: each copy outside its owner's domain whenever
 * no domain holds more than half of the members; one copy per holder. */
START_TEST(partner_domains)
{
    unsigned seed = 12345;
    uint64_t dom[64];
    int checked = 0;

    for (int n = 2; n <= 64; n++)
        for (int nd = 2; nd <= 9 && nd <= n; nd++)
            for (int how = 0; how < 3; how++) {
                int s0 = n % 2 == 0 ? 2 : 1, big, seen[64] = {0};
                dmesh_copies_plan_t p;
                domains_of(n, nd, how, &seed, dom);
                big = largest_domain(n, dom);
                p = plan2d(s0, n / s0, DMESH_COPIES_DIM_DOMAINS, &dmesh_copies_partner, 0, dom);
                if (big == n) { /* one domain after all: the next member */
                    ck_assert_int_eq(p.dim, DMESH_COPIES_DIM_FLAT);
                    dmesh_copies_plan_free(&p);
                    continue;
                }
                for (int r = 0; r < n; r++) {
                    int h = dmesh_copies_holder(&p, r);
                    ck_assert_int_ne(h, r);
                    ck_assert_int_eq(dmesh_copies_owner(&p, h), r);
                    ck_assert_int_eq(seen[h]++, 0);
                    if (2 * big <= n) {
                        ck_assert_msg(dom[h] != dom[r], "n %d nd %d how %d: %d holds %d's", n, nd,
                                      how, h, r);
                        ck_assert_int_eq(dmesh_copies_survives(&p, dom, r),
                                         DMESH_COPIES_SURVIVES_DOMAIN);
                        checked++;
                    }
                }
                dmesh_copies_plan_free(&p);
            }
    ck_assert_int_gt(checked, 1000);
}
END_TEST

/* The layouts a block placement gives: 1-D of 8 on 2 hosts, (4, 2) with
 * the node dimension outer and inner, 3 uneven hosts. */
START_TEST(partner_domains_block)
{
    uint64_t two[8] = {1, 1, 1, 1, 2, 2, 2, 2}, three[8] = {1, 1, 1, 2, 2, 2, 3, 3};
    dmesh_copies_plan_t p = plan2d(1, 8, DMESH_COPIES_DIM_DOMAINS, &dmesh_copies_partner, 0, two);

    for (int r = 0; r < 8; r++)
        ck_assert_int_eq(dmesh_copies_holder(&p, r), (r + 4) % 8);
    dmesh_copies_plan_free(&p);
    p = plan2d(4, 2, DMESH_COPIES_DIM_DOMAINS, &dmesh_copies_partner, 0, two);
    for (int r = 0; r < 8; r++)
        ck_assert(two[dmesh_copies_holder(&p, r)] != two[r]);
    dmesh_copies_plan_free(&p);
    p = plan2d(1, 8, DMESH_COPIES_DIM_DOMAINS, &dmesh_copies_partner, 0, three);
    for (int r = 0; r < 8; r++)
        ck_assert(three[dmesh_copies_holder(&p, r)] != three[r]);
    dmesh_copies_plan_free(&p);
}
END_TEST

/* XOR sets: every member in one set of two or more; no set with two
 * members of a domain while the domains allow it. */
START_TEST(xor_domains)
{
    unsigned seed = 777;
    uint64_t dom[64];
    int checked = 0;

    for (int n = 2; n <= 64; n++)
        for (int nd = 2; nd <= 9 && nd <= n; nd++)
            for (int how = 0; how < 3; how++)
                for (int k = 2; k <= 6; k += 2) {
                    int big, in[64] = {0}, nsets;
                    dmesh_copies_plan_t p;
                    domains_of(n, nd, how, &seed, dom);
                    big = largest_domain(n, dom);
                    if (big == n)
                        continue;
                    p = plan2d(1, n, DMESH_COPIES_DIM_DOMAINS, &dmesh_copies_xor, k, dom);
                    nsets = (n + k - 1) / k > big ? (n + k - 1) / k : big;
                    for (int r = 0; r < n; r++) {
                        const int *m;
                        int sz, pos;
                        dmesh_copies_set(&p, r, &m, &sz, &pos);
                        ck_assert_int_ge(sz, 2);
                        ck_assert_int_eq(m[pos], r);
                        for (int i = 0; i < sz; i++) {
                            in[m[i]]++;
                            if (i != pos && nsets <= n / 2)
                                ck_assert_msg(dom[m[i]] != dom[r], "n %d nd %d how %d k %d", n, nd,
                                              how, k);
                        }
                        if (nsets <= n / 2) {
                            ck_assert_int_eq(dmesh_copies_survives(&p, dom, r),
                                             DMESH_COPIES_SURVIVES_DOMAIN);
                            checked++;
                        }
                    }
                    for (int r = 0; r < n; r++) { /* in exactly one set: listed by its members */
                        const int *m;
                        int sz, pos;
                        dmesh_copies_set(&p, r, &m, &sz, &pos);
                        ck_assert_int_eq(in[r], sz);
                    }
                    dmesh_copies_plan_free(&p);
                }
    ck_assert_int_gt(checked, 1000);
}
END_TEST

START_TEST(adopt)
{
    uint64_t ids[5] = {11, 0, 13, 0, 0}, drawn[5] = {91, 92, 93, 94, 95};
    uint64_t table[4] = {11, 12, 13, 13};
    int born[5] = {0};

    /* 1 takes 12 (gone); 3's predecessor 13 lives: drawn; 4 is past the table */
    ck_assert_int_eq(dmesh_copies_adopt(5, ids, drawn, table, NULL, 4, born), DMESH_SUCCESS);
    ck_assert_uint_eq(ids[1], 12);
    ck_assert_int_eq(born[1], 0);
    ck_assert_uint_eq(ids[3], 94);
    ck_assert_int_eq(born[3], 1);
    ck_assert_uint_eq(ids[4], 95);
    ck_assert_int_eq(born[4], 1);
    ck_assert_uint_eq(ids[0], 11);
    {
        /* a predecessor that had nothing stored (a grown process lost
         * before its first store): its identity, and nothing to get back */
        uint64_t ids2[3] = {11, 0, 0}, nothing[3] = {0, 1, 0}, table2[3] = {11, 12, 14};
        int born2[3] = {0};
        ck_assert_int_eq(dmesh_copies_adopt(3, ids2, drawn, table2, nothing, 3, born2),
                         DMESH_SUCCESS);
        ck_assert_uint_eq(ids2[1], 12);
        ck_assert_int_eq(born2[1], 1);
        ck_assert_uint_eq(ids2[2], 14);
        ck_assert_int_eq(born2[2], 0);
    }
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

static void records(dmesh_copies_record_t rec[], const dmesh_copies_plan_t *p, int64_t v)
{
    uint64_t ids[64];

    for (int r = 0; r < p->n; r++)
        ids[r] = 100 + (uint64_t)r;
    for (int r = 0; r < p->n; r++) {
        memset(&rec[r], 0, sizeof(rec[r]));
        rec[r].own = rec[r].held = v;
        rec[r].born = v == DMESH_COPIES_NONE; /* nothing stored yet: drawn at the open */
        rec[r].own_len = rec[r].held_len = 64;
        rec[r].id = ids[r];
        rec[r].held_for = p->scheme == &dmesh_copies_partner ? ids[dmesh_copies_owner(p, r)]
                                                             : dmesh_copies_set_sign(p, ids, r);
    }
}

static void lose(dmesh_copies_record_t *r)
{
    r->own = r->held = DMESH_COPIES_NONE;
    r->held_for = 0;
}

START_TEST(restore_partner)
{
    dmesh_copies_plan_t p = plan2(2, 4, 1, &dmesh_copies_partner, 0);
    dmesh_copies_record_t rec[8];
    int src[8], from[8], refresh[8];
    int64_t v;

    records(rec, &p, DMESH_COPIES_NONE); /* nothing stored */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(v, DMESH_COPIES_NONE);
    records(rec, &p, 3); /* every copy lost: not "nothing stored" */
    for (int r = 0; r < p.n; r++)
        lose(&rec[r]);
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh),
                     DMESH_ERR_DATA_LOST);
    ck_assert_int_eq(src[0], DMESH_COPIES_SRC_LOST);
    records(rec, &p, 3); /* nothing lost */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(v, 3);
    for (int r = 0; r < 8; r++)
        ck_assert(src[r] == DMESH_COPIES_SRC_SELF && !refresh[r]);
    lose(&rec[5]); /* 5 replaced: from 6; 4's holder (5) gets 4's copy again */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(v, 3);
    ck_assert_int_eq(src[5], DMESH_COPIES_SRC_HOLDER);
    ck_assert_int_eq(from[5], 6);
    ck_assert(refresh[4] && !refresh[5] && !refresh[6]);
    lose(&rec[1]); /* 1 too, another row: fine */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(src[1], DMESH_COPIES_SRC_HOLDER);
    lose(&rec[6]); /* 5 and its holder 6: lost */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh),
                     DMESH_ERR_DATA_LOST);
    ck_assert_int_eq(src[5], DMESH_COPIES_SRC_LOST);
    ck_assert_int_eq(src[6], DMESH_COPIES_SRC_HOLDER);
    records(rec, &p, 4); /* survivors newer than what a holder kept: the newest all get */
    rec[2].own = DMESH_COPIES_NONE;
    rec[3].held = 3;
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh),
                     DMESH_ERR_DATA_LOST);
    rec[3].held = 4;
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(v, 4);
    dmesh_copies_plan_free(&p);
}
END_TEST

/* A held copy serves only the identity it was made for: a member whose
 * holder keeps another's copy (numbered anew after a shrink) gets
 * DMESH_ERR_DATA_LOST, never that copy; a copy held elsewhere serves its
 * owner wherever it is, and the new holder gets it again. */
START_TEST(restore_owner)
{
    dmesh_copies_plan_t p = plan2(1, 4, DMESH_COPIES_DIM_FLAT, &dmesh_copies_partner, 0);
    dmesh_copies_record_t rec[4];
    int src[4], from[4], refresh[4];
    int64_t v;

    records(rec, &p, 2);
    lose(&rec[0]);
    rec[1].held_for = 999; /* 0's holder keeps another process's copy */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh),
                     DMESH_ERR_DATA_LOST);
    ck_assert_int_eq(src[0], DMESH_COPIES_SRC_LOST);
    rec[3].held_for = rec[0].id; /* ... and 3 keeps 0's: from 3, and 1 gets it too */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(src[0], DMESH_COPIES_SRC_HOLDER);
    ck_assert_int_eq(from[0], 3);
    ck_assert(refresh[0]);
    /* a member without predecessor: nothing back, and it holds nothing back */
    records(rec, &p, 2);
    lose(&rec[2]);
    rec[2].born = 1;
    rec[3].held_for = 555; /* 2's holder kept a copy for nobody here */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(v, 2);
    ck_assert_int_eq(src[2], DMESH_COPIES_SRC_NONE);
    ck_assert(!refresh[2] && refresh[1]); /* 1's copy goes to 2 again */
    dmesh_copies_plan_free(&p);
}
END_TEST

START_TEST(restore_xor)
{
    dmesh_copies_plan_t p = plan2(1, 8, 1, &dmesh_copies_xor, 4);
    dmesh_copies_record_t rec[8];
    int src[8], from[8], refresh[8];
    int64_t v;

    records(rec, &p, 2);
    lose(&rec[1]); /* one per set: rebuilt */
    lose(&rec[6]);
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh), DMESH_SUCCESS);
    ck_assert_int_eq(v, 2);
    ck_assert_int_eq(src[1], DMESH_COPIES_SRC_PARITY);
    ck_assert_int_eq(src[6], DMESH_COPIES_SRC_PARITY);
    for (int r = 0; r < 8; r++)
        ck_assert(refresh[r]); /* both sets make their parity anew */
    lose(&rec[3]);             /* two in the first set */
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh),
                     DMESH_ERR_DATA_LOST);
    records(rec, &p, 2); /* a parity made for another set serves no one */
    lose(&rec[1]);
    rec[2].held_for ^= 2;
    ck_assert_int_eq(dmesh_copies_plan_restore(&p, rec, &v, src, from, refresh),
                     DMESH_ERR_DATA_LOST);
    dmesh_copies_plan_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copies_plan");
    TCase *tc = tcase_create("plan");
    SRunner *sr;
    int failed;

    tcase_set_timeout(tc, 300); /* the placements of every n <= 64: seconds in sanitized builds */
    tcase_add_test(tc, pick_dim);
    tcase_add_test(tc, partner_ring);
    tcase_add_test(tc, xor_sets);
    tcase_add_test(tc, partner_domains);
    tcase_add_test(tc, partner_domains_block);
    tcase_add_test(tc, xor_domains);
    tcase_add_test(tc, adopt);
    tcase_add_test(tc, restore_owner);
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
