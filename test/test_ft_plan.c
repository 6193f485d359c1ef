/* SPDX-License-Identifier: BSD-3-Clause */
/* The mesh that dmesh_shrink makes (lib/ft/shrink.h, dmesh_shrink_plan): which
 * indices of the shrunk dimension go, where the spares go, when the shape
 * cannot stay. The pure parts of dmesh_grow and dmesh_join (lib/ft/grow_plan.h,
 * lib/ft/join_message.h): the grown mesh's rank map, and the parents'
 * message, which a process must refuse when dmesh did not write it; where
 * dmesh_respawn's new processes go when hosts are named
 * (dmesh_respawn_hosts: its parser, and the replacements of one node kept
 * together on one host). Pure: runs in every build, with or without fault
 * tolerance. */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <stdlib.h>

#include <string.h>

#include "dmesh.h"
#include "ft/shrink.h"
#include "ft/grow_plan.h"
#include "ft/join_message.h"
#include "ft/respawn_plan.h"
#include "option_value.h"

/* Survivor ranks of a communicator of size, failed[] dead (-1 ended). */
static void survivors(int size, const int failed[], int out[])
{
    int r, k, next = 0;

    for (r = 0; r < size; r++) {
        int dead = 0;
        for (k = 0; failed[k] >= 0; k++)
            dead |= failed[k] == r;
        out[r] = dead ? DMESH_SHRINK_FAILED : next++;
    }
}

static const int ID6[6] = {0, 1, 2, 3, 4, 5};

static void expect(int err, int want_err, int ndims, const int shape[], const int want_shape[],
                   int n, const int ranks[], const int want[], int want_n)
{
    ck_assert_int_eq(err, want_err);
    if (want_err != DMESH_SUCCESS)
        return;
    for (int d = 0; d < ndims; d++)
        ck_assert_int_eq(shape[d], want_shape[d]);
    ck_assert_int_eq(n, want_n);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(ranks[i], want[i]);
}

START_TEST(shrink_dim0)
{
    int err, shape[2] = {3, 2}, failed[] = {1, -1}, s[8], ns[2], nr[6], n = 0;
    int want_shape[2] = {2, 2}, want[4] = {1, 2, 3, 4}; /* row 0 (0, 1) goes */

    survivors(8, failed, s);
    err = dmesh_shrink_plan(2, shape, 6, ID6, 8, s, 0, 0, ns, nr, &n);
    expect(err, DMESH_SUCCESS, 2, ns, want_shape, n, nr, want, 4);
}
END_TEST

START_TEST(shrink_dim1)
{
    int err, shape[2] = {3, 2}, failed[] = {1, -1}, s[8], ns[2], nr[6], n = 0;
    int want_shape[2] = {3, 1}, want[3] = {0, 1, 3}; /* column 1 (1, 3, 5) goes */

    survivors(8, failed, s);
    err = dmesh_shrink_plan(2, shape, 6, ID6, 8, s, 1, 0, ns, nr, &n);
    expect(err, DMESH_SUCCESS, 2, ns, want_shape, n, nr, want, 3);
}
END_TEST

START_TEST(spares_keep_shape)
{
    int err, shape[2] = {3, 2}, failed[] = {4, 1, -1}, s[8], ns[2], nr[6], n = 0;
    /* failed 1 and 4 (lowest first) take spares 6 and 7: survivors 4 and 5 */
    int want_shape[2] = {3, 2}, want[6] = {0, 4, 1, 2, 5, 3};

    survivors(8, failed, s);
    err = dmesh_shrink_plan(2, shape, 6, ID6, 8, s, DMESH_KEEP_SHAPE, 1, ns, nr, &n);
    expect(err, DMESH_SUCCESS, 2, ns, want_shape, n, nr, want, 6);
}
END_TEST

START_TEST(spares_too_few)
{
    int err, shape[2] = {3, 2}, failed[] = {1, 4, -1}, s[7], ns[2], nr[6], n = 0;
    int want_shape[2] = {2, 2}, want[4] = {0, 4, 1, 2}; /* 1 takes spare 6; row 2 (4) goes */

    survivors(7, failed, s);
    ck_assert_int_eq(dmesh_shrink_plan(2, shape, 6, ID6, 7, s, DMESH_KEEP_SHAPE, 1, ns, nr, &n),
                     DMESH_ERR_SIZE);
    ck_assert_int_eq(dmesh_shrink_plan(2, shape, 6, ID6, 7, s, DMESH_KEEP_SHAPE, 0, ns, nr, &n),
                     DMESH_ERR_SIZE);
    err = dmesh_shrink_plan(2, shape, 6, ID6, 7, s, 0, 1, ns, nr, &n);
    expect(err, DMESH_SUCCESS, 2, ns, want_shape, n, nr, want, 4);
}
END_TEST

START_TEST(every_index_lost)
{
    int shape[2] = {2, 2}, failed[] = {0, 3, -1}, s[4], ns[2], nr[4], n = 0;

    survivors(4, failed, s);
    ck_assert_int_eq(dmesh_shrink_plan(2, shape, 4, ID6, 4, s, 0, 0, ns, nr, &n), DMESH_ERR_SIZE);
}
END_TEST

START_TEST(failed_spare_only)
{
    int err, shape[2] = {3, 2}, failed[] = {7, -1}, s[8], ns[2], nr[6], n = 0;
    int want_shape[2] = {3, 2}, want[6] = {0, 1, 2, 3, 4, 5};

    survivors(8, failed, s);
    err = dmesh_shrink_plan(2, shape, 6, ID6, 8, s, DMESH_KEEP_SHAPE, 0, ns, nr, &n);
    expect(err, DMESH_SUCCESS, 2, ns, want_shape, n, nr, want, 6);
}
END_TEST

START_TEST(tensor_order_kept)
{
    /* a tensor in another order: the survivors keep their places */
    int err, shape[1] = {4}, ranks[4] = {3, 1, 2, 0}, failed[] = {2, -1}, s[4], ns[1], nr[4], n = 0;
    int want_shape[1] = {3}, want[3] = {2, 1, 0};

    survivors(4, failed, s);
    err = dmesh_shrink_plan(1, shape, 4, ranks, 4, s, 0, 0, ns, nr, &n);
    expect(err, DMESH_SUCCESS, 1, ns, want_shape, n, nr, want, 3);
}
END_TEST

/* A (2, 2) root mesh over ranks 0..3 grows dim 1 by one index: (2, 3),
 * the old ranks at their coordinates, the new ranks 4 and 5 at (0, 2) and
 * (1, 2). dim 0: (3, 2), the new ones at (2, 0) and (2, 1). */
START_TEST(grow_plan)
{
    static const char text[] = "dmesh-mesh 1\ndevice cpu\nranks 4 identity\nroot - 2:2\n"
                               "root - 2:1\ndim - 2:2 mpi\ndim - 2:1 mpi\nis-root 1\nend\n";
    static const int want1[6] = {0, 1, 4, 2, 3, 5}, want0[6] = {0, 1, 2, 3, 4, 5};
    dmesh_saved_t s;
    int nnewcomers = 0, i, dim;

    for (dim = 0; dim < 2; dim++) {
        ck_assert_int_eq(dmesh_saved_parse(text, &s), DMESH_SUCCESS);
        ck_assert_int_eq(dmesh_grow_plan(&s, dim, 1, 4, &nnewcomers), DMESH_SUCCESS);
        ck_assert_int_eq(nnewcomers, 2);
        ck_assert_int_eq(s.n, 6);
        ck_assert_ptr_nonnull(s.rank_map);
        for (i = 0; i < 6; i++)
            ck_assert_int_eq(s.rank_map[i], dim == 1 ? want1[i] : want0[i]);
        ck_assert_int_eq(s.root[dim].axis.atoms[0].size, 3);
        dmesh_saved_free(&s);
    }
}
END_TEST

/* A slice is no root: it cannot grow. */
START_TEST(grow_plan_not_root)
{
    static const char text[] = "dmesh-mesh 1\ndevice cpu\nranks 4 identity\nroot - 2:2\n"
                               "root - 2:1\ndim - 2:1 mpi\nis-root 0\nend\n";
    dmesh_saved_t s;
    int nnewcomers = 0;

    ck_assert_int_eq(dmesh_saved_parse(text, &s), DMESH_SUCCESS);
    ck_assert_int_eq(dmesh_grow_plan(&s, 0, 1, 4, &nnewcomers), DMESH_ERR_ARG);
    dmesh_saved_free(&s);
}
END_TEST

/* n so large that the dim's size overflows int: DMESH_ERR_SIZE, checked
 * without the overflow itself (n = INT_MAX - 1 on a dim of 2; with -O2 a
 * check after a signed sum could fold away). */
START_TEST(grow_plan_overflow)
{
    static const char text[] = "dmesh-mesh 1\ndevice cpu\nranks 4 identity\nroot - 2:2\n"
                               "root - 2:1\ndim - 2:2 mpi\ndim - 2:1 mpi\nis-root 1\nend\n";
    static const int ns[3] = {INT_MAX - 1, INT_MAX, INT_MAX / 2};
    dmesh_saved_t s;
    int nnewcomers = 0, i;

    for (i = 0; i < 3; i++) {
        ck_assert_int_eq(dmesh_saved_parse(text, &s), DMESH_SUCCESS);
        ck_assert_int_eq(dmesh_grow_plan(&s, 1, ns[i], 4, &nnewcomers), DMESH_ERR_SIZE);
        ck_assert_int_eq(s.n, 4); /* untouched */
        dmesh_saved_free(&s);
    }
}
END_TEST

/* The parents' message comes back as packed (a NULL text or keys as "");
 * a wrong magic, version or length, or a rank out of range, is
 * DMESH_ERR_ARG. */
START_TEST(join_message)
{
    dmesh_join_message_t m, got;
    int newcomer_rank[2] = {1, 3}, len = 0;
    char text[] = "mesh", *buf = NULL;

    memset(&m, 0, sizeof(m));
    m.reason = DMESH_JOIN_RESPAWN;
    m.size = 4;
    m.nnewcomers = 2;
    m.newcomer_rank = newcomer_rank;
    m.text = text;
    ck_assert_int_eq(dmesh_join_pack(&m, &buf, &len), DMESH_SUCCESS);
    ck_assert_int_eq(len, DMESH_JOIN_HEADER_BYTES + 2 * 4 + 5 + 1);
    ck_assert_int_eq(dmesh_join_unpack(buf, len, &got), DMESH_SUCCESS);
    ck_assert_int_eq(got.reason, DMESH_JOIN_RESPAWN);
    ck_assert_int_eq(got.status, DMESH_SUCCESS);
    ck_assert_int_eq(got.size, 4);
    ck_assert_int_eq(got.nnewcomers, 2);
    ck_assert_int_eq(got.newcomer_rank[0], 1);
    ck_assert_int_eq(got.newcomer_rank[1], 3);
    ck_assert_str_eq(got.text, "mesh");
    ck_assert_str_eq(got.keys, "");
    dmesh_join_message_free(&got);
    ck_assert_int_eq(dmesh_join_unpack(buf, len - 1, &got), DMESH_ERR_ARG);
    ck_assert_ptr_null(got.newcomer_rank);
    buf[0] ^= 1; /* the magic */
    ck_assert_int_eq(dmesh_join_unpack(buf, len, &got), DMESH_ERR_ARG);
    buf[0] ^= 1;
    buf[4] ^= 2; /* the version */
    ck_assert_int_eq(dmesh_join_unpack(buf, len, &got), DMESH_ERR_ARG);
    buf[4] ^= 2;
    memcpy(buf + DMESH_JOIN_HEADER_BYTES, &(int32_t){9}, sizeof(int32_t)); /* rank 9 of 4 */
    ck_assert_int_eq(dmesh_join_unpack(buf, len, &got), DMESH_ERR_ARG);
    ck_assert_ptr_null(got.newcomer_rank);
    ck_assert_ptr_null(got.text);
    free(buf);
}
END_TEST

/* n ints of got are want's. */
static void same(const int got[], const int want[], int n)
{
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(got[i], want[i]);
}

/* 8 ranks on 4 nodes of 2 (block), nodes h2 (ranks 2, 3) and h4 (6, 7)
 * lost: each node's replacements go together to one host, the nodes in
 * order of their lowest rank; one host takes both nodes; cyclic placement
 * (ranks 1, 3 on one node) keeps a node together too; unknown nodes: one
 * group, on the first host. */
START_TEST(hosts_plan)
{
    const int block[8] = {0, 0, 2, 2, 4, 4, 6, 6}, cyclic[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    int newcomer_rank[4] = {2, 3, 6, 7}, cp[4] = {1, 2, 3, 5}, up[2] = {2, 6}, count[3];

    ck_assert_int_eq(dmesh_respawn_hosts_plan(4, newcomer_rank, block, 2, count), DMESH_SUCCESS);
    same(count, (const int[]){2, 2}, 2);
    same(newcomer_rank, (const int[]){2, 3, 6, 7}, 4);
    ck_assert_int_eq(dmesh_respawn_hosts_plan(4, newcomer_rank, block, 1, count), DMESH_SUCCESS);
    ck_assert_int_eq(count[0], 4);
    /* cyclic: ranks 1, 3, 5 on node 1, rank 2 on node 0 */
    ck_assert_int_eq(dmesh_respawn_hosts_plan(4, cp, cyclic, 3, count), DMESH_SUCCESS);
    same(count, (const int[]){3, 1, 0}, 3);
    same(cp, (const int[]){1, 3, 5, 2}, 4);
    ck_assert_int_eq(dmesh_respawn_hosts_plan(2, up, NULL, 2, count), DMESH_SUCCESS);
    same(count, (const int[]){2, 0}, 2);
    same(up, (const int[]){2, 6}, 2);
}
END_TEST

/* dmesh_respawn_hosts: a comma list of host names; an empty entry, a
 * count ("h3:2") or a space is DMESH_ERR_ARG naming the entry. */
START_TEST(hosts_option)
{
    char names[64];
    int n = 0;

    ck_assert_int_eq(dmesh_option_hosts("k", "h3", names, &n), DMESH_SUCCESS);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(names, "h3");
    ck_assert_int_eq(dmesh_option_hosts("k", "node-3.a_b,h4", names, &n), DMESH_SUCCESS);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(names, "node-3.a_b");
    ck_assert_str_eq(names + strlen(names) + 1, "h4");
    n = 7;
    ck_assert_int_eq(dmesh_option_hosts("k", "h3,,h4", names, &n), DMESH_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(dmesh_last_error(), "host 2 is empty"));
    ck_assert_int_eq(n, 7);
    ck_assert_int_eq(dmesh_option_hosts("k", "", names, &n), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_option_hosts("k", "h3,", names, &n), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_option_hosts("k", "h3:2", names, &n), DMESH_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(dmesh_last_error(), "host 1, \"h3:2\", has ':'"));
    ck_assert_int_eq(dmesh_option_hosts("k", "h3, h4", names, &n), DMESH_ERR_ARG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ft_plan");
    TCase *tc = tcase_create("plan");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, shrink_dim0);
    tcase_add_test(tc, shrink_dim1);
    tcase_add_test(tc, spares_keep_shape);
    tcase_add_test(tc, spares_too_few);
    tcase_add_test(tc, every_index_lost);
    tcase_add_test(tc, failed_spare_only);
    tcase_add_test(tc, tensor_order_kept);
    tcase_add_test(tc, grow_plan);
    tcase_add_test(tc, grow_plan_not_root);
    tcase_add_test(tc, grow_plan_overflow);
    tcase_add_test(tc, join_message);
    tcase_add_test(tc, hosts_plan);
    tcase_add_test(tc, hosts_option);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
